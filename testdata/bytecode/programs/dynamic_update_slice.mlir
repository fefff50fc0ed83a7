module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x8xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> (tensor<8x8xf32> {jax.result_info = "result[0]"}, tensor<8x8xf32> {jax.result_info = "result[1]"}, tensor<8x8xf32> {jax.result_info = "result[2]"}, tensor<8x4xf32> {jax.result_info = "result[3]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %c_0 = stablehlo.constant dense<8> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg2 : tensor<i1>, tensor<i32>
    %3 = stablehlo.compare LT, %arg3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %4 = stablehlo.add %arg3, %c_0 : tensor<i32>
    %5 = stablehlo.select %3, %4, %arg3 : tensor<i1>, tensor<i32>
    %6 = stablehlo.dynamic_update_slice %arg0, %arg1, %2, %5 : (tensor<8x8xf32>, tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
    %7 = stablehlo.compare LT, %arg3, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %8 = stablehlo.add %arg3, %c_0 : tensor<i32>
    %9 = stablehlo.select %7, %8, %arg3 : tensor<i1>, tensor<i32>
    %10 = stablehlo.compare LT, %arg2, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %11 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %12 = stablehlo.select %10, %11, %arg2 : tensor<i1>, tensor<i32>
    %13 = stablehlo.dynamic_update_slice %arg0, %arg1, %9, %12 : (tensor<8x8xf32>, tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
    %14 = stablehlo.subtract %arg2, %c : tensor<i32>
    %15 = stablehlo.add %arg3, %c : tensor<i32>
    %16 = stablehlo.compare LT, %14, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %17 = stablehlo.add %14, %c_0 : tensor<i32>
    %18 = stablehlo.select %16, %17, %14 : tensor<i1>, tensor<i32>
    %19 = stablehlo.compare LT, %15, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %20 = stablehlo.add %15, %c_0 : tensor<i32>
    %21 = stablehlo.select %19, %20, %15 : tensor<i1>, tensor<i32>
    %22 = stablehlo.dynamic_update_slice %arg0, %arg1, %18, %21 : (tensor<8x8xf32>, tensor<3x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
    %23 = stablehlo.slice %arg1 [0:1, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %24 = stablehlo.reshape %23 : (tensor<1x4xf32>) -> tensor<4xf32>
    %25 = stablehlo.reshape %24 : (tensor<4xf32>) -> tensor<1x4xf32>
    %26 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
    %27 = stablehlo.multiply %25, %26 : tensor<1x4xf32>
    %28 = stablehlo.slice %arg1 [0:1, 0:1] : (tensor<3x4xf32>) -> tensor<1x1xf32>
    %29 = stablehlo.reshape %28 : (tensor<1x1xf32>) -> tensor<f32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<1x4xf32>
    %31 = stablehlo.add %27, %30 : tensor<1x4xf32>
    %32 = call @dynamic_update_index_in_dim(%arg0, %31, %arg2) : (tensor<8x8xf32>, tensor<1x4xf32>, tensor<i32>) -> tensor<8x8xf32>
    %33 = stablehlo.slice %32 [0:8, 0:4] : (tensor<8x8xf32>) -> tensor<8x4xf32>
    return %6, %13, %22, %33 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x4xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<8x8xf32>, %arg1: tensor<1x4xf32>, %arg2: tensor<i32>) -> tensor<8x8xf32> {
    %c = stablehlo.constant dense<8> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.compare LT, %arg2, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %1 = stablehlo.add %arg2, %c : tensor<i32>
    %2 = stablehlo.select %0, %1, %arg2 : tensor<i1>, tensor<i32>
    %3 = stablehlo.dynamic_update_slice %arg0, %arg1, %2, %c_0 : (tensor<8x8xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<8x8xf32>
    return %3 : tensor<8x8xf32>
  }
}
