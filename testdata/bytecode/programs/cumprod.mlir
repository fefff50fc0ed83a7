module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8xf32>, %arg1: tensor<4x3xi32>) -> (tensor<3x8xf32> {jax.result_info = "result[0]"}, tensor<4x3xi32> {jax.result_info = "result[1]"}, tensor<3x8xf32> {jax.result_info = "result[2]"}) {
    %0 = call @cumprod(%arg0) : (tensor<3x8xf32>) -> tensor<3x8xf32>
    %1 = call @cumprod_1(%arg1) : (tensor<4x3xi32>) -> tensor<4x3xi32>
    %2 = call @cumlogsumexp(%arg0) : (tensor<3x8xf32>) -> tensor<3x8xf32>
    return %0, %1, %2 : tensor<3x8xf32>, tensor<4x3xi32>, tensor<3x8xf32>
  }
  func.func private @cumprod(%arg0: tensor<3x8xf32>) -> tensor<3x8xf32> {
    %0 = call @cumprod_0(%arg0) : (tensor<3x8xf32>) -> tensor<3x8xf32>
    return %0 : tensor<3x8xf32>
  }
  func.func private @cumprod_0(%arg0: tensor<3x8xf32>) -> tensor<3x8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [7, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 8>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
    return %0 : tensor<3x8xf32>
  }
  func.func private @cumprod_1(%arg0: tensor<4x3xi32>) -> tensor<4x3xi32> {
    %0 = call @cumprod_2(%arg0) : (tensor<4x3xi32>) -> tensor<4x3xi32>
    return %0 : tensor<4x3xi32>
  }
  func.func private @cumprod_2(%arg0: tensor<4x3xi32>) -> tensor<4x3xi32> {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = "stablehlo.reduce_window"(%arg0, %c) <{padding = dense<[[3, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 4, 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<i32>
      stablehlo.return %1 : tensor<i32>
    }) : (tensor<4x3xi32>, tensor<i32>) -> tensor<4x3xi32>
    return %0 : tensor<4x3xi32>
  }
  func.func private @cumlogsumexp(%arg0: tensor<3x8xf32>) -> tensor<3x8xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [7, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 8>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      %2 = stablehlo.subtract %arg1, %arg2 : tensor<f32>
      %3 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.add %arg1, %arg2 : tensor<f32>
      %5 = stablehlo.abs %2 : tensor<f32>
      %6 = stablehlo.negate %5 : tensor<f32>
      %7 = stablehlo.exponential %6 : tensor<f32>
      %8 = stablehlo.log_plus_one %7 : tensor<f32>
      %9 = stablehlo.add %1, %8 : tensor<f32>
      %10 = stablehlo.select %3, %4, %9 : tensor<i1>, tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
    return %0 : tensor<3x8xf32>
  }
}
