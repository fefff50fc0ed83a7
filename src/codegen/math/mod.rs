//! The CLIF math library: exp, log, tanh, erf, sin, ... as inline polynomial code that works on
//! scalars (`f32`, `f64`) and vectors (`f32x4`, `f64x2`) alike. Cranelift has no
//! transcendental instructions, and a libcall per lane inside a vector loop spills every
//! vector register, so hot functions are emitted inline (../shared/notes/cranelift.md §7).
//! XLA: `xla/codegen/intrinsic/`, `xla/backends/cpu/codegen/polynomial_approximations.cc`.
