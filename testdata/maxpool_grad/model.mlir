module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x6x2xf32>, %arg1: tensor<2x3x3x2xf32>) -> (tensor<2x6x6x2xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %22 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }) : (tensor<2x6x6x2xf32>, tensor<f32>) -> tensor<2x3x3x2xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %3 = "stablehlo.reduce_window"(%arg0, %2) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %22 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }) : (tensor<2x6x6x2xf32>, tensor<f32>) -> tensor<2x3x3x2xf32>
    %4 = stablehlo.multiply %1, %arg1 : tensor<2x3x3x2xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_1) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x3x3x2xf32>, tensor<f32>) -> tensor<f32>
    %6 = stablehlo.multiply %3, %3 : tensor<2x3x3x2xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x3x3x2xf32>, tensor<f32>) -> tensor<f32>
    %8 = stablehlo.add %5, %7 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %10 = stablehlo.multiply %3, %9 : tensor<2x3x3x2xf32>
    %11 = stablehlo.multiply %9, %3 : tensor<2x3x3x2xf32>
    %12 = stablehlo.add %10, %11 : tensor<2x3x3x2xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %14 = stablehlo.multiply %13, %arg1 : tensor<2x3x3x2xf32>
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = stablehlo.pad %arg0, %cst_5, low = [0, 0, 0, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<2x6x6x2xf32>, tensor<f32>) -> tensor<2x7x7x2xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = "stablehlo.select_and_scatter"(%15, %12, %cst_6) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %22 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %22 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %22 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }) : (tensor<2x7x7x2xf32>, tensor<2x3x3x2xf32>, tensor<f32>) -> tensor<2x7x7x2xf32>
    %17 = stablehlo.slice %16 [0:2, 0:6, 0:6, 0:2] : (tensor<2x7x7x2xf32>) -> tensor<2x6x6x2xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.pad %arg0, %cst_7, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x6x6x2xf32>, tensor<f32>) -> tensor<2x6x6x2xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = "stablehlo.select_and_scatter"(%18, %14, %cst_8) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %22 = stablehlo.compare GE, %arg2, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %22 : tensor<i1>
    }, {
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %22 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }) : (tensor<2x6x6x2xf32>, tensor<2x3x3x2xf32>, tensor<f32>) -> tensor<2x6x6x2xf32>
    %20 = stablehlo.slice %19 [0:2, 0:6, 0:6, 0:2] : (tensor<2x6x6x2xf32>) -> tensor<2x6x6x2xf32>
    %21 = stablehlo.add %17, %20 : tensor<2x6x6x2xf32>
    return %21 : tensor<2x6x6x2xf32>
  }
}
