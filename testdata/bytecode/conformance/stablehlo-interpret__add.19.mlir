module {
  func.func @add_op_scalar() {
    %c = stablehlo.constant dense<2> : tensor<i4>
    %c_0 = stablehlo.constant dense<3> : tensor<i4>
    %0 = stablehlo.add %c, %c_0 : tensor<i4>
    return
  }
}
