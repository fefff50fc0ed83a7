module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32>, %arg1: tensor<4xui32>) -> (tensor<4x8xf32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]"}, tensor<4xui32> {jax.result_info = "result[2]"}, tensor<4x6xui32> {jax.result_info = "result[3]"}, tensor<4xui32> {jax.result_info = "result[4]"}, tensor<4x6xui32> {jax.result_info = "result[5]"}, tensor<4xui32> {jax.result_info = "result[6]"}, tensor<4x6xui32> {jax.result_info = "result[7]"}, tensor<4xui32> {jax.result_info = "result[8]"}, tensor<10xui8> {jax.result_info = "result[9]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<32> : tensor<ui64>
    %c_1 = stablehlo.constant dense<1> : tensor<ui64>
    %c_2 = stablehlo.constant dense<-1> : tensor<i32>
    %c_3 = stablehlo.constant dense<32> : tensor<i32>
    %0 = stablehlo.shift_right_logical %arg0, %c_3 : tensor<i32>
    %1 = stablehlo.convert %0 : (tensor<i32>) -> tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %3 = stablehlo.and %arg0, %c_2 : tensor<i32>
    %4 = stablehlo.convert %3 : (tensor<i32>) -> tensor<ui32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<ui32>) -> tensor<1xui32>
    %6 = stablehlo.concatenate %2, %5, dim = 0 : (tensor<1xui32>, tensor<1xui32>) -> tensor<2xui32>
    %7 = stablehlo.concatenate %6, %6, dim = 0 : (tensor<2xui32>, tensor<2xui32>) -> tensor<4xui32>
    %8 = stablehlo.reshape %7 : (tensor<4xui32>) -> tensor<2x2xui32>
    %9 = stablehlo.slice %8 [0:2, 0:1] : (tensor<2x2xui32>) -> tensor<2x1xui32>
    %10 = stablehlo.reshape %9 : (tensor<2x1xui32>) -> tensor<2xui32>
    %11 = stablehlo.slice %8 [0:2, 1:2] : (tensor<2x2xui32>) -> tensor<2x1xui32>
    %12 = stablehlo.reshape %11 : (tensor<2x1xui32>) -> tensor<2xui32>
    %13 = stablehlo.iota dim = 0 : tensor<2xui64>
    %14 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %15 = stablehlo.multiply %14, %13 : tensor<2xui64>
    %16 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<2xui64>
    %17 = stablehlo.shift_right_logical %15, %16 : tensor<2xui64>
    %18 = stablehlo.convert %15 : (tensor<2xui64>) -> tensor<2xui32>
    %19 = stablehlo.convert %17 : (tensor<2xui64>) -> tensor<2xui32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %21 = stablehlo.broadcast_in_dim %18, dims = [1] : (tensor<2xui32>) -> tensor<1x2xui32>
    %22 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %23 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<2xui32>) -> tensor<2x1xui32>
    %24:2 = call @threefry2x32(%22, %23, %20, %21) : (tensor<2x1xui32>, tensor<2x1xui32>, tensor<1x2xui32>, tensor<1x2xui32>) -> (tensor<2x2xui32>, tensor<2x2xui32>)
    %25 = stablehlo.broadcast_in_dim %24#0, dims = [0, 1] : (tensor<2x2xui32>) -> tensor<2x2x1xui32>
    %26 = stablehlo.broadcast_in_dim %24#1, dims = [0, 1] : (tensor<2x2xui32>) -> tensor<2x2x1xui32>
    %27 = stablehlo.concatenate %25, %26, dim = 2 : (tensor<2x2x1xui32>, tensor<2x2x1xui32>) -> tensor<2x2x2xui32>
    %28 = stablehlo.transpose %27, dims = [1, 0, 2] : (tensor<2x2x2xui32>) -> tensor<2x2x2xui32>
    %29 = stablehlo.reshape %28 : (tensor<2x2x2xui32>) -> tensor<2x4xui32>
    %30 = stablehlo.slice %29 [0:1, 0:4] : (tensor<2x4xui32>) -> tensor<1x4xui32>
    %31 = stablehlo.reshape %30 : (tensor<1x4xui32>) -> tensor<4xui32>
    %32 = stablehlo.slice %29 [1:2, 0:4] : (tensor<2x4xui32>) -> tensor<1x4xui32>
    %33 = stablehlo.reshape %32 : (tensor<1x4xui32>) -> tensor<4xui32>
    %34 = call @_normal(%31) : (tensor<4xui32>) -> tensor<4x8xf32>
    %35 = call @_uniform_0(%33, %cst_0, %cst) : (tensor<4xui32>, tensor<f32>, tensor<f32>) -> tensor<16xf32>
    %36 = stablehlo.reshape %arg1 : (tensor<4xui32>) -> tensor<2x2xui32>
    %37 = stablehlo.bitcast_convert %36 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %37, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)
    %38 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %39 = stablehlo.reshape %38 : (tensor<2x2xui32>) -> tensor<4xui32>
    %40 = stablehlo.reshape %arg1 : (tensor<4xui32>) -> tensor<2x2xui32>
    %41 = stablehlo.bitcast_convert %40 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_4, %output_5 = stablehlo.rng_bit_generator %41, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)
    %42 = stablehlo.bitcast_convert %output_state_4 : (tensor<2xui64>) -> tensor<2x2xui32>
    %43 = stablehlo.reshape %42 : (tensor<2x2xui32>) -> tensor<4xui32>
    %44 = stablehlo.reshape %arg1 : (tensor<4xui32>) -> tensor<2x2xui32>
    %45 = stablehlo.bitcast_convert %44 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_6, %output_7 = stablehlo.rng_bit_generator %45, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x6xui32>)
    %46 = stablehlo.bitcast_convert %output_state_6 : (tensor<2xui64>) -> tensor<2x2xui32>
    %47 = stablehlo.reshape %46 : (tensor<2x2xui32>) -> tensor<4xui32>
    %48 = stablehlo.reshape %arg1 : (tensor<4xui32>) -> tensor<2x2xui32>
    %49 = stablehlo.bitcast_convert %48 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state_8, %output_9 = stablehlo.rng_bit_generator %49, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<10xui8>)
    %50 = stablehlo.bitcast_convert %output_state_8 : (tensor<2xui64>) -> tensor<2x2xui32>
    %51 = stablehlo.reshape %50 : (tensor<2x2xui32>) -> tensor<4xui32>
    return %34, %35, %39, %output, %43, %output_5, %47, %output_7, %51, %output_9 : tensor<4x8xf32>, tensor<16xf32>, tensor<4xui32>, tensor<4x6xui32>, tensor<4xui32>, tensor<4x6xui32>, tensor<4xui32>, tensor<4x6xui32>, tensor<4xui32>, tensor<10xui8>
  }
  func.func private @threefry2x32(%arg0: tensor<2x1xui32>, %arg1: tensor<2x1xui32>, %arg2: tensor<1x2xui32>, %arg3: tensor<1x2xui32>) -> (tensor<2x2xui32>, tensor<2x2xui32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<466688986> : tensor<ui32>
    %c_3 = stablehlo.constant dense<[13, 15, 26, 6]> : tensor<4xui32>
    %c_4 = stablehlo.constant dense<[17, 29, 16, 24]> : tensor<4xui32>
    %0 = stablehlo.xor %arg0, %arg1 : tensor<2x1xui32>
    %1 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<2x1xui32>
    %2 = stablehlo.xor %0, %1 : tensor<2x1xui32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<2x2xui32>
    %4 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.add %3, %4 : tensor<2x2xui32>
    %6 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<1x2xui32>) -> tensor<2x2xui32>
    %7 = stablehlo.broadcast_in_dim %arg1, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %8 = stablehlo.add %6, %7 : tensor<2x2xui32>
    %9:9 = stablehlo.while(%iterArg = %c_1, %iterArg_5 = %c_1, %iterArg_6 = %5, %iterArg_7 = %8, %iterArg_8 = %arg1, %iterArg_9 = %2, %iterArg_10 = %arg0, %iterArg_11 = %c_3, %iterArg_12 = %c_4) : tensor<i32>, tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
    cond {
      %10 = stablehlo.compare LT, %iterArg, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    } do {
      %10:8 = func.call @closed_call(%iterArg_5, %iterArg_6, %iterArg_7, %iterArg_8, %iterArg_9, %iterArg_10, %iterArg_11, %iterArg_12) : (tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>)
      %11 = stablehlo.add %iterArg, %c : tensor<i32>
      stablehlo.return %11, %10#0, %10#1, %10#2, %10#3, %10#4, %10#5, %10#6, %10#7 : tensor<i32>, tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
    }
    return %9#2, %9#3 : tensor<2x2xui32>, tensor<2x2xui32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<2x2xui32>, %arg2: tensor<2x2xui32>, %arg3: tensor<2x1xui32>, %arg4: tensor<2x1xui32>, %arg5: tensor<2x1xui32>, %arg6: tensor<4xui32>, %arg7: tensor<4xui32>) -> (tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>) {
    %c = stablehlo.constant dense<32> : tensor<ui32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<4xui32>) -> tensor<1xui32>
    %2 = stablehlo.reshape %1 : (tensor<1xui32>) -> tensor<ui32>
    %3 = stablehlo.add %arg1, %arg2 : tensor<2x2xui32>
    %4 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %5 = stablehlo.shift_left %arg2, %4 : tensor<2x2xui32>
    %6 = stablehlo.subtract %c, %2 : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %8 = stablehlo.shift_right_logical %arg2, %7 : tensor<2x2xui32>
    %9 = stablehlo.or %5, %8 : tensor<2x2xui32>
    %10 = stablehlo.xor %3, %9 : tensor<2x2xui32>
    %11 = stablehlo.slice %arg6 [1:2] : (tensor<4xui32>) -> tensor<1xui32>
    %12 = stablehlo.reshape %11 : (tensor<1xui32>) -> tensor<ui32>
    %13 = stablehlo.add %3, %10 : tensor<2x2xui32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %15 = stablehlo.shift_left %10, %14 : tensor<2x2xui32>
    %16 = stablehlo.subtract %c, %12 : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %18 = stablehlo.shift_right_logical %10, %17 : tensor<2x2xui32>
    %19 = stablehlo.or %15, %18 : tensor<2x2xui32>
    %20 = stablehlo.xor %13, %19 : tensor<2x2xui32>
    %21 = stablehlo.slice %arg6 [2:3] : (tensor<4xui32>) -> tensor<1xui32>
    %22 = stablehlo.reshape %21 : (tensor<1xui32>) -> tensor<ui32>
    %23 = stablehlo.add %13, %20 : tensor<2x2xui32>
    %24 = stablehlo.broadcast_in_dim %22, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %25 = stablehlo.shift_left %20, %24 : tensor<2x2xui32>
    %26 = stablehlo.subtract %c, %22 : tensor<ui32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %28 = stablehlo.shift_right_logical %20, %27 : tensor<2x2xui32>
    %29 = stablehlo.or %25, %28 : tensor<2x2xui32>
    %30 = stablehlo.xor %23, %29 : tensor<2x2xui32>
    %31 = stablehlo.slice %arg6 [3:4] : (tensor<4xui32>) -> tensor<1xui32>
    %32 = stablehlo.reshape %31 : (tensor<1xui32>) -> tensor<ui32>
    %33 = stablehlo.add %23, %30 : tensor<2x2xui32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %35 = stablehlo.shift_left %30, %34 : tensor<2x2xui32>
    %36 = stablehlo.subtract %c, %32 : tensor<ui32>
    %37 = stablehlo.broadcast_in_dim %36, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %38 = stablehlo.shift_right_logical %30, %37 : tensor<2x2xui32>
    %39 = stablehlo.or %35, %38 : tensor<2x2xui32>
    %40 = stablehlo.xor %33, %39 : tensor<2x2xui32>
    %41 = stablehlo.broadcast_in_dim %arg3, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %42 = stablehlo.add %33, %41 : tensor<2x2xui32>
    %43 = stablehlo.broadcast_in_dim %arg4, dims = [0, 1] : (tensor<2x1xui32>) -> tensor<2x2xui32>
    %44 = stablehlo.add %40, %43 : tensor<2x2xui32>
    %45 = stablehlo.add %arg0, %c_0 : tensor<i32>
    %46 = stablehlo.convert %45 : (tensor<i32>) -> tensor<ui32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [] : (tensor<ui32>) -> tensor<2x2xui32>
    %48 = stablehlo.add %44, %47 : tensor<2x2xui32>
    return %0, %42, %48, %arg4, %arg5, %arg3, %arg7, %arg6 : tensor<i32>, tensor<2x2xui32>, tensor<2x2xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<2x1xui32>, tensor<4xui32>, tensor<4xui32>
  }
  func.func private @_normal(%arg0: tensor<4xui32>) -> tensor<4x8xf32> {
    %0 = call @_normal_real(%arg0) : (tensor<4xui32>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
  func.func private @_normal_real(%arg0: tensor<4xui32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<0x7F800000> : tensor<4x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<4x8xf32>
    %cst_1 = stablehlo.constant dense<2.83297682> : tensor<4x8xf32>
    %cst_2 = stablehlo.constant dense<1.50140941> : tensor<4x8xf32>
    %cst_3 = stablehlo.constant dense<1.00167406> : tensor<4x8xf32>
    %cst_4 = stablehlo.constant dense<0.246640727> : tensor<4x8xf32>
    %cst_5 = stablehlo.constant dense<0.00943887047> : tensor<4x8xf32>
    %cst_6 = stablehlo.constant dense<-0.00417768164> : tensor<4x8xf32>
    %cst_7 = stablehlo.constant dense<-0.0076224613> : tensor<4x8xf32>
    %cst_8 = stablehlo.constant dense<-0.00125372503> : tensor<4x8xf32>
    %cst_9 = stablehlo.constant dense<0.00573950773> : tensor<4x8xf32>
    %cst_10 = stablehlo.constant dense<2.1858087E-4> : tensor<4x8xf32>
    %cst_11 = stablehlo.constant dense<-0.00367342844> : tensor<4x8xf32>
    %cst_12 = stablehlo.constant dense<-4.39150654E-6> : tensor<4x8xf32>
    %cst_13 = stablehlo.constant dense<0.00134934322> : tensor<4x8xf32>
    %cst_14 = stablehlo.constant dense<-3.5233877E-6> : tensor<4x8xf32>
    %cst_15 = stablehlo.constant dense<1.00950558E-4> : tensor<4x8xf32>
    %cst_16 = stablehlo.constant dense<3.43273939E-7> : tensor<4x8xf32>
    %cst_17 = stablehlo.constant dense<-2.00214257E-4> : tensor<4x8xf32>
    %cst_18 = stablehlo.constant dense<2.81022636E-8> : tensor<4x8xf32>
    %cst_19 = stablehlo.constant dense<3.000000e+00> : tensor<4x8xf32>
    %cst_20 = stablehlo.constant dense<2.500000e+00> : tensor<4x8xf32>
    %cst_21 = stablehlo.constant dense<5.000000e+00> : tensor<4x8xf32>
    %cst_22 = stablehlo.constant dense<1.41421354> : tensor<f32>
    %cst_23 = stablehlo.constant dense<-0.99999994> : tensor<f32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform(%arg0, %cst_23, %cst_24) : (tensor<4xui32>, tensor<f32>, tensor<f32>) -> tensor<4x8xf32>
    %1 = stablehlo.negate %0 : tensor<4x8xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<4x8xf32>
    %3 = stablehlo.log_plus_one %2 : tensor<4x8xf32>
    %4 = stablehlo.negate %3 : tensor<4x8xf32>
    %5 = stablehlo.compare LT, %4, %cst_21 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %6 = stablehlo.subtract %4, %cst_20 : tensor<4x8xf32>
    %7 = stablehlo.sqrt %4 : tensor<4x8xf32>
    %8 = stablehlo.subtract %7, %cst_19 : tensor<4x8xf32>
    %9 = stablehlo.select %5, %6, %8 : tensor<4x8xi1>, tensor<4x8xf32>
    %10 = stablehlo.select %5, %cst_18, %cst_17 : tensor<4x8xi1>, tensor<4x8xf32>
    %11 = stablehlo.select %5, %cst_16, %cst_15 : tensor<4x8xi1>, tensor<4x8xf32>
    %12 = stablehlo.multiply %10, %9 : tensor<4x8xf32>
    %13 = stablehlo.add %11, %12 : tensor<4x8xf32>
    %14 = stablehlo.select %5, %cst_14, %cst_13 : tensor<4x8xi1>, tensor<4x8xf32>
    %15 = stablehlo.multiply %13, %9 : tensor<4x8xf32>
    %16 = stablehlo.add %14, %15 : tensor<4x8xf32>
    %17 = stablehlo.select %5, %cst_12, %cst_11 : tensor<4x8xi1>, tensor<4x8xf32>
    %18 = stablehlo.multiply %16, %9 : tensor<4x8xf32>
    %19 = stablehlo.add %17, %18 : tensor<4x8xf32>
    %20 = stablehlo.select %5, %cst_10, %cst_9 : tensor<4x8xi1>, tensor<4x8xf32>
    %21 = stablehlo.multiply %19, %9 : tensor<4x8xf32>
    %22 = stablehlo.add %20, %21 : tensor<4x8xf32>
    %23 = stablehlo.select %5, %cst_8, %cst_7 : tensor<4x8xi1>, tensor<4x8xf32>
    %24 = stablehlo.multiply %22, %9 : tensor<4x8xf32>
    %25 = stablehlo.add %23, %24 : tensor<4x8xf32>
    %26 = stablehlo.select %5, %cst_6, %cst_5 : tensor<4x8xi1>, tensor<4x8xf32>
    %27 = stablehlo.multiply %25, %9 : tensor<4x8xf32>
    %28 = stablehlo.add %26, %27 : tensor<4x8xf32>
    %29 = stablehlo.select %5, %cst_4, %cst_3 : tensor<4x8xi1>, tensor<4x8xf32>
    %30 = stablehlo.multiply %28, %9 : tensor<4x8xf32>
    %31 = stablehlo.add %29, %30 : tensor<4x8xf32>
    %32 = stablehlo.select %5, %cst_2, %cst_1 : tensor<4x8xi1>, tensor<4x8xf32>
    %33 = stablehlo.multiply %31, %9 : tensor<4x8xf32>
    %34 = stablehlo.add %32, %33 : tensor<4x8xf32>
    %35 = stablehlo.multiply %34, %0 : tensor<4x8xf32>
    %36 = stablehlo.abs %0 : tensor<4x8xf32>
    %37 = stablehlo.compare EQ, %36, %cst_0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
    %38 = stablehlo.multiply %0, %cst : tensor<4x8xf32>
    %39 = stablehlo.select %37, %38, %35 : tensor<4x8xi1>, tensor<4x8xf32>
    %40 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %41 = stablehlo.multiply %40, %39 : tensor<4x8xf32>
    return %41 : tensor<4x8xf32>
  }
  func.func private @_uniform(%arg0: tensor<4xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x8xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1065353216> : tensor<ui32>
    %c_0 = stablehlo.constant dense<9> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %2 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %3 = stablehlo.bitcast_convert %2 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %3, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4x8xui32>)
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<4x8xui32>
    %5 = stablehlo.shift_right_logical %output, %4 : tensor<4x8xui32>
    %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<4x8xui32>
    %7 = stablehlo.or %5, %6 : tensor<4x8xui32>
    %8 = stablehlo.bitcast_convert %7 : (tensor<4x8xui32>) -> tensor<4x8xf32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x8xf32>
    %10 = stablehlo.subtract %8, %9 : tensor<4x8xf32>
    %11 = stablehlo.subtract %1, %0 : tensor<1x1xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x8xf32>
    %13 = stablehlo.multiply %10, %12 : tensor<4x8xf32>
    %14 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x8xf32>
    %15 = stablehlo.add %13, %14 : tensor<4x8xf32>
    %16 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x8xf32>
    %17 = stablehlo.maximum %16, %15 : tensor<4x8xf32>
    return %17 : tensor<4x8xf32>
  }
  func.func private @_uniform_0(%arg0: tensor<4xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<16xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %c = stablehlo.constant dense<1065353216> : tensor<ui32>
    %c_0 = stablehlo.constant dense<9> : tensor<ui32>
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.convert %arg2 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.bitcast_convert %4 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %5, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<16xui32>)
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %7 = stablehlo.shift_right_logical %output, %6 : tensor<16xui32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<16xui32>
    %9 = stablehlo.or %7, %8 : tensor<16xui32>
    %10 = stablehlo.bitcast_convert %9 : (tensor<16xui32>) -> tensor<16xf32>
    %11 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %12 = stablehlo.subtract %10, %11 : tensor<16xf32>
    %13 = stablehlo.subtract %3, %2 : tensor<1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<1xf32>) -> tensor<16xf32>
    %15 = stablehlo.multiply %12, %14 : tensor<16xf32>
    %16 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<16xf32>
    %17 = stablehlo.add %15, %16 : tensor<16xf32>
    %18 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<16xf32>
    %19 = stablehlo.maximum %18, %17 : tensor<16xf32>
    return %19 : tensor<16xf32>
  }
}
