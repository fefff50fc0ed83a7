module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3x2xi32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %0 = call @inputs() : () -> tensor<2x3xi32>
    %1 = call @expected() : () -> tensor<3x2xi32>
    %2 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<3x2xi32>, tensor<3x2xi32>) -> ()
    return %2 : tensor<3x2xi32>
  }
  func.func private @inputs() -> (tensor<2x3xi32> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[1, 2, 0], [0, 3, 0]]> : tensor<2x3xi32>
    return %c : tensor<2x3xi32>
  }
  func.func private @expected() -> (tensor<3x2xi32> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<[[1, 0], [2, 3], [0, 0]]> : tensor<3x2xi32>
    return %c : tensor<3x2xi32>
  }
}
