module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x1xf64>) -> (tensor<1xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<1x1xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<1x1xcomplex<f64>> {jax.result_info = "result[2]"}) {
    %0:5 = stablehlo.custom_call @lapack_dgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k], [l], [m, n], [o, p], []) {i=1, j=1, k=1, l=1, m=1, n=1, o=1, p=1}, custom>} : (tensor<1x1xf64>) -> (tensor<1xf64>, tensor<1xf64>, tensor<1x1xcomplex<f64>>, tensor<1x1xcomplex<f64>>, tensor<i32>)
    %1 = stablehlo.complex %0#0, %0#1 : tensor<1xcomplex<f64>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %3 = stablehlo.compare EQ, %0#4, %2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<1xcomplex<f64>>
    %6 = stablehlo.select %4, %1, %5 : tensor<1xi1>, tensor<1xcomplex<f64>>
    %7 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<1x1xcomplex<f64>>
    %9 = stablehlo.select %7, %0#2, %8 : tensor<1x1xi1>, tensor<1x1xcomplex<f64>>
    %10 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<1x1xcomplex<f64>>
    %12 = stablehlo.select %10, %0#3, %11 : tensor<1x1xi1>, tensor<1x1xcomplex<f64>>
    return %6, %9, %12 : tensor<1xcomplex<f64>>, tensor<1x1xcomplex<f64>>, tensor<1x1xcomplex<f64>>
  }
}
