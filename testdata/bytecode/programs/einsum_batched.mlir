module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4x5xf32>, %arg2: tensor<2x2x3x4xf32>, %arg3: tensor<2x2x5x4xf32>, %arg4: tensor<3x6xf32>, %arg5: tensor<3x6xf32>) -> (tensor<2x3x5xf32> {jax.result_info = "result[0]"}, tensor<2x2x3x5xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}, tensor<4x4xf32> {jax.result_info = "result[3]"}, tensor<2x3x3xf32> {jax.result_info = "result[4]"}, tensor<6x6xf32> {jax.result_info = "result[5]"}, tensor<2x3x2x4xf32> {jax.result_info = "result[6]"}, tensor<f32> {jax.result_info = "result[7]"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %1 = stablehlo.dot_general %arg2, %arg3, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x5xf32>
    %2 = stablehlo.dot_general %arg4, %arg5, batching_dims = [0] x [0], contracting_dims = [1] x [1] : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3xf32>
    %3 = stablehlo.slice %arg0 [0:1, 0:3, 0:4] : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
    %4 = stablehlo.reshape %3 : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
    %5 = stablehlo.slice %arg0 [1:2, 0:3, 0:4] : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
    %7 = stablehlo.dot_general %4, %6, contracting_dims = [0] x [0] : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<4x4xf32>
    %8 = stablehlo.dot_general %arg0, %arg0, batching_dims = [0] x [0], contracting_dims = [2] x [2] : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
    %9 = stablehlo.slice %arg4 [0:1, 0:6] : (tensor<3x6xf32>) -> tensor<1x6xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x6xf32>) -> tensor<6xf32>
    %11 = stablehlo.slice %arg5 [1:2, 0:6] : (tensor<3x6xf32>) -> tensor<1x6xf32>
    %12 = stablehlo.reshape %11 : (tensor<1x6xf32>) -> tensor<6xf32>
    %13 = stablehlo.dot_general %10, %12, contracting_dims = [] x [] : (tensor<6xf32>, tensor<6xf32>) -> tensor<6x6xf32>
    %14 = stablehlo.transpose %arg2, dims = [0, 2, 1, 3] : (tensor<2x2x3x4xf32>) -> tensor<2x3x2x4xf32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3x2x4xf32>
    %16 = stablehlo.multiply %14, %15 : tensor<2x3x2x4xf32>
    %17 = stablehlo.reshape %arg4 : (tensor<3x6xf32>) -> tensor<18xf32>
    %18 = stablehlo.reshape %arg5 : (tensor<3x6xf32>) -> tensor<18xf32>
    %19 = stablehlo.dot_general %17, %18, contracting_dims = [0] x [0] : (tensor<18xf32>, tensor<18xf32>) -> tensor<f32>
    return %0, %1, %2, %7, %8, %13, %16, %19 : tensor<2x3x5xf32>, tensor<2x2x3x5xf32>, tensor<3xf32>, tensor<4x4xf32>, tensor<2x3x3xf32>, tensor<6x6xf32>, tensor<2x3x2x4xf32>, tensor<f32>
  }
}
