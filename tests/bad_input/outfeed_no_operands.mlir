// stablehlo.outfeed with no operand used to panic.
// RUN: run %s
// STDERR: 'stablehlo.outfeed' takes at least 1 operand but has 0
func.func @main() -> !stablehlo.token {
  %0 = "stablehlo.outfeed"() : () -> !stablehlo.token
  return %0 : !stablehlo.token
}
