module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4096x1024xf32>, %arg1: tensor<4096x1024xf32>) -> (tensor<4096x1024xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4096x1024xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<4096x1024xf32>
    %2 = stablehlo.add %1, %arg1 : tensor<4096x1024xf32>
    %3 = stablehlo.tanh %2 : tensor<4096x1024xf32>
    %4 = stablehlo.subtract %arg0, %arg1 : tensor<4096x1024xf32>
    %5 = stablehlo.negate %4 : tensor<4096x1024xf32>
    %6 = stablehlo.exponential %5 : tensor<4096x1024xf32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4096x1024xf32>
    %8 = stablehlo.add %7, %6 : tensor<4096x1024xf32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4096x1024xf32>
    %10 = stablehlo.divide %9, %8 : tensor<4096x1024xf32>
    %11 = stablehlo.multiply %3, %10 : tensor<4096x1024xf32>
    %12 = stablehlo.add %11, %2 : tensor<4096x1024xf32>
    return %12 : tensor<4096x1024xf32>
  }
}
