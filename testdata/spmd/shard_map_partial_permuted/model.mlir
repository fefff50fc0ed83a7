module @jit_shard_map_partial_permuted attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {}]>}, %arg1: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result[0]", sdy.sharding = #sdy.sharding<@mesh, [{"y"}, {}]>}, tensor<8xf32> {jax.result_info = "result[1]", sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %0:2 = sdy.manual_computation(%arg0, %arg1) in_shardings=[<@mesh, [{"x", ?}, {?}]>, <@mesh, [{?}, {?}]>] out_shardings=[<@mesh, [{?}, {?}]>, <@mesh, [{"x", ?}]>] manual_axes={"x"} (%arg2: tensor<8x8xf32>, %arg3: tensor<8x4xf32>) {
      %1 = sdy.sharding_constraint %arg2 <@mesh, [{"y"}, {}]> : tensor<8x8xf32>
      %2 = sdy.sharding_constraint %1 <@mesh, [{?}, {?}]> : tensor<8x8xf32>
      %3 = stablehlo.dot_general %2, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
      %4 = sdy.sharding_constraint %3 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %5 = stablehlo.tanh %4 : tensor<8x4xf32>
      %6 = sdy.sharding_constraint %5 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %7 = sdy.sharding_constraint %6 <@mesh, [{"y"}, {}]> : tensor<8x4xf32>
      %8 = sdy.sharding_constraint %7 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %9 = "stablehlo.all_reduce"(%8) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 4], [1, 5], [2, 6], [3, 7]]> : tensor<4x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
        %13 = stablehlo.add %arg4, %arg5 : tensor<f32>
        %14 = sdy.sharding_constraint %13 <@mesh, []> : tensor<f32>
        stablehlo.return %14 : tensor<f32>
      }) : (tensor<8x4xf32>) -> tensor<8x4xf32>
      %10 = sdy.sharding_constraint %7 <@mesh, [{?}, {?}]> : tensor<8x4xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %11 = stablehlo.reduce(%10 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<8x4xf32>, tensor<f32>) -> tensor<4xf32>
      %12 = sdy.sharding_constraint %11 <@mesh, [{?}]> : tensor<4xf32>
      sdy.return %9, %12 : tensor<8x4xf32>, tensor<4xf32>
    } : (tensor<16x8xf32>, tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8xf32>)
    return %0#0, %0#1 : tensor<8x4xf32>, tensor<8xf32>
  }
}
