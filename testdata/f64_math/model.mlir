module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf64>, %arg1: tensor<12xf64>, %arg2: tensor<4x5xf64>) -> (tensor<12xf64> {jax.result_info = "result[0]"}, tensor<12xf64> {jax.result_info = "result[1]"}, tensor<12xf64> {jax.result_info = "result[2]"}, tensor<12xf64> {jax.result_info = "result[3]"}, tensor<12xf64> {jax.result_info = "result[4]"}, tensor<12xf64> {jax.result_info = "result[5]"}, tensor<12xf64> {jax.result_info = "result[6]"}, tensor<12xf64> {jax.result_info = "result[7]"}, tensor<12xf64> {jax.result_info = "result[8]"}, tensor<12xf64> {jax.result_info = "result[9]"}, tensor<12xf64> {jax.result_info = "result[10]"}, tensor<12xf64> {jax.result_info = "result[11]"}, tensor<f64> {jax.result_info = "result[12]"}, tensor<4x4xf64> {jax.result_info = "result[13]"}, tensor<12xf64> {jax.result_info = "result[14]"}, tensor<12xf64> {jax.result_info = "result[15]"}, tensor<12xf64> {jax.result_info = "result[16]"}) {
    %0 = stablehlo.exponential %arg0 : tensor<12xf64>
    %1 = stablehlo.abs %arg0 : tensor<12xf64>
    %2 = stablehlo.log %1 : tensor<12xf64>
    %3 = stablehlo.tanh %arg0 : tensor<12xf64>
    %4 = stablehlo.sine %arg0 : tensor<12xf64>
    %5 = stablehlo.cosine %arg0 : tensor<12xf64>
    %6 = stablehlo.abs %arg0 : tensor<12xf64>
    %7 = stablehlo.sqrt %6 : tensor<12xf64>
    %8 = stablehlo.exponential_minus_one %arg0 : tensor<12xf64>
    %9 = stablehlo.abs %arg0 : tensor<12xf64>
    %10 = stablehlo.log_plus_one %9 : tensor<12xf64>
    %11 = chlo.erf %arg0 : tensor<12xf64> -> tensor<12xf64>
    %12 = stablehlo.abs %arg0 : tensor<12xf64>
    %13 = stablehlo.power %12, %arg1 : tensor<12xf64>
    %14 = stablehlo.atan2 %arg0, %arg1 : tensor<12xf64>
    %15 = stablehlo.divide %arg0, %arg1 : tensor<12xf64>
    %16 = stablehlo.multiply %arg0, %arg1 : tensor<12xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %17 = stablehlo.reduce(%16 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<12xf64>, tensor<f64>) -> tensor<f64>
    %18 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<4x5xf64>) -> tensor<5x4xf64>
    %19 = stablehlo.dot_general %arg2, %18, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x5xf64>, tensor<5x4xf64>) -> tensor<4x4xf64>
    %20 = stablehlo.negate %arg0 : tensor<12xf64>
    %21 = stablehlo.exponential %20 : tensor<12xf64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %22 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %23 = stablehlo.add %22, %21 : tensor<12xf64>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %24 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %25 = stablehlo.divide %24, %23 : tensor<12xf64>
    %cst_2 = stablehlo.constant dense<1.000000e+01> : tensor<f64>
    %26 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %27 = stablehlo.multiply %arg0, %26 : tensor<12xf64>
    %28 = stablehlo.floor %27 : tensor<12xf64>
    %cst_3 = stablehlo.constant dense<1.000000e+01> : tensor<f64>
    %29 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %30 = stablehlo.multiply %arg0, %29 : tensor<12xf64>
    %31 = call @round(%30) : (tensor<12xf64>) -> tensor<12xf64>
    return %0, %2, %3, %4, %5, %7, %8, %10, %11, %13, %14, %15, %17, %19, %25, %28, %31 : tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<f64>, tensor<4x4xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>
  }
  func.func private @round(%arg0: tensor<12xf64>) -> tensor<12xf64> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<12xf64>
    return %0 : tensor<12xf64>
  }
}
