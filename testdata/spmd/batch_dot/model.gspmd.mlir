module @jit_batch_dot attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4x6xf32> {mhlo.sharding = "{devices=[8,1,1]<=[8]}"}, %arg1: tensor<8x6x5xf32> {mhlo.sharding = "{devices=[8,1,1]<=[8]}"}) -> (tensor<8x4x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x4x6xf32>, tensor<8x6x5xf32>) -> tensor<8x4x5xf32>
    return %0 : tensor<8x4x5xf32>
  }
}
