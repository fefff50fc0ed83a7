module {
  func.func @not_op_test_i1_splat_true() {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %0 = stablehlo.not %c : tensor<i1>
    return
  }
}
