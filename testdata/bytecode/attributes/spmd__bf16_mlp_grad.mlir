module @jit_bf16_mlp_grad attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<16x32xf32> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg1: tensor<32x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}, %arg2: tensor<8x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) -> (tensor<16x32xf32> {jax.result_info = "result[0]"}, tensor<32x8xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.convert %arg2 : (tensor<8x16xf32>) -> tensor<8x16xbf16>
    %1 = stablehlo.convert %arg0 : (tensor<16x32xf32>) -> tensor<16x32xbf16>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<8x16xbf16>, tensor<16x32xbf16>) -> tensor<8x32xbf16>
    %3 = call @relu(%2) : (tensor<8x32xbf16>) -> tensor<8x32xbf16>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %5 = stablehlo.compare GT, %2, %4, FLOAT : (tensor<8x32xbf16>, tensor<8x32xbf16>) -> tensor<8x32xi1>
    %6 = stablehlo.convert %arg1 : (tensor<32x8xf32>) -> tensor<32x8xbf16>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %8 = stablehlo.convert %7 : (tensor<8x8xf32>) -> tensor<8x8xbf16>
    %9 = stablehlo.dot_general %8, %3, contracting_dims = [0] x [0] : (tensor<8x8xbf16>, tensor<8x32xbf16>) -> tensor<8x32xbf16>
    %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<8x32xbf16>) -> tensor<32x8xbf16>
    %11 = stablehlo.dot_general %8, %6, contracting_dims = [1] x [1] : (tensor<8x8xbf16>, tensor<32x8xbf16>) -> tensor<8x32xbf16>
    %12 = stablehlo.convert %10 : (tensor<32x8xbf16>) -> tensor<32x8xf32>
    %13 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %14 = stablehlo.select %5, %11, %13 : tensor<8x32xi1>, tensor<8x32xbf16>
    %15 = stablehlo.dot_general %14, %0, contracting_dims = [0] x [0] : (tensor<8x32xbf16>, tensor<8x16xbf16>) -> tensor<32x16xbf16>
    %16 = stablehlo.transpose %15, dims = [1, 0] : (tensor<32x16xbf16>) -> tensor<16x32xbf16>
    %17 = stablehlo.convert %16 : (tensor<16x32xbf16>) -> tensor<16x32xf32>
    return %17, %12 : tensor<16x32xf32>, tensor<32x8xf32>
  }
  func.func private @relu(%arg0: tensor<8x32xbf16>) -> tensor<8x32xbf16> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<bf16>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<bf16>) -> tensor<8x32xbf16>
    %1 = stablehlo.maximum %arg0, %0 : tensor<8x32xbf16>
    return %1 : tensor<8x32xbf16>
  }
}
