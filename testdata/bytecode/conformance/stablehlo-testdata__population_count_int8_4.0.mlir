module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<4xi8> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<4xi8>
    %1 = call @expected() : () -> tensor<4xi8>
    %2 = stablehlo.popcnt %0 : tensor<4xi8>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<4xi8>, tensor<4xi8>) -> ()
    return %2 : tensor<4xi8>
  }
  func.func private @inputs() -> (tensor<4xi8> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[-1, -2, 0, 1]> : tensor<4xi8>
    return %c : tensor<4xi8>
  }
  func.func private @expected() -> (tensor<4xi8> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[8, 7, 0, 1]> : tensor<4xi8>
    return %c : tensor<4xi8>
  }
}
