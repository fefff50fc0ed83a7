//! The one HLO text printer, in XLA's current long style: `%` names, layouts on result
//! shapes, operands without shapes, every attribute, `metadata={...}`, `backend_config=...`,
//! and every constant in full (never `{...}`), so XLA's own parser accepts the output.
//! XLA: `HloModule::Print`, `HloComputation::Print`, `HloInstruction::PrintWithCanonicalNameMap`
//! and the `PrintExtraAttributesImpl` of `xla/hlo/ir/hlo_instructions.cc`.

use std::fmt::Write;

use super::attributes::*;
use super::literal::{format_f32, write_literal};
use super::shapes::{shape_string, write_shape};
use crate::ir::{
    BackendConfig, Computation, Instruction, Module, Op, RawAttribute, StackFrameIndex,
};

/// Module-level raw attributes XLA prints before `entry_computation_layout`.
const BEFORE_LAYOUT: &[&str] = &["alias_passthrough_params"];

/// Prints a whole module.
pub(super) fn print_module(module: &Module) -> String {
    let mut out = String::new();
    write_header(&mut out, module);
    out.push('\n');
    if let Some(frames) = &module.stack_frames {
        write_stack_frames(&mut out, frames);
    }
    // Every computation is followed by a blank line, as in XLA's dumps.
    for &id in &module.order {
        write_computation(
            &mut out,
            module,
            &module.computations[id],
            id == module.entry,
        );
    }
    out
}

/// `HloModule name, is_scheduled=true, input_output_alias=..., entry_computation_layout=...`.
fn write_header(out: &mut String, module: &Module) {
    let config = &module.config;
    let _ = write!(out, "HloModule {}", module.name);
    let raw = |out: &mut String, a: &RawAttribute| {
        let _ = write!(out, ", {}={}", a.name, a.value);
    };
    if config.is_scheduled {
        out.push_str(", is_scheduled=true");
    }
    if !config.input_output_alias.is_empty() {
        let _ = write!(
            out,
            ", input_output_alias={}",
            input_output_alias_string(&config.input_output_alias)
        );
    }
    if !config.buffer_donor.is_empty() {
        let _ = write!(
            out,
            ", buffer_donor={}",
            buffer_donor_string(&config.buffer_donor)
        );
    }
    for a in config
        .raw_attributes
        .iter()
        .filter(|a| BEFORE_LAYOUT.contains(&a.name.as_str()))
    {
        raw(out, a);
    }
    if let Some(layout) = &config.entry_computation_layout {
        let _ = write!(
            out,
            ", entry_computation_layout={}",
            program_shape_string(layout)
        );
    }
    let after = |a: &&RawAttribute| {
        !BEFORE_LAYOUT.contains(&a.name.as_str()) && a.name != "frontend_attributes"
    };
    for a in config.raw_attributes.iter().filter(after) {
        raw(out, a);
    }
    if let Some(n) = config.replica_count {
        let _ = write!(out, ", replica_count={n}");
    }
    if let Some(n) = config.num_partitions {
        let _ = write!(out, ", num_partitions={n}");
    }
    for a in config
        .raw_attributes
        .iter()
        .filter(|a| a.name == "frontend_attributes")
    {
        raw(out, a);
    }
    out.push('\n');
}

/// The four stack-frame tables, each followed by a blank line.
fn write_stack_frames(out: &mut String, frames: &StackFrameIndex) {
    out.push_str("FileNames\n");
    for (i, name) in frames.file_names.iter().enumerate() {
        let _ = writeln!(out, "{} {}", i + 1, quote(name));
    }
    out.push_str("\nFunctionNames\n");
    for (i, name) in frames.function_names.iter().enumerate() {
        let _ = writeln!(out, "{} {}", i + 1, quote(name));
    }
    out.push_str("\nFileLocations\n");
    for (i, l) in frames.file_locations.iter().enumerate() {
        let _ = writeln!(
            out,
            "{} {{file_name_id={} function_name_id={} line={} end_line={} column={} end_column={}}}",
            i + 1,
            l.file_name_id,
            l.function_name_id,
            l.line,
            l.end_line,
            l.column,
            l.end_column
        );
    }
    out.push_str("\nStackFrames\n");
    for (i, f) in frames.stack_frames.iter().enumerate() {
        let _ = writeln!(
            out,
            "{} {{file_location_id={} parent_frame_id={}}}",
            i + 1,
            f.file_location_id,
            f.parent_frame_id
        );
    }
    out.push_str("\n\n");
}

