module {
  func.func @triangular_solve_op_test_real_3x3_diagonal_right_upper_unit_diagonal_transpose() {
    %cst = stablehlo.constant dense<[[2.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 4.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 5.000000e+00]]> : tensor<3x3xf32>
    %cst_0 = stablehlo.constant dense<[[7.000000e+00, 8.000000e+00, 9.000000e+00]]> : tensor<1x3xf32>
    %0 = "stablehlo.triangular_solve"(%cst, %cst_0) <{left_side = false, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = true}> : (tensor<3x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    return
  }
}
