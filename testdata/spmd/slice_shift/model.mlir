module @jit_slice_shift attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=4]> {stablehlo.mesh = {axes = [{name = "d", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<15x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [1:16, 0:4] : (tensor<16x4xf32>) -> tensor<15x4xf32>
    %1 = stablehlo.slice %arg0 [0:15, 0:4] : (tensor<16x4xf32>) -> tensor<15x4xf32>
    %2 = stablehlo.subtract %0, %1 : tensor<15x4xf32>
    return %2 : tensor<15x4xf32>
  }
}
