module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32xf32>, %arg1: tensor<32xf32>) -> (tensor<32xf32> {jax.result_info = "result[0]"}, tensor<32xf32> {jax.result_info = "result[1]"}, tensor<32xf32> {jax.result_info = "result[2]"}, tensor<32xf32> {jax.result_info = "result[3]"}, tensor<32xf32> {jax.result_info = "result[4]"}, tensor<32xf32> {jax.result_info = "result[5]"}, tensor<32xf32> {jax.result_info = "result[6]"}, tensor<32xf32> {jax.result_info = "result[7]"}, tensor<32xf32> {jax.result_info = "result[8]"}, tensor<32xf32> {jax.result_info = "result[9]"}, tensor<32xf32> {jax.result_info = "result[10]"}, tensor<32xf32> {jax.result_info = "result[11]"}, tensor<32xf32> {jax.result_info = "result[12]"}, tensor<32xf32> {jax.result_info = "result[13]"}, tensor<32xf32> {jax.result_info = "result[14]"}, tensor<32xf32> {jax.result_info = "result[15]"}, tensor<32xf32> {jax.result_info = "result[16]"}, tensor<32xf32> {jax.result_info = "result[17]"}, tensor<32xf32> {jax.result_info = "result[18]"}, tensor<32xf32> {jax.result_info = "result[19]"}, tensor<32xf32> {jax.result_info = "result[20]"}, tensor<32xf32> {jax.result_info = "result[21]"}, tensor<32xf32> {jax.result_info = "result[22]"}, tensor<32xi1> {jax.result_info = "result[23]"}, tensor<32xf32> {jax.result_info = "result[24]"}, tensor<32xf32> {jax.result_info = "result[25]"}, tensor<32xf32> {jax.result_info = "result[26]"}, tensor<32xf32> {jax.result_info = "result[27]"}, tensor<32xf32> {jax.result_info = "result[28]"}, tensor<32xf32> {jax.result_info = "result[29]"}, tensor<32xf32> {jax.result_info = "result[30]"}, tensor<32xf32> {jax.result_info = "result[31]"}, tensor<32xf32> {jax.result_info = "result[32]"}, tensor<32xf32> {jax.result_info = "result[33]"}, tensor<32xf32> {jax.result_info = "result[34]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<32xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<0.693147182> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.exponential %arg0 : tensor<32xf32>
    %1 = stablehlo.log %arg0 : tensor<32xf32>
    %2 = stablehlo.log_plus_one %arg0 : tensor<32xf32>
    %3 = stablehlo.exponential_minus_one %arg0 : tensor<32xf32>
    %4 = stablehlo.tanh %arg0 : tensor<32xf32>
    %5 = stablehlo.negate %arg0 : tensor<32xf32>
    %6 = stablehlo.exponential %5 : tensor<32xf32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %8 = stablehlo.add %7, %6 : tensor<32xf32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %10 = stablehlo.divide %9, %8 : tensor<32xf32>
    %11 = stablehlo.negate %arg0 : tensor<32xf32>
    %12 = stablehlo.exponential %11 : tensor<32xf32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %14 = stablehlo.add %13, %12 : tensor<32xf32>
    %15 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %16 = stablehlo.divide %15, %14 : tensor<32xf32>
    %17 = stablehlo.composite "chlo.erf" %arg0 {decomposition = @chlo.erf.impl, version = 1 : i32} : (tensor<32xf32>) -> tensor<32xf32>
    %18 = stablehlo.sine %arg0 : tensor<32xf32>
    %19 = stablehlo.cosine %arg0 : tensor<32xf32>
    %20 = stablehlo.tan %arg0 : tensor<32xf32>
    %21 = stablehlo.atan2 %arg0, %arg1 : tensor<32xf32>
    %22 = stablehlo.power %arg0, %arg1 : tensor<32xf32>
    %23 = stablehlo.power %arg0, %arg1 : tensor<32xf32>
    %24 = stablehlo.cbrt %arg0 : tensor<32xf32>
    %25 = stablehlo.sqrt %arg0 : tensor<32xf32>
    %26 = stablehlo.rsqrt %arg0 : tensor<32xf32>
    %27 = stablehlo.abs %arg0 : tensor<32xf32>
    %28 = stablehlo.sign %arg0 : tensor<32xf32>
    %29 = stablehlo.floor %arg0 : tensor<32xf32>
    %30 = stablehlo.ceil %arg0 : tensor<32xf32>
    %31 = stablehlo.round_nearest_afz %arg0 : tensor<32xf32>
    %32 = stablehlo.round_nearest_even %arg0 : tensor<32xf32>
    %33 = stablehlo.is_finite %arg0 : (tensor<32xf32>) -> tensor<32xi1>
    %34 = stablehlo.negate %arg0 : tensor<32xf32>
    %35 = stablehlo.multiply %arg0, %arg1 : tensor<32xf32>
    %36 = stablehlo.divide %arg0, %arg1 : tensor<32xf32>
    %37 = stablehlo.subtract %arg0, %arg1 : tensor<32xf32>
    %38 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
    %39 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %40 = stablehlo.multiply %39, %arg0 : tensor<32xf32>
    %41 = stablehlo.exponential %40 : tensor<32xf32>
    %42 = stablehlo.log %arg0 : tensor<32xf32>
    %43 = stablehlo.log %cst_0 : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %45 = stablehlo.divide %42, %44 : tensor<32xf32>
    %46 = stablehlo.atan2 %arg0, %cst : tensor<32xf32>
    %47 = stablehlo.composite "chlo.sinh" %arg0 {decomposition = @chlo.sinh.impl, version = 1 : i32} : (tensor<32xf32>) -> tensor<32xf32>
    %48 = stablehlo.multiply %arg0, %arg0 : tensor<32xf32>
    %49 = stablehlo.multiply %48, %arg0 : tensor<32xf32>
    %50 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<32xf32>
    %51 = stablehlo.divide %50, %arg0 : tensor<32xf32>
    return %0, %1, %2, %3, %4, %10, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %41, %45, %46, %47, %49, %51 : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xi1>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>
  }
  func.func private @chlo.sinh.impl(%arg0: tensor<32xf32>) -> tensor<32xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<32xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<32xf32>
    %0 = stablehlo.log %cst_0 : tensor<32xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<32xf32>
    %2 = stablehlo.exponential %1 : tensor<32xf32>
    %3 = stablehlo.subtract %0, %arg0 : tensor<32xf32>
    %4 = stablehlo.exponential %3 : tensor<32xf32>
    %5 = stablehlo.subtract %2, %4 : tensor<32xf32>
    %6 = stablehlo.exponential_minus_one %arg0 : tensor<32xf32>
    %7 = stablehlo.add %6, %cst : tensor<32xf32>
    %8 = stablehlo.divide %6, %7 : tensor<32xf32>
    %9 = stablehlo.add %6, %8 : tensor<32xf32>
    %10 = stablehlo.multiply %cst_0, %9 : tensor<32xf32>
    %11 = stablehlo.abs %arg0 : tensor<32xf32>
    %12 = stablehlo.compare LT, %11, %cst : (tensor<32xf32>, tensor<32xf32>) -> tensor<32xi1>
    %13 = stablehlo.select %12, %10, %5 : tensor<32xi1>, tensor<32xf32>
    return %13 : tensor<32xf32>
  }
  func.func private @chlo.erf.impl(%arg0: tensor<32xf32>) -> tensor<32xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<32xf32>
    %cst_0 = stablehlo.constant dense<-1.000000e+00> : tensor<32xf32>
    %cst_1 = stablehlo.constant dense<-0.0142647391> : tensor<32xf32>
    %cst_2 = stablehlo.constant dense<-0.00737332925> : tensor<32xf32>
    %cst_3 = stablehlo.constant dense<-0.00168282702> : tensor<32xf32>
    %cst_4 = stablehlo.constant dense<-2.13374049E-4> : tensor<32xf32>
    %cst_5 = stablehlo.constant dense<-1.45660715E-5> : tensor<32xf32>
    %cst_6 = stablehlo.constant dense<-0.0160960332> : tensor<32xf32>
    %cst_7 = stablehlo.constant dense<-2.954600e-03> : tensor<32xf32>
    %cst_8 = stablehlo.constant dense<-7.34990637E-4> : tensor<32xf32>
    %cst_9 = stablehlo.constant dense<-5.69250624E-5> : tensor<32xf32>
    %cst_10 = stablehlo.constant dense<-2.10102394E-6> : tensor<32xf32>
    %cst_11 = stablehlo.constant dense<2.77068146E-8> : tensor<32xf32>
    %cst_12 = stablehlo.constant dense<-2.72614237E-10> : tensor<32xf32>
    %cst_13 = stablehlo.constant dense<-4.000000e+00> : tensor<32xf32>
    %cst_14 = stablehlo.constant dense<4.000000e+00> : tensor<32xf32>
    %0 = stablehlo.clamp %cst_13, %arg0, %cst_14 : tensor<32xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<32xf32>
    %2 = stablehlo.multiply %cst_12, %1 : tensor<32xf32>
    %3 = stablehlo.add %2, %cst_11 : tensor<32xf32>
    %4 = stablehlo.multiply %3, %1 : tensor<32xf32>
    %5 = stablehlo.add %4, %cst_10 : tensor<32xf32>
    %6 = stablehlo.multiply %5, %1 : tensor<32xf32>
    %7 = stablehlo.add %6, %cst_9 : tensor<32xf32>
    %8 = stablehlo.multiply %7, %1 : tensor<32xf32>
    %9 = stablehlo.add %8, %cst_8 : tensor<32xf32>
    %10 = stablehlo.multiply %9, %1 : tensor<32xf32>
    %11 = stablehlo.add %10, %cst_7 : tensor<32xf32>
    %12 = stablehlo.multiply %11, %1 : tensor<32xf32>
    %13 = stablehlo.add %12, %cst_6 : tensor<32xf32>
    %14 = stablehlo.multiply %cst_5, %1 : tensor<32xf32>
    %15 = stablehlo.add %14, %cst_4 : tensor<32xf32>
    %16 = stablehlo.multiply %15, %1 : tensor<32xf32>
    %17 = stablehlo.add %16, %cst_3 : tensor<32xf32>
    %18 = stablehlo.multiply %17, %1 : tensor<32xf32>
    %19 = stablehlo.add %18, %cst_2 : tensor<32xf32>
    %20 = stablehlo.multiply %19, %1 : tensor<32xf32>
    %21 = stablehlo.add %20, %cst_1 : tensor<32xf32>
    %22 = stablehlo.multiply %0, %13 : tensor<32xf32>
    %23 = stablehlo.divide %22, %21 : tensor<32xf32>
    %24 = stablehlo.clamp %cst_0, %23, %cst : tensor<32xf32>
    return %24 : tensor<32xf32>
  }
}
