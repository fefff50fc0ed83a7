//! Floating-point contraction: which `add` / `subtract` of a fused computation XLA:CPU's
//! kernels compute as one fused multiply-add (the product kept exact, one rounding at the end).
//!
//! XLA:CPU compiles its kernels with LLVM's `AllowFPOpFusion::Fast` (fp-contract=fast), so
//! when the target has FMA, LLVM's SelectionDAG combiner (`visitFADDForFMACombine`,
//! `visitFSUBForFMACombine` in `DAGCombiner.cpp`) rewrites, within one basic block:
//!
//! | HLO                          | becomes            |
//! |------------------------------|--------------------|
//! | `add(multiply(a, b), c)`     | `fma(a, b, c)`     |
//! | `add(c, multiply(a, b))`     | `fma(a, b, c)`     |
//! | `subtract(multiply(a, b), c)`| `fma(a, b, -c)`    |
//! | `subtract(c, multiply(a, b))`| `fma(-a, b, c)`    |
//! | `add(negate(multiply(a, b)), c)` | `fma(-a, b, c)` |
//!
//! only when the multiply has exactly one use (x86 is not an "aggressive FMA fusion" target,
//! so a product that is used twice is computed once and rounded). When both operands are
//! single-use products, the left one is contracted (`a*b + c*d` is `fma(a, b, c*d)`; LLVM
//! prefers the product with fewer uses, which ties here, then tries the left operand first).
//! A single-use `negate` of a product is looked through the way the combiner first folds it
//! (`fadd(fneg(A), B)` → `fsub(B, A)`, `fadd(A, fneg(B))` → `fsub(A, B)`,
//! `fsub(A, fneg(B))` → `fadd(A, B)`), which also decides which product wins when there
//! are two: the one the folded form has on the left.
//! A whole fused computation is one loop body, so the rule applies to any two of its
//! instructions; a multiply in another fusion, a broadcast or a called computation between
//! them, or a rounding `convert` (bf16 compute in f32 with converts between the ops) stops it.
//! `f16` ops contract too (LLVM contracts the half-precision ops before promoting them to
//! f32): the f32 fma is rounded to f16 once. Measured against jax 0.10.2's CPU backend
//! (`testdata/fp_contraction*`, written by `testdata/generate.py`; `tests/fp_contraction.rs`):
//! every case above bit-exact, where without contraction 204 to 320 of each 1003-element
//! f32 output differ.
//!
//! The decision is a function of the fused computation alone, so the compiled backend
//! (`codegen::elemental`) and the reference interpreter (`eval`, with
//! `EvalOptions::fp_contraction`) read the same answer and compute the same bits.

use std::collections::HashMap;

use super::{Computation, InstrId, Op, Opcode, PrimitiveType, Shape};

/// Which operand of a contracted `add` / `subtract` is the product folded into it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProductOperand {
    /// `multiply(a, b) + c` or `multiply(a, b) - c`.
    Lhs,
    /// `c + multiply(a, b)` or `c - multiply(a, b)`.
    Rhs,
}

impl ProductOperand {
    /// The operand number (0 or 1).
    pub fn index(self) -> usize {
        match self {
            ProductOperand::Lhs => 0,
            ProductOperand::Rhs => 1,
        }
    }
}

/// One contraction: the `add` / `subtract` `sum` computes, with one rounding,
/// `(±a) * b + (±z)` where `a`, `b` are the operands of `multiply` and `z` is the sum's
/// other operand (`sum.operands[1 - product.index()]`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Contraction {
    /// The `add` or `subtract`.
    pub sum: InstrId,
    /// The `multiply` it absorbs.
    pub multiply: InstrId,
    /// Which operand of the sum holds the product (directly, or through `negate`).
    pub product: ProductOperand,
    /// The single-use `negate` between the product and the sum, if any.
    pub negate: Option<InstrId>,
    /// The product term enters negated (`c - a*b`, `-(a*b) + c`): the fma's `a` is `-a`.
    pub negated_product: bool,
    /// The other operand enters negated (`a*b - c`): the fma's addend is `-z`.
    pub negated_addend: bool,
}

/// The contractions of one fused computation, by the id of the `add` / `subtract`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Contractions {
    by_sum: HashMap<InstrId, Contraction>,
}

impl Contractions {
    /// The contraction of instruction `sum`, if it is one.
    pub fn get(&self, sum: InstrId) -> Option<&Contraction> {
        self.by_sum.get(&sum)
    }

    /// No instruction contracts.
    pub fn is_empty(&self) -> bool {
        self.by_sum.is_empty()
    }

    /// All contractions, in the computation's order.
    pub fn in_order(&self, comp: &Computation) -> Vec<Contraction> {
        comp.order
            .iter()
            .filter_map(|id| self.by_sum.get(id).copied())
            .collect()
    }
}

