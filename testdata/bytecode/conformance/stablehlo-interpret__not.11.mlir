module {
  func.func @not_op_test_i1_splat_false() {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.not %c : tensor<i1>
    return
  }
}
