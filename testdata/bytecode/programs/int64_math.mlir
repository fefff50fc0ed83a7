module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xi64>, %arg1: tensor<12xi64>, %arg2: tensor<12xi64>, %arg3: tensor<12xui64>, %arg4: tensor<12xui64>) -> (tensor<12xi64> {jax.result_info = "result[0]"}, tensor<12xi64> {jax.result_info = "result[1]"}, tensor<12xi64> {jax.result_info = "result[2]"}, tensor<12xi64> {jax.result_info = "result[3]"}, tensor<12xi64> {jax.result_info = "result[4]"}, tensor<12xi64> {jax.result_info = "result[5]"}, tensor<12xi64> {jax.result_info = "result[6]"}, tensor<12xi64> {jax.result_info = "result[7]"}, tensor<12xi64> {jax.result_info = "result[8]"}, tensor<12xi64> {jax.result_info = "result[9]"}, tensor<12xf64> {jax.result_info = "result[10]"}, tensor<12xi32> {jax.result_info = "result[11]"}, tensor<12xui64> {jax.result_info = "result[12]"}, tensor<12xui64> {jax.result_info = "result[13]"}, tensor<12xui64> {jax.result_info = "result[14]"}, tensor<12xui64> {jax.result_info = "result[15]"}, tensor<12xui64> {jax.result_info = "result[16]"}, tensor<12xf64> {jax.result_info = "result[17]"}, tensor<12xi64> {jax.result_info = "result[18]"}, tensor<i64> {jax.result_info = "result[19]"}, tensor<12xui64> {jax.result_info = "result[20]"}) {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.add %arg0, %arg1 : tensor<12xi64>
    %1 = stablehlo.subtract %arg0, %arg1 : tensor<12xi64>
    %2 = stablehlo.multiply %arg0, %arg1 : tensor<12xi64>
    %3 = stablehlo.divide %arg0, %arg1 : tensor<12xi64>
    %4 = stablehlo.remainder %arg0, %arg1 : tensor<12xi64>
    %5 = stablehlo.shift_left %arg0, %arg2 : tensor<12xi64>
    %6 = stablehlo.shift_right_arithmetic %arg0, %arg2 : tensor<12xi64>
    %7 = stablehlo.shift_right_logical %arg0, %arg2 : tensor<12xi64>
    %8 = stablehlo.popcnt %arg0 : tensor<12xi64>
    %9 = stablehlo.count_leading_zeros %arg0 : tensor<12xi64>
    %10 = stablehlo.convert %arg0 : (tensor<12xi64>) -> tensor<12xf64>
    %11 = stablehlo.convert %arg0 : (tensor<12xi64>) -> tensor<12xi32>
    %12 = stablehlo.add %arg3, %arg4 : tensor<12xui64>
    %13 = stablehlo.multiply %arg3, %arg4 : tensor<12xui64>
    %14 = stablehlo.subtract %arg3, %arg4 : tensor<12xui64>
    %15 = stablehlo.divide %arg3, %arg4 : tensor<12xui64>
    %16 = stablehlo.remainder %arg3, %arg4 : tensor<12xui64>
    %17 = stablehlo.convert %arg3 : (tensor<12xui64>) -> tensor<12xf64>
    %18 = stablehlo.convert %arg3 : (tensor<12xui64>) -> tensor<12xi64>
    %19 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<12xi64>, tensor<i64>) -> tensor<i64>
    %20 = call @cumsum(%arg3) : (tensor<12xui64>) -> tensor<12xui64>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20 : tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xi64>, tensor<12xf64>, tensor<12xi32>, tensor<12xui64>, tensor<12xui64>, tensor<12xui64>, tensor<12xui64>, tensor<12xui64>, tensor<12xf64>, tensor<12xi64>, tensor<i64>, tensor<12xui64>
  }
  func.func private @cumsum(%arg0: tensor<12xui64>) -> tensor<12xui64> {
    %0 = call @cumsum_0(%arg0) : (tensor<12xui64>) -> tensor<12xui64>
    return %0 : tensor<12xui64>
  }
  func.func private @cumsum_0(%arg0: tensor<12xui64>) -> tensor<12xui64> {
    %c = stablehlo.constant dense<0> : tensor<ui64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<ui64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{padding = dense<[[11, 0]]> : tensor<1x2xi64>, window_dimensions = array<i64: 12>}> ({
    ^bb0(%arg1: tensor<ui64>, %arg2: tensor<ui64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<ui64>
      stablehlo.return %2 : tensor<ui64>
    }) : (tensor<12xui64>, tensor<ui64>) -> tensor<12xui64>
    return %1 : tensor<12xui64>
  }
}
