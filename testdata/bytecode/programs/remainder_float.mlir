module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<14xf32>, %arg1: tensor<14xf32>) -> (tensor<14xf32> {jax.result_info = "result[0]"}, tensor<14xf32> {jax.result_info = "result[1]"}, tensor<14xf32> {jax.result_info = "result[2]"}, tensor<14xf32> {jax.result_info = "result[3]"}) {
    %0 = call @fmod(%arg0, %arg1) : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
    %1 = stablehlo.remainder %arg0, %arg1 : tensor<14xf32>
    %2 = call @remainder(%arg0, %arg1) : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
    %3 = call @floor_divide(%arg0, %arg1) : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
    return %0, %1, %2, %3 : tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>
  }
  func.func private @fmod(%arg0: tensor<14xf32>, %arg1: tensor<14xf32>) -> tensor<14xf32> {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<14xf32>
    return %0 : tensor<14xf32>
  }
  func.func private @remainder(%arg0: tensor<14xf32>, %arg1: tensor<14xf32>) -> tensor<14xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<14xf32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<14xf32>
    %2 = stablehlo.compare NE, %0, %1, FLOAT : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xi1>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<14xf32>
    %4 = stablehlo.compare LT, %0, %3, FLOAT : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<14xf32>
    %6 = stablehlo.compare LT, %arg1, %5, FLOAT : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xi1>
    %7 = stablehlo.compare NE, %4, %6, UNSIGNED : (tensor<14xi1>, tensor<14xi1>) -> tensor<14xi1>
    %8 = stablehlo.and %7, %2 : tensor<14xi1>
    %9 = stablehlo.add %0, %arg1 : tensor<14xf32>
    %10 = stablehlo.select %8, %9, %0 : tensor<14xi1>, tensor<14xf32>
    return %10 : tensor<14xf32>
  }
  func.func private @floor_divide(%arg0: tensor<14xf32>, %arg1: tensor<14xf32>) -> tensor<14xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<14xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<14xf32>
    %2 = stablehlo.compare EQ, %arg1, %1, FLOAT : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xi1>
    %3 = stablehlo.subtract %arg0, %0 : tensor<14xf32>
    %4 = call @_where(%2, %arg0, %3) : (tensor<14xi1>, tensor<14xf32>, tensor<14xf32>) -> tensor<14xf32>
    %5 = stablehlo.divide %4, %arg1 : tensor<14xf32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<14xf32>
    %7 = stablehlo.compare NE, %0, %6, FLOAT : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xi1>
    %8 = stablehlo.sign %arg1 : tensor<14xf32>
    %9 = stablehlo.sign %0 : tensor<14xf32>
    %10 = stablehlo.compare NE, %8, %9, FLOAT : (tensor<14xf32>, tensor<14xf32>) -> tensor<14xi1>
    %11 = stablehlo.and %7, %10 : tensor<14xi1>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<14xf32>
    %13 = stablehlo.subtract %5, %12 : tensor<14xf32>
    %14 = stablehlo.select %11, %13, %5 : tensor<14xi1>, tensor<14xf32>
    %15 = stablehlo.round_nearest_afz %14 : tensor<14xf32>
    return %15 : tensor<14xf32>
  }
  func.func private @_where(%arg0: tensor<14xi1>, %arg1: tensor<14xf32>, %arg2: tensor<14xf32>) -> tensor<14xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<14xi1>, tensor<14xf32>
    return %0 : tensor<14xf32>
  }
}
