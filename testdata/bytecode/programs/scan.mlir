module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x2x4xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<8x8xf32>, %arg3: tensor<8xf32>, %arg4: tensor<2x8xf32>) -> (tensor<2x8xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}, tensor<6x2x8xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<6> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x2x8xf32>
    %1:8 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %arg2, %iterArg_4 = %arg3, %iterArg_5 = %c_1, %iterArg_6 = %arg4, %iterArg_7 = %cst, %iterArg_8 = %0) : tensor<6x2x4xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<i32>, tensor<2x8xf32>, tensor<f32>, tensor<6x2x8xf32>
    cond {
      %2 = stablehlo.compare LT, %iterArg_5, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_5) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %3:3 = func.call @closed_call(%iterArg_2, %iterArg_3, %iterArg_4, %iterArg_6, %iterArg_7, %2) : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<2x8xf32>, tensor<f32>, tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<f32>, tensor<2x8xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_8, %3#2, %iterArg_5) : (tensor<6x2x8xf32>, tensor<2x8xf32>, tensor<i32>) -> tensor<6x2x8xf32>
      %5 = stablehlo.add %iterArg_5, %c : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %iterArg_3, %iterArg_4, %5, %3#0, %3#1, %4 : tensor<6x2x4xf32>, tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<i32>, tensor<2x8xf32>, tensor<f32>, tensor<6x2x8xf32>
    }
    return %1#5, %1#6, %1#7 : tensor<2x8xf32>, tensor<f32>, tensor<6x2x8xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x2x4xf32>, %arg1: tensor<i32>) -> tensor<2x4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c, sizes = [1, 2, 4] : (tensor<6x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
    return %1 : tensor<2x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<4x8xf32>, %arg1: tensor<8x8xf32>, %arg2: tensor<8xf32>, %arg3: tensor<2x8xf32>, %arg4: tensor<f32>, %arg5: tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<f32>, tensor<2x8xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg5, %arg0, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x8xf32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<2x8xf32>
    %5 = stablehlo.add %2, %4 : tensor<2x8xf32>
    %6 = stablehlo.tanh %5 : tensor<2x8xf32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x8xf32>, tensor<f32>) -> tensor<f32>
    %8 = stablehlo.add %arg4, %7 : tensor<f32>
    return %6, %8, %6 : tensor<2x8xf32>, tensor<f32>, tensor<2x8xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x2x8xf32>, %arg1: tensor<2x8xf32>, %arg2: tensor<i32>) -> tensor<6x2x8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x8xf32>) -> tensor<1x2x8xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c : (tensor<6x2x8xf32>, tensor<1x2x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x2x8xf32>
    return %1 : tensor<6x2x8xf32>
  }
}
