module @jit_run attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x97xcomplex<f32>>, %arg1: tensor<2x3x4x6xcomplex<f32>>, %arg2: tensor<4x16xf32>, %arg3: tensor<2x3x4x10xf32>, %arg4: tensor<3x9xcomplex<f32>>, %arg5: tensor<3x4x4xcomplex<f32>>, %arg6: tensor<0x8xcomplex<f32>>) -> (tensor<3x97xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<3x12xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<3x97xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<3x97xcomplex<f32>> {jax.result_info = "result[3]"}, tensor<2x3x4x6xcomplex<f32>> {jax.result_info = "result[4]"}, tensor<2x3x4x6xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<2x3x4x6xcomplex<f32>> {jax.result_info = "result[6]"}, tensor<2x3x4x6xcomplex<f32>> {jax.result_info = "result[7]"}, tensor<4x9xcomplex<f32>> {jax.result_info = "result[8]"}, tensor<4x5xcomplex<f32>> {jax.result_info = "result[9]"}, tensor<2x3x4x6xcomplex<f32>> {jax.result_info = "result[10]"}, tensor<2x3x3x10xcomplex<f32>> {jax.result_info = "result[11]"}, tensor<3x16xf32> {jax.result_info = "result[12]"}, tensor<3x9xf32> {jax.result_info = "result[13]"}, tensor<3x4x7xf32> {jax.result_info = "result[14]"}, tensor<3x4x6xf32> {jax.result_info = "result[15]"}, tensor<16xf32> {jax.result_info = "result[16]"}, tensor<0x8xcomplex<f32>> {jax.result_info = "result[17]"}) {
    %cst = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = call @fft(%arg0) : (tensor<3x97xcomplex<f32>>) -> tensor<3x97xcomplex<f32>>
    %1 = stablehlo.slice %arg0 [0:3, 0:12] : (tensor<3x97xcomplex<f32>>) -> tensor<3x12xcomplex<f32>>
    %2 = call @_pad(%1, %c) : (tensor<3x12xcomplex<f32>>, tensor<i32>) -> tensor<3x12xcomplex<f32>>
    %3 = call @fft_0(%2) : (tensor<3x12xcomplex<f32>>) -> tensor<3x12xcomplex<f32>>
    %4 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x97xcomplex<f32>>) -> tensor<97x3xcomplex<f32>>
    %5 = call @fft_1(%4) : (tensor<97x3xcomplex<f32>>) -> tensor<97x3xcomplex<f32>>
    %6 = stablehlo.transpose %5, dims = [1, 0] : (tensor<97x3xcomplex<f32>>) -> tensor<3x97xcomplex<f32>>
    %7 = call @fft_2(%arg0) : (tensor<3x97xcomplex<f32>>) -> tensor<3x97xcomplex<f32>>
    %8 = call @fft_3(%arg1) : (tensor<2x3x4x6xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>>
    %9 = call @fft_4(%arg1) : (tensor<2x3x4x6xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>>
    %10 = stablehlo.transpose %arg1, dims = [3, 0, 1, 2] : (tensor<2x3x4x6xcomplex<f32>>) -> tensor<6x2x3x4xcomplex<f32>>
    %11 = call @fft_5(%10) : (tensor<6x2x3x4xcomplex<f32>>) -> tensor<6x2x3x4xcomplex<f32>>
    %12 = stablehlo.transpose %11, dims = [1, 2, 3, 0] : (tensor<6x2x3x4xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>>
    %13 = stablehlo.transpose %arg1, dims = [2, 3, 0, 1] : (tensor<2x3x4x6xcomplex<f32>>) -> tensor<4x6x2x3xcomplex<f32>>
    %14 = call @fft_6(%13) : (tensor<4x6x2x3xcomplex<f32>>) -> tensor<4x6x2x3xcomplex<f32>>
    %15 = stablehlo.transpose %14, dims = [2, 3, 0, 1] : (tensor<4x6x2x3xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>>
    %16 = call @fft_4(%15) : (tensor<2x3x4x6xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>>
    %17 = call @fft_7(%arg2) : (tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>>
    %18 = stablehlo.slice %arg2 [0:4, 0:9] : (tensor<4x16xf32>) -> tensor<4x9xf32>
    %19 = call @_pad_8(%18, %c) : (tensor<4x9xf32>, tensor<i32>) -> tensor<4x9xf32>
    %20 = call @fft_9(%19) : (tensor<4x9xf32>) -> tensor<4x5xcomplex<f32>>
    %21 = call @fft_10(%arg3) : (tensor<2x3x4x10xf32>) -> tensor<2x3x4x6xcomplex<f32>>
    %22 = stablehlo.transpose %arg3, dims = [3, 0, 1, 2] : (tensor<2x3x4x10xf32>) -> tensor<10x2x3x4xf32>
    %23 = call @fft_11(%22) : (tensor<10x2x3x4xf32>) -> tensor<10x2x3x3xcomplex<f32>>
    %24 = stablehlo.transpose %23, dims = [1, 2, 3, 0] : (tensor<10x2x3x3xcomplex<f32>>) -> tensor<2x3x3x10xcomplex<f32>>
    %25 = call @fft_12(%arg4) : (tensor<3x9xcomplex<f32>>) -> tensor<3x16xf32>
    %26 = stablehlo.slice %arg4 [0:3, 0:5] : (tensor<3x9xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
    %27 = call @_pad_13(%26, %c) : (tensor<3x5xcomplex<f32>>, tensor<i32>) -> tensor<3x5xcomplex<f32>>
    %28 = call @fft_14(%27) : (tensor<3x5xcomplex<f32>>) -> tensor<3x9xf32>
    %29 = call @_pad_15(%arg5, %c) : (tensor<3x4x4xcomplex<f32>>, tensor<i32>) -> tensor<3x4x4xcomplex<f32>>
    %30 = call @fft_16(%29) : (tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x7xf32>
    %31 = call @fft_17(%arg5) : (tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x6xf32>
    %32 = stablehlo.slice %arg4 [0:1, 0:9] : (tensor<3x9xcomplex<f32>>) -> tensor<1x9xcomplex<f32>>
    %33 = stablehlo.reshape %32 : (tensor<1x9xcomplex<f32>>) -> tensor<9xcomplex<f32>>
    %34 = stablehlo.real %33 : (tensor<9xcomplex<f32>>) -> tensor<9xf32>
    %35 = stablehlo.imag %33 : (tensor<9xcomplex<f32>>) -> tensor<9xf32>
    %36 = stablehlo.negate %35 : tensor<9xf32>
    %37 = stablehlo.complex %34, %36 : tensor<9xcomplex<f32>>
    %38 = call @fft_18(%37) : (tensor<9xcomplex<f32>>) -> tensor<16xf32>
    %39 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %40 = stablehlo.multiply %38, %39 : tensor<16xf32>
    %41 = call @fft_19(%arg6) : (tensor<0x8xcomplex<f32>>) -> tensor<0x8xcomplex<f32>>
    return %0, %3, %6, %7, %8, %9, %12, %16, %17, %20, %21, %24, %25, %28, %30, %31, %40, %41 : tensor<3x97xcomplex<f32>>, tensor<3x12xcomplex<f32>>, tensor<3x97xcomplex<f32>>, tensor<3x97xcomplex<f32>>, tensor<2x3x4x6xcomplex<f32>>, tensor<2x3x4x6xcomplex<f32>>, tensor<2x3x4x6xcomplex<f32>>, tensor<2x3x4x6xcomplex<f32>>, tensor<4x9xcomplex<f32>>, tensor<4x5xcomplex<f32>>, tensor<2x3x4x6xcomplex<f32>>, tensor<2x3x3x10xcomplex<f32>>, tensor<3x16xf32>, tensor<3x9xf32>, tensor<3x4x7xf32>, tensor<3x4x6xf32>, tensor<16xf32>, tensor<0x8xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<3x97xcomplex<f32>>) -> tensor<3x97xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [97] : (tensor<3x97xcomplex<f32>>) -> tensor<3x97xcomplex<f32>>
    return %0 : tensor<3x97xcomplex<f32>>
  }
  func.func private @_pad(%arg0: tensor<3x12xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<3x12xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<3x12xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3x12xcomplex<f32>>
    return %1 : tensor<3x12xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<3x12xcomplex<f32>>) -> tensor<3x12xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [12] : (tensor<3x12xcomplex<f32>>) -> tensor<3x12xcomplex<f32>>
    return %0 : tensor<3x12xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<97x3xcomplex<f32>>) -> tensor<97x3xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [3] : (tensor<97x3xcomplex<f32>>) -> tensor<97x3xcomplex<f32>>
    return %0 : tensor<97x3xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<3x97xcomplex<f32>>) -> tensor<3x97xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [97] : (tensor<3x97xcomplex<f32>>) -> tensor<3x97xcomplex<f32>>
    return %0 : tensor<3x97xcomplex<f32>>
  }
  func.func private @fft_3(%arg0: tensor<2x3x4x6xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4, 6] : (tensor<2x3x4x6xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>>
    return %0 : tensor<2x3x4x6xcomplex<f32>>
  }
  func.func private @fft_4(%arg0: tensor<2x3x4x6xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [4, 6] : (tensor<2x3x4x6xcomplex<f32>>) -> tensor<2x3x4x6xcomplex<f32>>
    return %0 : tensor<2x3x4x6xcomplex<f32>>
  }
  func.func private @fft_5(%arg0: tensor<6x2x3x4xcomplex<f32>>) -> tensor<6x2x3x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [2, 3, 4] : (tensor<6x2x3x4xcomplex<f32>>) -> tensor<6x2x3x4xcomplex<f32>>
    return %0 : tensor<6x2x3x4xcomplex<f32>>
  }
  func.func private @fft_6(%arg0: tensor<4x6x2x3xcomplex<f32>>) -> tensor<4x6x2x3xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [2, 3] : (tensor<4x6x2x3xcomplex<f32>>) -> tensor<4x6x2x3xcomplex<f32>>
    return %0 : tensor<4x6x2x3xcomplex<f32>>
  }
  func.func private @fft_7(%arg0: tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [16] : (tensor<4x16xf32>) -> tensor<4x9xcomplex<f32>>
    return %0 : tensor<4x9xcomplex<f32>>
  }
  func.func private @_pad_8(%arg0: tensor<4x9xf32>, %arg1: tensor<i32>) -> tensor<4x9xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x9xf32>, tensor<f32>) -> tensor<4x9xf32>
    return %1 : tensor<4x9xf32>
  }
  func.func private @fft_9(%arg0: tensor<4x9xf32>) -> tensor<4x5xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [9] : (tensor<4x9xf32>) -> tensor<4x5xcomplex<f32>>
    return %0 : tensor<4x5xcomplex<f32>>
  }
  func.func private @fft_10(%arg0: tensor<2x3x4x10xf32>) -> tensor<2x3x4x6xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4, 10] : (tensor<2x3x4x10xf32>) -> tensor<2x3x4x6xcomplex<f32>>
    return %0 : tensor<2x3x4x6xcomplex<f32>>
  }
  func.func private @fft_11(%arg0: tensor<10x2x3x4xf32>) -> tensor<10x2x3x3xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [2, 3, 4] : (tensor<10x2x3x4xf32>) -> tensor<10x2x3x3xcomplex<f32>>
    return %0 : tensor<10x2x3x3xcomplex<f32>>
  }
  func.func private @fft_12(%arg0: tensor<3x9xcomplex<f32>>) -> tensor<3x16xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [16] : (tensor<3x9xcomplex<f32>>) -> tensor<3x16xf32>
    return %0 : tensor<3x16xf32>
  }
  func.func private @_pad_13(%arg0: tensor<3x5xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<3x5xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<3x5xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3x5xcomplex<f32>>
    return %1 : tensor<3x5xcomplex<f32>>
  }
  func.func private @fft_14(%arg0: tensor<3x5xcomplex<f32>>) -> tensor<3x9xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [9] : (tensor<3x5xcomplex<f32>>) -> tensor<3x9xf32>
    return %0 : tensor<3x9xf32>
  }
  func.func private @_pad_15(%arg0: tensor<3x4x4xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<3x4x4xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0, 0], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<3x4x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3x4x4xcomplex<f32>>
    return %1 : tensor<3x4x4xcomplex<f32>>
  }
  func.func private @fft_16(%arg0: tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x7xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [3, 4, 7] : (tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x7xf32>
    return %0 : tensor<3x4x7xf32>
  }
  func.func private @fft_17(%arg0: tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x6xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [4, 6] : (tensor<3x4x4xcomplex<f32>>) -> tensor<3x4x6xf32>
    return %0 : tensor<3x4x6xf32>
  }
  func.func private @fft_18(%arg0: tensor<9xcomplex<f32>>) -> tensor<16xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [16] : (tensor<9xcomplex<f32>>) -> tensor<16xf32>
    return %0 : tensor<16xf32>
  }
  func.func private @fft_19(%arg0: tensor<0x8xcomplex<f32>>) -> tensor<0x8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<0x8xcomplex<f32>>) -> tensor<0x8xcomplex<f32>>
    return %0 : tensor<0x8xcomplex<f32>>
  }
}