/// `[ENTRY ]%name (p: shape, ...) -> shape {` ... `}`.
fn write_computation(out: &mut String, module: &Module, comp: &Computation, is_entry: bool) {
    if is_entry {
        out.push_str("ENTRY ");
    }
    let _ = write!(out, "%{} (", comp.name);
    for (i, &p) in comp.parameters().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let param = comp.instr(p);
        let _ = write!(out, "{}: {}", param.name, shape_string(&param.shape, false));
    }
    let _ = writeln!(
        out,
        ") -> {} {{",
        shape_string(&comp.root_instr().shape, false)
    );
    for (id, instr) in comp.iter() {
        out.push_str("  ");
        if id == comp.root {
            out.push_str("ROOT ");
        }
        write_instruction(out, module, comp, instr);
        out.push('\n');
    }
    out.push('}');
    if let Some(thread) = &comp.execution_thread {
        let _ = write!(out, ", execution_thread={}", quote(thread));
    }
    out.push_str("\n\n");
}

/// `%name = shape opcode(operands), attributes`.
pub(super) fn write_instruction(
    out: &mut String,
    module: &Module,
    comp: &Computation,
    instr: &Instruction,
) {
    let _ = write!(out, "%{} = ", instr.name);
    write_shape(out, &instr.shape, true);
    let _ = write!(out, " {}(", instr.opcode());
    match &instr.op {
        Op::Parameter { number } => {
            let _ = write!(out, "{number}");
        }
        Op::Constant { literal } => write_literal(out, literal, false, true),
        _ => {
            for (i, &o) in instr.operands.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                    // XLA marks every fifth operand of long operand lists.
                    if i % 5 == 0 {
                        let _ = write!(out, "/*index={i}*/");
                    }
                }
                let _ = write!(out, "%{}", comp.instr(o).name);
            }
        }
    }
    out.push(')');
    let mut attrs = Vec::new();
    match &instr.op {
        // A `pred[]` selector prints its two branches by name, as XLA does.
        Op::Conditional {
            branch_computations: b,
        } if b.len() == 2
            && instr
                .operands
                .first()
                .and_then(|&s| comp.instr(s).shape.element_type())
                == Some(crate::ir::PrimitiveType::Pred) =>
        {
            attrs.push(format!(
                "true_computation=%{}",
                module.computations[b[0]].name
            ));
            attrs.push(format!(
                "false_computation=%{}",
                module.computations[b[1]].name
            ));
        }
        op => op_attributes(&mut attrs, module, op),
    }
    // XLA's order: op attributes, called computations (above), sharding,
    // control-predecessors, other attributes, metadata, backend_config.
    let raw = |a: &RawAttribute| format!("{}={}", a.name, a.value);
    if let Some(s) = &instr.sharding {
        attrs.push(format!("sharding={s}"));
    }
    if !instr.control_predecessors.is_empty() {
        let names: Vec<String> = instr
            .control_predecessors
            .iter()
            .map(|&p| format!("%{}", comp.instr(p).name))
            .collect();
        attrs.push(format!("control-predecessors={{{}}}", names.join(", ")));
    }
    attrs.extend(instr.raw_attributes.iter().map(raw));
    if let Some(m) = &instr.metadata {
        attrs.push(format!("metadata={}", metadata_string(m)));
    }
    match &instr.backend_config {
        Some(BackendConfig::Json(text)) => attrs.push(format!("backend_config={text}")),
        Some(BackendConfig::Quoted(text)) => attrs.push(format!("backend_config={}", quote(text))),
        None => {}
    }
    for a in attrs {
        out.push_str(", ");
        out.push_str(&a);
    }
}

