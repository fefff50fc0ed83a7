module @jit_shard_map_1d attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]> {stablehlo.mesh = {axes = [{name = "d", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<1x16xf32> {jax.result_info = "result[0]"}, tensor<8x16xf32> {jax.result_info = "result[1]"}, tensor<8x16xf32> {jax.result_info = "result[2]"}, tensor<8x16xf32> {jax.result_info = "result[3]"}, tensor<8x2xf32> {jax.result_info = "result[4]"}, tensor<8x16xf32> {jax.result_info = "result[5]"}) {
    %0:6 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"d"}, {}]>] out_shardings=[<@mesh, [{}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"d"}, {}]>, <@mesh, [{"d"}, {}]>, <@mesh, [{"d"}, {}]>, <@mesh, [{"d"}, {}]>] manual_axes={"d"} (%arg1: tensor<1x16xf32>) {
      %c = stablehlo.constant dense<8> : tensor<ui32>
      %c_0 = stablehlo.constant dense<1> : tensor<ui32>
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %2 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
      %3 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %4 = "stablehlo.all_to_all"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, concat_dimension = 1 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 1 : i64}> : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %5 = "stablehlo.reduce_scatter"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 1 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<1x16xf32>) -> tensor<1x2xf32>
      %6 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %14 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %7 = stablehlo.partition_id : tensor<ui32>
      %8 = stablehlo.divide %7, %c_0 : tensor<ui32>
      %9 = stablehlo.remainder %8, %c : tensor<ui32>
      %10 = stablehlo.convert %9 : (tensor<ui32>) -> tensor<i32>
      %11 = stablehlo.convert %10 : (tensor<i32>) -> tensor<f32>
      %12 = stablehlo.broadcast_in_dim %11, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
      %13 = stablehlo.add %6, %12 : tensor<1x16xf32>
      sdy.return %1, %2, %3, %4, %5, %13 : tensor<1x16xf32>, tensor<8x16xf32>, tensor<1x16xf32>, tensor<1x16xf32>, tensor<1x2xf32>, tensor<1x16xf32>
    } : (tensor<8x16xf32>) -> (tensor<1x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x2xf32>, tensor<8x16xf32>)
    return %0#0, %0#1, %0#2, %0#3, %0#4, %0#5 : tensor<1x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x2xf32>, tensor<8x16xf32>
  }
}
