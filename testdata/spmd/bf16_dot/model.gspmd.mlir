module @jit_bf16_dot attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x32xf32> {mhlo.sharding = "{devices=[1,8]<=[8]}"}, %arg1: tensor<32x8xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<8x32xf32>) -> tensor<8x32xbf16>
    %1 = stablehlo.convert %arg1 : (tensor<32x8xf32>) -> tensor<32x8xbf16>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x8xbf16>) -> tensor<8x8xbf16>
    %3 = stablehlo.convert %2 : (tensor<8x8xbf16>) -> tensor<8x8xf32>
    return %3 : tensor<8x8xf32>
  }
}
