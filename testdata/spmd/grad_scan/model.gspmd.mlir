module @jit_grad_scan attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32> {mhlo.sharding = "{devices=[8]<=[8]}"}, %arg1: tensor<4x32xf32> {mhlo.sharding = "{devices=[1,8]<=[8]}"}) -> (tensor<32xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg1 [0:1, 0:32] : (tensor<4x32xf32>) -> tensor<1x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32xf32>) -> tensor<32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %6:7 = stablehlo.while(%iterArg = %arg1, %iterArg_9 = %arg0, %iterArg_10 = %c, %iterArg_11 = %2, %iterArg_12 = %3, %iterArg_13 = %4, %iterArg_14 = %5) : tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
    cond {
      %c_15 = stablehlo.constant dense<4> : tensor<i32>
      %16 = stablehlo.compare LT, %iterArg_10, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %16 : tensor<i1>
    } do {
      %16 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_10) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %17:4 = func.call @closed_call(%iterArg_9, %iterArg_11, %16) : (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
      %18 = func.call @dynamic_update_index_in_dim(%iterArg_12, %17#1, %iterArg_10) : (tensor<4x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<4x32xf32>
      %19 = func.call @dynamic_update_index_in_dim(%iterArg_13, %17#2, %iterArg_10) : (tensor<4x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<4x32xf32>
      %20 = func.call @dynamic_update_index_in_dim(%iterArg_14, %17#3, %iterArg_10) : (tensor<4x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<4x32xf32>
      %c_15 = stablehlo.constant dense<1> : tensor<i32>
      %21 = stablehlo.add %iterArg_10, %c_15 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_9, %21, %17#0, %18, %19, %20 : tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
    }
    %7 = stablehlo.multiply %6#3, %6#3 : tensor<32xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %9 = stablehlo.multiply %8, %6#3 : tensor<32xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%7 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<32xf32>, tensor<f32>) -> tensor<f32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %13 = stablehlo.multiply %12, %9 : tensor<32xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %15:7 = stablehlo.while(%iterArg = %6#4, %iterArg_9 = %6#5, %iterArg_10 = %6#6, %iterArg_11 = %arg0, %iterArg_12 = %c_8, %iterArg_13 = %14, %iterArg_14 = %13) : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<32xf32>
    cond {
      %c_15 = stablehlo.constant dense<4> : tensor<i32>
      %16 = stablehlo.compare LT, %iterArg_12, %c_15, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %16 : tensor<i1>
    } do {
      %c_15 = stablehlo.constant dense<4> : tensor<i32>
      %16 = stablehlo.subtract %c_15, %iterArg_12 : tensor<i32>
      %c_16 = stablehlo.constant dense<1> : tensor<i32>
      %17 = stablehlo.subtract %16, %c_16 : tensor<i32>
      %18 = func.call @dynamic_index_in_dim(%iterArg, %17) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %19 = func.call @dynamic_index_in_dim(%iterArg_9, %17) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %20 = func.call @dynamic_index_in_dim(%iterArg_10, %17) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %21:2 = func.call @closed_call_0(%iterArg_11, %iterArg_13, %iterArg_14, %18, %19, %20) : (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>)
      %c_17 = stablehlo.constant dense<1> : tensor<i32>
      %22 = stablehlo.add %iterArg_12, %c_17 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_9, %iterArg_10, %iterArg_11, %22, %21#0, %21#1 : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<32xf32>
    }
    return %15#5 : tensor<32xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x32xf32>, %arg1: tensor<i32>) -> tensor<32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 32] : (tensor<4x32xf32>, tensor<i32>, tensor<i32>) -> tensor<1x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32xf32>) -> tensor<32xf32>
    return %1 : tensor<32xf32>
  }
  func.func private @closed_call(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    %0 = stablehlo.multiply %arg1, %arg0 : tensor<32xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<32xf32>
    %2 = stablehlo.tanh %1 : tensor<32xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %4 = stablehlo.subtract %3, %2 : tensor<32xf32>
    return %2, %arg1, %2, %4 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<i32>) -> tensor<4x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<4x32xf32>, tensor<1x32xf32>, tensor<i32>, tensor<i32>) -> tensor<4x32xf32>
    return %1 : tensor<4x32xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>) {
    %0 = stablehlo.multiply %arg2, %arg5 : tensor<32xf32>
    %1 = stablehlo.multiply %0, %arg4 : tensor<32xf32>
    %2 = stablehlo.add %0, %1 : tensor<32xf32>
    %3 = stablehlo.multiply %arg3, %2 : tensor<32xf32>
    %4 = stablehlo.add %arg1, %3 : tensor<32xf32>
    %5 = stablehlo.multiply %2, %arg0 : tensor<32xf32>
    return %4, %5 : tensor<32xf32>, tensor<32xf32>
  }
}
