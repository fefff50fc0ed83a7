module @jit_shard_map_in_scan attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=4]> {stablehlo.mesh = {axes = [{name = "d", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c_1, %iterArg_2 = %arg0) : tensor<i32>, tensor<8x4xf32>
    cond {
      %1 = stablehlo.compare LT, %iterArg, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_2) : (tensor<8x4xf32>) -> tensor<8x4xf32>
      %2 = stablehlo.add %iterArg, %c : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<8x4xf32>
    }
    return %0#1 : tensor<8x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"d"}, {}]>] out_shardings=[<@mesh, [{"d"}, {}]>] manual_axes={"d"} (%arg1: tensor<2x4xf32>) {
      %cst = stablehlo.constant dense<2.500000e-01> : tensor<f32>
      %1 = "stablehlo.all_reduce"(%arg1) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %5 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %5 : tensor<f32>
      }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
      %3 = stablehlo.multiply %1, %2 : tensor<2x4xf32>
      %4 = stablehlo.add %3, %arg1 : tensor<2x4xf32>
      sdy.return %4 : tensor<2x4xf32>
    } : (tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}
