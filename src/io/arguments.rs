//! Matching input arrays to the entry computation's parameters.
//!
//! Inputs bind to parameters by name, then in order: an `.npz` member named `arr_N` binds to
//! `parameter(N)` (as `numpy.load` reads `numpy.savez(path, *args)` archives, whatever the
//! member order inside the zip); every other input (members with other names, `.npy`
//! files) takes the remaining parameters in order. Each
//! must have the parameter's element type and dimensions, with one conversion: a `bf16`
//! parameter also accepts a `float32` array (numpy has no bf16), rounded to nearest even.
//! Parameters after the last input get deterministic random values
//! ([`random_inputs`](super::random_inputs)); more inputs than parameters is an error.
//! Every error is one line that names the parameter, the expected and the given type.

use half::bf16;

use super::IoError;
use super::npz::NamedArray;
use super::random_inputs::try_random_literal;
use crate::ir::{ArrayData, ArrayLiteral, Literal, Module, Op, PrimitiveType, Shape};

/// One entry parameter, as the error messages name it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParameterInfo {
    /// `parameter(N)`.
    pub number: usize,
    /// The instruction's name (`x.1`).
    pub name: String,
    /// Its declared shape.
    pub shape: Shape,
}

/// The entry computation's parameters, by number.
pub fn entry_parameters(module: &Module) -> Vec<ParameterInfo> {
    let entry = module.entry_computation();
    entry
        .parameters()
        .into_iter()
        .map(|id| {
            let instr = entry.instr(id);
            let number = match instr.op {
                Op::Parameter { number } => number,
                _ => 0,
            };
            ParameterInfo {
                number,
                name: instr.name.clone(),
                shape: instr.shape.clone(),
            }
        })
        .collect()
}

/// The arguments of one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Arguments {
    /// One literal per parameter, in parameter order, row-major.
    pub literals: Vec<Literal>,
    /// Numbers of the parameters that got random values.
    pub randomized: Vec<usize>,
}

/// Binds `inputs` to `params` in order; parameters without an input get random values
/// from `seed`.
pub fn bind_arguments(
    params: &[ParameterInfo],
    inputs: Vec<NamedArray>,
    seed: u64,
) -> Result<Arguments, IoError> {
    if inputs.len() > params.len() {
        let files: Vec<&str> = inputs.iter().map(|i| i.file.as_str()).collect();
        // One archive (every array named inside the same file), or one file per input.
        let one_archive =
            inputs.iter().all(|i| i.name != i.file) && files.windows(2).all(|w| w[0] == w[1]);
        let given = if one_archive {
            format!("{} has {} arrays", files[0], inputs.len())
        } else {
            format!("{} inputs were given", inputs.len())
        };
        return Err(IoError::new(format!(
            "the model takes {} parameter{} but {given}",
            params.len(),
            if params.len() == 1 { "" } else { "s" }
        )));
    }
    let mut literals = Vec::with_capacity(params.len());
    let mut randomized = Vec::new();
    let mut inputs = place_inputs(params.len(), inputs)?.into_iter();
    for param in params {
        match inputs.next().flatten() {
            Some(input) => literals.push(Literal::Array(convert_input(param, input)?)),
            None => {
                let literal = try_random_literal(&param.shape, seed, param.number)
                    .map_err(|e| IoError::new(e.to_string()))?;
                literals.push(literal);
                randomized.push(param.number);
            }
        }
    }
    Ok(Arguments {
        literals,
        randomized,
    })
}

/// The parameter number an archive member's name binds to: `arr_N` is parameter N, as
/// `numpy.savez(path, *args)` names them and `numpy.load` reads them (by name, whatever
/// their order in the archive).
fn arr_number(input: &NamedArray) -> Option<usize> {
    if input.name == input.file {
        return None; // a .npy file: positional
    }
    let digits = input.name.strip_prefix("arr_")?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if digits.len() > 1 && digits.starts_with('0') {
        return None; // `arr_01` is not a name numpy writes
    }
    digits.parse().ok()
}

