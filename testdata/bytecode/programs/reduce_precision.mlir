module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<48xf32>) -> (tensor<48xf32> {jax.result_info = "result[0]"}, tensor<48xf32> {jax.result_info = "result[1]"}, tensor<48xf32> {jax.result_info = "result[2]"}, tensor<48xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<48xf32>
    %1 = stablehlo.reduce_precision %arg0, format = e8m7 : tensor<48xf32>
    %2 = stablehlo.reduce_precision %arg0, format = e4m3 : tensor<48xf32>
    %3 = stablehlo.reduce_precision %arg0, format = e8m0 : tensor<48xf32>
    return %0, %1, %2, %3 : tensor<48xf32>, tensor<48xf32>, tensor<48xf32>, tensor<48xf32>
  }
}
