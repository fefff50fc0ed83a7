module @jit_bwd_shape_ops attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=4, "y"=2]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}, {name = "y", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<64x16xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}, {"y"}]>}, %arg1: tensor<16x64xf32>, %arg2: tensor<8x8x16xf32>, %arg3: tensor<16xf32>, %arg4: tensor<64x16xf32>) -> (tensor<64x16xf32> {jax.result_info = "result[0]"}, tensor<64x16xf32> {jax.result_info = "result[1]"}, tensor<64x16xf32> {jax.result_info = "result[2]"}, tensor<16xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<16x64xf32>) -> tensor<64x16xf32>
    %1 = stablehlo.add %0, %arg0 : tensor<64x16xf32>
    %2 = stablehlo.reshape %arg2 : (tensor<8x8x16xf32>) -> tensor<64x16xf32>
    %3 = stablehlo.multiply %2, %arg0 : tensor<64x16xf32>
    %4 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<64x16xf32>
    %6 = stablehlo.subtract %arg0, %5 : tensor<64x16xf32>
    %7 = stablehlo.exponential %arg4 : tensor<64x16xf32>
    %8 = stablehlo.multiply %7, %arg0 : tensor<64x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<64x16xf32>, tensor<f32>) -> tensor<16xf32>
    return %1, %3, %6, %9 : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<16xf32>
  }
}
