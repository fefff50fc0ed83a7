module @jit_mlp_train_loop attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg2: tensor<16x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg3: tensor<16x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<8x16xf32> {jax.result_info = "result[0]"}, tensor<16x4xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0:6 = stablehlo.while(%iterArg = %arg2, %iterArg_2 = %arg3, %iterArg_3 = %c_1, %iterArg_4 = %c_1, %iterArg_5 = %arg0, %iterArg_6 = %arg1) : tensor<16x8xf32>, tensor<16x4xf32>, tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>
    cond {
      %1 = stablehlo.compare LT, %iterArg_3, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %1:3 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_4, %iterArg_5, %iterArg_6) : (tensor<16x8xf32>, tensor<16x4xf32>, tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>) -> (tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>)
      %2 = stablehlo.add %iterArg_3, %c : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %2, %1#0, %1#1, %1#2 : tensor<16x8xf32>, tensor<16x4xf32>, tensor<i32>, tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>
    }
    return %0#4, %0#5 : tensor<8x16xf32>, tensor<16x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<16x8xf32>, %arg1: tensor<16x4xf32>, %arg2: tensor<i32>, %arg3: tensor<8x16xf32>, %arg4: tensor<16x4xf32>) -> (tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>) {
    %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg2, %c : tensor<i32>
    %1 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [1] x [0] : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %2 = stablehlo.tanh %1 : tensor<16x16xf32>
    %3 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<16x16xf32>
    %4 = stablehlo.subtract %3, %2 : tensor<16x16xf32>
    %5 = stablehlo.dot_general %2, %arg4, contracting_dims = [1] x [0] : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %6 = stablehlo.subtract %5, %arg1 : tensor<16x4xf32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<16x4xf32>
    %9 = stablehlo.divide %cst_2, %cst_0 : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %11 = stablehlo.multiply %10, %8 : tensor<16x4xf32>
    %12 = stablehlo.dot_general %11, %2, contracting_dims = [0] x [0] : (tensor<16x4xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %14 = stablehlo.dot_general %11, %arg4, contracting_dims = [1] x [1] : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x16xf32>
    %15 = stablehlo.multiply %14, %4 : tensor<16x16xf32>
    %16 = stablehlo.multiply %15, %2 : tensor<16x16xf32>
    %17 = stablehlo.add %15, %16 : tensor<16x16xf32>
    %18 = stablehlo.dot_general %17, %arg0, contracting_dims = [0] x [0] : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %21 = stablehlo.multiply %20, %19 : tensor<8x16xf32>
    %22 = stablehlo.subtract %arg3, %21 : tensor<8x16xf32>
    %23 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x4xf32>
    %24 = stablehlo.multiply %23, %13 : tensor<16x4xf32>
    %25 = stablehlo.subtract %arg4, %24 : tensor<16x4xf32>
    return %0, %22, %25 : tensor<i32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
}