/// Whether an element type's `multiply`→`add` pairs contract (f32, f64, and f16 computed in
/// f32). bf16 does not: XLA:CPU normalizes bf16 arithmetic to f32 with a rounding convert
/// after every op, which separates the multiply from the add.
pub fn contracts_type(t: PrimitiveType) -> bool {
    matches!(
        t,
        PrimitiveType::F32 | PrimitiveType::F64 | PrimitiveType::F16
    )
}

fn element_type(shape: &Shape) -> Option<PrimitiveType> {
    shape.as_array().map(|a| a.element_type)
}

/// The contractions LLVM makes in the kernel of fused computation `comp` (see the module doc).
/// Call it only for computations a fusion calls, and only for targets with native FMA.
pub fn contractions(comp: &Computation) -> Contractions {
    // Uses as LLVM counts them: every operand slot (`add(m, m)` uses `m` twice).
    let mut uses: HashMap<InstrId, usize> = HashMap::new();
    for (_, instr) in comp.iter() {
        for &o in &instr.operands {
            *uses.entry(o).or_default() += 1;
        }
    }
    let single_use = |id: InstrId| uses.get(&id) == Some(&1) && id != comp.root;
    let is_negate = |id: InstrId| matches!(comp.instr(id).op, Op::Plain(Opcode::Negate));
    // A candidate: operand `k` of the sum is a single-use product, directly (`through` =
    // false) or through a single-use negate of one.
    let product_at = |instr: &super::Instruction, k: usize, through: bool, t: PrimitiveType| {
        let mut id = instr.operands[k];
        let mut negate = None;
        if through {
            if !is_negate(id) || !single_use(id) {
                return None;
            }
            negate = Some(id);
            id = comp.instr(id).operands[0];
        }
        let i = comp.instr(id);
        (matches!(i.op, Op::Plain(Opcode::Multiply))
            && element_type(&i.shape) == Some(t)
            && single_use(id))
        .then_some((k, id, negate))
    };
    let mut by_sum = HashMap::new();
    for (id, instr) in comp.iter() {
        let (Op::Plain(op @ (Opcode::Add | Opcode::Subtract)), [lhs, rhs]) =
            (&instr.op, instr.operands.as_slice())
        else {
            continue;
        };
        let Some(t) = element_type(&instr.shape).filter(|&t| contracts_type(t)) else {
            continue;
        };
        let (l_neg, r_neg) = (is_negate(*lhs), is_negate(*rhs));
        // The order the combiner tries products in, after its negate folds: (operand,
        // through a negate). `add(L, -B)` = `L - B`; `add(-A, R)` = `R - A`;
        // `sub(L, -B)` = `L + B`, and `sub(-A, -B)` = `B - A`.
        let order: &[(usize, bool)] = match (op, l_neg, r_neg) {
            (Opcode::Add, _, true) => &[(0, false), (1, true), (0, true)],
            (Opcode::Add, true, false) => &[(1, false), (0, true)],
            (Opcode::Subtract, false, true) => &[(0, false), (1, true)],
            (Opcode::Subtract, true, true) => &[(1, true), (0, true)],
            (Opcode::Subtract, true, false) => &[(0, false), (1, false), (0, true)],
            _ => &[(0, false), (1, false)],
        };
        let Some((k, multiply, negate)) = order
            .iter()
            .find_map(|&(k, through)| product_at(instr, k, through, t))
        else {
            continue;
        };
        let subtract = *op == Opcode::Subtract;
        by_sum.insert(
            id,
            Contraction {
                sum: id,
                multiply,
                product: if k == 0 {
                    ProductOperand::Lhs
                } else {
                    ProductOperand::Rhs
                },
                negate,
                negated_product: negate.is_some() != (subtract && k == 1),
                negated_addend: subtract && k == 0,
            },
        );
    }
    Contractions { by_sum }
}

/// The dump's `fp-contraction.txt`: per fusion, each `multiply` + `add`/`subtract` pair its
/// kernel computes as one `fma`, with the operands (`contracting` false: none, and why).
pub fn describe(module: &super::Module, contracting: bool) -> String {
    let mut out = String::from(
        "# fp-contraction: multiply + add/subtract pairs each kernel computes as one fused\n\
         # multiply-add (one rounding), where XLA:CPU's LLVM contracts them too\n",
    );
    if !contracting {
        out.push_str("# none: the target has no native FMA, or contraction is off\n");
        return out;
    }
    for &c in &module.order {
        for (_, fusion) in module.computations[c].iter() {
            let Op::Fusion { calls, .. } = fusion.op else {
                continue;
            };
            let fused = &module.computations[calls];
            for k in contractions(fused).in_order(fused) {
                let sum = fused.instr(k.sum);
                let multiply = fused.instr(k.multiply);
                let name = |id: InstrId| fused.instr(id).name.clone();
                let (a, b) = (name(multiply.operands[0]), name(multiply.operands[1]));
                let other = name(sum.operands[1 - k.product.index()]);
                let sign = |n: bool| if n { "-" } else { "" };
                let fma = format!(
                    "fma({}{a}, {b}, {}{other})",
                    sign(k.negated_product),
                    sign(k.negated_addend)
                );
                out.push_str(&format!(
                    "{} ({}): {} + {} -> {fma}\n",
                    fusion.name, fused.name, multiply.name, sum.name
                ));
            }
        }
    }
    out
}

