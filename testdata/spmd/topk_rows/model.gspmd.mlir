module @jit_topk_rows attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x10xf32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}) -> (tensor<16x3xf32> {jax.result_info = "result[0]"}, tensor<16x3xi32> {jax.result_info = "result[1]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<16x10xf32> -> (tensor<16x3xf32>, tensor<16x3xi32>)
    return %values, %indices : tensor<16x3xf32>, tensor<16x3xi32>
  }
}
