module @jit_train_scan_dp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["d"=8]> {stablehlo.mesh = {axes = [{name = "d", size = 8 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}, %arg2: tensor<32x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"d"}, {}]>}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.while(%iterArg = %arg1, %iterArg_2 = %arg2, %iterArg_3 = %c_1, %iterArg_4 = %arg0) : tensor<32x8xf32>, tensor<32x4xf32>, tensor<i32>, tensor<8x4xf32>
    cond {
      %1 = stablehlo.compare LT, %iterArg_3, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_4) : (tensor<32x8xf32>, tensor<32x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
      %2 = stablehlo.add %iterArg_3, %c : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %2, %1 : tensor<32x8xf32>, tensor<32x4xf32>, tensor<i32>, tensor<8x4xf32>
    }
    return %0#3 : tensor<8x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<32x8xf32>, %arg1: tensor<32x4xf32>, %arg2: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0] : (tensor<32x8xf32>, tensor<8x4xf32>) -> tensor<32x4xf32>
    %1 = stablehlo.tanh %0 : tensor<32x4xf32>
    %2 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %3 = stablehlo.subtract %2, %1 : tensor<32x4xf32>
    %4 = stablehlo.subtract %1, %arg1 : tensor<32x4xf32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %6 = stablehlo.multiply %5, %4 : tensor<32x4xf32>
    %7 = stablehlo.divide %cst_2, %cst_0 : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %9 = stablehlo.multiply %8, %6 : tensor<32x4xf32>
    %10 = stablehlo.multiply %9, %3 : tensor<32x4xf32>
    %11 = stablehlo.multiply %10, %1 : tensor<32x4xf32>
    %12 = stablehlo.add %10, %11 : tensor<32x4xf32>
    %13 = stablehlo.dot_general %12, %arg0, contracting_dims = [0] x [0] : (tensor<32x4xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>
    %14 = stablehlo.transpose %13, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<8x4xf32>
    %17 = stablehlo.subtract %arg2, %16 : tensor<8x4xf32>
    return %17 : tensor<8x4xf32>
  }
}
