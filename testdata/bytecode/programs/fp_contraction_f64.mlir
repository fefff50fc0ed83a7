module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1003xf64>, %arg1: tensor<1003xf64>, %arg2: tensor<1003xf64>, %arg3: tensor<1003xf64>, %arg4: tensor<1003xf64>, %arg5: tensor<1003xf64>) -> (tensor<1003xf64> {jax.result_info = "result[0]"}, tensor<1003xf64> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<1003xf64>
    %1 = stablehlo.add %0, %arg2 : tensor<1003xf64>
    %2 = stablehlo.multiply %arg4, %arg5 : tensor<1003xf64>
    %3 = stablehlo.subtract %arg3, %2 : tensor<1003xf64>
    return %1, %3 : tensor<1003xf64>, tensor<1003xf64>
  }
}
