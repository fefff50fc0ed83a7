module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x7xf32>, %arg1: tensor<2x3x4xi32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xi32> {jax.result_info = "result[1]"}, tensor<7xf32> {jax.result_info = "result[2]"}, tensor<f32> {jax.result_info = "result[3]"}, tensor<3xi32> {jax.result_info = "result[4]"}, tensor<2x4xi32> {jax.result_info = "result[5]"}, tensor<4xi1> {jax.result_info = "result[6]"}, tensor<4xi1> {jax.result_info = "result[7]"}) {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %c_1 = stablehlo.constant dense<-2147483648> : tensor<i32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.iota dim = 1 : tensor<4x7xi32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst_4), (%0 init: %c_3) across dimensions = [1] : (tensor<4x7xf32>, tensor<4x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
     reducer(%arg2: tensor<f32>, %arg4: tensor<f32>) (%arg3: tensor<i32>, %arg5: tensor<i32>)  {
      %12 = stablehlo.compare GT, %arg2, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %13 = stablehlo.compare EQ, %arg2, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %14 = stablehlo.compare LT, %arg3, %arg5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %15 = stablehlo.and %13, %14 : tensor<i1>
      %16 = stablehlo.or %12, %15 : tensor<i1>
      %17 = func.call @_where(%16, %arg2, %arg4) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      %18 = func.call @_where_0(%16, %arg3, %arg5) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
      stablehlo.return %17, %18 : tensor<f32>, tensor<i32>
    }
    %2 = stablehlo.reduce(%arg0 init: %cst_2) applies stablehlo.multiply across dimensions = [0] : (tensor<4x7xf32>, tensor<f32>) -> tensor<7xf32>
    %3 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<4x7xf32>, tensor<f32>) -> tensor<f32>
    %4 = stablehlo.reduce(%arg1 init: %c_1) applies stablehlo.maximum across dimensions = [0, 2] : (tensor<2x3x4xi32>, tensor<i32>) -> tensor<3xi32>
    %5 = stablehlo.reduce(%arg1 init: %c_3) applies stablehlo.add across dimensions = [1] : (tensor<2x3x4xi32>, tensor<i32>) -> tensor<2x4xi32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x7xf32>
    %7 = stablehlo.compare GT, %arg0, %6, FLOAT : (tensor<4x7xf32>, tensor<4x7xf32>) -> tensor<4x7xi1>
    %8 = stablehlo.reduce(%7 init: %c_0) applies stablehlo.or across dimensions = [1] : (tensor<4x7xi1>, tensor<i1>) -> tensor<4xi1>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<2x3x4xi32>
    %10 = stablehlo.compare GE, %arg1, %9, SIGNED : (tensor<2x3x4xi32>, tensor<2x3x4xi32>) -> tensor<2x3x4xi1>
    %11 = stablehlo.reduce(%10 init: %c) applies stablehlo.and across dimensions = [0, 1] : (tensor<2x3x4xi1>, tensor<i1>) -> tensor<4xi1>
    return %1#0, %1#1, %2, %3, %4, %5, %8, %11 : tensor<4xf32>, tensor<4xi32>, tensor<7xf32>, tensor<f32>, tensor<3xi32>, tensor<2x4xi32>, tensor<4xi1>, tensor<4xi1>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<f32>
    return %0 : tensor<f32>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
}
