module @jit_batch_dot attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]> {stablehlo.mesh = {axes = [{name = "d", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}, {}]>}, %arg1: tensor<8x6x5xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}, {}]>}) -> (tensor<8x4x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<8x4x6xf32>, tensor<8x6x5xf32>) -> tensor<8x4x5xf32>
    return %0 : tensor<8x4x5xf32>
  }
}
