module @jit_mesh3d attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x16xf32> {mhlo.sharding = "{devices=[2,2,2]<=[8] last_tile_dim_replicate}"}, %arg1: tensor<16x8xf32> {mhlo.sharding = "{devices=[2,2,2]<=[2,4]T(1,0) last_tile_dim_replicate}"}) -> (tensor<16x8xf32> {jax.result_info = "result", mhlo.sharding = "{devices=[2,2,2]<=[2,2,2]T(0,2,1) last_tile_dim_replicate}"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    return %0 : tensor<16x8xf32>
  }
}
