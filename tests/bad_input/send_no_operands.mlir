// stablehlo.send with no operand (not even a token) used to panic.
// RUN: run %s
// STDERR: 'stablehlo.send' takes at least 1 operand but has 0
func.func @main() -> !stablehlo.token {
  %0 = "stablehlo.send"() {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>} : () -> !stablehlo.token
  return %0 : !stablehlo.token
}
