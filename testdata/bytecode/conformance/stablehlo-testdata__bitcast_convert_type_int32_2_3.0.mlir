module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2x3xui32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<2x3xi32>
    %1 = call @expected() : () -> tensor<2x3xui32>
    %2 = stablehlo.bitcast_convert %0 : (tensor<2x3xi32>) -> tensor<2x3xui32>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<2x3xui32>, tensor<2x3xui32>) -> ()
    return %2 : tensor<2x3xui32>
  }
  func.func private @inputs() -> (tensor<2x3xi32> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[0, 0, -2], [0, 1, 0]]> : tensor<2x3xi32>
    return %c : tensor<2x3xi32>
  }
  func.func private @expected() -> (tensor<2x3xui32> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[0, 0, 4294967294], [0, 1, 0]]> : tensor<2x3xui32>
    return %c : tensor<2x3xui32>
  }
}
