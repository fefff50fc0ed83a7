module @jit_roll_sharded attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<16x4xf32> {jax.result_info = "result"}) {
    %0 = call @_roll_static(%arg0) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    return %0 : tensor<16x4xf32>
  }
  func.func private @_roll_static(%arg0: tensor<16x4xf32>) -> tensor<16x4xf32> {
    %0 = stablehlo.slice %arg0 [13:16, 0:4] : (tensor<16x4xf32>) -> tensor<3x4xf32>
    %1 = stablehlo.slice %arg0 [0:13, 0:4] : (tensor<16x4xf32>) -> tensor<13x4xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<3x4xf32>, tensor<13x4xf32>) -> tensor<16x4xf32>
    return %2 : tensor<16x4xf32>
  }
}
