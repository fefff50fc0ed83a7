module {
  func.func @add_op_tensor_shape_with_zero_dim_size() {
    %c = stablehlo.constant dense<2> : tensor<2x0x3xi4>
    %c_0 = stablehlo.constant dense<3> : tensor<2x0x3xi4>
    %0 = stablehlo.add %c, %c_0 : tensor<2x0x3xi4>
    return
  }
}
