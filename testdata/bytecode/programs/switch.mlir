module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<5xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<1.000000e+01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg0, %c_1 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.multiply %arg3, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %6 = stablehlo.sine %arg3 : tensor<5xf32>
      stablehlo.return %6 : tensor<5xf32>
    }, {
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.subtract %arg3, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %2 = stablehlo.clamp %c, %arg1, %c_1 : tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.multiply %arg3, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %6 = stablehlo.sine %arg3 : tensor<5xf32>
      stablehlo.return %6 : tensor<5xf32>
    }, {
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.subtract %arg3, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %4 = stablehlo.clamp %c, %arg2, %c_1 : tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.multiply %arg3, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %6 = stablehlo.sine %arg3 : tensor<5xf32>
      stablehlo.return %6 : tensor<5xf32>
    }, {
      %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %7 = stablehlo.subtract %arg3, %6 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    return %1, %3, %5 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
  }
}
