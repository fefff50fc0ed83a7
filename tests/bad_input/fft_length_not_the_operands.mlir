// An FFT whose fft_length is not its operand's innermost dimensions (found by fuzzing):
// the interpreter fallback allocated twiddles for 2147483647 points and aborted.
// RUN: run %s
// STDERR: innermost dimensions
func.func @main(%arg0: tensor<4x2x3xcomplex<f32>>) -> tensor<4x2x3xcomplex<f32>> {
  %0 = stablehlo.fft %arg0, type = IFFT, length = [2147483647, 3] : (tensor<4x2x3xcomplex<f32>>) -> tensor<4x2x3xcomplex<f32>>
  return %0 : tensor<4x2x3xcomplex<f32>>
}
