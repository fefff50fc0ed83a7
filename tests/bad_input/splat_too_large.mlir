// A StableHLO splat of 10^11 elements: the parser used to abort filling it.
// RUN: run %s
// STDERR: cannot allocate 400000000000 bytes for the constant tensor<100000000000xf32>
func.func @main() -> tensor<100000000000xf32> {
  %0 = stablehlo.constant dense<1.0> : tensor<100000000000xf32>
  return %0 : tensor<100000000000xf32>
}
