module {
  func.func @triangular_solve_op_test_real_3x3_triangular_right_lower() {
    %cst = stablehlo.constant dense<[[1.000000e+00, 0.000000e+00, 0.000000e+00], [2.000000e+00, 3.000000e+00, 0.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<3x3xf32>
    %cst_0 = stablehlo.constant dense<[[7.000000e+00, 8.000000e+00, 9.000000e+00]]> : tensor<1x3xf32>
    %0 = "stablehlo.triangular_solve"(%cst, %cst_0) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    return
  }
}
