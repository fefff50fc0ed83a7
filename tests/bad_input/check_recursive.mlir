// A self-recursive function: `xlac check` used to overflow its stack (run rejects it).
// RUN: check %s
// STDOUT: recursion is not allowed
// STDOUT: 0 passed, 1 failed
// RUN: run %s
// STDERR: recursion is not allowed
func.func @main() -> tensor<f32> {
  %0 = func.call @main() : () -> tensor<f32>
  return %0 : tensor<f32>
}
