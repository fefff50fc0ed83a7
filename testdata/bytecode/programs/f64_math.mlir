module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12xf64>, %arg1: tensor<12xf64>, %arg2: tensor<4x5xf64>) -> (tensor<12xf64> {jax.result_info = "result[0]"}, tensor<12xf64> {jax.result_info = "result[1]"}, tensor<12xf64> {jax.result_info = "result[2]"}, tensor<12xf64> {jax.result_info = "result[3]"}, tensor<12xf64> {jax.result_info = "result[4]"}, tensor<12xf64> {jax.result_info = "result[5]"}, tensor<12xf64> {jax.result_info = "result[6]"}, tensor<12xf64> {jax.result_info = "result[7]"}, tensor<12xf64> {jax.result_info = "result[8]"}, tensor<12xf64> {jax.result_info = "result[9]"}, tensor<12xf64> {jax.result_info = "result[10]"}, tensor<12xf64> {jax.result_info = "result[11]"}, tensor<f64> {jax.result_info = "result[12]"}, tensor<4x4xf64> {jax.result_info = "result[13]"}, tensor<12xf64> {jax.result_info = "result[14]"}, tensor<12xf64> {jax.result_info = "result[15]"}, tensor<12xf64> {jax.result_info = "result[16]"}) {
    %cst = stablehlo.constant dense<1.000000e+01> : tensor<f64>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.exponential %arg0 : tensor<12xf64>
    %1 = stablehlo.abs %arg0 : tensor<12xf64>
    %2 = stablehlo.log %1 : tensor<12xf64>
    %3 = stablehlo.tanh %arg0 : tensor<12xf64>
    %4 = stablehlo.sine %arg0 : tensor<12xf64>
    %5 = stablehlo.cosine %arg0 : tensor<12xf64>
    %6 = stablehlo.abs %arg0 : tensor<12xf64>
    %7 = stablehlo.sqrt %6 : tensor<12xf64>
    %8 = stablehlo.exponential_minus_one %arg0 : tensor<12xf64>
    %9 = stablehlo.abs %arg0 : tensor<12xf64>
    %10 = stablehlo.log_plus_one %9 : tensor<12xf64>
    %11 = stablehlo.composite "chlo.erf" %arg0 {decomposition = @chlo.erf.impl, version = 1 : i32} : (tensor<12xf64>) -> tensor<12xf64>
    %12 = stablehlo.abs %arg0 : tensor<12xf64>
    %13 = stablehlo.power %12, %arg1 : tensor<12xf64>
    %14 = stablehlo.atan2 %arg0, %arg1 : tensor<12xf64>
    %15 = stablehlo.divide %arg0, %arg1 : tensor<12xf64>
    %16 = stablehlo.multiply %arg0, %arg1 : tensor<12xf64>
    %17 = stablehlo.reduce(%16 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<12xf64>, tensor<f64>) -> tensor<f64>
    %18 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<4x5xf64>) -> tensor<5x4xf64>
    %19 = stablehlo.dot_general %arg2, %18, contracting_dims = [1] x [0] : (tensor<4x5xf64>, tensor<5x4xf64>) -> tensor<4x4xf64>
    %20 = stablehlo.negate %arg0 : tensor<12xf64>
    %21 = stablehlo.exponential %20 : tensor<12xf64>
    %22 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %23 = stablehlo.add %22, %21 : tensor<12xf64>
    %24 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %25 = stablehlo.divide %24, %23 : tensor<12xf64>
    %26 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %27 = stablehlo.multiply %arg0, %26 : tensor<12xf64>
    %28 = stablehlo.floor %27 : tensor<12xf64>
    %29 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<12xf64>
    %30 = stablehlo.multiply %arg0, %29 : tensor<12xf64>
    %31 = call @round(%30) : (tensor<12xf64>) -> tensor<12xf64>
    return %0, %2, %3, %4, %5, %7, %8, %10, %11, %13, %14, %15, %17, %19, %25, %28, %31 : tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>, tensor<f64>, tensor<4x4xf64>, tensor<12xf64>, tensor<12xf64>, tensor<12xf64>
  }
  func.func private @chlo.erf.impl(%arg0: tensor<12xf64>) -> tensor<12xf64> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<12xf64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<12xf64>
    %cst_1 = stablehlo.constant dense<-709.78271289338397> : tensor<12xf64>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<12xf64>
    %cst_3 = stablehlo.constant dense<3.3690764510008151> : tensor<12xf64>
    %cst_4 = stablehlo.constant dense<9.6089680906328585> : tensor<12xf64>
    %cst_5 = stablehlo.constant dense<17.081445074756591> : tensor<12xf64>
    %cst_6 = stablehlo.constant dense<12.048953980809666> : tensor<12xf64>
    %cst_7 = stablehlo.constant dense<9.3960352493800147> : tensor<12xf64>
    %cst_8 = stablehlo.constant dense<2.2605286322011726> : tensor<12xf64>
    %cst_9 = stablehlo.constant dense<2.9788666537210022> : tensor<12xf64>
    %cst_10 = stablehlo.constant dense<7.4097426995044895> : tensor<12xf64>
    %cst_11 = stablehlo.constant dense<6.160210979930536> : tensor<12xf64>
    %cst_12 = stablehlo.constant dense<5.0190504225118051> : tensor<12xf64>
    %cst_13 = stablehlo.constant dense<1.275366707599781> : tensor<12xf64>
    %cst_14 = stablehlo.constant dense<0.56418958354775506> : tensor<12xf64>
    %cst_15 = stablehlo.constant dense<557.53534081772773> : tensor<12xf64>
    %cst_16 = stablehlo.constant dense<1656.6630919416134> : tensor<12xf64>
    %cst_17 = stablehlo.constant dense<2246.3376081871097> : tensor<12xf64>
    %cst_18 = stablehlo.constant dense<1823.9091668790973> : tensor<12xf64>
    %cst_19 = stablehlo.constant dense<975.70850174320549> : tensor<12xf64>
    %cst_20 = stablehlo.constant dense<354.93777888781989> : tensor<12xf64>
    %cst_21 = stablehlo.constant dense<86.707214088598973> : tensor<12xf64>
    %cst_22 = stablehlo.constant dense<13.228195115474499> : tensor<12xf64>
    %cst_23 = stablehlo.constant dense<557.53533536939938> : tensor<12xf64>
    %cst_24 = stablehlo.constant dense<1027.5518868951572> : tensor<12xf64>
    %cst_25 = stablehlo.constant dense<934.52852717195765> : tensor<12xf64>
    %cst_26 = stablehlo.constant dense<526.44519499547732> : tensor<12xf64>
    %cst_27 = stablehlo.constant dense<196.5208329560771> : tensor<12xf64>
    %cst_28 = stablehlo.constant dense<48.637197098568137> : tensor<12xf64>
    %cst_29 = stablehlo.constant dense<7.4632105644226989> : tensor<12xf64>
    %cst_30 = stablehlo.constant dense<0.56418956483106886> : tensor<12xf64>
    %cst_31 = stablehlo.constant dense<2.4619698147353052E-10> : tensor<12xf64>
    %cst_32 = stablehlo.constant dense<49267.394260863592> : tensor<12xf64>
    %cst_33 = stablehlo.constant dense<22629.000061389095> : tensor<12xf64>
    %cst_34 = stablehlo.constant dense<4594.3238297098014> : tensor<12xf64>
    %cst_35 = stablehlo.constant dense<521.35794978015269> : tensor<12xf64>
    %cst_36 = stablehlo.constant dense<33.561714164750313> : tensor<12xf64>
    %cst_37 = stablehlo.constant dense<1.000000e+00> : tensor<12xf64>
    %cst_38 = stablehlo.constant dense<55592.301301039493> : tensor<12xf64>
    %cst_39 = stablehlo.constant dense<7003.3251411280507> : tensor<12xf64>
    %cst_40 = stablehlo.constant dense<2232.0053459468431> : tensor<12xf64>
    %cst_41 = stablehlo.constant dense<90.026019720384269> : tensor<12xf64>
    %cst_42 = stablehlo.constant dense<9.6049737398705161> : tensor<12xf64>
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<12xf64>
    %1 = stablehlo.multiply %cst_42, %0 : tensor<12xf64>
    %2 = stablehlo.add %1, %cst_41 : tensor<12xf64>
    %3 = stablehlo.multiply %2, %0 : tensor<12xf64>
    %4 = stablehlo.add %3, %cst_40 : tensor<12xf64>
    %5 = stablehlo.multiply %4, %0 : tensor<12xf64>
    %6 = stablehlo.add %5, %cst_39 : tensor<12xf64>
    %7 = stablehlo.multiply %6, %0 : tensor<12xf64>
    %8 = stablehlo.add %7, %cst_38 : tensor<12xf64>
    %9 = stablehlo.multiply %arg0, %8 : tensor<12xf64>
    %10 = stablehlo.multiply %cst_37, %0 : tensor<12xf64>
    %11 = stablehlo.add %10, %cst_36 : tensor<12xf64>
    %12 = stablehlo.multiply %11, %0 : tensor<12xf64>
    %13 = stablehlo.add %12, %cst_35 : tensor<12xf64>
    %14 = stablehlo.multiply %13, %0 : tensor<12xf64>
    %15 = stablehlo.add %14, %cst_34 : tensor<12xf64>
    %16 = stablehlo.multiply %15, %0 : tensor<12xf64>
    %17 = stablehlo.add %16, %cst_33 : tensor<12xf64>
    %18 = stablehlo.multiply %17, %0 : tensor<12xf64>
    %19 = stablehlo.add %18, %cst_32 : tensor<12xf64>
    %20 = stablehlo.divide %9, %19 : tensor<12xf64>
    %21 = stablehlo.multiply %arg0, %arg0 : tensor<12xf64>
    %22 = stablehlo.negate %21 : tensor<12xf64>
    %23 = stablehlo.exponential %22 : tensor<12xf64>
    %24 = stablehlo.abs %arg0 : tensor<12xf64>
    %25 = stablehlo.multiply %cst_31, %24 : tensor<12xf64>
    %26 = stablehlo.add %25, %cst_30 : tensor<12xf64>
    %27 = stablehlo.multiply %26, %24 : tensor<12xf64>
    %28 = stablehlo.add %27, %cst_29 : tensor<12xf64>
    %29 = stablehlo.multiply %28, %24 : tensor<12xf64>
    %30 = stablehlo.add %29, %cst_28 : tensor<12xf64>
    %31 = stablehlo.multiply %30, %24 : tensor<12xf64>
    %32 = stablehlo.add %31, %cst_27 : tensor<12xf64>
    %33 = stablehlo.multiply %32, %24 : tensor<12xf64>
    %34 = stablehlo.add %33, %cst_26 : tensor<12xf64>
    %35 = stablehlo.multiply %34, %24 : tensor<12xf64>
    %36 = stablehlo.add %35, %cst_25 : tensor<12xf64>
    %37 = stablehlo.multiply %36, %24 : tensor<12xf64>
    %38 = stablehlo.add %37, %cst_24 : tensor<12xf64>
    %39 = stablehlo.multiply %38, %24 : tensor<12xf64>
    %40 = stablehlo.add %39, %cst_23 : tensor<12xf64>
    %41 = stablehlo.multiply %23, %40 : tensor<12xf64>
    %42 = stablehlo.multiply %cst_37, %24 : tensor<12xf64>
    %43 = stablehlo.add %42, %cst_22 : tensor<12xf64>
    %44 = stablehlo.multiply %43, %24 : tensor<12xf64>
    %45 = stablehlo.add %44, %cst_21 : tensor<12xf64>
    %46 = stablehlo.multiply %45, %24 : tensor<12xf64>
    %47 = stablehlo.add %46, %cst_20 : tensor<12xf64>
    %48 = stablehlo.multiply %47, %24 : tensor<12xf64>
    %49 = stablehlo.add %48, %cst_19 : tensor<12xf64>
    %50 = stablehlo.multiply %49, %24 : tensor<12xf64>
    %51 = stablehlo.add %50, %cst_18 : tensor<12xf64>
    %52 = stablehlo.multiply %51, %24 : tensor<12xf64>
    %53 = stablehlo.add %52, %cst_17 : tensor<12xf64>
    %54 = stablehlo.multiply %53, %24 : tensor<12xf64>
    %55 = stablehlo.add %54, %cst_16 : tensor<12xf64>
    %56 = stablehlo.multiply %55, %24 : tensor<12xf64>
    %57 = stablehlo.add %56, %cst_15 : tensor<12xf64>
    %58 = stablehlo.divide %41, %57 : tensor<12xf64>
    %59 = stablehlo.multiply %cst_14, %24 : tensor<12xf64>
    %60 = stablehlo.add %59, %cst_13 : tensor<12xf64>
    %61 = stablehlo.multiply %60, %24 : tensor<12xf64>
    %62 = stablehlo.add %61, %cst_12 : tensor<12xf64>
    %63 = stablehlo.multiply %62, %24 : tensor<12xf64>
    %64 = stablehlo.add %63, %cst_11 : tensor<12xf64>
    %65 = stablehlo.multiply %64, %24 : tensor<12xf64>
    %66 = stablehlo.add %65, %cst_10 : tensor<12xf64>
    %67 = stablehlo.multiply %66, %24 : tensor<12xf64>
    %68 = stablehlo.add %67, %cst_9 : tensor<12xf64>
    %69 = stablehlo.multiply %23, %68 : tensor<12xf64>
    %70 = stablehlo.multiply %cst_37, %24 : tensor<12xf64>
    %71 = stablehlo.add %70, %cst_8 : tensor<12xf64>
    %72 = stablehlo.multiply %71, %24 : tensor<12xf64>
    %73 = stablehlo.add %72, %cst_7 : tensor<12xf64>
    %74 = stablehlo.multiply %73, %24 : tensor<12xf64>
    %75 = stablehlo.add %74, %cst_6 : tensor<12xf64>
    %76 = stablehlo.multiply %75, %24 : tensor<12xf64>
    %77 = stablehlo.add %76, %cst_5 : tensor<12xf64>
    %78 = stablehlo.multiply %77, %24 : tensor<12xf64>
    %79 = stablehlo.add %78, %cst_4 : tensor<12xf64>
    %80 = stablehlo.multiply %79, %24 : tensor<12xf64>
    %81 = stablehlo.add %80, %cst_3 : tensor<12xf64>
    %82 = stablehlo.divide %69, %81 : tensor<12xf64>
    %83 = stablehlo.compare LT, %24, %cst_2 : (tensor<12xf64>, tensor<12xf64>) -> tensor<12xi1>
    %84 = stablehlo.select %83, %58, %82 : tensor<12xi1>, tensor<12xf64>
    %85 = stablehlo.compare LT, %22, %cst_1 : (tensor<12xf64>, tensor<12xf64>) -> tensor<12xi1>
    %86 = stablehlo.select %85, %cst_0, %84 : tensor<12xi1>, tensor<12xf64>
    %87 = stablehlo.compare LT, %arg0, %cst_0 : (tensor<12xf64>, tensor<12xf64>) -> tensor<12xi1>
    %88 = stablehlo.subtract %cst, %86 : tensor<12xf64>
    %89 = stablehlo.select %87, %88, %86 : tensor<12xi1>, tensor<12xf64>
    %90 = stablehlo.subtract %cst_37, %89 : tensor<12xf64>
    %91 = stablehlo.abs %arg0 : tensor<12xf64>
    %92 = stablehlo.compare LT, %91, %cst_37 : (tensor<12xf64>, tensor<12xf64>) -> tensor<12xi1>
    %93 = stablehlo.select %92, %20, %90 : tensor<12xi1>, tensor<12xf64>
    return %93 : tensor<12xf64>
  }
  func.func private @round(%arg0: tensor<12xf64>) -> tensor<12xf64> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<12xf64>
    return %0 : tensor<12xf64>
  }
}
