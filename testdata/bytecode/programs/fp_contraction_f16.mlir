module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1003xf16>, %arg1: tensor<1003xf16>, %arg2: tensor<1003xf16>, %arg3: tensor<1003xf16>, %arg4: tensor<1003xf16>, %arg5: tensor<1003xf16>, %arg6: tensor<1003xbf16>, %arg7: tensor<1003xbf16>, %arg8: tensor<1003xbf16>) -> (tensor<1003xf16> {jax.result_info = "result[0]"}, tensor<1003xf16> {jax.result_info = "result[1]"}, tensor<1003xbf16> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<1003xf16>
    %1 = stablehlo.add %0, %arg2 : tensor<1003xf16>
    %2 = stablehlo.multiply %arg3, %arg4 : tensor<1003xf16>
    %3 = stablehlo.subtract %2, %arg5 : tensor<1003xf16>
    %4 = stablehlo.multiply %arg6, %arg7 : tensor<1003xbf16>
    %5 = stablehlo.add %4, %arg8 : tensor<1003xbf16>
    return %1, %3, %5 : tensor<1003xf16>, tensor<1003xf16>, tensor<1003xbf16>
  }
}
