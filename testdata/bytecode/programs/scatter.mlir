module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<6xi32>, %arg2: tensor<6xi32>, %arg3: tensor<6x4xf32>) -> (tensor<10x4xf32> {jax.result_info = "result[0]"}, tensor<10x4xf32> {jax.result_info = "result[1]"}, tensor<10x4xf32> {jax.result_info = "result[2]"}, tensor<10x4xf32> {jax.result_info = "result[3]"}, tensor<10x4xf32> {jax.result_info = "result[4]"}, tensor<10x4xf32> {jax.result_info = "result[5]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<6xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<6xi1>, tensor<6xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %6 = "stablehlo.scatter"(%arg0, %5, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %48 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %8 = stablehlo.compare LT, %arg2, %7, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %9 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %10 = stablehlo.add %arg2, %9 : tensor<6xi32>
    %11 = stablehlo.select %8, %10, %arg2 : tensor<6xi1>, tensor<6xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %13 = "stablehlo.scatter"(%arg0, %12, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      stablehlo.return %arg5 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    %14 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %15 = stablehlo.compare LT, %arg1, %14, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %16 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %17 = stablehlo.add %arg1, %16 : tensor<6xi32>
    %18 = stablehlo.select %15, %17, %arg1 : tensor<6xi1>, tensor<6xi32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %20 = "stablehlo.scatter"(%arg0, %19, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %48 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    %21 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %22 = stablehlo.compare LT, %arg1, %21, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %23 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %24 = stablehlo.add %arg1, %23 : tensor<6xi32>
    %25 = stablehlo.select %22, %24, %arg1 : tensor<6xi1>, tensor<6xi32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %27 = "stablehlo.scatter"(%arg0, %26, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %48 = stablehlo.minimum %arg4, %arg5 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    %28 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %29 = stablehlo.compare LT, %arg2, %28, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %30 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %31 = stablehlo.add %arg2, %30 : tensor<6xi32>
    %32 = stablehlo.select %29, %31, %arg2 : tensor<6xi1>, tensor<6xi32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %34 = "stablehlo.scatter"(%arg0, %33, %arg3) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %48 = stablehlo.multiply %arg4, %arg5 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<6x1xi32>, tensor<6x4xf32>) -> tensor<10x4xf32>
    %35 = stablehlo.slice %arg3 [0:6, 0:1] : (tensor<6x4xf32>) -> tensor<6x1xf32>
    %36 = stablehlo.reshape %35 : (tensor<6x1xf32>) -> tensor<6xf32>
    %37 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %38 = stablehlo.compare LT, %arg1, %37, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %39 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %40 = stablehlo.add %arg1, %39 : tensor<6xi32>
    %41 = stablehlo.select %38, %40, %arg1 : tensor<6xi1>, tensor<6xi32>
    %42 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %43 = stablehlo.convert %42 : tensor<6xi32>
    %44 = stablehlo.broadcast_in_dim %41, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %45 = stablehlo.broadcast_in_dim %43, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %46 = stablehlo.concatenate %44, %45, dim = 1 : (tensor<6x1xi32>, tensor<6x1xi32>) -> tensor<6x2xi32>
    %47 = "stablehlo.scatter"(%arg0, %46, %36) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>}> ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %48 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %48 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<6x2xi32>, tensor<6xf32>) -> tensor<10x4xf32>
    return %6, %13, %20, %27, %34, %47 : tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>, tensor<10x4xf32>
  }
}
