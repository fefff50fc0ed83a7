module @jit_bf16_mlp_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg2: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x32xf32> {jax.result_info = "result[0]"}, tensor<32x8xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.convert %arg2 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %1 = stablehlo.convert %arg0 : (tensor<16x32xf32>) -> tensor<16x32xbf16>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
    %3 = call @relu(%2) : (tensor<8x32xbf16>) -> tensor<8x32xbf16>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %5 = stablehlo.compare GT, %2, %4, FLOAT : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %7 = stablehlo.convert %arg1 : (tensor<32x8xf32>) -> tensor<32x8xbf16>
    %8 = stablehlo.dot_general %3, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<32x8xbf16>) -> tensor<8x8xbf16>
    %9 = stablehlo.convert %8 : (tensor<8x8xbf16>) -> tensor<8x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %12 = stablehlo.convert %11 : (tensor<8x8xf32>) -> tensor<8x8xbf16>
    %13 = stablehlo.dot_general %12, %3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x8xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
    %14 = stablehlo.transpose %13, dims = [1, 0] : (tensor<8x32xbf16>) -> tensor<32x8xbf16>
    %15 = stablehlo.dot_general %12, %7, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<8x8xbf16>, tensor<32x8xbf16>) -> tensor<8x32xbf16>
    %16 = stablehlo.convert %14 : (tensor<32x8xbf16>) -> tensor<32x8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %17 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %18 = stablehlo.select %5, %15, %17 : tensor<8x32xi1>, tensor<8x32xbf16>
    %19 = stablehlo.dot_general %18, %0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x32xbf16>, tensor<8x16xbf16>) -> tensor<32x16xbf16>
    %20 = stablehlo.transpose %19, dims = [1, 0] : (tensor<32x16xbf16>) -> tensor<16x32xbf16>
    %21 = stablehlo.convert %20 : (tensor<16x32xbf16>) -> tensor<16x32xf32>
    return %21, %16 : tensor<16x32xf32>, tensor<32x8xf32>
  }
  func.func private @relu(%arg0: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x32xbf16>
    return %1 : tensor<8x32xbf16>
  }
}
