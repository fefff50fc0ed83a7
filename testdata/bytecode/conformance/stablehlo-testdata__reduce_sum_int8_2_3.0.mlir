module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3xi8> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<2x3xi8>
    %1 = call @expected() : () -> tensor<3xi8>
    %c = stablehlo.constant dense<0> : tensor<i8>
    %2 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2x3xi8>, tensor<i8>) -> tensor<3xi8>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<3xi8>, tensor<3xi8>) -> ()
    return %2 : tensor<3xi8>
  }
  func.func private @inputs() -> (tensor<2x3xi8> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[0, 0, 0], [-1, 3, 0]]> : tensor<2x3xi8>
    return %c : tensor<2x3xi8>
  }
  func.func private @expected() -> (tensor<3xi8> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[-1, 3, 0]> : tensor<3xi8>
    return %c : tensor<3xi8>
  }
}
