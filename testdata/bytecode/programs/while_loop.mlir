module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<5xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<5xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %cst = stablehlo.constant dense<2.500000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0:4 = stablehlo.while(%iterArg = %arg0, %iterArg_3 = %c_1, %iterArg_4 = %arg1, %iterArg_5 = %cst_2) : tensor<i32>, tensor<i32>, tensor<5xf32>, tensor<f32>
    cond {
      %1 = stablehlo.compare LT, %iterArg_3, %iterArg, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %2 = stablehlo.multiply %iterArg_4, %1 : tensor<5xf32>
      %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %4 = stablehlo.subtract %2, %3 : tensor<5xf32>
      %5 = stablehlo.add %iterArg_3, %c : tensor<i32>
      %6 = stablehlo.reduce(%4 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
      %7 = stablehlo.add %iterArg_5, %6 : tensor<f32>
      stablehlo.return %iterArg, %5, %4, %7 : tensor<i32>, tensor<i32>, tensor<5xf32>, tensor<f32>
    }
    return %0#1, %0#2, %0#3 : tensor<i32>, tensor<5xf32>, tensor<f32>
  }
}
