// A hex blob with a non-ASCII byte used to panic slicing it by bytes.
// RUN: run %s
// STDERR: hex blob has a non-hex digit
func.func @main() -> tensor<2xi8> {
  %0 = stablehlo.constant dense<"0x0é0"> : tensor<2xi8>
  return %0 : tensor<2xi8>
}
