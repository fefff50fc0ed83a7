module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2xi64> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0:2 = call @inputs() : () -> (tensor<2xi64>, tensor<2xi64>)
    %1 = call @expected() : () -> tensor<2xi64>
    %2 = stablehlo.divide %0#0, %0#1 : tensor<2xi64>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<2xi64>, tensor<2xi64>) -> ()
    return %2 : tensor<2xi64>
  }
  func.func private @inputs() -> (tensor<2xi64> {mhlo.layout_mode = "default"}, tensor<2xi64> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[1, -3]> : tensor<2xi64>
    %c_0 = stablehlo.constant dense<[-1, 1]> : tensor<2xi64>
    return %c, %c_0 : tensor<2xi64>, tensor<2xi64>
  }
  func.func private @expected() -> (tensor<2xi64> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[-1, -3]> : tensor<2xi64>
    return %c : tensor<2xi64>
  }
}
