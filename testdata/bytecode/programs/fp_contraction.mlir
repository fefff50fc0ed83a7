module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1003xf32>, %arg1: tensor<1003xf32>, %arg2: tensor<1003xf32>, %arg3: tensor<1003xf32>, %arg4: tensor<1003xf32>, %arg5: tensor<1003xf32>, %arg6: tensor<1003xf32>, %arg7: tensor<1003xf32>, %arg8: tensor<7xf32>, %arg9: tensor<7xf32>, %arg10: tensor<7xf32>, %arg11: tensor<f32>, %arg12: tensor<f32>, %arg13: tensor<f32>) -> (tensor<1003xf32> {jax.result_info = "result[0]"}, tensor<1003xf32> {jax.result_info = "result[1]"}, tensor<1003xf32> {jax.result_info = "result[2]"}, tensor<1003xf32> {jax.result_info = "result[3]"}, tensor<1003xf32> {jax.result_info = "result[4]"}, tensor<1003xf32> {jax.result_info = "result[5]"}, tensor<1003xf32> {jax.result_info = "result[6]"}, tensor<1003xf32> {jax.result_info = "result[7]"}, tensor<7xf32> {jax.result_info = "result[8]"}, tensor<f32> {jax.result_info = "result[9]"}, tensor<1003xf32> {jax.result_info = "result[10]"}, tensor<1003xf32> {jax.result_info = "result[11]"}, tensor<1003xf32> {jax.result_info = "result[12]"}) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<3.000000e-01> : tensor<f32>
    %0 = stablehlo.multiply %arg5, %arg6 : tensor<1003xf32>
    %1 = stablehlo.multiply %arg1, %arg7 : tensor<1003xf32>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<1003xf32>
    %3 = stablehlo.add %2, %arg2 : tensor<1003xf32>
    %4 = stablehlo.multiply %arg3, %arg4 : tensor<1003xf32>
    %5 = stablehlo.add %arg2, %4 : tensor<1003xf32>
    %6 = stablehlo.multiply %arg4, %arg5 : tensor<1003xf32>
    %7 = stablehlo.subtract %6, %arg6 : tensor<1003xf32>
    %8 = stablehlo.multiply %arg7, %arg0 : tensor<1003xf32>
    %9 = stablehlo.subtract %arg6, %8 : tensor<1003xf32>
    %10 = stablehlo.multiply %arg0, %arg2 : tensor<1003xf32>
    %11 = stablehlo.multiply %arg1, %arg3 : tensor<1003xf32>
    %12 = stablehlo.add %10, %11 : tensor<1003xf32>
    %13 = stablehlo.add %0, %arg4 : tensor<1003xf32>
    %14 = stablehlo.multiply %13, %0 : tensor<1003xf32>
    %15 = stablehlo.add %1, %arg6 : tensor<1003xf32>
    %16 = stablehlo.multiply %arg8, %arg9 : tensor<7xf32>
    %17 = stablehlo.add %16, %arg10 : tensor<7xf32>
    %18 = stablehlo.multiply %arg11, %arg12 : tensor<f32>
    %19 = stablehlo.add %18, %arg13 : tensor<f32>
    %20 = stablehlo.multiply %arg3, %arg7 : tensor<1003xf32>
    %21 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1003xf32>
    %22 = stablehlo.add %20, %21 : tensor<1003xf32>
    %23 = stablehlo.multiply %arg2, %arg5 : tensor<1003xf32>
    %24 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1003xf32>
    %25 = stablehlo.add %arg5, %24 : tensor<1003xf32>
    %26 = stablehlo.divide %arg2, %25 : tensor<1003xf32>
    %27 = stablehlo.subtract %23, %26 : tensor<1003xf32>
    %28 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1003xf32>
    %29 = stablehlo.multiply %27, %28 : tensor<1003xf32>
    %30 = stablehlo.multiply %arg3, %arg5 : tensor<1003xf32>
    %31 = stablehlo.negate %30 : tensor<1003xf32>
    %32 = stablehlo.add %31, %arg1 : tensor<1003xf32>
    return %3, %5, %7, %9, %12, %14, %15, %1, %17, %19, %22, %29, %32 : tensor<1003xf32>, tensor<1003xf32>, tensor<1003xf32>, tensor<1003xf32>, tensor<1003xf32>, tensor<1003xf32>, tensor<1003xf32>, tensor<1003xf32>, tensor<7xf32>, tensor<f32>, tensor<1003xf32>, tensor<1003xf32>, tensor<1003xf32>
  }
}
