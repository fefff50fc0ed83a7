module @jit_shard_map_1d attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x16xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<1x16xf32> {jax.result_info = "result[0]"}, tensor<8x16xf32> {jax.result_info = "result[1]"}, tensor<8x16xf32> {jax.result_info = "result[2]"}, tensor<8x16xf32> {jax.result_info = "result[3]"}, tensor<8x2xf32> {jax.result_info = "result[4]"}, tensor<8x16xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x16xf32>) -> tensor<1x16xf32>
    %2:6 = call @shmap_body(%1) : (tensor<1x16xf32>) -> (tensor<1x16xf32>, tensor<8x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x2xf32>, tensor<1x16xf32>)
    %3 = stablehlo.custom_call @Sharding(%2#0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %5 = stablehlo.custom_call @Sharding(%2#1) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %6 = stablehlo.custom_call @SPMDShardToFullShape(%5) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %7 = stablehlo.custom_call @Sharding(%2#2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %8 = stablehlo.custom_call @SPMDShardToFullShape(%7) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %9 = stablehlo.custom_call @Sharding(%2#3) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %10 = stablehlo.custom_call @SPMDShardToFullShape(%9) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %11 = stablehlo.custom_call @Sharding(%2#4) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x2xf32>) -> tensor<1x2xf32>
    %12 = stablehlo.custom_call @SPMDShardToFullShape(%11) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<1x2xf32>) -> tensor<8x2xf32>
    %13 = stablehlo.custom_call @Sharding(%2#5) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %14 = stablehlo.custom_call @SPMDShardToFullShape(%13) {backend_config = "", mhlo.sharding = "{devices=[8,1]<=[8]}"} : (tensor<1x16xf32>) -> tensor<8x16xf32>
    return %4, %6, %8, %10, %12, %14 : tensor<1x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x2xf32>, tensor<8x16xf32>
  }
  func.func private @shmap_body(%arg0: tensor<1x16xf32>) -> (tensor<1x16xf32> {jax.result_info = "[None, None]"}, tensor<8x16xf32> {jax.result_info = "[None, None]"}, tensor<1x16xf32> {jax.result_info = "[('d',), None]"}, tensor<1x16xf32> {jax.result_info = "[('d',), None]"}, tensor<1x2xf32> {jax.result_info = "[('d',), None]"}, tensor<1x16xf32> {jax.result_info = "[('d',), None]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %13 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %13 : tensor<f32>
    }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %1 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
    %2 = "stablehlo.collective_permute"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %3 = "stablehlo.all_to_all"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 1 : i64}> : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %4 = "stablehlo.reduce_scatter"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %13 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %13 : tensor<f32>
    }) : (tensor<1x16xf32>) -> tensor<1x2xf32>
    %5 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %13 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %13 : tensor<f32>
    }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
    %c = stablehlo.constant dense<1> : tensor<ui32>
    %c_0 = stablehlo.constant dense<8> : tensor<ui32>
    %6 = stablehlo.partition_id : tensor<ui32>
    %7 = stablehlo.divide %6, %c : tensor<ui32>
    %8 = stablehlo.remainder %7, %c_0 : tensor<ui32>
    %9 = stablehlo.convert %8 : (tensor<ui32>) -> tensor<i32>
    %10 = stablehlo.convert %9 : (tensor<i32>) -> tensor<f32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
    %12 = stablehlo.add %5, %11 : tensor<1x16xf32>
    return %0, %1, %2, %3, %4, %12 : tensor<1x16xf32>, tensor<8x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x2xf32>, tensor<1x16xf32>
  }
}
