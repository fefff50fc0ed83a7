module @jit_train_scan_dp attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x4xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<32x8xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}, %arg2: tensor<32x4xf32> {mhlo.sharding = "{devices=[8,1]<=[8]}"}) -> (tensor<8x4xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %arg2, %iterArg_1 = %c, %iterArg_2 = %arg0) : tensor<32x8xf32>, tensor<32x4xf32>, tensor<i32>, tensor<8x4xf32>
    cond {
      %c_3 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1 = func.call @closed_call(%iterArg, %iterArg_0, %iterArg_2) : (tensor<32x8xf32>, tensor<32x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg_1, %c_3 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %2, %1 : tensor<32x8xf32>, tensor<32x4xf32>, tensor<i32>, tensor<8x4xf32>
    }
    return %0#3 : tensor<8x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<32x8xf32>, %arg1: tensor<32x4xf32>, %arg2: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x8xf32>, tensor<8x4xf32>) -> tensor<32x4xf32>
    %1 = stablehlo.tanh %0 : tensor<32x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %3 = stablehlo.subtract %2, %1 : tensor<32x4xf32>
    %4 = stablehlo.subtract %1, %arg1 : tensor<32x4xf32>
    %5 = stablehlo.multiply %4, %4 : tensor<32x4xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %7 = stablehlo.multiply %6, %4 : tensor<32x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%5 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<32x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %9 = stablehlo.divide %8, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %10 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<32x4xf32>
    %12 = stablehlo.multiply %11, %7 : tensor<32x4xf32>
    %13 = stablehlo.multiply %12, %3 : tensor<32x4xf32>
    %14 = stablehlo.multiply %13, %1 : tensor<32x4xf32>
    %15 = stablehlo.add %13, %14 : tensor<32x4xf32>
    %16 = stablehlo.dot_general %15, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x4xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>
    %17 = stablehlo.transpose %16, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x4xf32>
    %19 = stablehlo.multiply %18, %17 : tensor<8x4xf32>
    %20 = stablehlo.subtract %arg2, %19 : tensor<8x4xf32>
    return %20 : tensor<8x4xf32>
  }
}
