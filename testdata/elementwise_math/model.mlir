module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<32xf32> {jax.result_info = "result[3]"}, tensor<32xf32> {jax.result_info = "result[4]"}, tensor<32xf32> {jax.result_info = "result[5]"}, tensor<32xf32> {jax.result_info = "result[6]"}, tensor<32xf32> {jax.result_info = "result[7]"}, tensor<32xf32> {jax.result_info = "result[8]"}, tensor<32xf32> {jax.result_info = "result[9]"}, tensor<32xf32> {jax.result_info = "result[10]"}, tensor<32xf32> {jax.result_info = "result[11]"}, tensor<32xf32> {jax.result_info = "result[12]"}, tensor<32xf32> {jax.result_info = "result[13]"}, tensor<32xf32> {jax.result_info = "result[14]"}, tensor<32xf32> {jax.result_info = "result[15]"}, tensor<32xf32> {jax.result_info = "result[16]"}, tensor<32xf32> {jax.result_info = "result[17]"}, tensor<32xf32> {jax.result_info = "result[18]"}, tensor<32xf32> {jax.result_info = "result[19]"}, tensor<32xf32> {jax.result_info = "result[20]"}, tensor<32xf32> {jax.result_info = "result[21]"}, tensor<32xf32> {jax.result_info = "result[22]"}, tensor<32xi1> {jax.result_info = "result[23]"}, tensor<32xf32> {jax.result_info = "result[24]"}, tensor<32xf32> {jax.result_info = "result[25]"}, tensor<32xf32> {jax.result_info = "result[26]"}, tensor<32xf32> {jax.result_info = "result[27]"}, tensor<32xf32> {jax.result_info = "result[28]"}, tensor<32xf32> {jax.result_info = "result[29]"}, tensor<32xf32> {jax.result_info = "result[30]"}, tensor<32xf32> {jax.result_info = "result[31]"}, tensor<32xf32> {jax.result_info = "result[32]"}, tensor<32xf32> {jax.result_info = "result[33]"}, tensor<32xf32> {jax.result_info = "result[34]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<32xf32>
    %1 = stablehlo.log %arg0 : tensor<32xf32>
    %2 = stablehlo.log_plus_one %arg0 : tensor<32xf32>
    %3 = stablehlo.exponential_minus_one %arg0 : tensor<32xf32>
    %4 = stablehlo.tanh %arg0 : tensor<32xf32>
    %5 = stablehlo.negate %arg0 : tensor<32xf32>
    %6 = stablehlo.exponential %5 : tensor<32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %8 = stablehlo.add %7, %6 : tensor<32xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %10 = stablehlo.divide %9, %8 : tensor<32xf32>
    %11 = stablehlo.negate %arg0 : tensor<32xf32>
    %12 = stablehlo.exponential %11 : tensor<32xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %14 = stablehlo.add %13, %12 : tensor<32xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %16 = stablehlo.divide %15, %14 : tensor<32xf32>
    %17 = chlo.erf %arg0 : tensor<32xf32> -> tensor<32xf32>
    %18 = stablehlo.sine %arg0 : tensor<32xf32>
    %19 = stablehlo.cosine %arg0 : tensor<32xf32>
    %20 = stablehlo.tan %arg0 : tensor<32xf32>
    %21 = stablehlo.atan2 %arg0, %arg1 : tensor<32xf32>
    %22 = stablehlo.power %arg0, %arg1 : tensor<32xf32>
    %23 = stablehlo.power %arg0, %arg1 : tensor<32xf32>
    %24 = stablehlo.cbrt %arg0 : tensor<32xf32>
    %25 = stablehlo.sqrt %arg0 : tensor<32xf32>
    %26 = stablehlo.rsqrt %arg0 : tensor<32xf32>
    %27 = stablehlo.abs %arg0 : tensor<32xf32>
    %28 = stablehlo.sign %arg0 : tensor<32xf32>
    %29 = stablehlo.floor %arg0 : tensor<32xf32>
    %30 = stablehlo.ceil %arg0 : tensor<32xf32>
    %31 = stablehlo.round_nearest_afz %arg0 : tensor<32xf32>
    %32 = stablehlo.round_nearest_even %arg0 : tensor<32xf32>
    %33 = stablehlo.is_finite %arg0 : (tensor<32xf32>) -> tensor<32xi1>
    %34 = stablehlo.negate %arg0 : tensor<32xf32>
    %35 = stablehlo.multiply %arg0, %arg1 : tensor<32xf32>
    %36 = stablehlo.divide %arg0, %arg1 : tensor<32xf32>
    %37 = stablehlo.subtract %arg0, %arg1 : tensor<32xf32>
    %38 = chlo.square %arg0 : tensor<32xf32> -> tensor<32xf32>
    %cst_3 = stablehlo.constant dense<0.693147182> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %40 = stablehlo.multiply %39, %arg0 : tensor<32xf32>
    %41 = stablehlo.exponential %40 : tensor<32xf32>
    %42 = stablehlo.log %arg0 : tensor<32xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %43 = stablehlo.log %cst_4 : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %45 = stablehlo.divide %42, %44 : tensor<32xf32>
    %46 = chlo.atan %arg0 : tensor<32xf32> -> tensor<32xf32>
    %47 = chlo.sinh %arg0 : tensor<32xf32> -> tensor<32xf32>
    %48 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
    %49 = stablehlo.multiply %48, %arg0 : tensor<32xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %51 = stablehlo.divide %50, %arg0 : tensor<32xf32>
    return %0, %1, %2, %3, %4, %10, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %41, %45, %46, %47, %49, %51 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xi1>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
  }
}
