module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xui8>, %arg1: tensor<8xui8>, %arg2: tensor<8xui8>, %arg3: tensor<8xui32>, %arg4: tensor<8xui32>, %arg5: tensor<8xui32>) -> (tensor<8xui8> {jax.result_info = "result[0][0]"}, tensor<8xui8> {jax.result_info = "result[0][1]"}, tensor<8xui8> {jax.result_info = "result[0][2]"}, tensor<8xui8> {jax.result_info = "result[0][3]"}, tensor<8xui8> {jax.result_info = "result[0][4]"}, tensor<8xui8> {jax.result_info = "result[0][5]"}, tensor<8xui8> {jax.result_info = "result[0][6]"}, tensor<8xui8> {jax.result_info = "result[0][7]"}, tensor<8xui8> {jax.result_info = "result[0][8]"}, tensor<8xui8> {jax.result_info = "result[0][9]"}, tensor<8xui8> {jax.result_info = "result[0][10]"}, tensor<8xui8> {jax.result_info = "result[0][11]"}, tensor<8xui8> {jax.result_info = "result[0][12]"}, tensor<8xui8> {jax.result_info = "result[0][13]"}, tensor<8xui8> {jax.result_info = "result[0][14]"}, tensor<8xi1> {jax.result_info = "result[0][15]"}, tensor<8xui8> {jax.result_info = "result[0][16]"}, tensor<8xui32> {jax.result_info = "result[1][0]"}, tensor<8xui32> {jax.result_info = "result[1][1]"}, tensor<8xui32> {jax.result_info = "result[1][2]"}, tensor<8xui32> {jax.result_info = "result[1][3]"}, tensor<8xui32> {jax.result_info = "result[1][4]"}, tensor<8xui32> {jax.result_info = "result[1][5]"}, tensor<8xui32> {jax.result_info = "result[1][6]"}, tensor<8xui32> {jax.result_info = "result[1][7]"}, tensor<8xui32> {jax.result_info = "result[1][8]"}, tensor<8xui32> {jax.result_info = "result[1][9]"}, tensor<8xui32> {jax.result_info = "result[1][10]"}, tensor<8xui32> {jax.result_info = "result[1][11]"}, tensor<8xui32> {jax.result_info = "result[1][12]"}, tensor<8xui32> {jax.result_info = "result[1][13]"}, tensor<8xui32> {jax.result_info = "result[1][14]"}, tensor<8xi1> {jax.result_info = "result[1][15]"}, tensor<8xui32> {jax.result_info = "result[1][16]"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<8xui8>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<8xui8>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<8xui8>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<8xui8>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<8xui8>
    %5 = stablehlo.and %arg0, %arg1 : tensor<8xui8>
    %6 = stablehlo.or %arg0, %arg1 : tensor<8xui8>
    %7 = stablehlo.xor %arg0, %arg1 : tensor<8xui8>
    %8 = stablehlo.not %arg0 : tensor<8xui8>
    %9 = stablehlo.shift_left %arg0, %arg2 : tensor<8xui8>
    %10 = stablehlo.shift_right_logical %arg0, %arg2 : tensor<8xui8>
    %11 = stablehlo.shift_right_arithmetic %arg0, %arg2 : tensor<8xui8>
    %12 = stablehlo.popcnt %arg0 : tensor<8xui8>
    %13 = stablehlo.count_leading_zeros %arg0 : tensor<8xui8>
    %14 = stablehlo.maximum %arg0, %arg1 : tensor<8xui8>
    %15 = stablehlo.compare LT, %arg0, %arg1, UNSIGNED : (tensor<8xui8>, tensor<8xui8>) -> tensor<8xi1>
    %16 = stablehlo.negate %arg0 : tensor<8xui8>
    %17 = stablehlo.add %arg3, %arg4 : tensor<8xui32>
    %18 = stablehlo.subtract %arg3, %arg4 : tensor<8xui32>
    %19 = stablehlo.multiply %arg3, %arg4 : tensor<8xui32>
    %20 = stablehlo.divide %arg3, %arg4 : tensor<8xui32>
    %21 = stablehlo.remainder %arg3, %arg4 : tensor<8xui32>
    %22 = stablehlo.and %arg3, %arg4 : tensor<8xui32>
    %23 = stablehlo.or %arg3, %arg4 : tensor<8xui32>
    %24 = stablehlo.xor %arg3, %arg4 : tensor<8xui32>
    %25 = stablehlo.not %arg3 : tensor<8xui32>
    %26 = stablehlo.shift_left %arg3, %arg5 : tensor<8xui32>
    %27 = stablehlo.shift_right_logical %arg3, %arg5 : tensor<8xui32>
    %28 = stablehlo.shift_right_arithmetic %arg3, %arg5 : tensor<8xui32>
    %29 = stablehlo.popcnt %arg3 : tensor<8xui32>
    %30 = stablehlo.count_leading_zeros %arg3 : tensor<8xui32>
    %31 = stablehlo.maximum %arg3, %arg4 : tensor<8xui32>
    %32 = stablehlo.compare LT, %arg3, %arg4, UNSIGNED : (tensor<8xui32>, tensor<8xui32>) -> tensor<8xi1>
    %33 = stablehlo.negate %arg3 : tensor<8xui32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33 : tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xui8>, tensor<8xi1>, tensor<8xui8>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xui32>, tensor<8xi1>, tensor<8xui32>
  }
}
