module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x4xf32>) -> (tensor<3x4xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.map"(%arg0, %arg1) <{dimensions = array<i64: 0, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %3 = stablehlo.multiply %arg2, %arg3 : tensor<f32>
      %4 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      %5 = stablehlo.add %3, %4 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<3x4xf32>
    return %2 : tensor<3x4xf32>
  }
}
