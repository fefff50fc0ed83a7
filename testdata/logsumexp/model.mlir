module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<f32> {jax.result_info = "result[2]"}, tensor<4xf32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<4xf32>
    %3 = stablehlo.is_finite %2 : (tensor<4xf32>) -> tensor<4xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.select %3, %2, %4 : tensor<4xi1>, tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x6xf32>
    %8 = stablehlo.subtract %arg0, %7 : tensor<4x6xf32>
    %9 = stablehlo.exponential %8 : tensor<4x6xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.sign %10 : tensor<4xf32>
    %12 = stablehlo.abs %10 : tensor<4xf32>
    %13 = stablehlo.log %12 : tensor<4xf32>
    %14 = stablehlo.add %13, %5 : tensor<4xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = stablehlo.reduce(%arg0 init: %cst_3) applies stablehlo.maximum across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_4 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %17 = stablehlo.maximum %16, %15 : tensor<6xf32>
    %18 = stablehlo.is_finite %17 : (tensor<6xf32>) -> tensor<6xi1>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %20 = stablehlo.select %18, %17, %19 : tensor<6xi1>, tensor<6xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [1] : (tensor<6xf32>) -> tensor<1x6xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<1x6xf32>) -> tensor<4x6xf32>
    %23 = stablehlo.subtract %arg0, %22 : tensor<4x6xf32>
    %24 = stablehlo.exponential %23 : tensor<4x6xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %26 = stablehlo.sign %25 : tensor<6xf32>
    %27 = stablehlo.abs %25 : tensor<6xf32>
    %28 = stablehlo.log %27 : tensor<6xf32>
    %29 = stablehlo.add %28, %20 : tensor<6xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %30 = stablehlo.reduce(%arg0 init: %cst_7) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %31 = stablehlo.maximum %cst_8, %30 : tensor<f32>
    %32 = stablehlo.is_finite %31 : (tensor<f32>) -> tensor<i1>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.select %32, %31, %cst_9 : tensor<i1>, tensor<f32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %35 = stablehlo.broadcast_in_dim %34, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x6xf32>
    %36 = stablehlo.subtract %arg0, %35 : tensor<4x6xf32>
    %37 = stablehlo.exponential %36 : tensor<4x6xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.reduce(%37 init: %cst_10) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<f32>
    %39 = stablehlo.sign %38 : tensor<f32>
    %40 = stablehlo.abs %38 : tensor<f32>
    %41 = stablehlo.log %40 : tensor<f32>
    %42 = stablehlo.add %41, %33 : tensor<f32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %44 = stablehlo.compare GT, %arg0, %43, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %45 = call @_where(%44, %arg0, %c) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<i32>) -> tensor<4x6xf32>
    %cst_12 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %46 = call @_where_0(%44, %45, %cst_12) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %cst_13 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_13) applies stablehlo.maximum across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_14 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %49 = stablehlo.maximum %48, %47 : tensor<4xf32>
    %50 = stablehlo.is_finite %49 : (tensor<4xf32>) -> tensor<4xi1>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %52 = stablehlo.select %50, %49, %51 : tensor<4xi1>, tensor<4xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x6xf32>
    %55 = stablehlo.subtract %45, %54 : tensor<4x6xf32>
    %56 = stablehlo.exponential %55 : tensor<4x6xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = call @_where_0(%44, %56, %cst_16) : (tensor<4x6xi1>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %58 = stablehlo.reduce(%57 init: %cst_17) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %59 = stablehlo.sign %58 : tensor<4xf32>
    %60 = stablehlo.abs %58 : tensor<4xf32>
    %61 = stablehlo.log %60 : tensor<4xf32>
    %62 = stablehlo.add %61, %52 : tensor<4xf32>
    return %14, %29, %42, %62 : tensor<4xf32>, tensor<6xf32>, tensor<f32>, tensor<4xf32>
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
