module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf32>, %arg1: tensor<10xf32>, %arg2: tensor<8xi32>, %arg3: tensor<8xi32>, %arg4: tensor<8xui32>, %arg5: tensor<8xui32>) -> (tensor<10xi1> {jax.result_info = "result[0][0]"}, tensor<10xi1> {jax.result_info = "result[0][1]"}, tensor<10xi1> {jax.result_info = "result[0][2]"}, tensor<10xi1> {jax.result_info = "result[0][3]"}, tensor<10xi1> {jax.result_info = "result[0][4]"}, tensor<10xi1> {jax.result_info = "result[0][5]"}, tensor<8xi1> {jax.result_info = "result[1][0]"}, tensor<8xi1> {jax.result_info = "result[1][1]"}, tensor<8xi1> {jax.result_info = "result[1][2]"}, tensor<8xi1> {jax.result_info = "result[1][3]"}, tensor<8xi1> {jax.result_info = "result[1][4]"}, tensor<8xi1> {jax.result_info = "result[1][5]"}, tensor<8xi1> {jax.result_info = "result[2][0]"}, tensor<8xi1> {jax.result_info = "result[2][1]"}, tensor<8xi1> {jax.result_info = "result[2][2]"}, tensor<8xi1> {jax.result_info = "result[2][3]"}, tensor<8xi1> {jax.result_info = "result[2][4]"}, tensor<8xi1> {jax.result_info = "result[2][5]"}, tensor<10xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<8xi32> {jax.result_info = "result[6]"}, tensor<8xui32> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<5> : tensor<i32>
    %c_0 = stablehlo.constant dense<-3> : tensor<i32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c_2 = stablehlo.constant dense<2> : tensor<i32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare EQ, %arg0, %arg1, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %1 = stablehlo.compare NE, %arg0, %arg1, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %2 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %3 = stablehlo.compare LE, %arg0, %arg1, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %4 = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %5 = stablehlo.compare GE, %arg0, %arg1, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %6 = stablehlo.compare EQ, %arg2, %arg3, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %7 = stablehlo.compare NE, %arg2, %arg3, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %8 = stablehlo.compare LT, %arg2, %arg3, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %9 = stablehlo.compare LE, %arg2, %arg3, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %10 = stablehlo.compare GT, %arg2, %arg3, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %11 = stablehlo.compare GE, %arg2, %arg3, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %12 = stablehlo.compare EQ, %arg4, %arg5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %13 = stablehlo.compare NE, %arg4, %arg5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %14 = stablehlo.compare LT, %arg4, %arg5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %15 = stablehlo.compare LE, %arg4, %arg5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %16 = stablehlo.compare GT, %arg4, %arg5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %17 = stablehlo.compare GE, %arg4, %arg5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %18 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %19 = call @_where(%18, %arg0, %arg1) : (tensor<10xi1>, tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
    %20 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %21 = stablehlo.compare GT, %arg2, %20, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %22 = stablehlo.slice %arg0 [0:8] : (tensor<10xf32>) -> tensor<8xf32>
    %23 = stablehlo.slice %arg1 [0:8] : (tensor<10xf32>) -> tensor<8xf32>
    %24 = call @_where_0(%21, %22, %23) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %25 = call @clip(%arg2, %c_3, %c_2) : (tensor<8xi32>, tensor<i32>, tensor<i32>) -> tensor<8xi32>
    %26 = stablehlo.slice %arg0 [0:8] : (tensor<10xf32>) -> tensor<8xf32>
    %27 = stablehlo.slice %arg1 [0:8] : (tensor<10xf32>) -> tensor<8xf32>
    %28 = stablehlo.slice %arg0 [0:8] : (tensor<10xf32>) -> tensor<8xf32>
    %29 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %30 = stablehlo.multiply %28, %29 : tensor<8xf32>
    %31 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %32 = stablehlo.compare LT, %25, %31, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %33 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %34 = stablehlo.compare LT, %25, %33, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %35 = stablehlo.select %34, %27, %30 : tensor<8xi1>, tensor<8xf32>
    %36 = stablehlo.select %32, %26, %35 : tensor<8xi1>, tensor<8xf32>
    %37 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %38 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %39 = stablehlo.clamp %37, %arg2, %38 : tensor<8xi32>
    %40 = stablehlo.compare GT, %arg4, %arg5, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %41 = call @_where_1(%40, %arg4, %arg5) : (tensor<8xi1>, tensor<8xui32>, tensor<8xui32>) -> tensor<8xui32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %19, %24, %36, %39, %41 : tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<8xi1>, tensor<10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xui32>
  }
  func.func private @_where(%arg0: tensor<10xi1>, %arg1: tensor<10xf32>, %arg2: tensor<10xf32>) -> tensor<10xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<10xi1>, tensor<10xf32>
    return %0 : tensor<10xf32>
  }
  func.func private @_where_0(%arg0: tensor<8xi1>, %arg1: tensor<8xf32>, %arg2: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @clip(%arg0: tensor<8xi32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<8xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<8xi32>
    %3 = stablehlo.convert %arg2 : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %5 = stablehlo.minimum %4, %2 : tensor<8xi32>
    return %5 : tensor<8xi32>
  }
  func.func private @_where_1(%arg0: tensor<8xi1>, %arg1: tensor<8xui32>, %arg2: tensor<8xui32>) -> tensor<8xui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xui32>
    return %0 : tensor<8xui32>
  }
}