/// `a * b + c` with one rounding, in `f32` (f16 values are computed in f32).
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `a * b + c` with one rounding, in `f64`.
pub fn fma_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::hlo_text::parse_module;

    fn fused(body: &str) -> (Computation, Contractions) {
        let text = format!(
            "HloModule m\n\nENTRY e {{\n  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n  \
             c = f32[4] parameter(2)\n  d = f32[4] parameter(3)\n{body}\n}}\n"
        );
        let module = parse_module(&text, "t.hlo").unwrap().module;
        let comp = module.computations[module.entry].clone();
        let c = contractions(&comp);
        (comp, c)
    }

    fn contracted(body: &str) -> Vec<(String, String, usize)> {
        let (comp, c) = fused(body);
        c.in_order(&comp)
            .iter()
            .map(|k| {
                (
                    comp.instr(k.sum).name.clone(),
                    comp.instr(k.multiply).name.clone(),
                    k.product.index(),
                )
            })
            .collect()
    }

    #[test]
    fn product_then_sum_contracts_in_either_order() {
        let lhs = "  m = f32[4] multiply(a, b)\n  ROOT s = f32[4] add(m, c)";
        assert_eq!(contracted(lhs), vec![("s".into(), "m".into(), 0)]);
        let rhs = "  m = f32[4] multiply(a, b)\n  ROOT s = f32[4] subtract(c, m)";
        assert_eq!(contracted(rhs), vec![("s".into(), "m".into(), 1)]);
    }

    #[test]
    fn two_products_contract_the_left_one() {
        let body = "  m = f32[4] multiply(a, b)\n  n = f32[4] multiply(c, d)\n  \
                    ROOT s = f32[4] add(m, n)";
        assert_eq!(contracted(body), vec![("s".into(), "m".into(), 0)]);
    }

    #[test]
    fn a_negated_product_contracts_negated() {
        let (comp, c) = fused(
            "  m = f32[4] multiply(a, b)\n  n = f32[4] negate(m)\n  \
                               ROOT s = f32[4] add(n, c)",
        );
        let k = c.get(comp.root).expect("contracts");
        assert_eq!(
            (k.product, k.negated_product, k.negated_addend),
            (ProductOperand::Lhs, true, false)
        );
        // add(-m1, m2) is m2 - m1: the combiner contracts m2.
        let body = "  m = f32[4] multiply(a, b)\n  n = f32[4] negate(m)\n  \
                    q = f32[4] multiply(c, d)\n  ROOT s = f32[4] add(n, q)";
        assert_eq!(contracted(body), vec![("s".into(), "q".into(), 1)]);
        // A negate with a second user keeps the product rounded.
        let body = "  m = f32[4] multiply(a, b)\n  n = f32[4] negate(m)\n  \
                    s = f32[4] add(n, c)\n  ROOT r = f32[4] multiply(s, n)";
        assert!(contracted(body).is_empty());
    }

    #[test]
    fn a_product_used_twice_is_rounded() {
        let body = "  m = f32[4] multiply(a, b)\n  s = f32[4] add(m, c)\n  \
                    ROOT r = f32[4] multiply(s, m)";
        assert!(contracted(body).is_empty());
        let twice = "  m = f32[4] multiply(a, b)\n  ROOT s = f32[4] add(m, m)";
        assert!(contracted(twice).is_empty());
    }

    #[test]
    fn bf16_and_integers_do_not_contract() {
        let text = "HloModule m\n\nENTRY e {\n  a = bf16[4] parameter(0)\n  \
                    m = bf16[4] multiply(a, a)\n  b = bf16[4] parameter(1)\n  \
                    ROOT s = bf16[4] add(m, b)\n}\n";
        let module = parse_module(text, "t.hlo").unwrap().module;
        assert!(contractions(&module.computations[module.entry]).is_empty());
        let text = text.replace("bf16", "s32");
        let module = parse_module(&text, "t.hlo").unwrap().module;
        assert!(contractions(&module.computations[module.entry]).is_empty());
        let text = text.replace("s32", "f16");
        let module = parse_module(&text, "t.hlo").unwrap().module;
        assert_eq!(
            contractions(&module.computations[module.entry])
                .in_order(&module.computations[module.entry])
                .len(),
            1
        );
    }

    #[test]
    fn fma_rounds_once() {
        // (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly; rounded products lose it.
        let x = 1.0 + 2f32.powi(-12);
        let c = -(1.0 + 2f32.powi(-11));
        assert_eq!(fma_f32(x, x, c), 2f32.powi(-24));
        assert_eq!(x * x + c, 0.0);
    }
}
