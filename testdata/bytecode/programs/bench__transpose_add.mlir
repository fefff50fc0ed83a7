module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2048x2048xf32>, %arg1: tensor<2048x2048xf32>) -> (tensor<2048x2048xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
    %1 = stablehlo.add %0, %arg1 : tensor<2048x2048xf32>
    return %1 : tensor<2048x2048xf32>
  }
}
