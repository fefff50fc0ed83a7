module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x1xcomplex<f64>>) -> (tensor<1x1xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<1x1xcomplex<f64>> {jax.result_info = "result[1]"}) {
    %0:5 = stablehlo.custom_call @lapack_zgees_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, sort = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m, n], [o], [], []) {i=1, j=1, k=1, l=1, m=1, n=1, o=1}, custom>} : (tensor<1x1xcomplex<f64>>) -> (tensor<1x1xcomplex<f64>>, tensor<1x1xcomplex<f64>>, tensor<1xcomplex<f64>>, tensor<i32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<1x1xcomplex<f64>>
    %5 = stablehlo.select %3, %0#0, %4 : tensor<1x1xi1>, tensor<1x1xcomplex<f64>>
    %6 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<1x1xcomplex<f64>>
    %8 = stablehlo.select %6, %0#1, %7 : tensor<1x1xi1>, tensor<1x1xcomplex<f64>>
    return %5, %8 : tensor<1x1xcomplex<f64>>, tensor<1x1xcomplex<f64>>
  }
}
