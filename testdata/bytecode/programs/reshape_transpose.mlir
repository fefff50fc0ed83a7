module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4x5xf32>) -> (tensor<5x3x2x4xf32> {jax.result_info = "result[0]"}, tensor<6x20xf32> {jax.result_info = "result[1]"}, tensor<20x2x3xf32> {jax.result_info = "result[2]"}, tensor<40x3xf32> {jax.result_info = "result[3]"}, tensor<1x3x4x5x2xf32> {jax.result_info = "result[4]"}, tensor<2x4x1x5xf32> {jax.result_info = "result[5]"}, tensor<15x8xf32> {jax.result_info = "result[6]"}, tensor<120xf32> {jax.result_info = "result[7]"}) {
    %0 = stablehlo.transpose %arg0, dims = [3, 1, 0, 2] : (tensor<2x3x4x5xf32>) -> tensor<5x3x2x4xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<2x3x4x5xf32>) -> tensor<6x20xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<2x3x4x5xf32>) -> tensor<2x3x20xf32>
    %3 = stablehlo.transpose %2, dims = [2, 0, 1] : (tensor<2x3x20xf32>) -> tensor<20x2x3xf32>
    %4 = stablehlo.transpose %arg0, dims = [0, 3, 2, 1] : (tensor<2x3x4x5xf32>) -> tensor<2x5x4x3xf32>
    %5 = stablehlo.reshape %4 : (tensor<2x5x4x3xf32>) -> tensor<40x3xf32>
    %6 = stablehlo.transpose %arg0, dims = [1, 2, 3, 0] : (tensor<2x3x4x5xf32>) -> tensor<3x4x5x2xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1, 2, 3, 4] : (tensor<3x4x5x2xf32>) -> tensor<1x3x4x5x2xf32>
    %8 = stablehlo.slice %arg0 [0:2, 0:1, 0:4, 0:5] : (tensor<2x3x4x5xf32>) -> tensor<2x1x4x5xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2, 4] : (tensor<2x1x4x5xf32>) -> tensor<2x1x4x1x5xf32>
    %10 = stablehlo.reshape %9 : (tensor<2x1x4x1x5xf32>) -> tensor<2x4x1x5xf32>
    %11 = stablehlo.transpose %arg0, dims = [0, 2, 1, 3] : (tensor<2x3x4x5xf32>) -> tensor<2x4x3x5xf32>
    %12 = stablehlo.reshape %11 : (tensor<2x4x3x5xf32>) -> tensor<8x15xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<8x15xf32>) -> tensor<15x8xf32>
    %14 = stablehlo.transpose %arg0, dims = [1, 0, 3, 2] : (tensor<2x3x4x5xf32>) -> tensor<3x2x5x4xf32>
    %15 = stablehlo.reshape %14 : (tensor<3x2x5x4xf32>) -> tensor<120xf32>
    return %0, %1, %3, %5, %7, %10, %13, %15 : tensor<5x3x2x4xf32>, tensor<6x20xf32>, tensor<20x2x3xf32>, tensor<40x3xf32>, tensor<1x3x4x5x2xf32>, tensor<2x4x1x5xf32>, tensor<15x8xf32>, tensor<120xf32>
  }
}
