module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x7x7x2xf32>, %arg1: tensor<5x6xi32>) -> (tensor<2x4x4x2xf32> {jax.result_info = "result[0]"}, tensor<2x5x5x2xf32> {jax.result_info = "result[1]"}, tensor<2x12x6x2xf32> {jax.result_info = "result[2]"}, tensor<4x3xi32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<-2147483648> : tensor<i32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %8 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }) : (tensor<2x7x7x2xf32>, tensor<f32>) -> tensor<2x4x4x2xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.reduce_window"(%arg0, %2) <{window_dilations = array<i64: 1, 2, 2, 1>, window_dimensions = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %8 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }) : (tensor<2x7x7x2xf32>, tensor<f32>) -> tensor<2x5x5x2xf32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.reduce_window"(%arg0, %4) <{base_dilations = array<i64: 1, 2, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %8 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }) : (tensor<2x7x7x2xf32>, tensor<f32>) -> tensor<2x12x6x2xf32>
    %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %7 = "stablehlo.reduce_window"(%arg1, %6) <{window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %8 = stablehlo.maximum %arg2, %arg3 : tensor<i32>
      stablehlo.return %8 : tensor<i32>
    }) : (tensor<5x6xi32>, tensor<i32>) -> tensor<4x3xi32>
    return %1, %3, %5, %7 : tensor<2x4x4x2xf32>, tensor<2x5x5x2xf32>, tensor<2x12x6x2xf32>, tensor<4x3xi32>
  }
}
