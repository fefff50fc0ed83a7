module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10x6xf32>, %arg1: tensor<5xi32>, %arg2: tensor<10x3xi32>) -> (tensor<5x6xf32> {jax.result_info = "result[0]"}, tensor<5x3xf32> {jax.result_info = "result[1]"}, tensor<10x3xf32> {jax.result_info = "result[2]"}, tensor<5x6xf32> {jax.result_info = "result[3]"}, tensor<10x2xf32> {jax.result_info = "result[4]"}) {
    %c = stablehlo.constant dense<6> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %c_1 = stablehlo.constant dense<10> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<5xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<5xi1>, tensor<5xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 6>}> : (tensor<10x6xf32>, tensor<5x1xi32>) -> tensor<5x6xf32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %8 = stablehlo.compare LT, %arg1, %7, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %9 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %10 = stablehlo.add %arg1, %9 : tensor<5xi32>
    %11 = stablehlo.select %8, %10, %arg1 : tensor<5xi1>, tensor<5xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %13 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %14 = stablehlo.concatenate %12, %13, dim = 1 : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x2xi32>
    %15 = "stablehlo.gather"(%arg0, %14) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>}> : (tensor<10x6xf32>, tensor<5x2xi32>) -> tensor<5x3xf32>
    %16 = call @take_along_axis(%arg0, %arg2) : (tensor<10x6xf32>, tensor<10x3xi32>) -> tensor<10x3xf32>
    %17 = call @_take(%arg0, %arg1) : (tensor<10x6xf32>, tensor<5xi32>) -> tensor<5x6xf32>
    %18 = stablehlo.slice %arg1 [0:2] : (tensor<5xi32>) -> tensor<2xi32>
    %19 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %20 = stablehlo.compare LT, %18, %19, SIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
    %21 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %22 = stablehlo.add %18, %21 : tensor<2xi32>
    %23 = stablehlo.select %20, %22, %18 : tensor<2xi1>, tensor<2xi32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [0] : (tensor<2xi32>) -> tensor<2x1xi32>
    %25 = "stablehlo.gather"(%arg0, %24) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 10, 1>}> : (tensor<10x6xf32>, tensor<2x1xi32>) -> tensor<10x2xf32>
    return %6, %15, %16, %17, %25 : tensor<5x6xf32>, tensor<5x3xf32>, tensor<10x3xf32>, tensor<5x6xf32>, tensor<10x2xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<10x6xf32>, %arg1: tensor<10x3xi32>) -> tensor<10x3xf32> {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<5> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<6> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<10x3xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<10x3xi32>, tensor<10x3xi32>) -> tensor<10x3xi1>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<10x3xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<10x3xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<10x3xi1>, tensor<10x3xi32>
    %5 = stablehlo.reshape %4 : (tensor<10x3xi32>) -> tensor<10x3x1xi32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<10x3x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<10x3x1xi32>, tensor<10x3x1xi32>) -> tensor<10x3x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<10x3x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<10x3x1xi32>, tensor<10x3x1xi32>) -> tensor<10x3x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<10x3x1xi1>
    %12 = stablehlo.reduce(%11 init: %c) applies stablehlo.and across dimensions = [2] : (tensor<10x3x1xi1>, tensor<i1>) -> tensor<10x3xi1>
    %13 = stablehlo.iota dim = 0 : tensor<10x3x1xi32>
    %14 = stablehlo.concatenate %13, %5, dim = 2 : (tensor<10x3x1xi32>, tensor<10x3x1xi32>) -> tensor<10x3x2xi32>
    %15 = "stablehlo.gather"(%arg0, %14) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>}> : (tensor<10x6xf32>, tensor<10x3x2xi32>) -> tensor<10x3xf32>
    %16 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10x3xf32>
    %17 = stablehlo.select %12, %15, %16 : tensor<10x3xi1>, tensor<10x3xf32>
    return %17 : tensor<10x3xf32>
  }
  func.func private @_take(%arg0: tensor<10x6xf32>, %arg1: tensor<5xi32>) -> tensor<5x6xf32> {
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_1 = stablehlo.constant dense<10> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %2 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<5xi32>
    %4 = call @_where(%1, %3, %arg1) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<5x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<5x1xi32>, tensor<5x1xi32>) -> tensor<5x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<5x1xi1>
    %12 = stablehlo.reduce(%11 init: %c) applies stablehlo.and across dimensions = [1] : (tensor<5x1xi1>, tensor<i1>) -> tensor<5xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 6>}> : (tensor<10x6xf32>, tensor<5x1xi32>) -> tensor<5x6xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<5xi1>) -> tensor<5x6xi1>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x6xf32>
    %16 = stablehlo.select %14, %13, %15 : tensor<5x6xi1>, tensor<5x6xf32>
    return %16 : tensor<5x6xf32>
  }
  func.func private @_where(%arg0: tensor<5xi1>, %arg1: tensor<5xi32>, %arg2: tensor<5xi32>) -> tensor<5xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<5xi1>, tensor<5xi32>
    return %0 : tensor<5xi32>
  }
}
