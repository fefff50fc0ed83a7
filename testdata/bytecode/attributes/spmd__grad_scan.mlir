module @jit_grad_scan attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]> {stablehlo.mesh = {axes = [{name = "d", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}]>}, %arg1: tensor<4x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"d"}]>}) -> (tensor<32xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_1 = stablehlo.constant dense<4> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %2 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %3 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x32xf32>
    %4:7 = stablehlo.while(%iterArg = %arg1, %iterArg_4 = %arg0, %iterArg_5 = %c_2, %iterArg_6 = %0, %iterArg_7 = %1, %iterArg_8 = %2, %iterArg_9 = %3) : tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
    cond {
      %11 = stablehlo.compare LT, %iterArg_5, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %11 : tensor<i1>
    } do {
      %11 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_5) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %12:4 = func.call @closed_call(%iterArg_4, %iterArg_6, %11) : (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
      %13 = func.call @dynamic_update_index_in_dim(%iterArg_7, %12#1, %iterArg_5) : (tensor<4x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<4x32xf32>
      %14 = func.call @dynamic_update_index_in_dim(%iterArg_8, %12#2, %iterArg_5) : (tensor<4x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<4x32xf32>
      %15 = func.call @dynamic_update_index_in_dim(%iterArg_9, %12#3, %iterArg_5) : (tensor<4x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<4x32xf32>
      %16 = stablehlo.add %iterArg_5, %c : tensor<i32>
      stablehlo.return %iterArg, %iterArg_4, %16, %12#0, %13, %14, %15 : tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>
    }
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %6 = stablehlo.multiply %5, %4#3 : tensor<32xf32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<32xf32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %10:7 = stablehlo.while(%iterArg = %4#4, %iterArg_4 = %4#5, %iterArg_5 = %4#6, %iterArg_6 = %arg0, %iterArg_7 = %c_2, %iterArg_8 = %9, %iterArg_9 = %8) : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<32xf32>
    cond {
      %11 = stablehlo.compare LT, %iterArg_7, %c_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %11 : tensor<i1>
    } do {
      %11 = stablehlo.subtract %c_1, %iterArg_7 : tensor<i32>
      %12 = stablehlo.subtract %11, %c : tensor<i32>
      %13 = func.call @dynamic_index_in_dim(%iterArg, %12) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %14 = func.call @dynamic_index_in_dim(%iterArg_4, %12) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %15 = func.call @dynamic_index_in_dim(%iterArg_5, %12) : (tensor<4x32xf32>, tensor<i32>) -> tensor<32xf32>
      %16:2 = func.call @closed_call_0(%iterArg_6, %iterArg_8, %iterArg_9, %13, %14, %15) : (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>)
      %17 = stablehlo.add %iterArg_7, %c : tensor<i32>
      stablehlo.return %iterArg, %iterArg_4, %iterArg_5, %iterArg_6, %17, %16#0, %16#1 : tensor<4x32xf32>, tensor<4x32xf32>, tensor<4x32xf32>, tensor<32xf32>, tensor<i32>, tensor<32xf32>, tensor<32xf32>
    }
    return %10#5 : tensor<32xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<4x32xf32>, %arg1: tensor<i32>) -> tensor<32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 32] : (tensor<4x32xf32>, tensor<i32>, tensor<i32>) -> tensor<1x32xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32xf32>) -> tensor<32xf32>
    return %1 : tensor<32xf32>
  }
  func.func private @closed_call(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<32xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.multiply %arg1, %arg0 : tensor<32xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<32xf32>
    %2 = stablehlo.tanh %1 : tensor<32xf32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %4 = stablehlo.subtract %3, %2 : tensor<32xf32>
    return %2, %arg1, %2, %4 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<4x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<i32>) -> tensor<4x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
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
