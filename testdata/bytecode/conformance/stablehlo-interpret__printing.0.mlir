module {
  func.func @test_ranks_and_dtypes() -> (tensor<4xi8>, tensor<4xf16>, tensor<2xi1>, tensor<ui8>, tensor<1xi8>, tensor<2x2xi8>, tensor<2x2x2xi64>, tensor<0xui8>, tensor<0x2xi8>, tensor<2x0xi8>) {
    %c = stablehlo.constant dense<[1, 2, -3, -4]> : tensor<4xi8>
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, -3.000000e+00, -4.000000e+00]> : tensor<4xf16>
    %c_0 = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    %c_1 = stablehlo.constant dense<1> : tensor<ui8>
    %c_2 = stablehlo.constant dense<1> : tensor<1xi8>
    %c_3 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi8>
    %c_4 = stablehlo.constant dense<[[[0, 1], [2, 3]], [[4, 0], [1, 2]]]> : tensor<2x2x2xi64>
    %c_5 = stablehlo.constant dense<> : tensor<0xui8>
    %c_6 = stablehlo.constant dense<> : tensor<0x2xi8>
    %c_7 = stablehlo.constant dense<> : tensor<2x0xi8>
    return %c, %cst, %c_0, %c_1, %c_2, %c_3, %c_4, %c_5, %c_6, %c_7 : tensor<4xi8>, tensor<4xf16>, tensor<2xi1>, tensor<ui8>, tensor<1xi8>, tensor<2x2xi8>, tensor<2x2x2xi64>, tensor<0xui8>, tensor<0x2xi8>, tensor<2x0xi8>
  }
}
