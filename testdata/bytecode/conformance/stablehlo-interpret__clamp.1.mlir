module {
  func.func @clamp_op_test_si64_min_scalar() {
    %c = stablehlo.constant dense<[0, 0, -2]> : tensor<3xi64>
    %c_0 = stablehlo.constant dense<[2, 3, -1]> : tensor<3xi64>
    %c_1 = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.clamp %c, %c_0, %c_1 : (tensor<3xi64>, tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
    return
  }
}
