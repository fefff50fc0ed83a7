module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf16>, %arg1: tensor<16x8xf16>, %arg2: tensor<8xf16>) -> (tensor<8x8xf16> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}, tensor<8xf16> {jax.result_info = "result[2]"}, tensor<8xf16> {jax.result_info = "result[3]"}, tensor<8x8xf16> {jax.result_info = "result[4]"}, tensor<8xf16> {jax.result_info = "result[5]"}) {
    %cst = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f16>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf16>, tensor<16x8xf16>) -> tensor<8x8xf32>
    %1 = stablehlo.convert %0 : (tensor<8x8xf32>) -> tensor<8x8xf16>
    %2 = stablehlo.negate %1 : tensor<8x8xf16>
    %3 = stablehlo.exponential %2 : tensor<8x8xf16>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f16>) -> tensor<8x8xf16>
    %5 = stablehlo.add %4, %3 : tensor<8x8xf16>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f16>) -> tensor<8x8xf16>
    %7 = stablehlo.divide %6, %5 : tensor<8x8xf16>
    %8 = stablehlo.multiply %arg2, %arg2 : tensor<8xf16>
    %9 = stablehlo.exponential %arg2 : tensor<8xf16>
    %10 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xf16>, tensor<16x8xf16>) -> tensor<8x8xf16>
    %11 = stablehlo.convert %arg0 : (tensor<8x16xf16>) -> tensor<8x16xf32>
    %12 = stablehlo.reduce(%11 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<8x16xf32>, tensor<f32>) -> tensor<8xf32>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %14 = stablehlo.divide %12, %13 : tensor<8xf32>
    %15 = stablehlo.convert %14 : (tensor<8xf32>) -> tensor<8xf16>
    return %7, %0, %8, %9, %10, %15 : tensor<8x8xf16>, tensor<8x8xf32>, tensor<8xf16>, tensor<8xf16>, tensor<8x8xf16>, tensor<8xf16>
  }
}
