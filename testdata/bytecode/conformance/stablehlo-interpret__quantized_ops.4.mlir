module {
  func.func @quantized_add() {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
    %cst_0 = stablehlo.constant dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>
    %0 = stablehlo.uniform_quantize %cst : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 1.000000e-01:-30>>
    %1 = stablehlo.uniform_quantize %cst_0 : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>
    %2 = stablehlo.add %0, %1 : (tensor<2x!quant.uniform<i8:f32, 1.000000e-01:-30>>, tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>
    %3 = stablehlo.bitcast_convert %2 : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-20>>) -> tensor<2xi8>
    return
  }
}
