module @jit_every_collective attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=8]> {stablehlo.mesh = {axes = [{name = "x", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"x"}, {}]>] out_shardings=[<@mesh, [{"x"}, {}]>] manual_axes={"x"} (%arg1: tensor<1x16xf32>) {
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %27 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %27 : tensor<f32>
      }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %2 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %27 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
        stablehlo.return %27 : tensor<f32>
      }) : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %3 = "stablehlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, use_global_device_ids}> : (tensor<1x16xf32>) -> tensor<8x16xf32>
      %4 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 0]]> : tensor<8x2xi64>}> : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %5 = "stablehlo.collective_permute"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [2, 3], [4, 5]]> : tensor<3x2xi64>}> : (tensor<1x16xf32>) -> tensor<1x16xf32>
      %6 = "stablehlo.all_to_all"(%3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, split_count = 8 : i64, split_dimension = 0 : i64}> : (tensor<8x16xf32>) -> tensor<8x16xf32>
      %7 = "stablehlo.reduce_scatter"(%3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>, scatter_dimension = 0 : i64, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %27 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %27 : tensor<f32>
      }) : (tensor<8x16xf32>) -> tensor<1x16xf32>
      %c = stablehlo.constant dense<1> : tensor<ui32>
      %c_0 = stablehlo.constant dense<8> : tensor<ui32>
      %8 = stablehlo.partition_id : tensor<ui32>
      %9 = stablehlo.divide %8, %c : tensor<ui32>
      %10 = stablehlo.remainder %9, %c_0 : tensor<ui32>
      %11 = stablehlo.convert %10 : (tensor<ui32>) -> tensor<i32>
      %12 = stablehlo.convert %11 : (tensor<i32>) -> tensor<f32>
      %13 = stablehlo.add %1, %2 : tensor<1x16xf32>
      %14 = stablehlo.add %13, %4 : tensor<1x16xf32>
      %15 = stablehlo.add %14, %5 : tensor<1x16xf32>
      %16 = stablehlo.add %15, %7 : tensor<1x16xf32>
      %17 = stablehlo.slice %6 [0:1, 0:16] : (tensor<8x16xf32>) -> tensor<1x16xf32>
      %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %18 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
      %19 = stablehlo.multiply %17, %18 : tensor<1x16xf32>
      %20 = stablehlo.add %16, %19 : tensor<1x16xf32>
      %21 = stablehlo.slice %3 [3:4, 0:16] : (tensor<8x16xf32>) -> tensor<1x16xf32>
      %cst_1 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
      %22 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
      %23 = stablehlo.multiply %21, %22 : tensor<1x16xf32>
      %24 = stablehlo.add %20, %23 : tensor<1x16xf32>
      %25 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
      %26 = stablehlo.add %24, %25 : tensor<1x16xf32>
      sdy.return %26 : tensor<1x16xf32>
    } : (tensor<8x16xf32>) -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}
