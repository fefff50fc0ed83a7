module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2x3xui64> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<2x3xi64>
    %1 = call @expected() : () -> tensor<2x3xui64>
    %2 = stablehlo.bitcast_convert %0 : (tensor<2x3xi64>) -> tensor<2x3xui64>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<2x3xui64>, tensor<2x3xui64>) -> ()
    return %2 : tensor<2x3xui64>
  }
  func.func private @inputs() -> (tensor<2x3xi64> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[-4, -1, 0], [-4, -2, 4]]> : tensor<2x3xi64>
    return %c : tensor<2x3xi64>
  }
  func.func private @expected() -> (tensor<2x3xui64> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[18446744073709551612, 18446744073709551615, 0], [18446744073709551612, 18446744073709551614, 4]]> : tensor<2x3xui64>
    return %c : tensor<2x3xui64>
  }
}
