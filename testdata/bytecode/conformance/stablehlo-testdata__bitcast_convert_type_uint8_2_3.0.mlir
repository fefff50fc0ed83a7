module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2x3xui8> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<2x3xui8>
    %1 = call @expected() : () -> tensor<2x3xui8>
    %2 = stablehlo.bitcast_convert %0 : (tensor<2x3xui8>) -> tensor<2x3xui8>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<2x3xui8>, tensor<2x3xui8>) -> ()
    return %2 : tensor<2x3xui8>
  }
  func.func private @inputs() -> (tensor<2x3xui8> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[1, 2, 0], [2, 0, 3]]> : tensor<2x3xui8>
    return %c : tensor<2x3xui8>
  }
  func.func private @expected() -> (tensor<2x3xui8> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[1, 2, 0], [2, 0, 3]]> : tensor<2x3xui8>
    return %c : tensor<2x3xui8>
  }
}
