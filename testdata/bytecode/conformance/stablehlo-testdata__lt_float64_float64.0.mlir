module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<i1> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0:2 = call @inputs() : () -> (tensor<f64>, tensor<f64>)
    %1 = call @expected() : () -> tensor<i1>
    %2 = stablehlo.compare LT, %0#0, %0#1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<i1>, tensor<i1>) -> ()
    return %2 : tensor<i1>
  }
  func.func private @inputs() -> (tensor<f64> {mhlo.layout_mode = "default"}, tensor<f64> {mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense<1.4403331041719836> : tensor<f64>
    %cst_0 = stablehlo.constant dense<1.9774015132942768> : tensor<f64>
    return %cst, %cst_0 : tensor<f64>, tensor<f64>
  }
  func.func private @expected() -> (tensor<i1> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<true> : tensor<i1>
    return %c : tensor<i1>
  }
}
