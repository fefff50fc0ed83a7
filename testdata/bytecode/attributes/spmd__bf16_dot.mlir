module @jit_bf16_dot attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]> {stablehlo.mesh = {axes = [{name = "d", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"d"}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<8x8xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<8x32xf32>) -> tensor<8x32xbf16>
    %1 = stablehlo.convert %arg1 : (tensor<32x8xf32>) -> tensor<32x8xbf16>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<8x32xbf16>, tensor<32x8xbf16>) -> tensor<8x8xbf16>
    %3 = stablehlo.convert %2 : (tensor<8x8xbf16>) -> tensor<8x8xf32>
    return %3 : tensor<8x8xf32>
  }
}
