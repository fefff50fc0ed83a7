module @jit_mlp_train_loop attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg2: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg3: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result[0]"}, tensor<16x4xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0:6 = stablehlo.while(%iterArg = %arg2, %iterArg_1 = %arg3, %iterArg_2 = %c_0, %iterArg_3 = %c, %iterArg_4 = %arg0, %iterArg_5 = %arg1) : tensor<16x8xf32>, tensor<16x4xf32>, tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>
    cond {
      %c_6 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare LT, %iterArg_2, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1:3 = func.call @closed_call(%iterArg, %iterArg_1, %iterArg_3, %iterArg_4, %iterArg_5) : (tensor<16x8xf32>, tensor<16x4xf32>, tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>) -> (tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %2 = stablehlo.add %iterArg_2, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_1, %2, %1#0, %1#1, %1#2 : tensor<16x8xf32>, tensor<16x4xf32>, tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>
    }
    return %0#4, %0#5 : tensor<8x16xf32>, tensor<16x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<16x8xf32>, %arg1: tensor<16x4xf32>, %arg2: tensor<i32>, %arg3: tensor<8x16xf32>, %arg4: tensor<16x4xf32>) -> (tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg2, %c : tensor<i32>
    %1 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %2 = stablehlo.tanh %1 : tensor<16x16xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %4 = stablehlo.subtract %3, %2 : tensor<16x16xf32>
    %5 = stablehlo.dot_general %2, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %6 = stablehlo.subtract %5, %arg1 : tensor<16x4xf32>
    %7 = stablehlo.multiply %6, %6 : tensor<16x4xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %9 = stablehlo.multiply %8, %6 : tensor<16x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%7 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<16x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %11 = stablehlo.divide %10, %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %12 = stablehlo.divide %cst_3, %cst_4 : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %14 = stablehlo.multiply %13, %9 : tensor<16x4xf32>
    %15 = stablehlo.dot_general %14, %2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %16 = stablehlo.transpose %15, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %17 = stablehlo.dot_general %14, %arg4, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x16xf32>
    %18 = stablehlo.multiply %17, %4 : tensor<16x16xf32>
    %19 = stablehlo.multiply %18, %2 : tensor<16x16xf32>
    %20 = stablehlo.add %18, %19 : tensor<16x16xf32>
    %21 = stablehlo.dot_general %20, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %22 = stablehlo.transpose %21, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %24 = stablehlo.multiply %23, %22 : tensor<8x16xf32>
    %25 = stablehlo.subtract %arg3, %24 : tensor<8x16xf32>
    %cst_6 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %27 = stablehlo.multiply %26, %16 : tensor<16x4xf32>
    %28 = stablehlo.subtract %arg4, %27 : tensor<16x4xf32>
    return %0, %25, %28 : tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
}
