// tensor<2x9223372036854775807xf32> used to panic on capacity overflow.
// RUN: run %s
// STDERR: is too large
func.func @main() -> tensor<2x9223372036854775807xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<2x9223372036854775807xf32>
  return %0 : tensor<2x9223372036854775807xf32>
}
