module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<4x3xi64> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0:2 = call @inputs() : () -> (tensor<2x3xi64>, tensor<2x3xi64>)
    %1 = call @expected() : () -> tensor<4x3xi64>
    %2 = stablehlo.concatenate %0#0, %0#1, dim = 0 : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<4x3xi64>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<4x3xi64>, tensor<4x3xi64>) -> ()
    return %2 : tensor<4x3xi64>
  }
  func.func private @inputs() -> (tensor<2x3xi64> {mhlo.layout_mode = "default"}, tensor<2x3xi64> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[2, 5, 7], [2, -4, 2]]> : tensor<2x3xi64>
    %c_0 = stablehlo.constant dense<[[-1, -1, -1], [-2, -4, 2]]> : tensor<2x3xi64>
    return %c, %c_0 : tensor<2x3xi64>, tensor<2x3xi64>
  }
  func.func private @expected() -> (tensor<4x3xi64> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[2, 5, 7], [2, -4, 2], [-1, -1, -1], [-2, -4, 2]]> : tensor<4x3xi64>
    return %c : tensor<4x3xi64>
  }
}
