//! From an instruction's written attributes to its typed [`Op`]: which attributes each opcode
//! requires or allows, their defaults, and what happens to the rest (kept verbatim as
//! [`RawAttribute`]s, with a warning when xlac does not know the attribute at all).
//! XLA: `HloParserImpl::ParseInstructionRhs` (the big per-opcode switch) in
//! `xla/hlo/parser/hlo_parser.cc`.

use super::attributes::*;
use super::lexer::{Cursor, PResult};
use super::literal::parse_literal;
use super::parser::{Attr, Body, Parser, finish_value};
use super::shapes::parse_shape;
use crate::ir::{
    BackendConfig, CalledComputations, ComputationId, CustomCall, DotDimensionNumbers,
    GatherDimensionNumbers, Instruction, Op, OpCategory, Opcode, RawAttribute,
    ScatterDimensionNumbers, TriangularSolveOptions, TriangularTranspose,
};

/// Attributes that xlac keeps verbatim on any instruction without a warning: XLA knows them,
/// and they do not change what a single-device CPU program computes.
const KNOWN_RAW_ATTRIBUTES: &[&str] = &[
    "frontend_attributes",
    "statistics",
    "origin",
    "parameter_replication",
    "result_accuracy",
    "original_value",
];

/// Attributes whose value names computations (kept typed even on unmodeled opcodes).
const COMPUTATION_ATTRIBUTES: &[&str] = &[
    "to_apply",
    "calls",
    "called_computations",
    "condition",
    "body",
    "select",
    "scatter",
    "true_computation",
    "false_computation",
    "branch_computations",
];

/// The attributes of one instruction; each is taken at most once.
pub(super) struct Attrs<'a> {
    list: Vec<Attr<'a>>,
    taken: Vec<bool>,
}

impl<'a> Attrs<'a> {
    /// Wraps the attributes as written.
    pub fn new(list: Vec<Attr<'a>>) -> Attrs<'a> {
        let taken = vec![false; list.len()];
        Attrs { list, taken }
    }

    /// Takes the attribute `name`, if written.
    fn take(&mut self, name: &str) -> Option<Attr<'a>> {
        let i = self.list.iter().position(|a| a.name == name)?;
        if std::mem::replace(&mut self.taken[i], true) {
            return None;
        }
        Some(self.list[i])
    }

    /// The attributes nobody took, in text order.
    fn rest(&mut self) -> Vec<Attr<'a>> {
        let out = self
            .list
            .iter()
            .zip(&self.taken)
            .filter(|(_, t)| !**t)
            .map(|(a, _)| *a)
            .collect();
        self.taken.iter_mut().for_each(|t| *t = true);
        out
    }
}

/// Opcodes xlac parses and prints but does not model: their attributes stay verbatim.
fn is_unmodeled(opcode: Opcode) -> bool {
    use Opcode::*;
    opcode.category() == OpCategory::Collective
        || matches!(
            opcode,
            AsyncStart
                | AsyncUpdate
                | AsyncDone
                | Send
                | SendDone
                | Recv
                | RecvDone
                | Infeed
                | Outfeed
                | Scan
                | RaggedDot
                | ScaledDot
                | Domain
                | CopyStart
                | CopyDone
                | RngGetAndUpdateState
        )
}

/// Reads one attribute value with `read`, requiring that it is read to the end.
fn value<'a, T>(
    cur: &Cursor<'a>,
    attr: Attr<'a>,
    read: impl FnOnce(&mut Cursor<'a>) -> PResult<T>,
) -> PResult<T> {
    let mut v = cur.sub(attr.start, attr.end);
    let out = read(&mut v)?;
    finish_value(&mut v, attr.name)?;
    Ok(out)
}

