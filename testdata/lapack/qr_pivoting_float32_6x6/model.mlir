module @jit_qr attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x6xf32>) -> (tensor<6x6xf32> {jax.result_info = "result[0]"}, tensor<6x6xf32> {jax.result_info = "result[1]"}, tensor<6xi32> {jax.result_info = "result[2]"}) {
    %0:3 = call @_qr(%arg0) : (tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>, tensor<6xi32>)
    return %0#0, %0#1, %0#2 : tensor<6x6xf32>, tensor<6x6xf32>, tensor<6xi32>
  }
  func.func private @_qr(%arg0: tensor<6x6xf32>) -> (tensor<6x6xf32>, tensor<6x6xf32>, tensor<6xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %1:3 = stablehlo.custom_call @lapack_sgeqp3_ffi(%arg0, %0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>, #stablehlo.output_operand_alias<output_tuple_indices = [1], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m], [n], [o]) {i=6, j=6, k=6, l=6, m=6, n=6, o=6}, custom>} : (tensor<6x6xf32>, tensor<6xi32>) -> (tensor<6x6xf32>, tensor<6xi32>, tensor<6xf32>)
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %3 = stablehlo.subtract %1#1, %2 : tensor<6xi32>
    %4 = stablehlo.custom_call @lapack_sorgqr_ffi(%1#0, %1#2) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k])->([l, m]) {i=6, j=6, k=6, l=6, m=6}, custom>} : (tensor<6x6xf32>, tensor<6xf32>) -> tensor<6x6xf32>
    %5 = stablehlo.iota dim = 0 : tensor<6x6xi64>
    %c_1 = stablehlo.constant dense<-1> : tensor<i64>
    %6 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<6x6xi64>
    %7 = stablehlo.add %5, %6 : tensor<6x6xi64>
    %8 = stablehlo.iota dim = 1 : tensor<6x6xi64>
    %9 = stablehlo.compare GE, %7, %8, SIGNED : (tensor<6x6xi64>, tensor<6x6xi64>) -> tensor<6x6xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x6xf32>
    %11 = stablehlo.select %9, %10, %1#0 : tensor<6x6xi1>, tensor<6x6xf32>
    return %4, %11, %3 : tensor<6x6xf32>, tensor<6x6xf32>, tensor<6xi32>
  }
}
