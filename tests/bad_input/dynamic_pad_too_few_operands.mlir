// stablehlo.dynamic_pad with two operands used to panic indexing the third.
// RUN: run %s
// STDERR: 'stablehlo.dynamic_pad' takes 5 operands but has 2
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<f32>) -> tensor<6xf32> {
  %0 = "stablehlo.dynamic_pad"(%arg0, %arg1) : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
