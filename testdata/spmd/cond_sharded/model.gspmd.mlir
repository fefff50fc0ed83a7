module @jit_cond_sharded attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<16x4xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<16x4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.compare GT, %0, %cst_0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
      %5 = stablehlo.subtract %arg1, %4 : tensor<16x4xf32>
      stablehlo.return %5 : tensor<16x4xf32>
    }, {
      %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
      %5 = stablehlo.multiply %arg1, %4 : tensor<16x4xf32>
      stablehlo.return %5 : tensor<16x4xf32>
    }) : (tensor<i32>) -> tensor<16x4xf32>
    return %3 : tensor<16x4xf32>
  }
}
