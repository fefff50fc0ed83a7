module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5x5x3xf32>, %arg1: tensor<3x3x3x4xf32>, %arg2: tensor<2x5x5x6xf32>) -> (tensor<2x3x3x4xf32> {jax.result_info = "result[0]"}, tensor<3x3x3x4xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<4x5x5x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x3x3x4xf32>
    %1 = stablehlo.convolution(%arg2, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<2x5x5x6xf32>, tensor<3x3x3x4xf32>) -> tensor<2x5x5x4xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x5x5x4xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<2x5x5x4xf32>
    %4 = stablehlo.multiply %2, %1 : tensor<2x5x5x4xf32>
    %5 = stablehlo.add %3, %4 : tensor<2x5x5x4xf32>
    %6 = stablehlo.convolution(%arg2, %5) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 2 : i64, feature_group_count = 1 : i64} : (tensor<2x5x5x6xf32>, tensor<2x5x5x4xf32>) -> tensor<3x3x3x4xf32>
    return %0, %6 : tensor<2x3x3x4xf32>, tensor<3x3x3x4xf32>
  }
}
