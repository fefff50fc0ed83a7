module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf32>, %arg1: tensor<10xf32>, %arg2: tensor<10xf32>, %arg3: tensor<10xf32>) -> (tensor<10xf32> {jax.result_info = "result[0]"}, tensor<10xf32> {jax.result_info = "result[1]"}, tensor<10xf32> {jax.result_info = "result[2]"}, tensor<10xf32> {jax.result_info = "result[3]"}, tensor<10xf32> {jax.result_info = "result[4]"}, tensor<10xf32> {jax.result_info = "result[5]"}, tensor<10xf32> {jax.result_info = "result[6]"}) {
    %0 = chlo.next_after %arg0, %arg1 : tensor<10xf32>, tensor<10xf32> -> tensor<10xf32>
    %1 = chlo.erf_inv %arg2 : tensor<10xf32> -> tensor<10xf32>
    %2 = chlo.lgamma %arg3 : tensor<10xf32> -> tensor<10xf32>
    %3 = chlo.digamma %arg3 : tensor<10xf32> -> tensor<10xf32>
    %4 = chlo.erfc %arg2 : tensor<10xf32> -> tensor<10xf32>
    %5 = stablehlo.abs %arg3 : tensor<10xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %7 = stablehlo.add %5, %6 : tensor<10xf32>
    %8 = chlo.lgamma %7 : tensor<10xf32> -> tensor<10xf32>
    %9 = stablehlo.abs %arg3 : tensor<10xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %11 = stablehlo.add %9, %10 : tensor<10xf32>
    %12 = stablehlo.abs %arg2 : tensor<10xf32>
    %cst_1 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %14 = stablehlo.multiply %12, %13 : tensor<10xf32>
    %15 = stablehlo.compare NE, %11, %11, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %16 = stablehlo.compare NE, %14, %14, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %17 = stablehlo.or %15, %16 : tensor<10xi1>
    %cst_2 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %19 = stablehlo.compare EQ, %14, %18, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %21 = stablehlo.compare EQ, %11, %20, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %23 = stablehlo.compare EQ, %14, %22, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %25 = stablehlo.compare LT, %14, %24, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %27 = stablehlo.compare LT, %11, %26, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %28 = stablehlo.and %21, %23 : tensor<10xi1>
    %29 = stablehlo.or %25, %27 : tensor<10xi1>
    %30 = stablehlo.or %29, %28 : tensor<10xi1>
    %31 = stablehlo.or %30, %17 : tensor<10xi1>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %33 = stablehlo.compare GE, %14, %32, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %34 = stablehlo.compare GT, %14, %11, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %35 = stablehlo.and %33, %34 : tensor<10xi1>
    %36 = stablehlo.log %14 : tensor<10xf32>
    %37 = stablehlo.multiply %11, %36 : tensor<10xf32>
    %38 = stablehlo.subtract %37, %14 : tensor<10xf32>
    %39 = chlo.lgamma %11 : tensor<10xf32> -> tensor<10xf32>
    %40 = stablehlo.subtract %38, %39 : tensor<10xf32>
    %cst_8 = stablehlo.constant dense<3.40282347E+38> : tensor<f32>
    %41 = stablehlo.log %cst_8 : tensor<f32>
    %42 = stablehlo.negate %41 : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %44 = stablehlo.compare LT, %40, %43, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %45 = stablehlo.exponential %40 : tensor<10xf32>
    %46 = stablehlo.or %23, %31 : tensor<10xi1>
    %47 = stablehlo.or %46, %44 : tensor<10xi1>
    %48 = stablehlo.or %47, %19 : tensor<10xi1>
    %49 = stablehlo.not %48 : tensor<10xi1>
    %50 = stablehlo.and %49, %35 : tensor<10xi1>
    %cst_9 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %52 = stablehlo.subtract %51, %11 : tensor<10xf32>
    %53 = stablehlo.add %14, %52 : tensor<10xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %55 = stablehlo.add %53, %54 : tensor<10xf32>
    %cst_11 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %58 = stablehlo.add %14, %57 : tensor<10xf32>
    %59 = stablehlo.multiply %55, %14 : tensor<10xf32>
    %60 = stablehlo.divide %58, %59 : tensor<10xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %65 = stablehlo.negate %14 : tensor<10xf32>
    %66 = stablehlo.multiply %60, %65 : tensor<10xf32>
    %67 = stablehlo.subtract %64, %66 : tensor<10xf32>
    %68 = stablehlo.divide %67, %59 : tensor<10xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %69:15 = stablehlo.while(%iterArg = %50, %iterArg_26 = %60, %iterArg_27 = %61, %iterArg_28 = %52, %iterArg_29 = %55, %iterArg_30 = %cst_17, %iterArg_31 = %58, %iterArg_32 = %59, %iterArg_33 = %56, %iterArg_34 = %14, %iterArg_35 = %62, %iterArg_36 = %63, %iterArg_37 = %64, %iterArg_38 = %65, %iterArg_39 = %68) : tensor<10xi1>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
    cond {
      %cst_40 = stablehlo.constant dense<2.000000e+03> : tensor<f32>
      %89 = stablehlo.compare LT, %iterArg_30, %cst_40, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c = stablehlo.constant dense<false> : tensor<i1>
      %90 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<10xi1>, tensor<i1>) -> tensor<i1>
      %91 = stablehlo.and %89, %90 : tensor<i1>
      stablehlo.return %91 : tensor<i1>
    } do {
      %cst_40 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %89 = stablehlo.add %iterArg_30, %cst_40 : tensor<f32>
      %cst_41 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %90 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %91 = stablehlo.add %iterArg_28, %90 : tensor<10xf32>
      %cst_42 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %92 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %93 = stablehlo.add %iterArg_29, %92 : tensor<10xf32>
      %94 = stablehlo.broadcast_in_dim %89, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %95 = stablehlo.multiply %91, %94 : tensor<10xf32>
      %96 = stablehlo.multiply %iterArg_31, %93 : tensor<10xf32>
      %97 = stablehlo.multiply %iterArg_33, %95 : tensor<10xf32>
      %98 = stablehlo.subtract %96, %97 : tensor<10xf32>
      %99 = stablehlo.multiply %iterArg_32, %93 : tensor<10xf32>
      %100 = stablehlo.multiply %iterArg_34, %95 : tensor<10xf32>
      %101 = stablehlo.subtract %99, %100 : tensor<10xf32>
      %cst_43 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %102 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %103 = stablehlo.compare NE, %101, %102, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
      %104 = stablehlo.divide %98, %101 : tensor<10xf32>
      %105 = stablehlo.subtract %iterArg_26, %104 : tensor<10xf32>
      %106 = stablehlo.divide %105, %104 : tensor<10xf32>
      %107 = stablehlo.abs %106 : tensor<10xf32>
      %cst_44 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %108 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %109 = stablehlo.select %103, %107, %108 : tensor<10xi1>, tensor<10xf32>
      %110 = stablehlo.select %103, %104, %iterArg_26 : tensor<10xi1>, tensor<10xf32>
      %111 = stablehlo.multiply %iterArg_37, %93 : tensor<10xf32>
      %112 = stablehlo.subtract %111, %iterArg_31 : tensor<10xf32>
      %113 = stablehlo.multiply %iterArg_35, %95 : tensor<10xf32>
      %114 = stablehlo.subtract %112, %113 : tensor<10xf32>
      %115 = stablehlo.broadcast_in_dim %89, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %116 = stablehlo.multiply %iterArg_33, %115 : tensor<10xf32>
      %117 = stablehlo.add %114, %116 : tensor<10xf32>
      %118 = stablehlo.multiply %iterArg_38, %93 : tensor<10xf32>
      %119 = stablehlo.subtract %118, %iterArg_32 : tensor<10xf32>
      %120 = stablehlo.multiply %iterArg_36, %95 : tensor<10xf32>
      %121 = stablehlo.subtract %119, %120 : tensor<10xf32>
      %122 = stablehlo.broadcast_in_dim %89, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %123 = stablehlo.multiply %iterArg_34, %122 : tensor<10xf32>
      %124 = stablehlo.add %121, %123 : tensor<10xf32>
      %125 = stablehlo.multiply %110, %124 : tensor<10xf32>
      %126 = stablehlo.subtract %117, %125 : tensor<10xf32>
      %127 = stablehlo.divide %126, %101 : tensor<10xf32>
      %128 = stablehlo.select %103, %127, %iterArg_39 : tensor<10xi1>, tensor<10xf32>
      %129 = stablehlo.subtract %128, %iterArg_39 : tensor<10xf32>
      %130 = stablehlo.abs %129 : tensor<10xf32>
      %cst_45 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %131 = stablehlo.broadcast_in_dim %cst_45, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %132 = stablehlo.select %103, %130, %131 : tensor<10xi1>, tensor<10xf32>
      %133 = stablehlo.abs %98 : tensor<10xf32>
      %cst_46 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %cst_47 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %134 = stablehlo.broadcast_in_dim %cst_47, dims = [] : (tensor<f32>) -> tensor<f32>
      %135 = stablehlo.divide %134, %cst_46 : tensor<f32>
      %136 = stablehlo.broadcast_in_dim %135, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %137 = stablehlo.compare GT, %133, %136, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
      %cst_48 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %138 = stablehlo.broadcast_in_dim %cst_48, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %139 = stablehlo.multiply %iterArg_31, %138 : tensor<10xf32>
      %140 = stablehlo.select %137, %139, %iterArg_31 : tensor<10xi1>, tensor<10xf32>
      %cst_49 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %141 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %142 = stablehlo.multiply %98, %141 : tensor<10xf32>
      %143 = stablehlo.select %137, %142, %98 : tensor<10xi1>, tensor<10xf32>
      %cst_50 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %144 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %145 = stablehlo.multiply %iterArg_32, %144 : tensor<10xf32>
      %146 = stablehlo.select %137, %145, %iterArg_32 : tensor<10xi1>, tensor<10xf32>
      %cst_51 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %147 = stablehlo.broadcast_in_dim %cst_51, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %148 = stablehlo.multiply %101, %147 : tensor<10xf32>
      %149 = stablehlo.select %137, %148, %101 : tensor<10xi1>, tensor<10xf32>
      %cst_52 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %150 = stablehlo.broadcast_in_dim %cst_52, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %151 = stablehlo.multiply %iterArg_37, %150 : tensor<10xf32>
      %152 = stablehlo.select %137, %151, %iterArg_37 : tensor<10xi1>, tensor<10xf32>
      %cst_53 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %153 = stablehlo.broadcast_in_dim %cst_53, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %154 = stablehlo.multiply %iterArg_38, %153 : tensor<10xf32>
      %155 = stablehlo.select %137, %154, %iterArg_38 : tensor<10xi1>, tensor<10xf32>
      %cst_54 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %156 = stablehlo.broadcast_in_dim %cst_54, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %157 = stablehlo.multiply %117, %156 : tensor<10xf32>
      %158 = stablehlo.select %137, %157, %117 : tensor<10xi1>, tensor<10xf32>
      %cst_55 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %159 = stablehlo.broadcast_in_dim %cst_55, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %160 = stablehlo.multiply %124, %159 : tensor<10xf32>
      %161 = stablehlo.select %137, %160, %124 : tensor<10xi1>, tensor<10xf32>
      %cst_56 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %162 = stablehlo.broadcast_in_dim %cst_56, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %163 = stablehlo.compare GT, %109, %162, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
      %164 = stablehlo.and %iterArg, %163 : tensor<10xi1>
      %165 = stablehlo.select %iterArg, %110, %iterArg_26 : tensor<10xi1>, tensor<10xf32>
      %166 = stablehlo.select %iterArg, %109, %iterArg_27 : tensor<10xi1>, tensor<10xf32>
      %167 = stablehlo.select %iterArg, %91, %iterArg_28 : tensor<10xi1>, tensor<10xf32>
      %168 = stablehlo.select %iterArg, %93, %iterArg_29 : tensor<10xi1>, tensor<10xf32>
      %169 = stablehlo.select %iterArg, %143, %iterArg_31 : tensor<10xi1>, tensor<10xf32>
      %170 = stablehlo.select %iterArg, %149, %iterArg_32 : tensor<10xi1>, tensor<10xf32>
      %171 = stablehlo.select %iterArg, %140, %iterArg_33 : tensor<10xi1>, tensor<10xf32>
      %172 = stablehlo.select %iterArg, %146, %iterArg_34 : tensor<10xi1>, tensor<10xf32>
      %173 = stablehlo.select %iterArg, %152, %iterArg_35 : tensor<10xi1>, tensor<10xf32>
      %174 = stablehlo.select %iterArg, %155, %iterArg_36 : tensor<10xi1>, tensor<10xf32>
      %175 = stablehlo.select %iterArg, %158, %iterArg_37 : tensor<10xi1>, tensor<10xf32>
      %176 = stablehlo.select %iterArg, %161, %iterArg_38 : tensor<10xi1>, tensor<10xf32>
      %177 = stablehlo.select %iterArg, %128, %iterArg_39 : tensor<10xi1>, tensor<10xf32>
      stablehlo.return %164, %165, %166, %167, %168, %89, %169, %170, %171, %172, %173, %174, %175, %176, %177 : tensor<10xi1>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<f32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
    }
    %70 = stablehlo.multiply %69#1, %45 : tensor<10xf32>
    %cst_18 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %72 = stablehlo.subtract %71, %70 : tensor<10xf32>
    %73 = stablehlo.not %35 : tensor<10xi1>
    %74 = stablehlo.and %49, %73 : tensor<10xi1>
    %cst_19 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %cst_22 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %78 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %79:7 = stablehlo.while(%iterArg = %74, %iterArg_26 = %11, %iterArg_27 = %75, %iterArg_28 = %76, %iterArg_29 = %14, %iterArg_30 = %77, %iterArg_31 = %78) : tensor<10xi1>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
    cond {
      %c = stablehlo.constant dense<false> : tensor<i1>
      %89 = stablehlo.reduce(%iterArg init: %c) applies stablehlo.or across dimensions = [0] : (tensor<10xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %89 : tensor<i1>
    } do {
      %cst_32 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %89 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %90 = stablehlo.add %iterArg_26, %89 : tensor<10xf32>
      %91 = stablehlo.divide %iterArg_29, %90 : tensor<10xf32>
      %92 = stablehlo.multiply %iterArg_30, %91 : tensor<10xf32>
      %93 = stablehlo.multiply %iterArg_27, %iterArg_29 : tensor<10xf32>
      %94 = stablehlo.multiply %90, %90 : tensor<10xf32>
      %95 = stablehlo.divide %93, %94 : tensor<10xf32>
      %96 = stablehlo.subtract %92, %95 : tensor<10xf32>
      %97 = stablehlo.add %iterArg_31, %96 : tensor<10xf32>
      %98 = stablehlo.divide %iterArg_29, %90 : tensor<10xf32>
      %99 = stablehlo.multiply %iterArg_27, %98 : tensor<10xf32>
      %100 = stablehlo.add %iterArg_28, %99 : tensor<10xf32>
      %101 = stablehlo.divide %99, %100 : tensor<10xf32>
      %cst_33 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
      %102 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %103 = stablehlo.compare GT, %101, %102, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
      %104 = stablehlo.and %iterArg, %103 : tensor<10xi1>
      %105 = stablehlo.select %iterArg, %90, %iterArg_26 : tensor<10xi1>, tensor<10xf32>
      %106 = stablehlo.select %iterArg, %99, %iterArg_27 : tensor<10xi1>, tensor<10xf32>
      %107 = stablehlo.select %iterArg, %100, %iterArg_28 : tensor<10xi1>, tensor<10xf32>
      %108 = stablehlo.select %iterArg, %iterArg_29, %iterArg_29 : tensor<10xi1>, tensor<10xf32>
      %109 = stablehlo.select %iterArg, %96, %iterArg_30 : tensor<10xi1>, tensor<10xf32>
      %110 = stablehlo.select %iterArg, %97, %iterArg_31 : tensor<10xi1>, tensor<10xf32>
      stablehlo.return %104, %105, %106, %107, %108, %109, %110 : tensor<10xi1>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
    }
    %80 = stablehlo.multiply %79#3, %45 : tensor<10xf32>
    %81 = stablehlo.divide %80, %11 : tensor<10xf32>
    %82 = stablehlo.select %35, %72, %81 : tensor<10xi1>, tensor<10xf32>
    %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %84 = stablehlo.select %23, %83, %82 : tensor<10xi1>, tensor<10xf32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %86 = stablehlo.select %19, %85, %84 : tensor<10xi1>, tensor<10xf32>
    %cst_25 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %88 = stablehlo.select %31, %87, %86 : tensor<10xi1>, tensor<10xf32>
    return %0, %1, %2, %3, %4, %8, %88 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>
  }
}
