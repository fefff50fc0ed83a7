module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x6x2xf32>, %arg1: tensor<2x3x3x2xf32>) -> (tensor<2x6x6x2xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %15 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x6x6x2xf32>, tensor<f32>) -> tensor<2x3x3x2xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<2x3x3x2xf32>
    %4 = stablehlo.multiply %2, %1 : tensor<2x3x3x2xf32>
    %5 = stablehlo.add %3, %4 : tensor<2x3x3x2xf32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %7 = stablehlo.multiply %6, %arg1 : tensor<2x3x3x2xf32>
    %8 = stablehlo.pad %arg0, %cst_1, low = [0, 0, 0, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<2x6x6x2xf32>, tensor<f32>) -> tensor<2x7x7x2xf32>
    %9 = "stablehlo.select_and_scatter"(%8, %5, %cst_0) <{window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %15 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %15 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %15 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x7x7x2xf32>, tensor<2x3x3x2xf32>, tensor<f32>) -> tensor<2x7x7x2xf32>
    %10 = stablehlo.slice %9 [0:2, 0:6, 0:6, 0:2] : (tensor<2x7x7x2xf32>) -> tensor<2x6x6x2xf32>
    %11 = stablehlo.pad %arg0, %cst_1, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x6x6x2xf32>, tensor<f32>) -> tensor<2x6x6x2xf32>
    %12 = "stablehlo.select_and_scatter"(%11, %7, %cst_0) <{window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %15 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %15 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %15 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %15 : tensor<f32>
    }) : (tensor<2x6x6x2xf32>, tensor<2x3x3x2xf32>, tensor<f32>) -> tensor<2x6x6x2xf32>
    %13 = stablehlo.slice %12 [0:2, 0:6, 0:6, 0:2] : (tensor<2x6x6x2xf32>) -> tensor<2x6x6x2xf32>
    %14 = stablehlo.add %10, %13 : tensor<2x6x6x2xf32>
    return %14 : tensor<2x6x6x2xf32>
  }
}
