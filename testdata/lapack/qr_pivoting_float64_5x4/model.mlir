module @jit_qr attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x4xf64>) -> (tensor<5x4xf64> {jax.result_info = "result[0]"}, tensor<4x4xf64> {jax.result_info = "result[1]"}, tensor<4xi32> {jax.result_info = "result[2]"}) {
    %0:3 = call @_qr(%arg0) : (tensor<5x4xf64>) -> (tensor<5x4xf64>, tensor<4x4xf64>, tensor<4xi32>)
    return %0#0, %0#1, %0#2 : tensor<5x4xf64>, tensor<4x4xf64>, tensor<4xi32>
  }
  func.func private @_qr(%arg0: tensor<5x4xf64>) -> (tensor<5x4xf64>, tensor<4x4xf64>, tensor<4xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %1:3 = stablehlo.custom_call @lapack_dgeqp3_ffi(%arg0, %0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m], [n], [o]) {i=5, j=4, k=4, l=5, m=4, n=4, o=4}, custom>} : (tensor<5x4xf64>, tensor<4xi32>) -> (tensor<5x4xf64>, tensor<4xi32>, tensor<4xf64>)
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %3 = stablehlo.subtract %1#1, %2 : tensor<4xi32>
    %4 = stablehlo.custom_call @lapack_dorgqr_ffi(%1#0, %1#2) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=5, j=4, k=4, l=5, m=4}, custom>} : (tensor<5x4xf64>, tensor<4xf64>) -> tensor<5x4xf64>
    %5 = stablehlo.slice %1#0 [0:4, 0:4] : (tensor<5x4xf64>) -> tensor<4x4xf64>
    %6 = stablehlo.iota dim = 0 : tensor<4x4xi64>
    %c_1 = stablehlo.constant dense<-1> : tensor<i64>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<4x4xi64>
    %8 = stablehlo.add %6, %7 : tensor<4x4xi64>
    %9 = stablehlo.iota dim = 1 : tensor<4x4xi64>
    %10 = stablehlo.compare GE, %8, %9, SIGNED : (tensor<4x4xi64>, tensor<4x4xi64>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<4x4xf64>
    %12 = stablehlo.select %10, %11, %5 : tensor<4x4xi1>, tensor<4x4xf64>
    return %4, %12, %3 : tensor<5x4xf64>, tensor<4x4xf64>, tensor<4xi32>
  }
}
