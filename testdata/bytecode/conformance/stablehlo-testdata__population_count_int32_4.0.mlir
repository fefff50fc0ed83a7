module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<4xi32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<4xi32>
    %1 = call @expected() : () -> tensor<4xi32>
    %2 = stablehlo.popcnt %0 : tensor<4xi32>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<4xi32>, tensor<4xi32>) -> ()
    return %2 : tensor<4xi32>
  }
  func.func private @inputs() -> (tensor<4xi32> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[-1, -2, 0, 1]> : tensor<4xi32>
    return %c : tensor<4xi32>
  }
  func.func private @expected() -> (tensor<4xi32> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[32, 31, 0, 1]> : tensor<4xi32>
    return %c : tensor<4xi32>
  }
}
