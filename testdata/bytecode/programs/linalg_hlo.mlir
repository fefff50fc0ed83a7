module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf32>, %arg1: tensor<2x4x4xf32>, %arg2: tensor<5x5xf32>, %arg3: tensor<5x3xf32>, %arg4: tensor<2x5xf32>, %arg5: tensor<2x4x4xf32>, %arg6: tensor<2x4x2xf32>) -> (tensor<5x5xf32> {jax.result_info = "result[0]"}, tensor<5x5xf32> {jax.result_info = "result[1]"}, tensor<2x4x4xf32> {jax.result_info = "result[2]"}, tensor<5x3xf32> {jax.result_info = "result[3]"}, tensor<5x3xf32> {jax.result_info = "result[4]"}, tensor<5x3xf32> {jax.result_info = "result[5]"}, tensor<5x3xf32> {jax.result_info = "result[6]"}, tensor<2x5xf32> {jax.result_info = "result[7]"}, tensor<2x5xf32> {jax.result_info = "result[8]"}, tensor<2x4x2xf32> {jax.result_info = "result[9]"}) {
    %0 = call @tril(%arg2) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %1 = call @triu(%arg2) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %2 = stablehlo.cholesky %arg0, lower = true : tensor<5x5xf32>
    %3 = call @tril(%2) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %4 = stablehlo.cholesky %arg0 : tensor<5x5xf32>
    %5 = call @triu(%4) : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %6 = stablehlo.cholesky %arg1, lower = true : tensor<2x4x4xf32>
    %7 = call @tril_0(%6) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %8 = "stablehlo.triangular_solve"(%0, %arg3) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<5x5xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
    %9 = "stablehlo.triangular_solve"(%1, %arg3) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<5x5xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
    %10 = "stablehlo.triangular_solve"(%0, %arg3) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<5x5xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
    %11 = "stablehlo.triangular_solve"(%1, %arg3) <{left_side = true, lower = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<5x5xf32>, tensor<5x3xf32>) -> tensor<5x3xf32>
    %12 = "stablehlo.triangular_solve"(%0, %arg4) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<5x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
    %13 = "stablehlo.triangular_solve"(%1, %arg4) <{left_side = false, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}> : (tensor<5x5xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
    %14 = call @tril_0(%arg5) : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    %15 = "stablehlo.triangular_solve"(%14, %arg6) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<2x4x4xf32>, tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
    return %3, %5, %7, %8, %9, %10, %11, %12, %13, %15 : tensor<5x5xf32>, tensor<5x5xf32>, tensor<2x4x4xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x4x2xf32>
  }
  func.func private @tril(%arg0: tensor<5x5xf32>) -> tensor<5x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<5x5xi32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x5xi32>
    %2 = stablehlo.add %0, %1 : tensor<5x5xi32>
    %3 = stablehlo.iota dim = 1 : tensor<5x5xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<5x5xi1>, tensor<5x5xf32>
    return %6 : tensor<5x5xf32>
  }
  func.func private @triu(%arg0: tensor<5x5xf32>) -> tensor<5x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<5x5xi32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x5xi32>
    %2 = stablehlo.add %0, %1 : tensor<5x5xi32>
    %3 = stablehlo.iota dim = 1 : tensor<5x5xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %6 = stablehlo.select %4, %5, %arg0 : tensor<5x5xi1>, tensor<5x5xf32>
    return %6 : tensor<5x5xf32>
  }
  func.func private @tril_0(%arg0: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %2 = stablehlo.add %0, %1 : tensor<4x4xi32>
    %3 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [1, 2] : (tensor<4x4xi1>) -> tensor<2x4x4xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x4xf32>
    %7 = stablehlo.select %5, %arg0, %6 : tensor<2x4x4xi1>, tensor<2x4x4xf32>
    return %7 : tensor<2x4x4xf32>
  }
}
