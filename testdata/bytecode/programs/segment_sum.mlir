module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12x3xf32>, %arg1: tensor<12xi32>) -> (tensor<5x3xf32> {jax.result_info = "result[0]"}, tensor<5x3xf32> {jax.result_info = "result[1]"}, tensor<5xi32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %2 = "stablehlo.scatter"(%0, %1, %arg0) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %10 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<5x3xf32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %4 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %5 = "stablehlo.scatter"(%3, %4, %arg0) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %10 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<5x3xf32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %8 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %9 = "stablehlo.scatter"(%7, %8, %6) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %10 = stablehlo.add %arg2, %arg3 : tensor<i32>
      stablehlo.return %10 : tensor<i32>
    }) : (tensor<5xi32>, tensor<12x1xi32>, tensor<12xi32>) -> tensor<5xi32>
    return %2, %5, %9 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5xi32>
  }
}
