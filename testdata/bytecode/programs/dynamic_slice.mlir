module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> (tensor<3x4xf32> {jax.result_info = "result[0]"}, tensor<2x8xf32> {jax.result_info = "result[1]"}, tensor<8x5xf32> {jax.result_info = "result[2]"}, tensor<8xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<100> : tensor<i32>
    %c_0 = stablehlo.constant dense<8> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %3 = stablehlo.compare LT, %arg2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %5 = stablehlo.select %3, %4, %arg2 : tensor<i1>, tensor<i32>
    %6 = stablehlo.dynamic_slice %arg0, %2, %5, sizes = [3, 4] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<3x4xf32>
    %7 = stablehlo.compare LT, %arg2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %8 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %9 = stablehlo.select %7, %8, %arg2 : tensor<i1>, tensor<i32>
    %10 = stablehlo.compare LT, %arg1, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %11 = stablehlo.add %arg1, %c_0 : tensor<i32>
    %12 = stablehlo.select %10, %11, %arg1 : tensor<i1>, tensor<i32>
    %13 = stablehlo.dynamic_slice %arg0, %9, %12, sizes = [2, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<2x8xf32>
    %14 = stablehlo.add %arg1, %c : tensor<i32>
    %15 = stablehlo.compare LT, %14, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %16 = stablehlo.add %14, %c_0 : tensor<i32>
    %17 = stablehlo.select %15, %16, %14 : tensor<i1>, tensor<i32>
    %18 = stablehlo.dynamic_slice %arg0, %c_1, %17, sizes = [8, 5] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<8x5xf32>
    %19 = call @dynamic_index_in_dim(%arg0, %arg2) : (tensor<8x8xf32>, tensor<i32>) -> tensor<8xf32>
    return %6, %13, %18, %19 : tensor<3x4xf32>, tensor<2x8xf32>, tensor<8x5xf32>, tensor<8xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<8x8xf32>, %arg1: tensor<i32>) -> tensor<8xf32> {
    %c = stablehlo.constant dense<8> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = stablehlo.add %arg1, %c : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg1 : tensor<i1>, tensor<i32>
    %3 = stablehlo.dynamic_slice %arg0, %2, %c_0, sizes = [1, 8] : (tensor<8x8xf32>, tensor<i32>, tensor<i32>) -> tensor<1x8xf32>
    %4 = stablehlo.reshape %3 : (tensor<1x8xf32>) -> tensor<8xf32>
    return %4 : tensor<8xf32>
  }
}
