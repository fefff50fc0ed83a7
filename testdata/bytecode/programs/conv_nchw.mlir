module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x6x7xf32>, %arg1: tensor<4x3x3x2xf32>, %arg2: tensor<3x3x3x5xf32>, %arg3: tensor<2x2x10xf32>, %arg4: tensor<3x2x3xf32>) -> (tensor<2x4x6x4xf32> {jax.result_info = "result[0]"}, tensor<2x6x7x5xf32> {jax.result_info = "result[1]"}, tensor<2x3x10xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 2], pad = [[1, 1], [0, 2]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x6x7xf32>, tensor<4x3x3x2xf32>) -> tensor<2x4x6x4xf32>
    %1 = stablehlo.convolution(%arg0, %arg2) dim_numbers = [b, f, 0, 1]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x6x7xf32>, tensor<3x3x3x5xf32>) -> tensor<2x6x7x5xf32>
    %2 = stablehlo.convolution(%arg3, %arg4) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {pad = [[2, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x2x10xf32>, tensor<3x2x3xf32>) -> tensor<2x3x10xf32>
    return %0, %1, %2 : tensor<2x4x6x4xf32>, tensor<2x6x7x5xf32>, tensor<2x3x10xf32>
  }
}