impl<'a> Parser<'a> {
    /// Builds the typed op of `opcode` from its attributes, taking the ones it uses.
    pub(super) fn build_op(
        &mut self,
        cur: &Cursor<'a>,
        opcode: Opcode,
        opcode_pos: usize,
        instr_name: &str,
        attrs: &mut Attrs<'a>,
    ) -> PResult<Op> {
        let src = self.src;
        let missing = |name: &str| {
            src.error(
                opcode_pos,
                format!("`{opcode}` needs the attribute `{name}`"),
            )
        };
        // Shorthands: a required / optional attribute read with a value reader.
        macro_rules! req {
            ($name:literal, $read:expr) => {{
                let attr = attrs.take($name).ok_or_else(|| missing($name))?;
                value(cur, attr, $read)?
            }};
        }
        macro_rules! opt {
            ($name:literal, $read:expr) => {{
                match attrs.take($name) {
                    Some(attr) => Some(value(cur, attr, $read)?),
                    None => None,
                }
            }};
        }
        macro_rules! comp {
            ($name:literal) => {{
                let attr = attrs.take($name).ok_or_else(|| missing($name))?;
                self.called(cur, attr, instr_name)?
            }};
        }
        let one_dimension = |v: &mut Cursor<'a>| -> PResult<usize> {
            v.skip_ws();
            let at = v.pos;
            let dims = parse_index_list(v)?;
            match dims[..] {
                [d] => Ok(d),
                _ => Err(v.src.error(
                    at,
                    format!("expected exactly one dimension, found {}", dims.len()),
                )),
            }
        };
        let enum_value = |what: &'static str| {
            move |v: &mut Cursor<'a>| -> PResult<String> { Ok(v.expect_ident(what)?.to_string()) }
        };
        macro_rules! parse_enum {
            ($name:literal, $ty:ty) => {{
                let attr = attrs.take($name).ok_or_else(|| missing($name))?;
                let word = value(cur, attr, enum_value($name))?;
                word.parse::<$ty>()
                    .map_err(|_| src.error(attr.start, format!("unknown {} `{word}`", $name)))?
            }};
        }

        use Opcode as O;
        let op = match opcode {
            O::Iota => Op::Iota {
                dimension: req!("iota_dimension", |v| v.index()),
            },
            O::Broadcast => Op::Broadcast {
                dimensions: req!("dimensions", parse_index_list),
            },
            O::Transpose => Op::Transpose {
                dimensions: req!("dimensions", parse_index_list),
            },
            O::Reverse => Op::Reverse {
                dimensions: req!("dimensions", parse_index_list),
            },
            O::Concatenate => Op::Concatenate {
                dimension: req!("dimensions", one_dimension),
            },
            O::Slice => Op::Slice {
                slice: req!("slice", parse_slice),
            },
            O::DynamicSlice => Op::DynamicSlice {
                sizes: req!("dynamic_slice_sizes", parse_int_list),
            },
            O::Pad => Op::Pad {
                padding: req!("padding", parse_padding),
            },
            O::Compare => {
                let direction = parse_enum!("direction", crate::ir::ComparisonDirection);
                let comparison_type = match attrs.take("type") {
                    Some(attr) => {
                        let word = value(cur, attr, enum_value("type"))?;
                        Some(word.parse().map_err(|_| {
                            src.error(attr.start, format!("unknown comparison type `{word}`"))
                        })?)
                    }
                    None => None,
                };
                Op::Compare {
                    direction,
                    comparison_type,
                }
            }
            O::GetTupleElement => Op::GetTupleElement {
                index: req!("index", |v| v.index()),
            },
            O::ReducePrecision => Op::ReducePrecision {
                exponent_bits: req!("exponent_bits", |v| small_u32(v)),
                mantissa_bits: req!("mantissa_bits", |v| small_u32(v)),
            },
            O::Reduce => {
                let dimensions = req!("dimensions", parse_index_list);
                Op::Reduce {
                    dimensions,
                    to_apply: comp!("to_apply"),
                }
            }
            O::ReduceWindow => {
                let window = req!("window", parse_window);
                Op::ReduceWindow {
                    window,
                    to_apply: comp!("to_apply"),
                }
            }
            O::SelectAndScatter => {
                let window = req!("window", parse_window);
                let select = comp!("select");
                Op::SelectAndScatter {
                    window,
                    select,
                    scatter: comp!("scatter"),
                }
            }
            O::Map => {
                let dimensions = opt!("dimensions", parse_index_list).unwrap_or_default();
                Op::Map {
                    dimensions,
                    to_apply: comp!("to_apply"),
                }
            }
            O::Dot => Op::Dot {
                dimension_numbers: DotDimensionNumbers {
                    lhs_batch_dimensions: opt!("lhs_batch_dims", parse_index_list)
                        .unwrap_or_default(),
                    rhs_batch_dimensions: opt!("rhs_batch_dims", parse_index_list)
                        .unwrap_or_default(),
                    lhs_contracting_dimensions: opt!("lhs_contracting_dims", parse_index_list)
                        .unwrap_or_default(),
                    rhs_contracting_dimensions: opt!("rhs_contracting_dims", parse_index_list)
                        .unwrap_or_default(),
                },
                precision: opt!("operand_precision", parse_precision_list).unwrap_or_default(),
                algorithm: opt!("algorithm", enum_value("an algorithm")),
            },
            O::Convolution => Op::Convolution {
                window: opt!("window", parse_window).unwrap_or_default(),
                dimension_numbers: req!("dim_labels", parse_dim_labels),
                feature_group_count: opt!("feature_group_count", |v| v.int()).unwrap_or(1),
                batch_group_count: opt!("batch_group_count", |v| v.int()).unwrap_or(1),
                precision: opt!("operand_precision", parse_precision_list).unwrap_or_default(),
            },
            O::Gather => Op::Gather {
                dimension_numbers: GatherDimensionNumbers {
                    offset_dims: req!("offset_dims", parse_index_list),
                    collapsed_slice_dims: req!("collapsed_slice_dims", parse_index_list),
                    start_index_map: req!("start_index_map", parse_index_list),
                    index_vector_dim: req!("index_vector_dim", |v| v.index()),
                    operand_batching_dims: opt!("operand_batching_dims", parse_index_list)
                        .unwrap_or_default(),
                    start_indices_batching_dims: opt!(
                        "start_indices_batching_dims",
                        parse_index_list
                    )
                    .unwrap_or_default(),
                },
                slice_sizes: req!("slice_sizes", parse_int_list),
                indices_are_sorted: opt!("indices_are_sorted", parse_bool).unwrap_or(false),
            },
            O::Scatter => {
                let dimension_numbers = ScatterDimensionNumbers {
                    update_window_dims: req!("update_window_dims", parse_index_list),
                    inserted_window_dims: req!("inserted_window_dims", parse_index_list),
                    scatter_dims_to_operand_dims: req!(
                        "scatter_dims_to_operand_dims",
                        parse_index_list
                    ),
                    index_vector_dim: req!("index_vector_dim", |v| v.index()),
                    input_batching_dims: opt!("input_batching_dims", parse_index_list)
                        .unwrap_or_default(),
                    scatter_indices_batching_dims: opt!(
                        "scatter_indices_batching_dims",
                        parse_index_list
                    )
                    .unwrap_or_default(),
                };
                Op::Scatter {
                    dimension_numbers,
                    indices_are_sorted: opt!("indices_are_sorted", parse_bool).unwrap_or(false),
                    unique_indices: opt!("unique_indices", parse_bool).unwrap_or(false),
                    to_apply: comp!("to_apply"),
                }
            }
            O::Sort => Op::Sort {
                dimension: req!("dimensions", one_dimension),
                is_stable: opt!("is_stable", parse_bool).unwrap_or(false),
                to_apply: comp!("to_apply"),
            },
            O::TopK => Op::TopK {
                k: req!("k", |v| v.int()),
                largest: opt!("largest", parse_bool).unwrap_or(true),
            },
            O::While => {
                let condition = comp!("condition");
                Op::While {
                    condition,
                    body: comp!("body"),
                }
            }
            O::Conditional => {
                let branch_computations = match attrs.take("branch_computations") {
                    Some(attr) => {
                        let mut v = cur.sub(attr.start, attr.end);
                        let list =
                            self.computation_list(&mut v, &format!("{instr_name}.branch"))?;
                        finish_value(&mut v, attr.name)?;
                        list
                    }
                    None => {
                        let t = comp!("true_computation");
                        vec![t, comp!("false_computation")]
                    }
                };
                Op::Conditional {
                    branch_computations,
                }
            }
            O::Call => Op::Call {
                to_apply: comp!("to_apply"),
            },
            O::Fusion => {
                let kind = parse_enum!("kind", crate::ir::FusionKind);
                Op::Fusion {
                    kind,
                    calls: comp!("calls"),
                }
            }
            O::RngBitGenerator => Op::RngBitGenerator {
                algorithm: parse_enum!("algorithm", crate::ir::RandomAlgorithm),
            },
            O::Rng => Op::Rng {
                distribution: parse_enum!("distribution", crate::ir::RandomDistribution),
            },
            O::Cholesky => Op::Cholesky {
                lower: opt!("lower", parse_bool).unwrap_or(false),
            },
            O::TriangularSolve => Op::TriangularSolve(TriangularSolveOptions {
                left_side: opt!("left_side", parse_bool).unwrap_or(false),
                lower: opt!("lower", parse_bool).unwrap_or(false),
                unit_diagonal: opt!("unit_diagonal", parse_bool).unwrap_or(false),
                transpose_a: match attrs.take("transpose_a") {
                    Some(attr) => {
                        let word = value(cur, attr, enum_value("transpose_a"))?;
                        word.parse().map_err(|_| {
                            src.error(attr.start, format!("unknown transpose_a `{word}`"))
                        })?
                    }
                    None => TriangularTranspose::NoTranspose,
                },
            }),
            O::Fft => Op::Fft {
                fft_type: parse_enum!("fft_type", crate::ir::FftType),
                fft_length: req!("fft_length", parse_int_list),
            },
            O::BatchNormTraining | O::BatchNormInference | O::BatchNormGrad => Op::BatchNorm {
                opcode,
                epsilon: req!("epsilon", |v| {
                    let lit = parse_literal(
                        v,
                        &crate::ir::Shape::scalar(crate::ir::PrimitiveType::F32),
                        &mut Vec::new(),
                    )?;
                    Ok(lit
                        .as_array()
                        .and_then(|a| a.values::<f32>())
                        .map_or(0.0, |x| x[0]))
                }),
                feature_index: req!("feature_index", |v| v.index()),
            },
            O::GetDimensionSize | O::SetDimensionSize => Op::DimensionSize {
                opcode,
                dimension: req!("dimensions", one_dimension),
            },
            O::CustomCall => Op::CustomCall(Box::new(
                self.custom_call(cur, attrs, opcode_pos, instr_name)?,
            )),
            O::Parameter | O::Constant => {
                unreachable!("parameter and constant are read with their operands")
            }
            _ if is_unmodeled(opcode) => {
                self.warnings.push(src.error(
                    opcode_pos,
                    format!("xlac does not model `{opcode}`; its attributes are kept verbatim"),
                ));
                let mut called = Vec::new();
                for &name in COMPUTATION_ATTRIBUTES {
                    let Some(attr) = attrs.take(name) else {
                        continue;
                    };
                    let braced = cur.slice(attr.start, attr.end).starts_with('{');
                    let computations = if braced {
                        let mut v = cur.sub(attr.start, attr.end);
                        let list =
                            self.computation_list(&mut v, &format!("{instr_name}.{name}"))?;
                        finish_value(&mut v, name)?;
                        list
                    } else {
                        vec![self.called(cur, attr, instr_name)?]
                    };
                    called.push(CalledComputations {
                        attribute: name.to_string(),
                        computations,
                        braced,
                    });
                }
                // Everything else stays raw (in `common_attributes`), silently: the warning
                // above covers it.
                Op::Unmodeled { opcode, called }
            }
            _ => Op::Plain(opcode),
        };
        Ok(op)
    }

    /// A single computation reference (`to_apply=%add` or inline `{...}`).
    fn called(
        &mut self,
        cur: &Cursor<'a>,
        attr: Attr<'a>,
        instr_name: &str,
    ) -> PResult<ComputationId> {
        let mut v = cur.sub(attr.start, attr.end);
        let base = if instr_name.is_empty() {
            "inline".to_string()
        } else {
            format!("{instr_name}.{}", attr.name)
        };
        let id = self.computation_ref(&mut v, &base)?;
        finish_value(&mut v, attr.name)?;
        Ok(id)
    }

    /// The attributes of a custom-call.
    fn custom_call(
        &mut self,
        cur: &Cursor<'a>,
        attrs: &mut Attrs<'a>,
        opcode_pos: usize,
        instr_name: &str,
    ) -> PResult<CustomCall> {
        let src = self.src;
        let target_attr = attrs.take("custom_call_target").ok_or_else(|| {
            src.error(
                opcode_pos,
                "`custom-call` needs the attribute `custom_call_target`",
            )
        })?;
        let mut cc = CustomCall::new(&value(cur, target_attr, |v| v.string())?);
        if let Some(attr) = attrs.take("api_version") {
            let word = value(cur, attr, |v| {
                v.expect_ident("an API version").map(str::to_string)
            })?;
            cc.api_version = Some(
                word.parse()
                    .map_err(|_| src.error(attr.start, format!("unknown api_version `{word}`")))?,
            );
        }
        if let Some(attr) = attrs.take("custom_call_has_side_effect") {
            cc.has_side_effect = value(cur, attr, parse_bool)?;
        }
        if let Some(attr) = attrs.take("called_computations") {
            let mut v = cur.sub(attr.start, attr.end);
            cc.called_computations =
                self.computation_list(&mut v, &format!("{instr_name}.called"))?;
            finish_value(&mut v, attr.name)?;
        } else if let Some(attr) = attrs.take("to_apply") {
            cc.called_computations = vec![self.called(cur, attr, instr_name)?];
        }
        if let Some(attr) = attrs.take("operand_layout_constraints") {
            cc.operand_layout_constraints = Some(value(cur, attr, parse_shape_list)?);
        }
        if let Some(attr) = attrs.take("output_to_operand_aliasing") {
            cc.output_to_operand_aliasing = value(cur, attr, parse_output_operand_aliasing)?;
        }
        if let Some(attr) = attrs.take("window") {
            cc.window = Some(value(cur, attr, parse_window)?);
        }
        if let Some(attr) = attrs.take("dim_labels") {
            cc.dimension_numbers = Some(value(cur, attr, parse_dim_labels)?);
        }
        if let Some(attr) = attrs.take("feature_group_count") {
            cc.feature_group_count = Some(value(cur, attr, |v| v.int())?);
        }
        if let Some(attr) = attrs.take("batch_group_count") {
            cc.batch_group_count = Some(value(cur, attr, |v| v.int())?);
        }
        if let Some(attr) = attrs.take("operand_precision") {
            cc.precision = value(cur, attr, parse_precision_list)?;
        }
        if let Some(attr) = attrs.take("schedule") {
            cc.schedule = Some(value(cur, attr, |v| {
                v.expect_ident("a schedule").map(str::to_string)
            })?);
        }
        if let Some(attr) = attrs.take("literal") {
            let mut warnings = Vec::new();
            cc.literal = Some(value(cur, attr, |v| {
                let shape = parse_shape(v)?;
                parse_literal(v, &shape, &mut warnings)
            })?);
            self.warnings.extend(warnings);
        }
        Ok(cc)
    }

    /// `metadata`, `backend_config`, `control-predecessors`, and the rest as raw attributes.
    pub(super) fn common_attributes(
        &mut self,
        cur: &Cursor<'a>,
        b: &Body,
        instr: &mut Instruction,
        attrs: &mut Attrs<'a>,
    ) -> PResult<()> {
        if let Some(attr) = attrs.take("metadata") {
            instr.metadata = Some(value(cur, attr, parse_metadata)?);
        }
        if let Some(attr) = attrs.take("backend_config") {
            let text = cur.slice(attr.start, attr.end);
            instr.backend_config = Some(if text.starts_with('"') || text.starts_with('\'') {
                BackendConfig::Quoted(value(cur, attr, |v| v.string())?)
            } else {
                BackendConfig::Json(text.to_string())
            });
        }
        if let Some(attr) = attrs.take("sharding") {
            let text = cur.slice(attr.start, attr.end);
            instr.sharding = Some(
                crate::ir::HloSharding::parse(text)
                    .map_err(|e| self.src.error(attr.pos, format!("bad sharding: {e}")))?,
            );
        }
        if let Some(attr) = attrs.take("control-predecessors") {
            let mut v = cur.sub(attr.start, attr.end);
            instr.control_predecessors = self.instruction_list(&mut v, b)?;
            finish_value(&mut v, attr.name)?;
        }
        let unmodeled = matches!(instr.op, Op::Unmodeled { .. });
        for attr in attrs.rest() {
            if !unmodeled && !KNOWN_RAW_ATTRIBUTES.contains(&attr.name) {
                self.warnings.push(self.src.error(
                    attr.pos,
                    format!(
                        "attribute `{}` is not used by `{}`; kept verbatim",
                        attr.name,
                        instr.opcode()
                    ),
                ));
            }
            instr.raw_attributes.push(RawAttribute {
                name: attr.name.to_string(),
                value: cur.slice(attr.start, attr.end).to_string(),
            });
        }
        Ok(())
    }
}

/// A small non-negative count such as `exponent_bits=8`.
fn small_u32(v: &mut Cursor<'_>) -> PResult<u32> {
    v.skip_ws();
    let at = v.pos;
    let n = v.int()?;
    u32::try_from(n).map_err(|_| {
        v.src.error(
            at,
            format!("expected a small non-negative integer, found {n}"),
        )
    })
}
