module @jit_dot_free_same_axis_2d attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x2xf32> {mhlo.sharding = "{devices=[4,2]<=[8]}"}, %arg1: tensor<2x8xf32> {mhlo.sharding = "{devices=[2,4]<=[4,2]T(1,0)}"}) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x2xf32>, tensor<2x8xf32>) -> tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}
