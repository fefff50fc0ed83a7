module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf32>, %arg1: tensor<12xf32>, %arg2: tensor<12xf32>, %arg3: tensor<12xf32>) -> (tensor<12xf32> {jax.result_info = "result[0]"}, tensor<12xf32> {jax.result_info = "result[1]"}, tensor<12xf32> {jax.result_info = "result[2]"}, tensor<12xf32> {jax.result_info = "result[3]"}, tensor<12xf32> {jax.result_info = "result[4]"}, tensor<12xf32> {jax.result_info = "result[5]"}, tensor<2xf32> {jax.result_info = "result[6]"}, tensor<4xf32> {jax.result_info = "result[7]"}, tensor<3xf32> {jax.result_info = "result[8]"}) {
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.maximum %arg0, %arg1 : tensor<12xf32>
    %1 = stablehlo.minimum %arg0, %arg1 : tensor<12xf32>
    %2 = stablehlo.clamp %arg2, %arg0, %arg3 : tensor<12xf32>
    %3 = call @clip(%arg0, %arg2, %arg3) : (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) -> tensor<12xf32>
    %4 = call @fmax(%arg0, %arg1) : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xf32>
    %5 = call @fmin(%arg0, %arg1) : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xf32>
    %6 = stablehlo.reshape %arg0 : (tensor<12xf32>) -> tensor<2x6xf32>
    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<2x6xf32>, tensor<f32>) -> tensor<2xf32>
    %8 = stablehlo.reshape %arg1 : (tensor<12xf32>) -> tensor<3x4xf32>
    %9 = stablehlo.reduce(%8 init: %cst) applies stablehlo.minimum across dimensions = [0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.reshape %arg0 : (tensor<12xf32>) -> tensor<3x4xf32>
    %11 = call @nanmax(%10) : (tensor<3x4xf32>) -> tensor<3xf32>
    return %0, %1, %2, %3, %4, %5, %7, %9, %11 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<2xf32>, tensor<4xf32>, tensor<3xf32>
  }
  func.func private @clip(%arg0: tensor<12xf32>, %arg1: tensor<12xf32>, %arg2: tensor<12xf32>) -> tensor<12xf32> {
    %0 = stablehlo.maximum %arg1, %arg0 : tensor<12xf32>
    %1 = stablehlo.minimum %arg2, %0 : tensor<12xf32>
    return %1 : tensor<12xf32>
  }
  func.func private @fmax(%arg0: tensor<12xf32>, %arg1: tensor<12xf32>) -> tensor<12xf32> {
    %0 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
    %1 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
    %2 = stablehlo.or %0, %1 : tensor<12xi1>
    %3 = call @_where(%2, %arg0, %arg1) : (tensor<12xi1>, tensor<12xf32>, tensor<12xf32>) -> tensor<12xf32>
    return %3 : tensor<12xf32>
  }
  func.func private @_where(%arg0: tensor<12xi1>, %arg1: tensor<12xf32>, %arg2: tensor<12xf32>) -> tensor<12xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<12xi1>, tensor<12xf32>
    return %0 : tensor<12xf32>
  }
  func.func private @fmin(%arg0: tensor<12xf32>, %arg1: tensor<12xf32>) -> tensor<12xf32> {
    %0 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
    %1 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<12xf32>, tensor<12xf32>) -> tensor<12xi1>
    %2 = stablehlo.or %0, %1 : tensor<12xi1>
    %3 = call @_where(%2, %arg0, %arg1) : (tensor<12xi1>, tensor<12xf32>, tensor<12xf32>) -> tensor<12xf32>
    return %3 : tensor<12xf32>
  }
  func.func private @nanmax(%arg0: tensor<3x4xf32>) -> tensor<3xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %1 = call @_where_0(%0, %cst_0, %arg0) : (tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) -> tensor<3x4xf32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %3 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
    %4 = stablehlo.reduce(%3 init: %c) applies stablehlo.and across dimensions = [1] : (tensor<3x4xi1>, tensor<i1>) -> tensor<3xi1>
    %5 = call @_where_1(%4, %cst, %2) : (tensor<3xi1>, tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
    return %5 : tensor<3xf32>
  }
  func.func private @_where_0(%arg0: tensor<3x4xi1>, %arg1: tensor<f32>, %arg2: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<3x4xi1>, tensor<3x4xf32>
    return %1 : tensor<3x4xf32>
  }
  func.func private @_where_1(%arg0: tensor<3xi1>, %arg1: tensor<f32>, %arg2: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<3xi1>, tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}