/// Puts each input in its parameter's slot: archive members named `arr_N` in slot N,
/// every other input (other names, `.npy` files) in the free slots in order.
fn place_inputs(count: usize, inputs: Vec<NamedArray>) -> Result<Vec<Option<NamedArray>>, IoError> {
    let mut slots: Vec<Option<NamedArray>> = (0..count).map(|_| None).collect();
    let mut rest = Vec::new();
    for input in inputs {
        match arr_number(&input) {
            Some(n) if n >= count => {
                return Err(IoError::new(format!(
                    "{} names parameter {n}, but the model takes {count} parameter{}",
                    input.describe(),
                    if count == 1 { "" } else { "s" }
                )));
            }
            Some(n) => {
                if let Some(first) = &slots[n] {
                    return Err(IoError::new(format!(
                        "{} and {} both name parameter {n}",
                        first.describe(),
                        input.describe()
                    )));
                }
                slots[n] = Some(input);
            }
            None => rest.push(input),
        }
    }
    let mut rest = rest.into_iter();
    for slot in slots.iter_mut().filter(|s| s.is_none()) {
        match rest.next() {
            Some(input) => *slot = Some(input),
            None => break,
        }
    }
    Ok(slots)
}

/// Checks one input against its parameter and converts it (f32 → bf16 for bf16 parameters).
pub fn convert_input(param: &ParameterInfo, input: NamedArray) -> Result<ArrayLiteral, IoError> {
    let Shape::Array(expected) = &param.shape else {
        return Err(IoError::new(format!(
            "parameter {} ({}) has shape {}; inputs can be given only for array parameters",
            param.number,
            param.name,
            shape_string(&param.shape)
        )));
    };
    let given = &input.literal;
    let given_type = given.element_type();
    let type_ok = given_type == expected.element_type
        || (expected.element_type == PrimitiveType::BF16 && given_type == PrimitiveType::F32);
    if !type_ok || given.shape.dims != expected.dims {
        let mut message = format!(
            "parameter {} ({}) expects {} but the input has {} ({})",
            param.number,
            param.name,
            array_type_string(expected.element_type, &expected.dims),
            array_type_string(given_type, &given.shape.dims),
            input.describe()
        );
        if expected.element_type == PrimitiveType::BF16 && !type_ok {
            message.push_str("; bf16 parameters take float32 arrays");
        }
        return Err(IoError::new(message));
    }
    let mut literal = input.literal;
    if let (PrimitiveType::BF16, ArrayData::F32(v)) = (expected.element_type, &literal.data) {
        // `bf16::from_f32` rounds to nearest even, as XLA's f32 → bf16 convert does.
        literal.data = ArrayData::BF16(v.iter().map(|&x| bf16::from_f32(x)).collect());
        literal.shape.element_type = PrimitiveType::BF16;
    }
    Ok(literal)
}

/// `f32[4,8]`: an array type as HLO spells it, without layout.
pub fn array_type_string(element_type: PrimitiveType, dims: &[i64]) -> String {
    let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    format!("{element_type}[{}]", dims.join(","))
}

