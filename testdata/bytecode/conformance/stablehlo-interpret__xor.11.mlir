module {
  func.func @xor_op_test_i1_splat_false() {
    %c = stablehlo.constant dense<false> : tensor<2xi1>
    %c_0 = stablehlo.constant dense<[false, true]> : tensor<2xi1>
    %0 = stablehlo.xor %c, %c_0 : tensor<2xi1>
    return
  }
}
