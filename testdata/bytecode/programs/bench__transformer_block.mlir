module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x128x256xf32>, %arg1: tensor<256xf32>, %arg2: tensor<256xf32>, %arg3: tensor<256x256xf32>, %arg4: tensor<256x256xf32>, %arg5: tensor<256x256xf32>, %arg6: tensor<256x256xf32>, %arg7: tensor<256xf32>, %arg8: tensor<256xf32>, %arg9: tensor<256x1024xf32>, %arg10: tensor<1024xf32>, %arg11: tensor<1024x256xf32>, %arg12: tensor<256xf32>) -> (tensor<8x128x256xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %cst_2 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_4 = stablehlo.constant dense<-3.40282347E+38> : tensor<f32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %cst_5 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %cst_6 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %cst_7 = stablehlo.constant dense<2.560000e+02> : tensor<f32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %2 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<8x128x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x128x256xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<8x128x256xf32>
    %7 = stablehlo.reduce(%6 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %9 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<8x128x1xf32>
    %11 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<8x128x256xf32>
    %13 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %14 = stablehlo.add %10, %13 : tensor<8x128x1xf32>
    %15 = stablehlo.rsqrt %14 : tensor<8x128x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %17 = stablehlo.multiply %12, %16 : tensor<8x128x256xf32>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %20 = stablehlo.multiply %17, %19 : tensor<8x128x256xf32>
    %21 = stablehlo.broadcast_in_dim %arg2, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %23 = stablehlo.add %20, %22 : tensor<8x128x256xf32>
    %24 = stablehlo.dot_general %23, %arg3, contracting_dims = [2] x [0] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %25 = stablehlo.reshape %24 : (tensor<8x128x256xf32>) -> tensor<8x128x4x64xf32>
    %26 = stablehlo.transpose %25, dims = [0, 2, 1, 3] : (tensor<8x128x4x64xf32>) -> tensor<8x4x128x64xf32>
    %27 = stablehlo.dot_general %23, %arg4, contracting_dims = [2] x [0] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %28 = stablehlo.reshape %27 : (tensor<8x128x256xf32>) -> tensor<8x128x4x64xf32>
    %29 = stablehlo.transpose %28, dims = [0, 2, 1, 3] : (tensor<8x128x4x64xf32>) -> tensor<8x4x128x64xf32>
    %30 = stablehlo.dot_general %23, %arg5, contracting_dims = [2] x [0] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %31 = stablehlo.reshape %30 : (tensor<8x128x256xf32>) -> tensor<8x128x4x64xf32>
    %32 = stablehlo.transpose %31, dims = [0, 2, 1, 3] : (tensor<8x128x4x64xf32>) -> tensor<8x4x128x64xf32>
    %33 = stablehlo.dot_general %26, %29, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<8x4x128x64xf32>, tensor<8x4x128x64xf32>) -> tensor<8x4x128x128xf32>
    %34 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x4x128x128xf32>
    %35 = stablehlo.divide %33, %34 : tensor<8x4x128x128xf32>
    %36 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<128x128xi1>
    %37 = call @tril(%36) : (tensor<128x128xi1>) -> tensor<128x128xi1>
    %38 = call @_where(%37, %35, %cst_4) : (tensor<128x128xi1>, tensor<8x4x128x128xf32>, tensor<f32>) -> tensor<8x4x128x128xf32>
    %39 = stablehlo.reduce(%38 init: %cst_3) applies stablehlo.maximum across dimensions = [3] : (tensor<8x4x128x128xf32>, tensor<f32>) -> tensor<8x4x128xf32>
    %40 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8x4x128xf32>
    %41 = stablehlo.maximum %40, %39 : tensor<8x4x128xf32>
    %42 = stablehlo.broadcast_in_dim %41, dims = [0, 1, 2] : (tensor<8x4x128xf32>) -> tensor<8x4x128x1xf32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0, 1, 2, 3] : (tensor<8x4x128x1xf32>) -> tensor<8x4x128x128xf32>
    %44 = stablehlo.subtract %38, %43 : tensor<8x4x128x128xf32>
    %45 = stablehlo.exponential %44 : tensor<8x4x128x128xf32>
    %46 = stablehlo.reduce(%45 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<8x4x128x128xf32>, tensor<f32>) -> tensor<8x4x128xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2] : (tensor<8x4x128xf32>) -> tensor<8x4x128x1xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2, 3] : (tensor<8x4x128x1xf32>) -> tensor<8x4x128x128xf32>
    %49 = stablehlo.divide %45, %48 : tensor<8x4x128x128xf32>
    %50 = stablehlo.dot_general %49, %32, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : (tensor<8x4x128x128xf32>, tensor<8x4x128x64xf32>) -> tensor<8x4x128x64xf32>
    %51 = stablehlo.transpose %50, dims = [0, 2, 1, 3] : (tensor<8x4x128x64xf32>) -> tensor<8x128x4x64xf32>
    %52 = stablehlo.reshape %51 : (tensor<8x128x4x64xf32>) -> tensor<8x128x256xf32>
    %53 = stablehlo.dot_general %52, %arg6, contracting_dims = [2] x [0] : (tensor<8x128x256xf32>, tensor<256x256xf32>) -> tensor<8x128x256xf32>
    %54 = stablehlo.add %arg0, %53 : tensor<8x128x256xf32>
    %55 = stablehlo.reduce(%54 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %57 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %58 = stablehlo.divide %56, %57 : tensor<8x128x1xf32>
    %59 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %60 = stablehlo.subtract %54, %59 : tensor<8x128x256xf32>
    %61 = stablehlo.multiply %60, %60 : tensor<8x128x256xf32>
    %62 = stablehlo.reduce(%61 init: %cst_8) applies stablehlo.add across dimensions = [2] : (tensor<8x128x256xf32>, tensor<f32>) -> tensor<8x128xf32>
    %63 = stablehlo.broadcast_in_dim %62, dims = [0, 1] : (tensor<8x128xf32>) -> tensor<8x128x1xf32>
    %64 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %65 = stablehlo.divide %63, %64 : tensor<8x128x1xf32>
    %66 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %67 = stablehlo.subtract %54, %66 : tensor<8x128x256xf32>
    %68 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8x128x1xf32>
    %69 = stablehlo.add %65, %68 : tensor<8x128x1xf32>
    %70 = stablehlo.rsqrt %69 : tensor<8x128x1xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1, 2] : (tensor<8x128x1xf32>) -> tensor<8x128x256xf32>
    %72 = stablehlo.multiply %67, %71 : tensor<8x128x256xf32>
    %73 = stablehlo.broadcast_in_dim %arg7, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %74 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %75 = stablehlo.multiply %72, %74 : tensor<8x128x256xf32>
    %76 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %77 = stablehlo.broadcast_in_dim %76, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %78 = stablehlo.add %75, %77 : tensor<8x128x256xf32>
    %79 = stablehlo.dot_general %78, %arg9, contracting_dims = [2] x [0] : (tensor<8x128x256xf32>, tensor<256x1024xf32>) -> tensor<8x128x1024xf32>
    %80 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<1024xf32>) -> tensor<1x1x1024xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1, 2] : (tensor<1x1x1024xf32>) -> tensor<8x128x1024xf32>
    %82 = stablehlo.add %79, %81 : tensor<8x128x1024xf32>
    %83 = stablehlo.multiply %82, %82 : tensor<8x128x1024xf32>
    %84 = stablehlo.multiply %83, %82 : tensor<8x128x1024xf32>
    %85 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %86 = stablehlo.multiply %85, %84 : tensor<8x128x1024xf32>
    %87 = stablehlo.add %82, %86 : tensor<8x128x1024xf32>
    %88 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %89 = stablehlo.multiply %88, %87 : tensor<8x128x1024xf32>
    %90 = stablehlo.tanh %89 : tensor<8x128x1024xf32>
    %91 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %92 = stablehlo.add %91, %90 : tensor<8x128x1024xf32>
    %93 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x128x1024xf32>
    %94 = stablehlo.multiply %93, %92 : tensor<8x128x1024xf32>
    %95 = stablehlo.multiply %82, %94 : tensor<8x128x1024xf32>
    %96 = stablehlo.dot_general %95, %arg11, contracting_dims = [2] x [0] : (tensor<8x128x1024xf32>, tensor<1024x256xf32>) -> tensor<8x128x256xf32>
    %97 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %98 = stablehlo.broadcast_in_dim %97, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<8x128x256xf32>
    %99 = stablehlo.add %96, %98 : tensor<8x128x256xf32>
    %100 = stablehlo.add %54, %99 : tensor<8x128x256xf32>
    return %100 : tensor<8x128x256xf32>
  }
  func.func private @tril(%arg0: tensor<128x128xi1>) -> tensor<128x128xi1> {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<128x128xi32>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<128x128xi32>
    %2 = stablehlo.add %0, %1 : tensor<128x128xi32>
    %3 = stablehlo.iota dim = 1 : tensor<128x128xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<128x128xi32>, tensor<128x128xi32>) -> tensor<128x128xi1>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<128x128xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<128x128xi1>, tensor<128x128xi1>
    return %6 : tensor<128x128xi1>
  }
  func.func private @_where(%arg0: tensor<128x128xi1>, %arg1: tensor<8x4x128x128xf32>, %arg2: tensor<f32>) -> tensor<8x4x128x128xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<128x128xi1>) -> tensor<8x4x128x128xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<8x4x128x128xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<8x4x128x128xi1>, tensor<8x4x128x128xf32>
    return %2 : tensor<8x4x128x128xf32>
  }
}
