module @jit_scan_dp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]> {stablehlo.mesh = {axes = [{name = "d", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<16x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<5x32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"d"}, {}]>}, %arg2: tensor<32x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<32x16xf32> {jax.result_info = "result[0]"}, tensor<5x32xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x32xf32>
    %1:5 = stablehlo.while(%iterArg = %arg1, %iterArg_2 = %arg0, %iterArg_3 = %c_1, %iterArg_4 = %arg2, %iterArg_5 = %0) : tensor<5x32x16xf32>, tensor<16x16xf32>, tensor<i32>, tensor<32x16xf32>, tensor<5x32xf32>
    cond {
      %2 = stablehlo.compare LT, %iterArg_3, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<5x32x16xf32>, tensor<i32>) -> tensor<32x16xf32>
      %3:2 = func.call @closed_call(%iterArg_2, %iterArg_4, %2) : (tensor<16x16xf32>, tensor<32x16xf32>, tensor<32x16xf32>) -> (tensor<32x16xf32>, tensor<32xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_5, %3#1, %iterArg_3) : (tensor<5x32xf32>, tensor<32xf32>, tensor<i32>) -> tensor<5x32xf32>
      %5 = stablehlo.add %iterArg_3, %c : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %5, %3#0, %4 : tensor<5x32x16xf32>, tensor<16x16xf32>, tensor<i32>, tensor<32x16xf32>, tensor<5x32xf32>
    }
    return %1#3, %1#4 : tensor<32x16xf32>, tensor<5x32xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<5x32x16xf32>, %arg1: tensor<i32>) -> tensor<32x16xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c, sizes = [1, 32, 16] : (tensor<5x32x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x32x16xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x32x16xf32>) -> tensor<32x16xf32>
    return %1 : tensor<32x16xf32>
  }
  func.func private @closed_call(%arg0: tensor<16x16xf32>, %arg1: tensor<32x16xf32>, %arg2: tensor<32x16xf32>) -> (tensor<32x16xf32>, tensor<32xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0] : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<32x16xf32>
    %2 = stablehlo.tanh %1 : tensor<32x16xf32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<32x16xf32>, tensor<f32>) -> tensor<32xf32>
    return %2, %3 : tensor<32x16xf32>, tensor<32xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<5x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<i32>) -> tensor<5x32xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<32xf32>) -> tensor<1x32xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<5x32xf32>, tensor<1x32xf32>, tensor<i32>, tensor<i32>) -> tensor<5x32xf32>
    return %1 : tensor<5x32xf32>
  }
}
