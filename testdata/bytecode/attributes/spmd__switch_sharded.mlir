module @jit_switch_sharded attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=4]> {stablehlo.mesh = {axes = [{name = "d", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<i32> {sdy.sharding = #sdy.sharding<@mesh, []>}, %arg1: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg0, %c_0 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %2 = stablehlo.sine %arg1 : tensor<8x4xf32>
      stablehlo.return %2 : tensor<8x4xf32>
    }, {
      %2 = stablehlo.cosine %arg1 : tensor<8x4xf32>
      stablehlo.return %2 : tensor<8x4xf32>
    }, {
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
      %3 = stablehlo.multiply %arg1, %2 : tensor<8x4xf32>
      stablehlo.return %3 : tensor<8x4xf32>
    }) : (tensor<i32>) -> tensor<8x4xf32>
    return %1 : tensor<8x4xf32>
  }
}
