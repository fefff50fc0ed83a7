module {
  func.func @get_tuple_element() {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf64>
    %c = stablehlo.constant dense<3> : tensor<i64>
    %0 = stablehlo.tuple %c : tuple<tensor<i64>>
    %1 = stablehlo.tuple %cst, %0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
    %2 = stablehlo.get_tuple_element %1[0] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tensor<2xf64>
    %3 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
    %4 = stablehlo.get_tuple_element %3[0] : (tuple<tensor<i64>>) -> tensor<i64>
    return
  }
}
