module @jit_conv_feature attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6x6x3xf32> {mhlo.sharding = "{devices=[2,1,1,1,4]<=[8] last_tile_dim_replicate}"}, %arg1: tensor<3x3x3x8xf32> {mhlo.sharding = "{devices=[1,1,1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}) -> (tensor<4x4x4x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<4x6x6x3xf32>, tensor<3x3x3x8xf32>) -> tensor<4x4x4x8xf32>
    return %0 : tensor<4x4x4x8xf32>
  }
}
