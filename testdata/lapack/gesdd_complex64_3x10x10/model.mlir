module @jit_svd_product attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x10x10xcomplex<f32>>) -> (tensor<3x10xf32> {jax.result_info = "result[0]"}, tensor<3x10x10xcomplex<f32>> {jax.result_info = "result[1]"}) {
    %0:3 = call @svd(%arg0) : (tensor<3x10x10xcomplex<f32>>) -> (tensor<3x10x10xcomplex<f32>>, tensor<3x10xf32>, tensor<3x10x10xcomplex<f32>>)
    %1 = stablehlo.broadcast_in_dim %0#1, dims = [0, 2] : (tensor<3x10xf32>) -> tensor<3x1x10xf32>
    %2 = stablehlo.convert %1 : (tensor<3x1x10xf32>) -> tensor<3x1x10xcomplex<f32>>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1, 2] : (tensor<3x1x10xcomplex<f32>>) -> tensor<3x10x10xcomplex<f32>>
    %4 = stablehlo.multiply %0#0, %3 : tensor<3x10x10xcomplex<f32>>
    %5 = stablehlo.dot_general %4, %0#2, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x10x10xcomplex<f32>>, tensor<3x10x10xcomplex<f32>>) -> tensor<3x10x10xcomplex<f32>>
    return %0#1, %5 : tensor<3x10xf32>, tensor<3x10x10xcomplex<f32>>
  }
  func.func private @svd(%arg0: tensor<3x10x10xcomplex<f32>>) -> (tensor<3x10x10xcomplex<f32>>, tensor<3x10xf32>, tensor<3x10x10xcomplex<f32>>) {
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "1"}, operand_layouts = [dense<[1, 2, 0]> : tensor<3xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 0]> : tensor<2xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<[1, 2, 0]> : tensor<3xindex>, dense<0> : tensor<1xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j, k])->([i, l, m], [i, n], [i, o, p], [i, q, r], [i]) {i=3, j=10, k=10, l=10, m=10, n=10, o=10, p=10, q=10, r=10}, custom>} : (tensor<3x10x10xcomplex<f32>>) -> (tensor<3x10x10xcomplex<f32>>, tensor<3x10xf32>, tensor<3x10x10xcomplex<f32>>, tensor<3x10x10xcomplex<f32>>, tensor<3xi32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xi1>) -> tensor<3x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x10xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<3x1xi1>) -> tensor<3x10xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3x10xi1>, tensor<3x10xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xi1>) -> tensor<3x1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<3x10x10xcomplex<f32>>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<3x1x1xi1>) -> tensor<3x10x10xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<3x10x10xi1>, tensor<3x10x10xcomplex<f32>>
    %11 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xi1>) -> tensor<3x1x1xi1>
    %cst_1 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<complex<f32>>) -> tensor<3x10x10xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1, 2] : (tensor<3x1x1xi1>) -> tensor<3x10x10xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<3x10x10xi1>, tensor<3x10x10xcomplex<f32>>
    return %10, %6, %14 : tensor<3x10x10xcomplex<f32>>, tensor<3x10xf32>, tensor<3x10x10xcomplex<f32>>
  }
}
