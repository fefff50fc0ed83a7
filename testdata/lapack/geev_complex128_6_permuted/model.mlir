module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x6xcomplex<f64>>) -> (tensor<6xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<6x6xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<6x6xcomplex<f64>> {jax.result_info = "result[2]"}) {
    %0:4 = stablehlo.custom_call @lapack_zgeev_ffi(%arg0) {backend_config = "", mhlo.backend_config = {compute_left = 86 : ui8, compute_right = 86 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k], [l, m], [n, o], []) {i=6, j=6, k=6, l=6, m=6, n=6, o=6}, custom>} : (tensor<6x6xcomplex<f64>>) -> (tensor<6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#3, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f64>>) -> tensor<6xcomplex<f64>>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<6xi1>
    %6 = stablehlo.select %5, %0#0, %4 : tensor<6xi1>, tensor<6xcomplex<f64>>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f64>>) -> tensor<6x6xcomplex<f64>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x6xi1>
    %10 = stablehlo.select %9, %0#1, %8 : tensor<6x6xi1>, tensor<6x6xcomplex<f64>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FF8000000000000,0x7FF8000000000000)> : tensor<complex<f64>>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f64>>) -> tensor<6x6xcomplex<f64>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x6xi1>
    %14 = stablehlo.select %13, %0#2, %12 : tensor<6x6xi1>, tensor<6x6xcomplex<f64>>
    return %6, %10, %14 : tensor<6xcomplex<f64>>, tensor<6x6xcomplex<f64>>, tensor<6x6xcomplex<f64>>
  }
}