/// A shape as HLO spells it, without layouts: `f32[2]`, `(s32[], f32[4])`, `token[]`.
pub fn shape_string(shape: &Shape) -> String {
    shape.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(number: usize, name: &str, shape: Shape) -> ParameterInfo {
        ParameterInfo {
            number,
            name: name.into(),
            shape,
        }
    }

    fn npy(file: &str, literal: ArrayLiteral) -> NamedArray {
        NamedArray {
            name: file.into(),
            file: file.into(),
            literal,
        }
    }

    fn input(name: &str, literal: ArrayLiteral) -> NamedArray {
        NamedArray {
            name: name.into(),
            file: "in.npz".into(),
            literal,
        }
    }

    fn params() -> Vec<ParameterInfo> {
        vec![
            param(0, "x.1", Shape::array(PrimitiveType::F32, &[2])),
            param(1, "y.2", Shape::array(PrimitiveType::F32, &[4, 8])),
        ]
    }

    #[test]
    fn binds_in_order_and_fills_the_rest() {
        let x = ArrayLiteral::from_vec(&[2], vec![1.0f32, 2.0]);
        let args = bind_arguments(&params(), vec![input("arr_0", x.clone())], 0).unwrap();
        assert_eq!(args.literals[0], Literal::Array(x));
        assert_eq!(args.randomized, vec![1]);
        assert_eq!(
            args.literals[1].shape(),
            Shape::array(PrimitiveType::F32, &[4, 8])
        );
    }

    #[test]
    fn wrong_dtype_names_parameter_and_types() {
        let y = ArrayLiteral::from_vec(&[4, 8], vec![0i32; 32]);
        let x = ArrayLiteral::from_vec(&[2], vec![1.0f32, 2.0]);
        let e =
            bind_arguments(&params(), vec![input("arr_0", x), input("arr_1", y)], 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 1 (y.2) expects f32[4,8] but the input has s32[4,8] (arr_1 in in.npz)"
        );
    }

    #[test]
    fn wrong_shape_and_count() {
        let x = ArrayLiteral::from_vec(&[3], vec![1.0f32, 2.0, 3.0]);
        let e = bind_arguments(&params(), vec![input("arr_0", x.clone())], 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 0 (x.1) expects f32[2] but the input has f32[3] (arr_0 in in.npz)"
        );
        let three = vec![
            input("arr_0", x.clone()),
            input("arr_1", x.clone()),
            input("arr_2", x.clone()),
        ];
        let e = bind_arguments(&params(), three, 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the model takes 2 parameters but in.npz has 3 arrays"
        );
        // The same .npy given three times is three inputs, not one archive.
        let same = vec![
            npy("x.npy", x.clone()),
            npy("x.npy", x.clone()),
            npy("x.npy", x),
        ];
        let e = bind_arguments(&params(), same, 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the model takes 2 parameters but 3 inputs were given"
        );
    }

    #[test]
    fn bf16_parameters_take_f32_rounded_to_nearest_even() {
        let p = [param(0, "w", Shape::array(PrimitiveType::BF16, &[3]))];
        // 1 + 2^-8 is halfway between bf16 1.0 and 1 + 2^-7: ties go to even (1.0).
        // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties go to even (1 + 2^-6).
        let v = vec![1.0f32 + 1.0 / 256.0, 1.0 + 3.0 / 256.0, -2.0];
        let args =
            bind_arguments(&p, vec![input("arr_0", ArrayLiteral::from_vec(&[3], v))], 0).unwrap();
        let got: Vec<f32> = args.literals[0]
            .as_array()
            .unwrap()
            .values::<bf16>()
            .unwrap()
            .iter()
            .map(|x| x.to_f32())
            .collect();
        assert_eq!(got, vec![1.0, 1.0 + 1.0 / 64.0, -2.0]);
        let wrong = ArrayLiteral::from_vec(&[3], vec![1.0f64, 2.0, 3.0]);
        let e = bind_arguments(&p, vec![input("arr_0", wrong)], 0).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("; bf16 parameters take float32 arrays"),
            "{e}"
        );
    }

    #[test]
    fn archive_members_bind_by_name_not_file_order() {
        let x = ArrayLiteral::from_vec(&[2], vec![1.0f32, 2.0]);
        let y = ArrayLiteral::from_vec(&[4, 8], vec![0f32; 32]);
        // arr_1 stored before arr_0: numpy binds by name.
        let args = bind_arguments(
            &params(),
            vec![input("arr_1", y.clone()), input("arr_0", x.clone())],
            0,
        )
        .unwrap();
        assert_eq!(args.literals[0], Literal::Array(x.clone()));
        assert_eq!(args.literals[1], Literal::Array(y.clone()));
        // Only arr_1: parameter 0 is random, and said so.
        let args = bind_arguments(&params(), vec![input("arr_1", y.clone())], 0).unwrap();
        assert_eq!(args.randomized, vec![0]);
        // Other names fill the free slots in file order.
        let args =
            bind_arguments(&params(), vec![input("w", y.clone()), input("arr_0", x)], 0).unwrap();
        assert_eq!(args.literals[1], Literal::Array(y.clone()));
        let e = bind_arguments(&params(), vec![input("arr_7", y)], 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "arr_7 in in.npz names parameter 7, but the model takes 2 parameters"
        );
    }

    #[test]
    fn tuple_parameters_take_no_input() {
        let tuple = Shape::Tuple(vec![
            Shape::scalar(PrimitiveType::S32),
            Shape::array(PrimitiveType::F32, &[4]),
        ]);
        let p = [param(0, "t", tuple)];
        let e =
            bind_arguments(&p, vec![input("arr_0", ArrayLiteral::scalar(1i32))], 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 0 (t) has shape (s32[], f32[4]); inputs can be given only for array parameters"
        );
        assert_eq!(bind_arguments(&p, vec![], 0).unwrap().randomized, vec![0]);
    }
}
