module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x7xf32>, %arg1: tensor<20xi32>) -> (tensor<6x7xf32> {jax.result_info = "result[0]"}, tensor<20xi32> {jax.result_info = "result[1]"}, tensor<12xui32> {jax.result_info = "result[2]"}, tensor<12xbf16> {jax.result_info = "result[3]"}, tensor<12xf16> {jax.result_info = "result[4]"}, tensor<11xf32> {jax.result_info = "result[5]"}, tensor<3x5xi32> {jax.result_info = "result[6]"}, tensor<f32> {jax.result_info = "result[7]"}) {
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %cst_0 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<bf16>
    %cst_3 = stablehlo.constant dense<[[0x7FC00000, 0x7F800000, 0xFF800000, -0.000000e+00, 1.401300e-45, -0.223685488, 1.40792465], [3.40282347E+38, -1.17549435E-38, 1.000000e-01, -1.32335269, 0.11429403, 0.0109651685, -0.290165663], [-0.00697591761, 1.11154401, -0.651178122, -0.00525663141, 0.213347644, -0.0558440164, -2.05974174], [0.525173724, -1.31780374, 0.469100386, 0.974371194, -1.12817299, 0.274952143, -4.183020e-01], [-7.250270e-01, 0.856663763, 1.14097929, 0.939679503, 4.598190e-01, -1.43315959, -2.37983704], [0.0174800083, -0.117027372, -0.441131711, 0.858344316, 0.399027139, -1.52963758, -1.26371574]]> : tensor<6x7xf32>
    %c = stablehlo.constant dense<[2147483647, -2147483648, 523, 828, -178, 728, 328, -989, -601, 933, 713, -972, -62, -825, 245, -458, 366, -328, 583, 439]> : tensor<20xi32>
    %c_4 = stablehlo.constant dense<[0, 522133279, 1044266558, 1566399837, 2088533116, 2610666395, 3132799674, 3654932953, 4177066232, 404232215, 926365494, 1448498773]> : tensor<12xui32>
    %cst_5 = stablehlo.constant dense<[7.343750e-01, -8.837890e-02, 8.593750e-01, -4.707030e-01, -6.171880e-01, -5.156250e-01, -1.593750e+00, -7.929680e-01, 1.742190e+00, 5.039060e-01, 5.029300e-02, 3.261720e-01]> : tensor<12xbf16>
    %cst_6 = stablehlo.constant dense<[0x7C00, 0x7E00, 6.550400e+04, 7.084960e-01, -6.469730e-01, -9.027090e-02, -1.595700e+00, -7.094720e-01, -8.681640e-01, -1.293950e+00, 1.269530e+00, 1.018520e-02]> : tensor<12xf16>
    %c_7 = stablehlo.constant dense<[true, true, false, true, true, true, false, false, false, false, true]> : tensor<11xi1>
    %c_8 = stablehlo.constant dense<[[-125, 35, -62, 58, 119], [-87, -44, -63, -103, 89], [42, 23, 0, -123, -38]]> : tensor<3x5xi32>
    %0 = stablehlo.add %arg0, %cst_3 : tensor<6x7xf32>
    %1 = stablehlo.multiply %arg1, %c : tensor<20xi32>
    %2 = stablehlo.slice %arg1 [0:12] : (tensor<20xi32>) -> tensor<12xi32>
    %3 = stablehlo.convert %2 : (tensor<12xi32>) -> tensor<12xui32>
    %4 = stablehlo.xor %c_4, %3 : tensor<12xui32>
    %5 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<6x7xf32>) -> tensor<1x1xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x1xf32>) -> tensor<1xf32>
    %7 = stablehlo.convert %6 : (tensor<1xf32>) -> tensor<1xbf16>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<1xbf16>) -> tensor<12xbf16>
    %9 = stablehlo.multiply %cst_5, %8 : tensor<12xbf16>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<bf16>) -> tensor<12xbf16>
    %11 = stablehlo.add %9, %10 : tensor<12xbf16>
    %12 = stablehlo.slice %arg0 [0:1, 1:2] : (tensor<6x7xf32>) -> tensor<1x1xf32>
    %13 = stablehlo.reshape %12 : (tensor<1x1xf32>) -> tensor<f32>
    %14 = stablehlo.convert %13 : (tensor<f32>) -> tensor<f16>
    %15 = stablehlo.broadcast_in_dim %14, dims = [] : (tensor<f16>) -> tensor<12xf16>
    %16 = stablehlo.multiply %cst_6, %15 : tensor<12xf16>
    %17 = call @_where(%c_7, %cst_1, %cst_0) : (tensor<11xi1>, tensor<f32>, tensor<f32>) -> tensor<11xf32>
    %18 = stablehlo.slice %arg1 [0:15] : (tensor<20xi32>) -> tensor<15xi32>
    %19 = stablehlo.reshape %18 : (tensor<15xi32>) -> tensor<3x5xi32>
    %20 = stablehlo.add %c_8, %19 : tensor<3x5xi32>
    %21 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<6x7xf32>) -> tensor<1x1xf32>
    %22 = stablehlo.reshape %21 : (tensor<1x1xf32>) -> tensor<f32>
    %23 = stablehlo.add %cst, %22 : tensor<f32>
    return %0, %1, %4, %11, %16, %17, %20, %23 : tensor<6x7xf32>, tensor<20xi32>, tensor<12xui32>, tensor<12xbf16>, tensor<12xf16>, tensor<11xf32>, tensor<3x5xi32>, tensor<f32>
  }
  func.func private @_where(%arg0: tensor<11xi1>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<11xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<11xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<11xf32>
    %2 = stablehlo.select %arg0, %0, %1 : tensor<11xi1>, tensor<11xf32>
    return %2 : tensor<11xf32>
  }
}
