module @jit_main attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<1xi16> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<0> : tensor<1xi64>
    %0:2 = call @inputs() : () -> (tensor<1xi16>, tensor<i16>)
    %1 = call @expected() : () -> tensor<1xi16>
    %2 = "stablehlo.scatter"(%0#0, %c, %0#1) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg0: tensor<i16>, %arg1: tensor<i16>):
      %3 = stablehlo.maximum %arg0, %arg1 : tensor<i16>
      stablehlo.return %3 : tensor<i16>
    }) : (tensor<1xi16>, tensor<1xi64>, tensor<i16>) -> tensor<1xi16>
    stablehlo.custom_call @check.expect_eq(%2, %1) {has_side_effect = true} : (tensor<1xi16>, tensor<1xi16>) -> ()
    return %2 : tensor<1xi16>
  }
  func.func private @inputs() -> (tensor<1xi16> {mhlo.layout_mode = "default"}, tensor<i16> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<1> : tensor<1xi16>
    %c_0 = stablehlo.constant dense<-1> : tensor<i16>
    return %c, %c_0 : tensor<1xi16>, tensor<i16>
  }
  func.func private @expected() -> (tensor<1xi16> {mhlo.layout_mode = "default"}) {
    %c = stablehlo.constant dense<1> : tensor<1xi16>
    return %c : tensor<1xi16>
  }
}
