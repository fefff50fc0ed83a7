module {
  func.func @triangular_solve_op_test_complex_example() {
    %cst = stablehlo.constant dense<[[(1.000000e+00,1.000000e+00), (0.000000e+00,0.000000e+00), (0.000000e+00,0.000000e+00)], [(2.000000e+00,-2.000000e+00), (3.000000e+00,4.000000e+00), (0.000000e+00,0.000000e+00)], [(4.000000e+00,-3.000000e+00), (5.000000e+00,5.000000e+00), (6.000000e+00,-8.000000e+00)]]> : tensor<3x3xcomplex<f32>>
    %cst_0 = stablehlo.constant dense<[[(7.000000e+00,-2.000000e+00)], [(8.000000e+00,4.000000e+00)], [(9.000000e+00,-5.000000e+00)]]> : tensor<3x1xcomplex<f32>>
    %0 = "stablehlo.triangular_solve"(%cst, %cst_0) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xcomplex<f32>>, tensor<3x1xcomplex<f32>>) -> tensor<3x1xcomplex<f32>>
    return
  }
}