/// The typed attributes of an op, in XLA's order.
fn op_attributes(attrs: &mut Vec<String>, module: &Module, op: &Op) {
    let comp = |id| format!("%{}", module.computations[id].name);
    let comps = |ids: &[crate::ir::ComputationId]| {
        format!(
            "{{{}}}",
            ids.iter().map(|&c| comp(c)).collect::<Vec<_>>().join(", ")
        )
    };
    let mut push = |s: String| attrs.push(s);
    match op {
        Op::Plain(_) | Op::Parameter { .. } | Op::Constant { .. } => {}
        Op::Iota { dimension } => push(format!("iota_dimension={dimension}")),
        Op::Broadcast { dimensions }
        | Op::Transpose { dimensions }
        | Op::Reverse { dimensions } => push(format!("dimensions={}", list_string(dimensions))),
        Op::Concatenate { dimension } => push(format!("dimensions={{{dimension}}}")),
        Op::Slice { slice } => push(format!("slice={}", slice_string(slice))),
        Op::DynamicSlice { sizes } => push(format!("dynamic_slice_sizes={}", list_string(sizes))),
        Op::Pad { padding } => push(format!("padding={}", padding_string(padding))),
        Op::Compare {
            direction,
            comparison_type,
        } => {
            push(format!("direction={direction}"));
            if let Some(t) = comparison_type {
                push(format!("type={t}"));
            }
        }
        Op::GetTupleElement { index } => push(format!("index={index}")),
        Op::ReducePrecision {
            exponent_bits,
            mantissa_bits,
        } => {
            push(format!("exponent_bits={exponent_bits}"));
            push(format!("mantissa_bits={mantissa_bits}"));
        }
        Op::Reduce {
            dimensions,
            to_apply,
        } => {
            push(format!("dimensions={}", list_string(dimensions)));
            push(format!("to_apply={}", comp(*to_apply)));
        }
        Op::ReduceWindow { window, to_apply } => {
            push(format!("window={}", window_string(window)));
            push(format!("to_apply={}", comp(*to_apply)));
        }
        Op::SelectAndScatter {
            window,
            select,
            scatter,
        } => {
            push(format!("window={}", window_string(window)));
            push(format!("select={}", comp(*select)));
            push(format!("scatter={}", comp(*scatter)));
        }
        Op::Map {
            dimensions,
            to_apply,
        } => {
            push(format!("dimensions={}", list_string(dimensions)));
            push(format!("to_apply={}", comp(*to_apply)));
        }
        Op::Dot {
            dimension_numbers: d,
            precision,
            algorithm,
        } => {
            let lists = [
                ("lhs_batch_dims", &d.lhs_batch_dimensions),
                ("lhs_contracting_dims", &d.lhs_contracting_dimensions),
                ("rhs_batch_dims", &d.rhs_batch_dimensions),
                ("rhs_contracting_dims", &d.rhs_contracting_dimensions),
            ];
            for (name, dims) in lists {
                if !dims.is_empty() {
                    push(format!("{name}={}", list_string(dims)));
                }
            }
            if !precision.is_empty() {
                push(format!("operand_precision={}", list_string(precision)));
            }
            if let Some(a) = algorithm {
                push(format!("algorithm={a}"));
            }
        }
        Op::Convolution {
            window,
            dimension_numbers,
            feature_group_count,
            batch_group_count,
            precision,
        } => {
            if !window.dimensions.is_empty() {
                push(format!("window={}", window_string(window)));
            }
            push(format!(
                "dim_labels={}",
                dim_labels_string(dimension_numbers)
            ));
            if *feature_group_count != 1 {
                push(format!("feature_group_count={feature_group_count}"));
            }
            if *batch_group_count != 1 {
                push(format!("batch_group_count={batch_group_count}"));
            }
            if !precision.is_empty() {
                push(format!("operand_precision={}", list_string(precision)));
            }
        }
        Op::Gather {
            dimension_numbers: d,
            slice_sizes,
            indices_are_sorted,
        } => {
            push(list_attr("offset_dims", &d.offset_dims));
            push(list_attr("collapsed_slice_dims", &d.collapsed_slice_dims));
            push(list_attr("start_index_map", &d.start_index_map));
            let batching = [
                ("operand_batching_dims", &d.operand_batching_dims),
                (
                    "start_indices_batching_dims",
                    &d.start_indices_batching_dims,
                ),
            ];
            for (name, dims) in batching.into_iter().filter(|(_, dims)| !dims.is_empty()) {
                push(list_attr(name, dims));
            }
            push(format!("index_vector_dim={}", d.index_vector_dim));
            push(format!("slice_sizes={}", list_string(slice_sizes)));
            if *indices_are_sorted {
                push("indices_are_sorted=true".into());
            }
        }
        Op::Scatter {
            dimension_numbers: d,
            to_apply,
            indices_are_sorted,
            unique_indices,
        } => {
            push(list_attr("update_window_dims", &d.update_window_dims));
            push(list_attr("inserted_window_dims", &d.inserted_window_dims));
            push(list_attr(
                "scatter_dims_to_operand_dims",
                &d.scatter_dims_to_operand_dims,
            ));
            let batching = [
                ("input_batching_dims", &d.input_batching_dims),
                (
                    "scatter_indices_batching_dims",
                    &d.scatter_indices_batching_dims,
                ),
            ];
            for (name, dims) in batching.into_iter().filter(|(_, dims)| !dims.is_empty()) {
                push(list_attr(name, dims));
            }
            push(format!("index_vector_dim={}", d.index_vector_dim));
            if *indices_are_sorted {
                push("indices_are_sorted=true".into());
            }
            if *unique_indices {
                push("unique_indices=true".into());
            }
            push(format!("to_apply={}", comp(*to_apply)));
        }
        Op::Sort {
            dimension,
            is_stable,
            to_apply,
        } => {
            push(format!("dimensions={{{dimension}}}"));
            if *is_stable {
                push("is_stable=true".into());
            }
            push(format!("to_apply={}", comp(*to_apply)));
        }
        Op::TopK { k, largest } => {
            push(format!("k={k}"));
            push(format!("largest={largest}"));
        }
        Op::While { condition, body } => {
            push(format!("condition={}", comp(*condition)));
            push(format!("body={}", comp(*body)));
        }
        Op::Conditional {
            branch_computations,
        } => push(format!(
            "branch_computations={}",
            comps(branch_computations)
        )),
        Op::Call { to_apply } => push(format!("to_apply={}", comp(*to_apply))),
        Op::Fusion { kind, calls } => {
            push(format!("kind={kind}"));
            push(format!("calls={}", comp(*calls)));
        }
        Op::RngBitGenerator { algorithm } => push(format!("algorithm={algorithm}")),
        Op::Rng { distribution } => push(format!("distribution={distribution}")),
        Op::Cholesky { lower } => {
            if *lower {
                push("lower=true".into());
            }
        }
        Op::TriangularSolve(o) => {
            if o.left_side {
                push("left_side=true".into());
            }
            if o.lower {
                push("lower=true".into());
            }
            if o.unit_diagonal {
                push("unit_diagonal=true".into());
            }
            push(format!("transpose_a={}", o.transpose_a));
        }
        Op::Fft {
            fft_type,
            fft_length,
        } => {
            push(format!("fft_type={fft_type}"));
            push(format!("fft_length={}", list_string(fft_length)));
        }
        Op::BatchNorm {
            epsilon,
            feature_index,
            ..
        } => {
            push(format!("epsilon={}", format_f32(*epsilon)));
            push(format!("feature_index={feature_index}"));
        }
        Op::DimensionSize { dimension, .. } => push(format!("dimensions={{{dimension}}}")),
        Op::CustomCall(cc) => {
            push(format!("custom_call_target={}", quote(&cc.target)));
            if let Some(w) = &cc.window {
                push(format!("window={}", window_string(w)));
            }
            if let Some(d) = &cc.dimension_numbers {
                push(format!("dim_labels={}", dim_labels_string(d)));
            }
            if let Some(n) = cc.feature_group_count {
                push(format!("feature_group_count={n}"));
            }
            if let Some(n) = cc.batch_group_count {
                push(format!("batch_group_count={n}"));
            }
            if !cc.precision.is_empty() {
                push(format!("operand_precision={}", list_string(&cc.precision)));
            }
            if !cc.called_computations.is_empty() {
                push(format!(
                    "called_computations={}",
                    comps(&cc.called_computations)
                ));
            }
            if cc.has_side_effect {
                push("custom_call_has_side_effect=true".into());
            }
            if let Some(lit) = &cc.literal {
                let mut s = String::from("literal=");
                write_literal(&mut s, lit, true, true);
                push(s);
            }
            if let Some(shapes) = &cc.operand_layout_constraints {
                let shapes: Vec<String> = shapes.iter().map(|s| shape_string(s, true)).collect();
                push(format!(
                    "operand_layout_constraints={{{}}}",
                    shapes.join(", ")
                ));
            }
            if !cc.output_to_operand_aliasing.is_empty() {
                push(format!(
                    "output_to_operand_aliasing={}",
                    output_operand_aliasing_string(&cc.output_to_operand_aliasing)
                ));
            }
            if let Some(s) = &cc.schedule {
                push(format!("schedule={s}"));
            }
            if let Some(v) = cc.api_version {
                push(format!("api_version={v}"));
            }
        }
        Op::Unmodeled { called, .. } => {
            for c in called {
                if c.braced {
                    push(format!("{}={}", c.attribute, comps(&c.computations)));
                } else {
                    for &id in &c.computations {
                        push(format!("{}={}", c.attribute, comp(id)));
                    }
                }
            }
        }
    }
}

/// `name={a,b,...}`.
fn list_attr<T: std::fmt::Display>(name: &str, v: &[T]) -> String {
    format!("{name}={}", list_string(v))
}
