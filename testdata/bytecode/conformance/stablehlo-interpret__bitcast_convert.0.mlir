module {
  func.func @bitcast_convert_op_test_i1_to_i64() {
    %c = stablehlo.constant dense<[true, true, true, true, false, true, true, true, true, false, true, true, false, false, true, true, true, true, false, true, false, true, false, true, true, false, false, true, false, false, false, true, true, true, true, false, false, true, true, false, true, false, true, false, false, false, true, false, true, true, false, false, false, true, false, false, true, false, false, false, false, false, false, false]> : tensor<64xi1>
    %0 = stablehlo.bitcast_convert %c : (tensor<64xi1>) -> tensor<i64>
    return
  }
}
