module {
  func.func @uniform_quantize() {
    %c = stablehlo.constant dense<10> : tensor<2xi8>
    %0 = stablehlo.bitcast_convert %c : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>
    %1 = stablehlo.uniform_quantize %0 : (tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>) -> tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-20,2.000000e-01:-30}>>
    %2 = stablehlo.bitcast_convert %1 : (tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-20,2.000000e-01:-30}>>) -> tensor<2xi8>
    return
  }
}
