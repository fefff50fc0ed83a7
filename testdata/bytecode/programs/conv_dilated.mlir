module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x9x9x2xf32>, %arg1: tensor<3x3x2x4xf32>) -> (tensor<1x4x16x4xf32> {jax.result_info = "result[0]"}, tensor<1x9x9x4xf32> {jax.result_info = "result[1]"}, tensor<1x19x19x4xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 2], [0, 1]], lhs_dilate = [1, 2], rhs_dilate = [2, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x9x9x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x16x4xf32>
    %1 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[2, 2], [2, 2]], rhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x9x9x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x9x9x4xf32>
    %2 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[2, 2], [2, 2]], lhs_dilate = [2, 2]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x9x9x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x19x19x4xf32>
    return %0, %1, %2 : tensor<1x4x16x4xf32>, tensor<1x9x9x4xf32>, tensor<1x19x19x4xf32>
  }
}
