module @jit_shard_map_partial_y attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}) -> (tensor<8x4xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, tensor<8x16xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}) {
    %0:2 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{?}, {"y", ?}]>] out_shardings=[<@mesh, [{?}, {?}]>, <@mesh, [{?}, {"y", ?}]>] manual_axes={"y"} (%arg1: tensor<8x4xf32>) {
      %1 = sdy.sharding_constraint %arg1 <@mesh, [{"x"}, {}]> : tensor<8x4xf32>
      %2 = sdy.sharding_constraint %1 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %3 = stablehlo.exponential %2 : tensor<8x4xf32>
      %4 = sdy.sharding_constraint %3 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
      %6 = sdy.sharding_constraint %5 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %7 = stablehlo.multiply %4, %6 : tensor<8x4xf32>
      %8 = sdy.sharding_constraint %7 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %9 = "stablehlo.all_reduce"(%8) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %10 = stablehlo.add %arg2, %arg3 : tensor<f32>
        %11 = sdy.sharding_constraint %10 <@mesh, []> : tensor<f32>
        stablehlo.return %11 : tensor<f32>
      }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
      sdy.return %9, %8 : tensor<8x4xf32>, tensor<8x4xf32>
    } : (tensor<8x16xf32>) -> (tensor<8x4xf32>, tensor<8x16xf32>)
    return %0#0, %0#1 : tensor<8x4xf32>, tensor<8x16xf32>
  }
}
