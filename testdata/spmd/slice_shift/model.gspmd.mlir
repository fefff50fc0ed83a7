module @jit_slice_shift attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x4xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<15x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [1:16, 0:4] : (tensor<16x4xf32>) -> tensor<15x4xf32>
    %1 = stablehlo.slice %arg0 [0:15, 0:4] : (tensor<16x4xf32>) -> tensor<15x4xf32>
    %2 = stablehlo.subtract %0, %1 : tensor<15x4xf32>
    return %2 : tensor<15x4xf32>
  }
}
