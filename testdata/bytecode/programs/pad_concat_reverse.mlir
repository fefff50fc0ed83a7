module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<3x5xf32>) -> (tensor<7x5xf32> {jax.result_info = "result[0]"}, tensor<10x13xf32> {jax.result_info = "result[1]"}, tensor<7x5xf32> {jax.result_info = "result[2]"}, tensor<4x12xf32> {jax.result_info = "result[3]"}, tensor<4x5xf32> {jax.result_info = "result[4]"}, tensor<4x5xf32> {jax.result_info = "result[5]"}, tensor<3x5xf32> {jax.result_info = "result[6]"}, tensor<2x2xf32> {jax.result_info = "result[7]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<-7.000000e+00> : tensor<f32>
    %0 = stablehlo.pad %arg0, %cst_0, low = [1, -2], high = [-1, 2], interior = [1, 0] : (tensor<4x5xf32>, tensor<f32>) -> tensor<7x5xf32>
    %1 = stablehlo.pad %arg0, %cst, low = [0, 3], high = [0, 1], interior = [2, 1] : (tensor<4x5xf32>, tensor<f32>) -> tensor<10x13xf32>
    %2 = stablehlo.concatenate %arg0, %arg1, dim = 0 : (tensor<4x5xf32>, tensor<3x5xf32>) -> tensor<7x5xf32>
    %3 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<3x5xf32>) -> tensor<5x3xf32>
    %4 = stablehlo.slice %3 [0:4, 0:2] : (tensor<5x3xf32>) -> tensor<4x2xf32>
    %5 = stablehlo.concatenate %arg0, %4, %arg0, dim = 1 : (tensor<4x5xf32>, tensor<4x2xf32>, tensor<4x5xf32>) -> tensor<4x12xf32>
    %6 = call @_flip(%arg0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %7 = call @_flip_0(%arg0) : (tensor<4x5xf32>) -> tensor<4x5xf32>
    %8 = stablehlo.reverse %arg1, dims = [1] : tensor<3x5xf32>
    %9 = stablehlo.slice %arg0 [0:4:2, 1:5:3] : (tensor<4x5xf32>) -> tensor<2x2xf32>
    return %0, %1, %2, %5, %6, %7, %8, %9 : tensor<7x5xf32>, tensor<10x13xf32>, tensor<7x5xf32>, tensor<4x12xf32>, tensor<4x5xf32>, tensor<4x5xf32>, tensor<3x5xf32>, tensor<2x2xf32>
  }
  func.func private @_flip(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
  func.func private @_flip_0(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0, 1] : tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
}
