module {
  func.func @optimization_barrier_op_test() {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0:2 = stablehlo.optimization_barrier %cst, %cst_0 : tensor<f32>, tensor<f32>
    return
  }
}
