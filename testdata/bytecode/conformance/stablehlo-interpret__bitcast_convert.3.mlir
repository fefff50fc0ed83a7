module {
  func.func @bitcast_convert_op_test_c128_to_c64() {
    %cst = stablehlo.constant dense<(3.5127005640885037E-303,1.4146638603141378E-315)> : tensor<complex<f64>>
    %0 = stablehlo.bitcast_convert %cst : (tensor<complex<f64>>) -> tensor<2xcomplex<f32>>
    return
  }
}
