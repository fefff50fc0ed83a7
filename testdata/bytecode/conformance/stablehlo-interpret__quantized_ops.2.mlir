module {
  func.func @uniform_dequantize() {
    %c = stablehlo.constant dense<10> : tensor<2xi8>
    %0 = stablehlo.bitcast_convert %c : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>
    %1 = stablehlo.uniform_dequantize %0 : (tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>) -> tensor<2xf32>
    return
  }
}
