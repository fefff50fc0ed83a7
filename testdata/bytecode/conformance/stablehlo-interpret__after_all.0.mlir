module {
  func.func @after_all_op_test() {
    %0 = stablehlo.after_all  : !stablehlo.token
    %1 = stablehlo.after_all  : !stablehlo.token
    %2 = stablehlo.after_all %0, %1 : !stablehlo.token
    return
  }
}
