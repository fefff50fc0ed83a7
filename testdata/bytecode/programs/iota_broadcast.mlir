module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<5xf32>) -> (tensor<3x4xf32> {jax.result_info = "result[0]"}, tensor<3x5xf32> {jax.result_info = "result[1]"}, tensor<5x4xf32> {jax.result_info = "result[2]"}, tensor<4x6xi32> {jax.result_info = "result[3]"}, tensor<3x5xf32> {jax.result_info = "result[4]"}, tensor<2x3x4xi32> {jax.result_info = "result[5]"}, tensor<5x3x1xf32> {jax.result_info = "result[6]"}, tensor<7xf32> {jax.result_info = "result[7]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<10> : tensor<i32>
    %c_1 = stablehlo.constant dense<-1> : tensor<i32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.iota dim = 0 : tensor<12xf32>
    %1 = stablehlo.reshape %0 : (tensor<12xf32>) -> tensor<3x4xf32>
    %2 = stablehlo.add %1, %arg0 : tensor<3x4xf32>
    %3 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<5xf32>) -> tensor<3x5xf32>
    %4 = stablehlo.iota dim = 0 : tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x4xf32>
    %8 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<5x4xf32>
    %9 = stablehlo.multiply %7, %8 : tensor<5x4xf32>
    %10 = stablehlo.iota dim = 0 : tensor<4x6xi32>
    %11 = stablehlo.iota dim = 1 : tensor<4x6xi32>
    %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4x6xi32>
    %13 = stablehlo.add %10, %12 : tensor<4x6xi32>
    %14 = stablehlo.compare EQ, %13, %11, SIGNED : (tensor<4x6xi32>, tensor<4x6xi32>) -> tensor<4x6xi1>
    %15 = stablehlo.convert %14 : (tensor<4x6xi1>) -> tensor<4x6xi32>
    %16 = stablehlo.iota dim = 0 : tensor<3x5xi32>
    %17 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %18 = stablehlo.add %16, %17 : tensor<3x5xi32>
    %19 = stablehlo.iota dim = 1 : tensor<3x5xi32>
    %20 = stablehlo.compare GE, %18, %19, SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %21 = stablehlo.convert %20 : (tensor<3x5xi1>) -> tensor<3x5xf32>
    %22 = stablehlo.iota dim = 1 : tensor<2x3x4xi32>
    %23 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<2x3x4xi32>
    %24 = stablehlo.multiply %22, %23 : tensor<2x3x4xi32>
    %25 = stablehlo.iota dim = 2 : tensor<2x3x4xi32>
    %26 = stablehlo.add %24, %25 : tensor<2x3x4xi32>
    %27 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<5xf32>) -> tensor<5x1x1xf32>
    %28 = stablehlo.slice %arg0 [0:3, 0:1] : (tensor<3x4xf32>) -> tensor<3x1xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [1, 2] : (tensor<3x1xf32>) -> tensor<1x3x1xf32>
    %30 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<5x1x1xf32>) -> tensor<5x3x1xf32>
    %31 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2] : (tensor<1x3x1xf32>) -> tensor<5x3x1xf32>
    %32 = stablehlo.multiply %30, %31 : tensor<5x3x1xf32>
    %33 = call @_linspace(%cst_0, %cst) : (tensor<f32>, tensor<f32>) -> tensor<7xf32>
    return %2, %3, %9, %15, %21, %26, %32, %33 : tensor<3x4xf32>, tensor<3x5xf32>, tensor<5x4xf32>, tensor<4x6xi32>, tensor<3x5xf32>, tensor<2x3x4xi32>, tensor<5x3x1xf32>, tensor<7xf32>
  }
  func.func private @_linspace(%arg0: tensor<f32>, %arg1: tensor<f32>) -> tensor<7xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %0 = stablehlo.convert %arg0 : tensor<f32>
    %1 = stablehlo.convert %arg1 : tensor<f32>
    %2 = stablehlo.iota dim = 0 : tensor<6xf32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %4 = stablehlo.divide %2, %3 : tensor<6xf32>
    %5 = stablehlo.reshape %0 : (tensor<f32>) -> tensor<1xf32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %7 = stablehlo.subtract %6, %4 : tensor<6xf32>
    %8 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<1xf32>) -> tensor<6xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<6xf32>
    %10 = stablehlo.reshape %1 : (tensor<f32>) -> tensor<1xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<1xf32>) -> tensor<6xf32>
    %12 = stablehlo.multiply %11, %4 : tensor<6xf32>
    %13 = stablehlo.add %9, %12 : tensor<6xf32>
    %14 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %15 = stablehlo.concatenate %13, %14, dim = 0 : (tensor<6xf32>, tensor<1xf32>) -> tensor<7xf32>
    return %15 : tensor<7xf32>
  }
}
