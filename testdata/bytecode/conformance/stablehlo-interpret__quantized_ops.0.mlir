module {
  func.func @uniform_quantize() {
    %cst = stablehlo.constant dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>
    %0 = stablehlo.uniform_quantize %cst : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>
    %1 = stablehlo.bitcast_convert %0 : (tensor<2x!quant.uniform<i8:f32:0, {1.000000e-01:-30,5.000000e-01:-20}>>) -> tensor<2xi8>
    return
  }
}
