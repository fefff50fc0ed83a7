module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<6xf32>, %arg2: tensor<i1>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %1 = stablehlo.compare GT, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %9 = stablehlo.exponential %arg1 : tensor<6xf32>
      %10 = stablehlo.subtract %arg0, %9 : tensor<6xf32>
      stablehlo.return %10 : tensor<6xf32>
    }, {
      %9 = stablehlo.multiply %arg0, %arg1 : tensor<6xf32>
      %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %11 = stablehlo.add %9, %10 : tensor<6xf32>
      stablehlo.return %11 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %4 = stablehlo.convert %arg2 : (tensor<i1>) -> tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %9 = stablehlo.cosine %arg1 : tensor<6xf32>
      stablehlo.return %9 : tensor<6xf32>
    }, {
      %9 = stablehlo.sine %arg1 : tensor<6xf32>
      stablehlo.return %9 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %6 = stablehlo.not %arg2 : tensor<i1>
    %7 = stablehlo.convert %6 : (tensor<i1>) -> tensor<i32>
    %8 = "stablehlo.case"(%7) ({
      %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %10 = stablehlo.multiply %arg1, %9 : tensor<6xf32>
      stablehlo.return %10 : tensor<6xf32>
    }, {
      %9 = stablehlo.sine %arg1 : tensor<6xf32>
      stablehlo.return %9 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    return %3, %5, %8 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
  }
}
