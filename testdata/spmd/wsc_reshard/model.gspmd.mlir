module @jit_wsc_reshard attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64x32xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}) -> (tensor<64x32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<64x32xf32>
    %1 = stablehlo.custom_call @Sharding(%0) {backend_config = "", mhlo.sharding = "{devices=[1,4,2]<=[8] last_tile_dim_replicate}"} : (tensor<64x32xf32>) -> tensor<64x32xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<64x32xf32>
    return %3 : tensor<64x32xf32>
  }
}
