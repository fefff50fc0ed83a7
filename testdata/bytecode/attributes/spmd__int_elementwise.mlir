module @jit_int_elementwise attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=2, "y"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 2 : i64}, {name = "y", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xi32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"y"}]>}, %arg1: tensor<16xi32> {sdy.sharding = #sdy.sharding<@mesh, [{"y"}]>}) -> (tensor<8x16xi32> {jax.result_info = "result[0]"}, tensor<8xi32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8x16xi32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8x16xi32>
    %2 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xi32>) -> tensor<1x16xi32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x16xi32>) -> tensor<8x16xi32>
    %4 = stablehlo.add %1, %3 : tensor<8x16xi32>
    %5 = stablehlo.reduce(%4 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<8x16xi32>, tensor<i32>) -> tensor<8xi32>
    return %4, %5 : tensor<8x16xi32>, tensor<8xi32>
  }
}
