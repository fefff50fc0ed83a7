module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<4xf32>
    %3 = stablehlo.is_finite %2 : (tensor<4xf32>) -> tensor<4xi1>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.select %3, %2, %4 : tensor<4xi1>, tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x6xf32>
    %8 = stablehlo.subtract %arg0, %7 : tensor<4x6xf32>
    %9 = stablehlo.exponential %8 : tensor<4x6xf32>
    %10 = stablehlo.reduce(%9 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.abs %10 : tensor<4xf32>
    %12 = stablehlo.log %11 : tensor<4xf32>
    %13 = stablehlo.add %12, %5 : tensor<4xf32>
    %14 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %16 = stablehlo.maximum %15, %14 : tensor<6xf32>
    %17 = stablehlo.is_finite %16 : (tensor<6xf32>) -> tensor<6xi1>
    %18 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %19 = stablehlo.select %17, %16, %18 : tensor<6xi1>, tensor<6xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<4x6xf32>
    %22 = stablehlo.subtract %arg0, %21 : tensor<4x6xf32>
    %23 = stablehlo.exponential %22 : tensor<4x6xf32>
    %24 = stablehlo.reduce(%23 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %25 = stablehlo.abs %24 : tensor<6xf32>
    %26 = stablehlo.log %25 : tensor<6xf32>
    %27 = stablehlo.add %26, %19 : tensor<6xf32>
    %28 = stablehlo.reduce(%arg0 init: %cst_0) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
    %29 = stablehlo.maximum %cst_0, %28 : tensor<f32>
    %30 = stablehlo.is_finite %29 : (tensor<f32>) -> tensor<i1>
    %31 = stablehlo.select %30, %29, %cst : tensor<i1>, tensor<f32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x6xf32>
    %34 = stablehlo.subtract %arg0, %33 : tensor<4x6xf32>
    %35 = stablehlo.exponential %34 : tensor<4x6xf32>
    %36 = stablehlo.reduce(%35 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
    %37 = stablehlo.abs %36 : tensor<f32>
    %38 = stablehlo.log %37 : tensor<f32>
    %39 = stablehlo.add %38, %31 : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %41 = stablehlo.compare GT, %arg0, %40, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %42 = call @_where(%41, %arg0, %c) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<i32>) -> tensor<4x6xf32>
    %43 = call @_where_0(%41, %42, %cst_0) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %44 = stablehlo.reduce(%43 init: %cst_0) applies stablehlo.maximum across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %45 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %46 = stablehlo.maximum %45, %44 : tensor<4xf32>
    %47 = stablehlo.is_finite %46 : (tensor<4xf32>) -> tensor<4xi1>
    %48 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %49 = stablehlo.select %47, %46, %48 : tensor<4xi1>, tensor<4xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x6xf32>
    %52 = stablehlo.subtract %42, %51 : tensor<4x6xf32>
    %53 = stablehlo.exponential %52 : tensor<4x6xf32>
    %54 = call @_where_0(%41, %53, %cst) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %55 = stablehlo.reduce(%54 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %56 = stablehlo.abs %55 : tensor<4xf32>
    %57 = stablehlo.log %56 : tensor<4xf32>
    %58 = stablehlo.add %57, %49 : tensor<4xf32>
    return %13, %27, %39, %58 : tensor<4xf32>, tensor<6xf32>, tensor<f32>, tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4x6xi1>, %arg1: tensor<4x6xf32>, %arg2: tensor<i32>) -> tensor<4x6xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<4x6xi1>, tensor<4x6xf32>
    return %2 : tensor<4x6xf32>
  }
  func.func private @_where_0(%arg0: tensor<4x6xi1>, %arg1: tensor<4x6xf32>, %arg2: tensor<f32>) -> tensor<4x6xf32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<4x6xi1>, tensor<4x6xf32>
    return %1 : tensor<4x6xf32>
  }
}
