module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x6xf64>, %arg1: tensor<6x2xf64>) -> (tensor<6x6xf64> {jax.result_info = "result[0]"}, tensor<6x2xf64> {jax.result_info = "result[1]"}) {
    %0 = call @cholesky(%arg0) : (tensor<6x6xf64>) -> tensor<6x6xf64>
    %1 = call @_cho_solve(%0, %arg1) : (tensor<6x6xf64>, tensor<6x2xf64>) -> tensor<6x2xf64>
    return %0, %1 : tensor<6x6xf64>, tensor<6x2xf64>
  }
  func.func private @cholesky(%arg0: tensor<6x6xf64>) -> tensor<6x6xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<6x6xf64>) -> tensor<6x6xf64>
    %1 = stablehlo.add %arg0, %0 : tensor<6x6xf64>
    %2 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<6x6xf64>
    %3 = stablehlo.divide %1, %2 : tensor<6x6xf64>
    %4:2 = stablehlo.custom_call @lapack_dpotrf_ffi(%3) {mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0", xla.sdy.sharding_rule = "#sdy.op_sharding_rule<([i, j])->([k, l], []) {i=6, j=6, k=6, l=6}, custom>"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<6x6xf64>) -> (tensor<6x6xf64>, tensor<i32>)
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.compare EQ, %4#1, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<6x6xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x6xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<6x6xi1>, tensor<6x6xf64>
    %11 = stablehlo.iota dim = 0 : tensor<6x6xi64>
    %12 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<6x6xi64>
    %13 = stablehlo.add %11, %12 : tensor<6x6xi64>
    %14 = stablehlo.iota dim = 1 : tensor<6x6xi64>
    %15 = stablehlo.compare GE, %13, %14, SIGNED : (tensor<6x6xi64>, tensor<6x6xi64>) -> tensor<6x6xi1>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<6x6xf64>
    %17 = stablehlo.select %15, %10, %16 : tensor<6x6xi1>, tensor<6x6xf64>
    return %17 : tensor<6x6xf64>
  }
  func.func private @_cho_solve(%arg0: tensor<6x6xf64>, %arg1: tensor<6x2xf64>) -> tensor<6x2xf64> {
    %0 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %arg1) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0", xla.sdy.sharding_rule = "#sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=6, j=6, k=6, l=2, m=6, n=2}, custom>"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<6x6xf64>, tensor<6x2xf64>) -> tensor<6x2xf64>
    %1 = stablehlo.custom_call @lapack_dtrsm_ffi(%arg0, %0) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0", xla.sdy.sharding_rule = "#sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=6, j=6, k=6, l=2, m=6, n=2}, custom>"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (tensor<6x6xf64>, tensor<6x2xf64>) -> tensor<6x2xf64>
    return %1 : tensor<6x2xf64>
  }
}
