//! Differential tests of generated kernels against the reference interpreter: every opcode
//! of the `kernel_ops` contract over the element types it accepts, on shapes with size-0 and
//! size-1 dimensions, odd sizes, non-default layouts and special values. Seeds are fixed.

mod data_movement;
mod elementwise;
mod fusions;
mod harness;
mod plan;
mod reduce;
mod transpose;

/// Shapes (dims, layout) the elementwise tests cycle through: empty, one element, odd 2-D
/// column-major, 3-D with a permuted layout, a scalar, and a row longer than one work-unit
/// chunk.
pub const SHAPES: &[(&str, &str)] = &[
    ("[7,13]", "{0,1}"),
    ("[0]", "{0}"),
    ("[1]", "{0}"),
    ("[3,1,5]", "{1,0,2}"),
    ("[]", ""),
    ("[2,2500]", "{1,0}"),
    ("[5,0,3]", "{2,1,0}"),
];

/// `t` + dims + layout, e.g. `f32[7,13]{0,1}`.
pub fn shape(t: &str, (dims, layout): (&str, &str)) -> String {
    format!("{t}{dims}{layout}")
}

/// A module whose entry is one kLoop fusion with `params` (shape texts) as parameters
/// `p0, p1, ...` and root `ROOT r = result body`; `extra` holds other computations (reducers).
pub fn wrap_with(extra: &str, params: &[String], result: &str, body: &str, kind: &str) -> String {
    let mut fused = String::new();
    let mut entry = String::new();
    let mut args = Vec::new();
    for (i, p) in params.iter().enumerate() {
        fused.push_str(&format!("  p{i} = {p} parameter({i})\n"));
        entry.push_str(&format!("  a{i} = {p} parameter({i})\n"));
        args.push(format!("a{i}"));
    }
    format!(
        "HloModule m\n\n{extra}\nfused {{\n{fused}  ROOT r = {result} {body}\n}}\n\nENTRY main {{\n{entry}  ROOT f = {result} fusion({}), kind={kind}, calls=fused\n}}\n",
        args.join(", ")
    )
}

/// [`wrap_with`] for a kLoop fusion with no extra computations.
pub fn wrap(params: &[String], result: &str, body: &str) -> String {
    wrap_with("", params, result, body, "kLoop")
}

/// The scalar `add` reducer of type `t`, named `add_t`.
pub fn add_reducer(t: &str) -> String {
    format!(
        "add_{t} {{\n  x = {t}[] parameter(0)\n  y = {t}[] parameter(1)\n  ROOT s = {t}[] add(x, y)\n}}\n"
    )
}
