module @jit_shard_map_in_scan attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg0) : tensor<i32>, tensor<8x4xf32>
    cond {
      %c_1 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg_0) : (tensor<8x4xf32>) -> tensor<8x4xf32>
      %c_1 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>
      stablehlo.return %2, %1 : tensor<i32>, tensor<8x4xf32>
    }
    return %0#1 : tensor<8x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = stablehlo.custom_call @Sharding(%arg0) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<8x4xf32>) -> tensor<8x4xf32>
    %1 = stablehlo.custom_call @SPMDFullToShardShape(%0) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<8x4xf32>) -> tensor<2x4xf32>
    %2 = call @shmap_body(%1) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %3 = stablehlo.custom_call @Sharding(%2) {backend_config = "", mhlo.sharding = "{manual}"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %4 = stablehlo.custom_call @SPMDShardToFullShape(%3) {backend_config = "", mhlo.sharding = "{devices=[4,1]<=[4]}"} : (tensor<2x4xf32>) -> tensor<8x4xf32>
    return %4 : tensor<8x4xf32>
  }
  func.func private @shmap_body(%arg0: tensor<2x4xf32>) -> (tensor<2x4xf32> {jax.result_info = "[('d',), None]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %4 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %4 : tensor<f32>
    }) : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %cst = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<2x4xf32>
    %3 = stablehlo.add %2, %arg0 : tensor<2x4xf32>
    return %3 : tensor<2x4xf32>
  }
}
