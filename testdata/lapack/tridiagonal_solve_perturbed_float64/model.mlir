module @jit_tridiagonal_solve attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf64>, %arg1: tensor<6xf64>, %arg2: tensor<6xf64>, %arg3: tensor<6x2xf64>) -> (tensor<6x2xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.custom_call @tridiagonal_solve_perturbed_ffi(%arg0, %arg1, %arg2, %arg3) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i], [j], [k], [l, m])->([n, o]) {i=6, j=6, k=6, l=6, m=2, n=6, o=2}, custom>} : (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>, tensor<6x2xf64>) -> tensor<6x2xf64>
    return %0 : tensor<6x2xf64>
  }
}
