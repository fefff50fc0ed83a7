module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<28xf32>, %arg1: tensor<16xi32>, %arg2: tensor<8xui32>, %arg3: tensor<4xi1>, %arg4: tensor<10xf16>) -> (tensor<28xi32> {jax.result_info = "result[0]"}, tensor<28xui32> {jax.result_info = "result[1]"}, tensor<28xi8> {jax.result_info = "result[2]"}, tensor<28xui8> {jax.result_info = "result[3]"}, tensor<28xi16> {jax.result_info = "result[4]"}, tensor<28xbf16> {jax.result_info = "result[5]"}, tensor<28xf16> {jax.result_info = "result[6]"}, tensor<28xi1> {jax.result_info = "result[7]"}, tensor<16xf32> {jax.result_info = "result[8]"}, tensor<16xui32> {jax.result_info = "result[9]"}, tensor<16xi8> {jax.result_info = "result[10]"}, tensor<16xui8> {jax.result_info = "result[11]"}, tensor<16xi1> {jax.result_info = "result[12]"}, tensor<16xf16> {jax.result_info = "result[13]"}, tensor<8xi32> {jax.result_info = "result[14]"}, tensor<8xf32> {jax.result_info = "result[15]"}, tensor<8xui8> {jax.result_info = "result[16]"}, tensor<4xf32> {jax.result_info = "result[17]"}, tensor<4xi32> {jax.result_info = "result[18]"}, tensor<10xf32> {jax.result_info = "result[19]"}, tensor<10xbf16> {jax.result_info = "result[20]"}, tensor<10xi32> {jax.result_info = "result[21]"}, tensor<28xf16> {jax.result_info = "result[22]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xi32>
    %1 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xui32>
    %2 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xi8>
    %3 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xui8>
    %4 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xi16>
    %5 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xbf16>
    %6 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xf16>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<28xf32>
    %8 = stablehlo.compare NE, %arg0, %7, FLOAT : (tensor<28xf32>, tensor<28xf32>) -> tensor<28xi1>
    %9 = stablehlo.convert %8 : tensor<28xi1>
    %10 = stablehlo.convert %arg1 : (tensor<16xi32>) -> tensor<16xf32>
    %11 = stablehlo.convert %arg1 : (tensor<16xi32>) -> tensor<16xui32>
    %12 = stablehlo.convert %arg1 : (tensor<16xi32>) -> tensor<16xi8>
    %13 = stablehlo.convert %arg1 : (tensor<16xi32>) -> tensor<16xui8>
    %14 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<16xi32>
    %15 = stablehlo.compare NE, %arg1, %14, SIGNED : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %16 = stablehlo.convert %15 : tensor<16xi1>
    %17 = stablehlo.convert %arg1 : (tensor<16xi32>) -> tensor<16xf16>
    %18 = stablehlo.convert %arg2 : (tensor<8xui32>) -> tensor<8xi32>
    %19 = stablehlo.convert %arg2 : (tensor<8xui32>) -> tensor<8xf32>
    %20 = stablehlo.convert %arg2 : (tensor<8xui32>) -> tensor<8xui8>
    %21 = stablehlo.convert %arg3 : (tensor<4xi1>) -> tensor<4xf32>
    %22 = stablehlo.convert %arg3 : (tensor<4xi1>) -> tensor<4xi32>
    %23 = stablehlo.convert %arg4 : (tensor<10xf16>) -> tensor<10xf32>
    %24 = stablehlo.convert %arg4 : (tensor<10xf16>) -> tensor<10xbf16>
    %25 = stablehlo.convert %arg4 : (tensor<10xf16>) -> tensor<10xi32>
    %26 = stablehlo.convert %arg0 : (tensor<28xf32>) -> tensor<28xbf16>
    %27 = stablehlo.convert %26 : (tensor<28xbf16>) -> tensor<28xf16>
    return %0, %1, %2, %3, %4, %5, %6, %9, %10, %11, %12, %13, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %27 : tensor<28xi32>, tensor<28xui32>, tensor<28xi8>, tensor<28xui8>, tensor<28xi16>, tensor<28xbf16>, tensor<28xf16>, tensor<28xi1>, tensor<16xf32>, tensor<16xui32>, tensor<16xi8>, tensor<16xui8>, tensor<16xi1>, tensor<16xf16>, tensor<8xi32>, tensor<8xf32>, tensor<8xui8>, tensor<4xf32>, tensor<4xi32>, tensor<10xf32>, tensor<10xbf16>, tensor<10xi32>, tensor<28xf16>
  }
}
