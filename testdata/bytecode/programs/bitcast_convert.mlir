module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xi32>, %arg2: tensor<3x4xui8>, %arg3: tensor<6xf16>) -> (tensor<8xi32> {jax.result_info = "result[0]"}, tensor<8xui32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8x4xui8> {jax.result_info = "result[3]"}, tensor<3xf32> {jax.result_info = "result[4]"}, tensor<6xi16> {jax.result_info = "result[5]"}, tensor<6xf16> {jax.result_info = "result[6]"}) {
    %c = stablehlo.constant dense<1> : tensor<i16>
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<8xf32>) -> tensor<8xi32>
    %1 = stablehlo.bitcast_convert %arg0 : (tensor<8xf32>) -> tensor<8xui32>
    %2 = stablehlo.bitcast_convert %arg1 : (tensor<8xi32>) -> tensor<8xf32>
    %3 = stablehlo.bitcast_convert %arg0 : (tensor<8xf32>) -> tensor<8x4xui8>
    %4 = stablehlo.bitcast_convert %arg2 : (tensor<3x4xui8>) -> tensor<3xf32>
    %5 = stablehlo.bitcast_convert %arg3 : (tensor<6xf16>) -> tensor<6xi16>
    %6 = stablehlo.bitcast_convert %arg3 : (tensor<6xf16>) -> tensor<6xi16>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i16>) -> tensor<6xi16>
    %8 = stablehlo.add %6, %7 : tensor<6xi16>
    %9 = stablehlo.bitcast_convert %8 : (tensor<6xi16>) -> tensor<6xf16>
    return %0, %1, %2, %3, %4, %5, %9 : tensor<8xi32>, tensor<8xui32>, tensor<8xf32>, tensor<8x4xui8>, tensor<3xf32>, tensor<6xi16>, tensor<6xf16>
  }
}
