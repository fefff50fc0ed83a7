module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16x8xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<16x8xf32>, %arg2: tensor<16x8xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<16x8xf32> {jax.result_info = "result[0]"}, tensor<16x8xf32> {jax.result_info = "result[1]"}, tensor<16x8xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.add %arg0, %arg1 : tensor<16x8xf32>
    %1 = stablehlo.multiply %arg1, %arg2 : tensor<16x8xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x8xf32>
    %3 = stablehlo.subtract %arg2, %2 : tensor<16x8xf32>
    return %0, %1, %3 : tensor<16x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>
  }
}
