module {
  func.func @triangular_solve_op_test_real_3x3_diagonal_left_lower_unit_diagonal() {
    %cst = stablehlo.constant dense<[[2.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 4.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 5.000000e+00]]> : tensor<3x3xf32>
    %cst_0 = stablehlo.constant dense<[[7.000000e+00], [8.000000e+00], [9.000000e+00]]> : tensor<3x1xf32>
    %0 = "stablehlo.triangular_solve"(%cst, %cst_0) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x1xf32>
    return
  }
}
