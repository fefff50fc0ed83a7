module @jit_explicit_while attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  sdy.mesh @mesh = <["x"=4]> {stablehlo.mesh = {axes = [{name = "x", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<2xui32> {sdy.sharding = #sdy.sharding<@empty_mesh, [{}]>}) -> (tensor<4xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %0 = call @_f(%arg0, %cst, %cst_0) : (tensor<2xui32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @_f(%arg0: tensor<2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.convert %arg1 : tensor<f32>
    %2 = call @_threefry_split(%arg0) : (tensor<2xui32>) -> tensor<2x2xui32>
    %3 = stablehlo.slice %2 [0:1, 0:2] : (tensor<2x2xui32>) -> tensor<1x2xui32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{}, {}]> : tensor<1x2xui32>
    %5 = stablehlo.reshape %4 : (tensor<1x2xui32>) -> tensor<2xui32>
    %6 = sdy.sharding_constraint %5 <@mesh, [{}]> : tensor<2xui32>
    %7 = stablehlo.slice %2 [1:2, 0:2] : (tensor<2x2xui32>) -> tensor<1x2xui32>
    %8 = sdy.sharding_constraint %7 <@mesh, [{}, {}]> : tensor<1x2xui32>
    %9 = stablehlo.reshape %8 : (tensor<1x2xui32>) -> tensor<2xui32>
    %10 = sdy.sharding_constraint %9 <@mesh, [{}]> : tensor<2xui32>
    %11 = call @_chisquare(%10, %1) : (tensor<2xui32>, tensor<f32>) -> tensor<4xf32>
    %12 = call @_chisquare(%6, %0) : (tensor<2xui32>, tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{"x"}]> : tensor<4xf32>
    %15 = stablehlo.divide %11, %14 : tensor<4xf32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{"x"}]> : tensor<4xf32>
    %17 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %18 = sdy.sharding_constraint %17 <@mesh, [{"x"}]> : tensor<4xf32>
    %19 = stablehlo.divide %12, %18 : tensor<4xf32>
    %20 = sdy.sharding_constraint %19 <@mesh, [{"x"}]> : tensor<4xf32>
    %21 = stablehlo.divide %16, %20 : tensor<4xf32>
    %22 = sdy.sharding_constraint %21 <@mesh, [{"x"}]> : tensor<4xf32>
    return %22 : tensor<4xf32>
  }
  func.func private @_threefry_split(%arg0: tensor<2xui32>) -> tensor<2x2xui32> {
    %c = stablehlo.constant dense<32> : tensor<ui64>
    %c_0 = stablehlo.constant dense<1> : tensor<ui64>
    %0 = stablehlo.slice %arg0 [0:1] : (tensor<2xui32>) -> tensor<1xui32>
    %1 = stablehlo.reshape %0 : (tensor<1xui32>) -> tensor<ui32>
    %2 = stablehlo.slice %arg0 [1:2] : (tensor<2xui32>) -> tensor<1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1xui32>) -> tensor<ui32>
    %4 = stablehlo.iota dim = 0 : tensor<2xui64>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<2xui64>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<2xui64>
    %9 = stablehlo.convert %6 : (tensor<2xui64>) -> tensor<2xui32>
    %10 = stablehlo.convert %8 : (tensor<2xui64>) -> tensor<2xui32>
    %11:2 = call @threefry2x32(%1, %3, %10, %9) : (tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>)
    %12 = stablehlo.broadcast_in_dim %11#0, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %13 = stablehlo.broadcast_in_dim %11#1, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %14 = stablehlo.concatenate %12, %13, dim = 1 : (tensor<2x1xui32>, tensor<2x1xui32>) -> tensor<2x2xui32>
    %15 = sdy.sharding_constraint %14 <@mesh, [{}, {}]> : tensor<2x2xui32>
    return %15 : tensor<2x2xui32>
  }
  func.func private @threefry2x32(%arg0: tensor<ui32>, %arg1: tensor<ui32>, %arg2: tensor<2xui32>, %arg3: tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<466688986> : tensor<ui32>
    %c_3 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_4 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = sdy.sharding_constraint %arg0 <@mesh, []> : tensor<ui32>
    %1 = sdy.sharding_constraint %arg1 <@mesh, []> : tensor<ui32>
    %2 = stablehlo.xor %0, %1 : tensor<ui32>
    %3 = sdy.sharding_constraint %2 <@mesh, []> : tensor<ui32>
    %4 = sdy.sharding_constraint %c_2 <@mesh, []> : tensor<ui32>
    %5 = stablehlo.xor %3, %4 : tensor<ui32>
    %6 = sdy.sharding_constraint %5 <@mesh, []> : tensor<ui32>
    %7 = sdy.sharding_constraint %arg2 <@mesh, [{}]> : tensor<2xui32>
    %8 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}]> : tensor<2xui32>
    %10 = stablehlo.add %7, %9 : tensor<2xui32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}]> : tensor<2xui32>
    %12 = sdy.sharding_constraint %arg3 <@mesh, [{}]> : tensor<2xui32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %14 = sdy.sharding_constraint %13 <@mesh, [{}]> : tensor<2xui32>
    %15 = stablehlo.add %12, %14 : tensor<2xui32>
    %16 = sdy.sharding_constraint %15 <@mesh, [{}]> : tensor<2xui32>
    %17:9 = stablehlo.while(%iterArg = %c_1, %iterArg_5 = %c_1, %iterArg_6 = %11, %iterArg_7 = %16, %iterArg_8 = %arg1, %iterArg_9 = %6, %iterArg_10 = %arg0, %iterArg_11 = %c_3, %iterArg_12 = %c_4) : tensor<i32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %23 = sdy.sharding_constraint %iterArg <@mesh, []> : tensor<i32>
      %24 = sdy.sharding_constraint %c_0 <@mesh, []> : tensor<i32>
      %25 = stablehlo.compare LT, %23, %24, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %25 : tensor<i1>
    } do {
      %23:8 = func.call @closed_call(%iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12) : (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>)
      %24 = sdy.sharding_constraint %iterArg <@mesh, []> : tensor<i32>
      %25 = sdy.sharding_constraint %c <@mesh, []> : tensor<i32>
      %26 = stablehlo.add %24, %25 : tensor<i32>
      %27 = sdy.sharding_constraint %26 <@mesh, []> : tensor<i32>
      stablehlo.return %27, %23#0, %23#1, %23#2, %23#3, %23#4, %23#5, %23#6, %23#7 : tensor<i32>, tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
    }
    %18 = sdy.sharding_constraint %17#0 <@mesh, []> : tensor<i32>
    %19 = sdy.sharding_constraint %17#1 <@mesh, []> : tensor<i32>
    %20 = sdy.sharding_constraint %17#2 <@mesh, [{}]> : tensor<2xui32>
    %21 = sdy.sharding_constraint %17#3 <@mesh, [{}]> : tensor<2xui32>
    %22 = sdy.sharding_constraint %17#4 <@mesh, []> : tensor<ui32>
    return %20, %21 : tensor<2xui32>, tensor<2xui32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<2xui32>, %arg2: tensor<2xui32>, %arg3: tensor<ui32>, %arg4: tensor<ui32>, %arg5: tensor<ui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<32> : tensor<ui32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = sdy.sharding_constraint %arg0 <@mesh, []> : tensor<i32>
    %1 = sdy.sharding_constraint %c_0 <@mesh, []> : tensor<i32>
    %2 = stablehlo.add %0, %1 : tensor<i32>
    %3 = sdy.sharding_constraint %2 <@mesh, []> : tensor<i32>
    %4 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %5 = stablehlo.reshape %4 : (tensor<1xui32>) -> tensor<ui32>
    %6 = stablehlo.add %arg1, %arg2 : tensor<2xui32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{}]> : tensor<2xui32>
    %8 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{}]> : tensor<2xui32>
    %10 = stablehlo.shift_left %arg2, %9 : tensor<2xui32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{}]> : tensor<2xui32>
    %12 = sdy.sharding_constraint %c <@mesh, []> : tensor<ui32>
    %13 = sdy.sharding_constraint %5 <@mesh, []> : tensor<ui32>
    %14 = stablehlo.subtract %12, %13 : tensor<ui32>
    %15 = sdy.sharding_constraint %14 <@mesh, []> : tensor<ui32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %17 = sdy.sharding_constraint %16 <@mesh, [{}]> : tensor<2xui32>
    %18 = stablehlo.shift_right_logical %arg2, %17 : tensor<2xui32>
    %19 = sdy.sharding_constraint %18 <@mesh, [{}]> : tensor<2xui32>
    %20 = stablehlo.or %11, %19 : tensor<2xui32>
    %21 = sdy.sharding_constraint %20 <@mesh, [{}]> : tensor<2xui32>
    %22 = stablehlo.xor %7, %21 : tensor<2xui32>
    %23 = sdy.sharding_constraint %22 <@mesh, [{}]> : tensor<2xui32>
    %24 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %25 = stablehlo.reshape %24 : (tensor<1xui32>) -> tensor<ui32>
    %26 = stablehlo.add %7, %23 : tensor<2xui32>
    %27 = sdy.sharding_constraint %26 <@mesh, [{}]> : tensor<2xui32>
    %28 = stablehlo.broadcast_in_dim %25, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %29 = sdy.sharding_constraint %28 <@mesh, [{}]> : tensor<2xui32>
    %30 = stablehlo.shift_left %23, %29 : tensor<2xui32>
    %31 = sdy.sharding_constraint %30 <@mesh, [{}]> : tensor<2xui32>
    %32 = sdy.sharding_constraint %c <@mesh, []> : tensor<ui32>
    %33 = sdy.sharding_constraint %25 <@mesh, []> : tensor<ui32>
    %34 = stablehlo.subtract %32, %33 : tensor<ui32>
    %35 = sdy.sharding_constraint %34 <@mesh, []> : tensor<ui32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %37 = sdy.sharding_constraint %36 <@mesh, [{}]> : tensor<2xui32>
    %38 = stablehlo.shift_right_logical %23, %37 : tensor<2xui32>
    %39 = sdy.sharding_constraint %38 <@mesh, [{}]> : tensor<2xui32>
    %40 = stablehlo.or %31, %39 : tensor<2xui32>
    %41 = sdy.sharding_constraint %40 <@mesh, [{}]> : tensor<2xui32>
    %42 = stablehlo.xor %27, %41 : tensor<2xui32>
    %43 = sdy.sharding_constraint %42 <@mesh, [{}]> : tensor<2xui32>
    %44 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %45 = stablehlo.reshape %44 : (tensor<1xui32>) -> tensor<ui32>
    %46 = stablehlo.add %27, %43 : tensor<2xui32>
    %47 = sdy.sharding_constraint %46 <@mesh, [{}]> : tensor<2xui32>
    %48 = stablehlo.broadcast_in_dim %45, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %49 = sdy.sharding_constraint %48 <@mesh, [{}]> : tensor<2xui32>
    %50 = stablehlo.shift_left %43, %49 : tensor<2xui32>
    %51 = sdy.sharding_constraint %50 <@mesh, [{}]> : tensor<2xui32>
    %52 = sdy.sharding_constraint %c <@mesh, []> : tensor<ui32>
    %53 = sdy.sharding_constraint %45 <@mesh, []> : tensor<ui32>
    %54 = stablehlo.subtract %52, %53 : tensor<ui32>
    %55 = sdy.sharding_constraint %54 <@mesh, []> : tensor<ui32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %57 = sdy.sharding_constraint %56 <@mesh, [{}]> : tensor<2xui32>
    %58 = stablehlo.shift_right_logical %43, %57 : tensor<2xui32>
    %59 = sdy.sharding_constraint %58 <@mesh, [{}]> : tensor<2xui32>
    %60 = stablehlo.or %51, %59 : tensor<2xui32>
    %61 = sdy.sharding_constraint %60 <@mesh, [{}]> : tensor<2xui32>
    %62 = stablehlo.xor %47, %61 : tensor<2xui32>
    %63 = sdy.sharding_constraint %62 <@mesh, [{}]> : tensor<2xui32>
    %64 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %65 = stablehlo.reshape %64 : (tensor<1xui32>) -> tensor<ui32>
    %66 = stablehlo.add %47, %63 : tensor<2xui32>
    %67 = sdy.sharding_constraint %66 <@mesh, [{}]> : tensor<2xui32>
    %68 = stablehlo.broadcast_in_dim %65, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %69 = sdy.sharding_constraint %68 <@mesh, [{}]> : tensor<2xui32>
    %70 = stablehlo.shift_left %63, %69 : tensor<2xui32>
    %71 = sdy.sharding_constraint %70 <@mesh, [{}]> : tensor<2xui32>
    %72 = sdy.sharding_constraint %c <@mesh, []> : tensor<ui32>
    %73 = sdy.sharding_constraint %65 <@mesh, []> : tensor<ui32>
    %74 = stablehlo.subtract %72, %73 : tensor<ui32>
    %75 = sdy.sharding_constraint %74 <@mesh, []> : tensor<ui32>
    %76 = stablehlo.broadcast_in_dim %75, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %77 = sdy.sharding_constraint %76 <@mesh, [{}]> : tensor<2xui32>
    %78 = stablehlo.shift_right_logical %63, %77 : tensor<2xui32>
    %79 = sdy.sharding_constraint %78 <@mesh, [{}]> : tensor<2xui32>
    %80 = stablehlo.or %71, %79 : tensor<2xui32>
    %81 = sdy.sharding_constraint %80 <@mesh, [{}]> : tensor<2xui32>
    %82 = stablehlo.xor %67, %81 : tensor<2xui32>
    %83 = sdy.sharding_constraint %82 <@mesh, [{}]> : tensor<2xui32>
    %84 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %85 = sdy.sharding_constraint %84 <@mesh, [{}]> : tensor<2xui32>
    %86 = stablehlo.add %67, %85 : tensor<2xui32>
    %87 = sdy.sharding_constraint %86 <@mesh, [{}]> : tensor<2xui32>
    %88 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %89 = sdy.sharding_constraint %88 <@mesh, [{}]> : tensor<2xui32>
    %90 = stablehlo.add %83, %89 : tensor<2xui32>
    %91 = sdy.sharding_constraint %90 <@mesh, [{}]> : tensor<2xui32>
    %92 = sdy.sharding_constraint %arg0 <@mesh, []> : tensor<i32>
    %93 = sdy.sharding_constraint %c_0 <@mesh, []> : tensor<i32>
    %94 = stablehlo.add %92, %93 : tensor<i32>
    %95 = sdy.sharding_constraint %94 <@mesh, []> : tensor<i32>
    %96 = stablehlo.convert %95 : (tensor<i32>) -> tensor<ui32>
    %97 = sdy.sharding_constraint %96 <@mesh, []> : tensor<ui32>
    %98 = stablehlo.broadcast_in_dim %97, dims = [] : (tensor<ui32>) -> tensor<2xui32>
    %99 = sdy.sharding_constraint %98 <@mesh, [{}]> : tensor<2xui32>
    %100 = stablehlo.add %91, %99 : tensor<2xui32>
    %101 = sdy.sharding_constraint %100 <@mesh, [{}]> : tensor<2xui32>
    return %3, %87, %101, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<2xui32>, tensor<2xui32>, tensor<ui32>, tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_chisquare(%arg0: tensor<2xui32>, %arg1: tensor<f32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = sdy.sharding_constraint %arg1 <@mesh, []> : tensor<f32>
    %1 = sdy.sharding_constraint %cst <@mesh, []> : tensor<f32>
    %2 = stablehlo.divide %0, %1 : tensor<f32>
    %3 = sdy.sharding_constraint %2 <@mesh, []> : tensor<f32>
    %4 = call @_gamma(%arg0, %3) : (tensor<2xui32>, tensor<f32>) -> tensor<4xf32>
    %5 = sdy.sharding_constraint %4 <@mesh, [{"x"}]> : tensor<4xf32>
    %6 = stablehlo.exponential %5 : tensor<4xf32>
    %7 = sdy.sharding_constraint %6 <@mesh, [{"x"}]> : tensor<4xf32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %9 = sdy.sharding_constraint %8 <@mesh, [{"x"}]> : tensor<4xf32>
    %10 = stablehlo.multiply %7, %9 : tensor<4xf32>
    %11 = sdy.sharding_constraint %10 <@mesh, [{"x"}]> : tensor<4xf32>
    return %11 : tensor<4xf32>
  }
  func.func private @_gamma(%arg0: tensor<2xui32>, %arg1: tensor<f32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_1 = stablehlo.constant dense<3.310000e-02> : tensor<f32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<0.333333343> : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<2xui32>) -> tensor<1x2xui32>
    %2 = call @_threefry_split_0(%1) : (tensor<1x2xui32>) -> tensor<1x4x2xui32>
    %3 = stablehlo.reshape %2 : (tensor<1x4x2xui32>) -> tensor<4x2xui32>
    %4 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.compare GE, %0, %4, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %6 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %7 = stablehlo.add %0, %6 : tensor<4xf32>
    %8 = stablehlo.select %5, %0, %7 : tensor<4xi1>, tensor<4xf32>
    %9 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.subtract %8, %9 : tensor<4xf32>
    %11 = stablehlo.sqrt %10 : tensor<4xf32>
    %12 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.divide %12, %11 : tensor<4xf32>
    %14 = call @_threefry_split_3(%3) : (tensor<4x2xui32>) -> tensor<4x2x2xui32>
    %15 = stablehlo.slice %14 [0:4, 0:1, 0:2] : (tensor<4x2x2xui32>) -> tensor<4x1x2xui32>
    %16 = stablehlo.reshape %15 : (tensor<4x1x2xui32>) -> tensor<4x2xui32>
    %17 = stablehlo.slice %14 [0:4, 1:2, 0:2] : (tensor<4x2x2xui32>) -> tensor<4x1x2xui32>
    %18 = stablehlo.reshape %17 : (tensor<4x1x2xui32>) -> tensor<4x2xui32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %20 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %22:6 = stablehlo.while(%iterArg = %10, %iterArg_6 = %13, %iterArg_7 = %16, %iterArg_8 = %19, %iterArg_9 = %20, %iterArg_10 = %21) : tensor<4xf32>, tensor<4xf32>, tensor<4x2xui32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    cond {
      %37 = stablehlo.multiply %iterArg_8, %iterArg_8 : tensor<4xf32>
      %38 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %39 = stablehlo.multiply %38, %37 : tensor<4xf32>
      %40 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %41 = stablehlo.subtract %40, %39 : tensor<4xf32>
      %42 = stablehlo.compare GE, %iterArg_10, %41, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %43 = stablehlo.log %iterArg_10 : tensor<4xf32>
      %44 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %45 = stablehlo.multiply %iterArg_8, %44 : tensor<4xf32>
      %46 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %47 = stablehlo.subtract %46, %iterArg_9 : tensor<4xf32>
      %48 = stablehlo.log %iterArg_9 : tensor<4xf32>
      %49 = stablehlo.add %47, %48 : tensor<4xf32>
      %50 = stablehlo.multiply %iterArg, %49 : tensor<4xf32>
      %51 = stablehlo.add %45, %50 : tensor<4xf32>
      %52 = stablehlo.compare GE, %43, %51, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %53 = stablehlo.and %42, %52 : tensor<4xi1>
      %54 = stablehlo.reduce(%53 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %54 : tensor<i1>
    } do {
      %37 = func.call @_threefry_split_6(%iterArg_7) : (tensor<4x2xui32>) -> tensor<4x3x2xui32>
      %38 = stablehlo.slice %37 [0:4, 0:1, 0:2] : (tensor<4x3x2xui32>) -> tensor<4x1x2xui32>
      %39 = stablehlo.reshape %38 : (tensor<4x1x2xui32>) -> tensor<4x2xui32>
      %40 = stablehlo.slice %37 [0:4, 1:2, 0:2] : (tensor<4x3x2xui32>) -> tensor<4x1x2xui32>
      %41 = stablehlo.reshape %40 : (tensor<4x1x2xui32>) -> tensor<4x2xui32>
      %42 = stablehlo.slice %37 [0:4, 2:3, 0:2] : (tensor<4x3x2xui32>) -> tensor<4x1x2xui32>
      %43 = stablehlo.reshape %42 : (tensor<4x1x2xui32>) -> tensor<4x2xui32>
      %44 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %45 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %46:4 = stablehlo.while(%iterArg_11 = %iterArg_6, %iterArg_12 = %41, %iterArg_13 = %44, %iterArg_14 = %45) : tensor<4xf32>, tensor<4x2xui32>, tensor<4xf32>, tensor<4xf32>
      cond {
        %76 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
        %77 = stablehlo.compare LE, %iterArg_14, %76, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
        %78 = stablehlo.reduce(%77 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
        stablehlo.return %78 : tensor<i1>
      } do {
        %76 = func.call @_threefry_split_3(%iterArg_12) : (tensor<4x2xui32>) -> tensor<4x2x2xui32>
        %77 = stablehlo.slice %76 [0:4, 0:1, 0:2] : (tensor<4x2x2xui32>) -> tensor<4x1x2xui32>
        %78 = stablehlo.reshape %77 : (tensor<4x1x2xui32>) -> tensor<4x2xui32>
        %79 = stablehlo.slice %76 [0:4, 1:2, 0:2] : (tensor<4x2x2xui32>) -> tensor<4x1x2xui32>
        %80 = stablehlo.reshape %79 : (tensor<4x1x2xui32>) -> tensor<4x2xui32>
        %81 = func.call @_normal(%80) : (tensor<4x2xui32>) -> tensor<4xf32>
        %82 = stablehlo.multiply %81, %iterArg_11 : tensor<4xf32>
        %83 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
        %84 = stablehlo.add %83, %82 : tensor<4xf32>
        %85 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
        %86 = stablehlo.compare LE, %iterArg_14, %85, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
        %87 = stablehlo.broadcast_in_dim %86, dims = [0] : (tensor<4xi1>) -> tensor<4x2xi1>
        %88 = stablehlo.select %87, %78, %iterArg_12 : tensor<4x2xi1>, tensor<4x2xui32>
        %89 = stablehlo.broadcast_in_dim %86, dims = [0] : (tensor<4xi1>) -> tensor<4xi1>
        %90 = stablehlo.select %89, %81, %iterArg_13 : tensor<4xi1>, tensor<4xf32>
        %91 = stablehlo.broadcast_in_dim %86, dims = [0] : (tensor<4xi1>) -> tensor<4xi1>
        %92 = stablehlo.select %91, %84, %iterArg_14 : tensor<4xi1>, tensor<4xf32>
        stablehlo.return %iterArg_11, %88, %90, %92 : tensor<4xf32>, tensor<4x2xui32>, tensor<4xf32>, tensor<4xf32>
      }
      %47 = stablehlo.multiply %46#2, %46#2 : tensor<4xf32>
      %48 = stablehlo.multiply %46#3, %46#3 : tensor<4xf32>
      %49 = stablehlo.multiply %48, %46#3 : tensor<4xf32>
      %50 = func.call @_uniform_11(%43, %cst_3, %cst_5) : (tensor<4x2xui32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
      %51 = stablehlo.multiply %iterArg_8, %iterArg_8 : tensor<4xf32>
      %52 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %53 = stablehlo.multiply %52, %51 : tensor<4xf32>
      %54 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %55 = stablehlo.subtract %54, %53 : tensor<4xf32>
      %56 = stablehlo.compare GE, %iterArg_10, %55, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %57 = stablehlo.log %iterArg_10 : tensor<4xf32>
      %58 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %59 = stablehlo.multiply %iterArg_8, %58 : tensor<4xf32>
      %60 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %61 = stablehlo.subtract %60, %iterArg_9 : tensor<4xf32>
      %62 = stablehlo.log %iterArg_9 : tensor<4xf32>
      %63 = stablehlo.add %61, %62 : tensor<4xf32>
      %64 = stablehlo.multiply %iterArg, %63 : tensor<4xf32>
      %65 = stablehlo.add %59, %64 : tensor<4xf32>
      %66 = stablehlo.compare GE, %57, %65, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
      %67 = stablehlo.and %56, %66 : tensor<4xi1>
      %68 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi1>) -> tensor<4x2xi1>
      %69 = stablehlo.select %68, %39, %iterArg_7 : tensor<4x2xi1>, tensor<4x2xui32>
      %70 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi1>) -> tensor<4xi1>
      %71 = stablehlo.select %70, %47, %iterArg_8 : tensor<4xi1>, tensor<4xf32>
      %72 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi1>) -> tensor<4xi1>
      %73 = stablehlo.select %72, %49, %iterArg_9 : tensor<4xi1>, tensor<4xf32>
      %74 = stablehlo.broadcast_in_dim %67, dims = [0] : (tensor<4xi1>) -> tensor<4xi1>
      %75 = stablehlo.select %74, %50, %iterArg_10 : tensor<4xi1>, tensor<4xf32>
      stablehlo.return %iterArg, %iterArg_6, %69, %71, %73, %75 : tensor<4xf32>, tensor<4xf32>, tensor<4x2xui32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    }
    %23 = call @_exponential(%18) : (tensor<4x2xui32>) -> tensor<4xf32>
    %24 = stablehlo.negate %23 : tensor<4xf32>
    %25 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.compare EQ, %24, %25, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %27 = stablehlo.or %5, %26 : tensor<4xi1>
    %28 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %29 = stablehlo.divide %28, %0 : tensor<4xf32>
    %30 = stablehlo.multiply %24, %29 : tensor<4xf32>
    %31 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %32 = stablehlo.select %27, %31, %30 : tensor<4xi1>, tensor<4xf32>
    %33 = stablehlo.log %10 : tensor<4xf32>
    %34 = stablehlo.log %22#4 : tensor<4xf32>
    %35 = stablehlo.add %33, %34 : tensor<4xf32>
    %36 = stablehlo.add %35, %32 : tensor<4xf32>
    return %36 : tensor<4xf32>
  }
  func.func private @_threefry_split_0(%arg0: tensor<1x2xui32>) -> tensor<1x4x2xui32> {
    %c = stablehlo.constant dense<32> : tensor<ui64>
    %c_0 = stablehlo.constant dense<1> : tensor<ui64>
    %0 = stablehlo.slice %arg0 [0:1, 0:1] : (tensor<1x2xui32>) -> tensor<1x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<1x1xui32>) -> tensor<1xui32>
    %2 = stablehlo.slice %arg0 [0:1, 1:2] : (tensor<1x2xui32>) -> tensor<1x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<1x1xui32>) -> tensor<1xui32>
    %4 = stablehlo.iota dim = 0 : tensor<4xui64>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<4xui64>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<4xui64>
    %9 = stablehlo.convert %6 : (tensor<4xui64>) -> tensor<4xui32>
    %10 = stablehlo.convert %8 : (tensor<4xui64>) -> tensor<4xui32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<4xui32>) -> tensor<1x4xui32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<4xui32>) -> tensor<1x4xui32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<1xui32>) -> tensor<1x1xui32>
    %14 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xui32>) -> tensor<1x1xui32>
    %15:2 = call @threefry2x32_1(%13, %14, %11, %12) : (tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x4xui32>, tensor<1x4xui32>) -> (tensor<1x4xui32>, tensor<1x4xui32>)
    %16 = stablehlo.broadcast_in_dim %15#0, dims = [0, 1] : (tensor<1x4xui32>) -> tensor<1x4x1xui32>
    %17 = stablehlo.broadcast_in_dim %15#1, dims = [0, 1] : (tensor<1x4xui32>) -> tensor<1x4x1xui32>
    %18 = stablehlo.concatenate %16, %17, dim = 2 : (tensor<1x4x1xui32>, tensor<1x4x1xui32>) -> tensor<1x4x2xui32>
    return %18 : tensor<1x4x2xui32>
  }
  func.func private @threefry2x32_1(%arg0: tensor<1x1xui32>, %arg1: tensor<1x1xui32>, %arg2: tensor<1x4xui32>, %arg3: tensor<1x4xui32>) -> (tensor<1x4xui32>, tensor<1x4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<466688986> : tensor<ui32>
    %c_3 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_4 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<1x1xui32>
    %1 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<1x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<1x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x4xui32>
    %4 = stablehlo.add %arg2, %3 : tensor<1x4xui32>
    %5 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x4xui32>
    %6 = stablehlo.add %arg3, %5 : tensor<1x4xui32>
    %7:9 = stablehlo.while(%iterArg = %c_1, %iterArg_5 = %c_1, %iterArg_6 = %4, %iterArg_7 = %6, %iterArg_8 = %arg1, %iterArg_9 = %2, %iterArg_10 = %arg0, %iterArg_11 = %c_3, %iterArg_12 = %c_4) : tensor<i32>, tensor<i32>, tensor<1x4xui32>, tensor<1x4xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %8 = stablehlo.compare LT, %iterArg, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>
    } do {
      %8:8 = func.call @closed_call_2(%iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12) : (tensor<i32>, tensor<1x4xui32>, tensor<1x4xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<1x4xui32>, tensor<1x4xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %9 = stablehlo.add %iterArg, %c : tensor<i32>
      stablehlo.return %9, %8#0, %8#1, %8#2, %8#3, %8#4, %8#5, %8#6, %8#7 : tensor<i32>, tensor<i32>, tensor<1x4xui32>, tensor<1x4xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %7#2, %7#3 : tensor<1x4xui32>, tensor<1x4xui32>
  }
  func.func private @closed_call_2(%arg0: tensor<i32>, %arg1: tensor<1x4xui32>, %arg2: tensor<1x4xui32>, %arg3: tensor<1x1xui32>, %arg4: tensor<1x1xui32>, %arg5: tensor<1x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<1x4xui32>, tensor<1x4xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<32> : tensor<ui32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<1x4xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<1x4xui32>
    %6 = stablehlo.subtract %c, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<1x4xui32>
    %9 = stablehlo.or %5, %8 : tensor<1x4xui32>
    %10 = stablehlo.xor %3, %9 : tensor<1x4xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<1x4xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<1x4xui32>
    %16 = stablehlo.subtract %c, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<1x4xui32>
    %19 = stablehlo.or %15, %18 : tensor<1x4xui32>
    %20 = stablehlo.xor %13, %19 : tensor<1x4xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<1x4xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<1x4xui32>
    %26 = stablehlo.subtract %c, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<1x4xui32>
    %29 = stablehlo.or %25, %28 : tensor<1x4xui32>
    %30 = stablehlo.xor %23, %29 : tensor<1x4xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<1x4xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<1x4xui32>
    %36 = stablehlo.subtract %c, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<1x4xui32>
    %39 = stablehlo.or %35, %38 : tensor<1x4xui32>
    %40 = stablehlo.xor %33, %39 : tensor<1x4xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x4xui32>
    %42 = stablehlo.add %33, %41 : tensor<1x4xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<1x1xui32>) -> tensor<1x4xui32>
    %44 = stablehlo.add %40, %43 : tensor<1x4xui32>
    %45 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %46 = stablehlo.convert %45 : (tensor<i32>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<1x4xui32>
    %48 = stablehlo.add %44, %47 : tensor<1x4xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<1x4xui32>, tensor<1x4xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<1x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_threefry_split_3(%arg0: tensor<4x2xui32>) -> tensor<4x2x2xui32> {
    %c = stablehlo.constant dense<32> : tensor<ui64>
    %c_0 = stablehlo.constant dense<1> : tensor<ui64>
    %0 = stablehlo.slice %arg0 [0:4, 0:1] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<4x1xui32>) -> tensor<4xui32>
    %2 = stablehlo.slice %arg0 [0:4, 1:2] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<4x1xui32>) -> tensor<4xui32>
    %4 = stablehlo.iota dim = 0 : tensor<2xui64>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<2xui64>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<2xui64>
    %9 = stablehlo.convert %6 : (tensor<2xui64>) -> tensor<2xui32>
    %10 = stablehlo.convert %8 : (tensor<2xui64>) -> tensor<2xui32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xui32>) -> tensor<4x1xui32>
    %14 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<4xui32>) -> tensor<4x1xui32>
    %15:2 = call @threefry2x32_4(%13, %14, %11, %12) : (tensor<4x1xui32>, tensor<4x1xui32>, tensor<1x2xui32>, tensor<1x2xui32>) -> (tensor<4x2xui32>, tensor<4x2xui32>)
    %16 = stablehlo.broadcast_in_dim %15#0, dims = [0, 1] : (tensor<4x2xui32>) -> tensor<4x2x1xui32>
    %17 = stablehlo.broadcast_in_dim %15#1, dims = [0, 1] : (tensor<4x2xui32>) -> tensor<4x2x1xui32>
    %18 = stablehlo.concatenate %16, %17, dim = 2 : (tensor<4x2x1xui32>, tensor<4x2x1xui32>) -> tensor<4x2x2xui32>
    return %18 : tensor<4x2x2xui32>
  }
  func.func private @threefry2x32_4(%arg0: tensor<4x1xui32>, %arg1: tensor<4x1xui32>, %arg2: tensor<1x2xui32>, %arg3: tensor<1x2xui32>) -> (tensor<4x2xui32>, tensor<4x2xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<466688986> : tensor<ui32>
    %c_3 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_4 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<4x1xui32>
    %1 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<4x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<4x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<4x2xui32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x2xui32>
    %5 = stablehlo.add %3, %4 : tensor<4x2xui32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<4x2xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x2xui32>
    %8 = stablehlo.add %6, %7 : tensor<4x2xui32>
    %9:9 = stablehlo.while(%iterArg = %c_1, %iterArg_5 = %c_1, %iterArg_6 = %5, %iterArg_7 = %8, %iterArg_8 = %arg1, %iterArg_9 = %2, %iterArg_10 = %arg0, %iterArg_11 = %c_3, %iterArg_12 = %c_4) : tensor<i32>, tensor<i32>, tensor<4x2xui32>, tensor<4x2xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %10 = stablehlo.compare LT, %iterArg, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10:8 = func.call @closed_call_5(%iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12) : (tensor<i32>, tensor<4x2xui32>, tensor<4x2xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<4x2xui32>, tensor<4x2xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %11 = stablehlo.add %iterArg, %c : tensor<i32>
      stablehlo.return %11, %10#0, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6, %10#7 : tensor<i32>, tensor<i32>, tensor<4x2xui32>, tensor<4x2xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %9#2, %9#3 : tensor<4x2xui32>, tensor<4x2xui32>
  }
  func.func private @closed_call_5(%arg0: tensor<i32>, %arg1: tensor<4x2xui32>, %arg2: tensor<4x2xui32>, %arg3: tensor<4x1xui32>, %arg4: tensor<4x1xui32>, %arg5: tensor<4x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<4x2xui32>, tensor<4x2xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<32> : tensor<ui32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<4x2xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<4x2xui32>
    %6 = stablehlo.subtract %c, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<4x2xui32>
    %9 = stablehlo.or %5, %8 : tensor<4x2xui32>
    %10 = stablehlo.xor %3, %9 : tensor<4x2xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<4x2xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<4x2xui32>
    %16 = stablehlo.subtract %c, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<4x2xui32>
    %19 = stablehlo.or %15, %18 : tensor<4x2xui32>
    %20 = stablehlo.xor %13, %19 : tensor<4x2xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<4x2xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<4x2xui32>
    %26 = stablehlo.subtract %c, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<4x2xui32>
    %29 = stablehlo.or %25, %28 : tensor<4x2xui32>
    %30 = stablehlo.xor %23, %29 : tensor<4x2xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<4x2xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<4x2xui32>
    %36 = stablehlo.subtract %c, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<4x2xui32>
    %39 = stablehlo.or %35, %38 : tensor<4x2xui32>
    %40 = stablehlo.xor %33, %39 : tensor<4x2xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x2xui32>
    %42 = stablehlo.add %33, %41 : tensor<4x2xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x2xui32>
    %44 = stablehlo.add %40, %43 : tensor<4x2xui32>
    %45 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %46 = stablehlo.convert %45 : (tensor<i32>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<4x2xui32>
    %48 = stablehlo.add %44, %47 : tensor<4x2xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<4x2xui32>, tensor<4x2xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_threefry_split_6(%arg0: tensor<4x2xui32>) -> tensor<4x3x2xui32> {
    %c = stablehlo.constant dense<32> : tensor<ui64>
    %c_0 = stablehlo.constant dense<1> : tensor<ui64>
    %0 = stablehlo.slice %arg0 [0:4, 0:1] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<4x1xui32>) -> tensor<4xui32>
    %2 = stablehlo.slice %arg0 [0:4, 1:2] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<4x1xui32>) -> tensor<4xui32>
    %4 = stablehlo.iota dim = 0 : tensor<3xui64>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %6 = stablehlo.multiply %5, %4 : tensor<3xui64>
    %7 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<3xui64>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<3xui64>
    %9 = stablehlo.convert %6 : (tensor<3xui64>) -> tensor<3xui32>
    %10 = stablehlo.convert %8 : (tensor<3xui64>) -> tensor<3xui32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
    %12 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<3xui32>) -> tensor<1x3xui32>
    %13 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xui32>) -> tensor<4x1xui32>
    %14 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<4xui32>) -> tensor<4x1xui32>
    %15:2 = call @threefry2x32_7(%13, %14, %11, %12) : (tensor<4x1xui32>, tensor<4x1xui32>, tensor<1x3xui32>, tensor<1x3xui32>) -> (tensor<4x3xui32>, tensor<4x3xui32>)
    %16 = stablehlo.broadcast_in_dim %15#0, dims = [0, 1] : (tensor<4x3xui32>) -> tensor<4x3x1xui32>
    %17 = stablehlo.broadcast_in_dim %15#1, dims = [0, 1] : (tensor<4x3xui32>) -> tensor<4x3x1xui32>
    %18 = stablehlo.concatenate %16, %17, dim = 2 : (tensor<4x3x1xui32>, tensor<4x3x1xui32>) -> tensor<4x3x2xui32>
    return %18 : tensor<4x3x2xui32>
  }
  func.func private @threefry2x32_7(%arg0: tensor<4x1xui32>, %arg1: tensor<4x1xui32>, %arg2: tensor<1x3xui32>, %arg3: tensor<1x3xui32>) -> (tensor<4x3xui32>, tensor<4x3xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<466688986> : tensor<ui32>
    %c_3 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_4 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<4x1xui32>
    %1 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<4x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<4x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<4x3xui32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x3xui32>
    %5 = stablehlo.add %3, %4 : tensor<4x3xui32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x3xui32>) -> tensor<4x3xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x3xui32>
    %8 = stablehlo.add %6, %7 : tensor<4x3xui32>
    %9:9 = stablehlo.while(%iterArg = %c_1, %iterArg_5 = %c_1, %iterArg_6 = %5, %iterArg_7 = %8, %iterArg_8 = %arg1, %iterArg_9 = %2, %iterArg_10 = %arg0, %iterArg_11 = %c_3, %iterArg_12 = %c_4) : tensor<i32>, tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %10 = stablehlo.compare LT, %iterArg, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10:8 = func.call @closed_call_8(%iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12) : (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %11 = stablehlo.add %iterArg, %c : tensor<i32>
      stablehlo.return %11, %10#0, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6, %10#7 : tensor<i32>, tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %9#2, %9#3 : tensor<4x3xui32>, tensor<4x3xui32>
  }
  func.func private @closed_call_8(%arg0: tensor<i32>, %arg1: tensor<4x3xui32>, %arg2: tensor<4x3xui32>, %arg3: tensor<4x1xui32>, %arg4: tensor<4x1xui32>, %arg5: tensor<4x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<32> : tensor<ui32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<4x3xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<4x3xui32>
    %6 = stablehlo.subtract %c, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<4x3xui32>
    %9 = stablehlo.or %5, %8 : tensor<4x3xui32>
    %10 = stablehlo.xor %3, %9 : tensor<4x3xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<4x3xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<4x3xui32>
    %16 = stablehlo.subtract %c, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<4x3xui32>
    %19 = stablehlo.or %15, %18 : tensor<4x3xui32>
    %20 = stablehlo.xor %13, %19 : tensor<4x3xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<4x3xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<4x3xui32>
    %26 = stablehlo.subtract %c, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<4x3xui32>
    %29 = stablehlo.or %25, %28 : tensor<4x3xui32>
    %30 = stablehlo.xor %23, %29 : tensor<4x3xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<4x3xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<4x3xui32>
    %36 = stablehlo.subtract %c, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<4x3xui32>
    %39 = stablehlo.or %35, %38 : tensor<4x3xui32>
    %40 = stablehlo.xor %33, %39 : tensor<4x3xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x3xui32>
    %42 = stablehlo.add %33, %41 : tensor<4x3xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<4x1xui32>) -> tensor<4x3xui32>
    %44 = stablehlo.add %40, %43 : tensor<4x3xui32>
    %45 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %46 = stablehlo.convert %45 : (tensor<i32>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<4x3xui32>
    %48 = stablehlo.add %44, %47 : tensor<4x3xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<4x3xui32>, tensor<4x3xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_normal(%arg0: tensor<4x2xui32>) -> tensor<4xf32> {
    %0 = call @_normal_real(%arg0) : (tensor<4x2xui32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @_normal_real(%arg0: tensor<4x2xui32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0x7F800000> : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<2.83297682> : tensor<4xf32>
    %cst_2 = stablehlo.constant dense<1.50140941> : tensor<4xf32>
    %cst_3 = stablehlo.constant dense<1.00167406> : tensor<4xf32>
    %cst_4 = stablehlo.constant dense<0.246640727> : tensor<4xf32>
    %cst_5 = stablehlo.constant dense<0.00943887047> : tensor<4xf32>
    %cst_6 = stablehlo.constant dense<-0.00417768164> : tensor<4xf32>
    %cst_7 = stablehlo.constant dense<-0.0076224613> : tensor<4xf32>
    %cst_8 = stablehlo.constant dense<-0.00125372503> : tensor<4xf32>
    %cst_9 = stablehlo.constant dense<0.00573950773> : tensor<4xf32>
    %cst_10 = stablehlo.constant dense<2.1858087E-4> : tensor<4xf32>
    %cst_11 = stablehlo.constant dense<-0.00367342844> : tensor<4xf32>
    %cst_12 = stablehlo.constant dense<-4.39150654E-6> : tensor<4xf32>
    %cst_13 = stablehlo.constant dense<0.00134934322> : tensor<4xf32>
    %cst_14 = stablehlo.constant dense<-3.5233877E-6> : tensor<4xf32>
    %cst_15 = stablehlo.constant dense<1.00950558E-4> : tensor<4xf32>
    %cst_16 = stablehlo.constant dense<3.43273939E-7> : tensor<4xf32>
    %cst_17 = stablehlo.constant dense<-2.00214257E-4> : tensor<4xf32>
    %cst_18 = stablehlo.constant dense<2.81022636E-8> : tensor<4xf32>
    %cst_19 = stablehlo.constant dense<3.000000e+00> : tensor<4xf32>
    %cst_20 = stablehlo.constant dense<2.500000e+00> : tensor<4xf32>
    %cst_21 = stablehlo.constant dense<5.000000e+00> : tensor<4xf32>
    %cst_22 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %cst_23 = stablehlo.constant dense<-0.99999994> : tensor<f32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform(%arg0, %cst_23, %cst_24) : (tensor<4x2xui32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.negate %0 : tensor<4xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
    %3 = stablehlo.log_plus_one %2 : tensor<4xf32>
    %4 = stablehlo.negate %3 : tensor<4xf32>
    %5 = stablehlo.compare LT, %4, %cst_21 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %6 = stablehlo.subtract %4, %cst_20 : tensor<4xf32>
    %7 = stablehlo.sqrt %4 : tensor<4xf32>
    %8 = stablehlo.subtract %7, %cst_19 : tensor<4xf32>
    %9 = stablehlo.select %5, %6, %8 : tensor<4xi1>, tensor<4xf32>
    %10 = stablehlo.select %5, %cst_18, %cst_17 : tensor<4xi1>, tensor<4xf32>
    %11 = stablehlo.select %5, %cst_16, %cst_15 : tensor<4xi1>, tensor<4xf32>
    %12 = stablehlo.multiply %10, %9 : tensor<4xf32>
    %13 = stablehlo.add %11, %12 : tensor<4xf32>
    %14 = stablehlo.select %5, %cst_14, %cst_13 : tensor<4xi1>, tensor<4xf32>
    %15 = stablehlo.multiply %13, %9 : tensor<4xf32>
    %16 = stablehlo.add %14, %15 : tensor<4xf32>
    %17 = stablehlo.select %5, %cst_12, %cst_11 : tensor<4xi1>, tensor<4xf32>
    %18 = stablehlo.multiply %16, %9 : tensor<4xf32>
    %19 = stablehlo.add %17, %18 : tensor<4xf32>
    %20 = stablehlo.select %5, %cst_10, %cst_9 : tensor<4xi1>, tensor<4xf32>
    %21 = stablehlo.multiply %19, %9 : tensor<4xf32>
    %22 = stablehlo.add %20, %21 : tensor<4xf32>
    %23 = stablehlo.select %5, %cst_8, %cst_7 : tensor<4xi1>, tensor<4xf32>
    %24 = stablehlo.multiply %22, %9 : tensor<4xf32>
    %25 = stablehlo.add %23, %24 : tensor<4xf32>
    %26 = stablehlo.select %5, %cst_6, %cst_5 : tensor<4xi1>, tensor<4xf32>
    %27 = stablehlo.multiply %25, %9 : tensor<4xf32>
    %28 = stablehlo.add %26, %27 : tensor<4xf32>
    %29 = stablehlo.select %5, %cst_4, %cst_3 : tensor<4xi1>, tensor<4xf32>
    %30 = stablehlo.multiply %28, %9 : tensor<4xf32>
    %31 = stablehlo.add %29, %30 : tensor<4xf32>
    %32 = stablehlo.select %5, %cst_2, %cst_1 : tensor<4xi1>, tensor<4xf32>
    %33 = stablehlo.multiply %31, %9 : tensor<4xf32>
    %34 = stablehlo.add %32, %33 : tensor<4xf32>
    %35 = stablehlo.multiply %34, %0 : tensor<4xf32>
    %36 = stablehlo.abs %0 : tensor<4xf32>
    %37 = stablehlo.compare EQ, %36, %cst_0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %38 = stablehlo.multiply %0, %cst : tensor<4xf32>
    %39 = stablehlo.select %37, %38, %35 : tensor<4xi1>, tensor<4xf32>
    %40 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %41 = stablehlo.multiply %40, %39 : tensor<4xf32>
    return %41 : tensor<4xf32>
  }
  func.func private @_uniform(%arg0: tensor<4x2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1065353216> : tensor<ui32>
    %c_0 = stablehlo.constant dense<9> : tensor<ui32>
    %c_1 = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.slice %arg0 [0:4, 0:1] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %1 = stablehlo.reshape %0 : (tensor<4x1xui32>) -> tensor<4xui32>
    %2 = stablehlo.slice %arg0 [0:4, 1:2] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<4x1xui32>) -> tensor<4xui32>
    %4:2 = call @threefry2x32_9(%1, %3, %c_1, %c_1) : (tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>) -> (tensor<4xui32>, tensor<4xui32>)
    %5 = stablehlo.xor %4#0, %4#1 : tensor<4xui32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %7 = stablehlo.shift_right_logical %5, %6 : tensor<4xui32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %9 = stablehlo.or %7, %8 : tensor<4xui32>
    %10 = stablehlo.bitcast_convert %9 : (tensor<4xui32>) -> tensor<4xf32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %12 = stablehlo.subtract %10, %11 : tensor<4xf32>
    %13 = stablehlo.subtract %arg2, %arg1 : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %15 = stablehlo.multiply %12, %14 : tensor<4xf32>
    %16 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.add %15, %16 : tensor<4xf32>
    %18 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %19 = stablehlo.maximum %18, %17 : tensor<4xf32>
    return %19 : tensor<4xf32>
  }
  func.func private @threefry2x32_9(%arg0: tensor<4xui32>, %arg1: tensor<4xui32>, %arg2: tensor<ui32>, %arg3: tensor<ui32>) -> (tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<466688986> : tensor<ui32>
    %c_3 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_4 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<4xui32>
    %1 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %2 = stablehlo.xor %0, %1 : tensor<4xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %4 = stablehlo.add %3, %arg0 : tensor<4xui32>
    %5 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %6 = stablehlo.add %5, %arg1 : tensor<4xui32>
    %7:9 = stablehlo.while(%iterArg = %c_1, %iterArg_5 = %c_1, %iterArg_6 = %4, %iterArg_7 = %6, %iterArg_8 = %arg1, %iterArg_9 = %2, %iterArg_10 = %arg0, %iterArg_11 = %c_3, %iterArg_12 = %c_4) : tensor<i32>, tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %8 = stablehlo.compare LT, %iterArg, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %8 : tensor<i1>
    } do {
      %8:8 = func.call @closed_call_10(%iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12) : (tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>)
      %9 = stablehlo.add %iterArg, %c : tensor<i32>
      stablehlo.return %9, %8#0, %8#1, %8#2, %8#3, %8#4, %8#5, %8#6, %8#7 : tensor<i32>, tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %7#2, %7#3 : tensor<4xui32>, tensor<4xui32>
  }
  func.func private @closed_call_10(%arg0: tensor<i32>, %arg1: tensor<4xui32>, %arg2: tensor<4xui32>, %arg3: tensor<4xui32>, %arg4: tensor<4xui32>, %arg5: tensor<4xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<32> : tensor<ui32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<4xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<4xui32>
    %6 = stablehlo.subtract %c, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<4xui32>
    %9 = stablehlo.or %5, %8 : tensor<4xui32>
    %10 = stablehlo.xor %3, %9 : tensor<4xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<4xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<4xui32>
    %16 = stablehlo.subtract %c, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<4xui32>
    %19 = stablehlo.or %15, %18 : tensor<4xui32>
    %20 = stablehlo.xor %13, %19 : tensor<4xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<4xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<4xui32>
    %26 = stablehlo.subtract %c, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<4xui32>
    %29 = stablehlo.or %25, %28 : tensor<4xui32>
    %30 = stablehlo.xor %23, %29 : tensor<4xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<4xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<4xui32>
    %36 = stablehlo.subtract %c, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<4xui32>
    %39 = stablehlo.or %35, %38 : tensor<4xui32>
    %40 = stablehlo.xor %33, %39 : tensor<4xui32>
    %41 = stablehlo.add %33, %arg3 : tensor<4xui32>
    %42 = stablehlo.add %40, %arg4 : tensor<4xui32>
    %43 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %44 = stablehlo.convert %43 : (tensor<i32>) -> tensor<ui32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %46 = stablehlo.add %42, %45 : tensor<4xui32>
    return %0, %41, %46, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_uniform_11(%arg0: tensor<4x2xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1065353216> : tensor<ui32>
    %c_0 = stablehlo.constant dense<9> : tensor<ui32>
    %c_1 = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.convert %arg2 : tensor<f32>
    %2 = stablehlo.slice %arg0 [0:4, 0:1] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %3 = stablehlo.reshape %2 : (tensor<4x1xui32>) -> tensor<4xui32>
    %4 = stablehlo.slice %arg0 [0:4, 1:2] : (tensor<4x2xui32>) -> tensor<4x1xui32>
    %5 = stablehlo.reshape %4 : (tensor<4x1xui32>) -> tensor<4xui32>
    %6:2 = call @threefry2x32_9(%3, %5, %c_1, %c_1) : (tensor<4xui32>, tensor<4xui32>, tensor<ui32>, tensor<ui32>) -> (tensor<4xui32>, tensor<4xui32>)
    %7 = stablehlo.xor %6#0, %6#1 : tensor<4xui32>
    %8 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %9 = stablehlo.shift_right_logical %7, %8 : tensor<4xui32>
    %10 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %11 = stablehlo.or %9, %10 : tensor<4xui32>
    %12 = stablehlo.bitcast_convert %11 : (tensor<4xui32>) -> tensor<4xf32>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %14 = stablehlo.subtract %12, %13 : tensor<4xf32>
    %15 = stablehlo.subtract %1, %0 : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.multiply %14, %16 : tensor<4xf32>
    %18 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %19 = stablehlo.add %17, %18 : tensor<4xf32>
    %20 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %21 = stablehlo.maximum %20, %19 : tensor<4xf32>
    return %21 : tensor<4xf32>
  }
  func.func private @_exponential(%arg0: tensor<4x2xui32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform_11(%arg0, %cst, %cst_0) : (tensor<4x2xui32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.negate %0 : tensor<4xf32>
    %2 = stablehlo.log_plus_one %1 : tensor<4xf32>
    %3 = stablehlo.negate %2 : tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
