module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xbf16>, %arg1: tensor<16x24xbf16>, %arg2: tensor<24xbf16>) -> (tensor<8x24xbf16> {jax.result_info = "result[0]"}, tensor<8x24xf32> {jax.result_info = "result[1]"}, tensor<24xf32> {jax.result_info = "result[2]"}, tensor<8x16xbf16> {jax.result_info = "result[3]"}, tensor<8x24xbf16> {jax.result_info = "result[4]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xbf16>, tensor<16x24xbf16>) -> tensor<8x24xf32>
    %1 = stablehlo.convert %0 : (tensor<8x24xf32>) -> tensor<8x24xbf16>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<24xbf16>) -> tensor<1x24xbf16>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x24xbf16>) -> tensor<8x24xbf16>
    %4 = stablehlo.add %1, %3 : tensor<8x24xbf16>
    %5 = stablehlo.tanh %4 : tensor<8x24xbf16>
    %6 = stablehlo.convert %5 : (tensor<8x24xbf16>) -> tensor<8x24xf32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8x24xf32>, tensor<f32>) -> tensor<24xf32>
    %8 = stablehlo.multiply %arg0, %arg0 : tensor<8x16xbf16>
    %9 = stablehlo.slice %arg2 [0:16] : (tensor<24xbf16>) -> tensor<16xbf16>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<16xbf16>) -> tensor<1x16xbf16>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x16xbf16>) -> tensor<8x16xbf16>
    %12 = stablehlo.add %8, %11 : tensor<8x16xbf16>
    %13 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<8x16xbf16>, tensor<16x24xbf16>) -> tensor<8x24xbf16>
    return %5, %0, %7, %12, %13 : tensor<8x24xbf16>, tensor<8x24xf32>, tensor<24xf32>, tensor<8x16xbf16>, tensor<8x24xbf16>
  }
}
