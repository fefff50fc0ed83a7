module @jit_while_converge attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xf32> {mhlo.sharding = "{devices=[8]<=[8]}"}) -> (tensor<64xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.while(%iterArg = %arg0) : tensor<64xf32>
    cond {
      %1 = stablehlo.abs %iterArg : tensor<64xf32>
      %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<64xf32>, tensor<f32>) -> tensor<f32>
      %cst_0 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %3 = stablehlo.compare GT, %2, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64xf32>
      %2 = stablehlo.multiply %iterArg, %1 : tensor<64xf32>
      stablehlo.return %2 : tensor<64xf32>
    }
    return %0 : tensor<64xf32>
  }
}
