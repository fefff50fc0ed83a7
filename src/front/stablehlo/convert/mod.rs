//! StableHLO (the parsed AST) to the HLO IR, as XLA's `ConvertStablehloToHlo` /
//! `MlirToHlo` translation does it: each `func.func` becomes a computation, each region a
//! called computation (reducers, comparators, while condition and body, branches), each op
//! one or a few HLO instructions with typed attributes.
//!
//! Values: an SSA name maps to one instruction per result (multi-result ops produce a tuple
//! and `get-tuple-element`s). Regions of `while`/`if`/`case` may use values defined outside
//! them; such a value is *captured*: it travels in the loop state (while) or in the branch
//! operand (if/case), exactly like JAX's own lowering threads them. Captured constants are
//! simply copied into the region. Other regions (reducers, comparators) must not capture.
//!
//! Files: `mod.rs` (scopes, functions, regions, checks), `basic.rs` (element-wise and data
//! movement ops), `regions.rs` (ops with regions), `misc.rs` (calls, custom calls, check and
//! interpreter ops, collectives, CHLO), `quant.rs` (ops on `!quant.uniform` types, lowered
//! to their storage integers), `attrs.rs` (reading attributes).
//! XLA: `xla/hlo/translate/mhlo_to_hlo/mlir_hlo_to_hlo.cc`.

mod arity;
mod attrs;
mod basic;
mod donation;
mod metadata;
mod misc;
mod quant;
mod regions;
mod scan;
mod sharding;

use std::collections::{HashMap, HashSet};

use super::ast::{Function, MlirModule, Operation, Region, ValueRef};
use super::lexer::Loc;
use super::types::Type;
use crate::front::hlo_text::ParseError;
use crate::ir::shape_inference::infer_shape;
use crate::ir::{
    Computation, ComputationId, InstrId, Instruction, Metadata, Module, Op, Opcode, Shape, Span,
};

/// A converted SSA value: its instruction and its MLIR type.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    /// The instruction (in the computation of the scope that owns the value).
    pub id: InstrId,
    /// The MLIR type (keeps quantization parameters the HLO shape drops).
    pub ty: Type,
}

/// How a region's computation receives values from outside.
enum Capture {
    /// Not allowed (functions, reducers, comparators); the string names the op.
    Forbidden(String),
    /// As elements of the tuple parameter `param`, after the first `base` elements.
    TupleElems {
        /// The tuple parameter.
        param: InstrId,
        /// Number of elements before the captured ones (the block arguments).
        base: usize,
        /// Outer values captured so far, in element order.
        outer: Vec<Val>,
    },
}

/// One level of name scoping: a function body or a region.
struct Scope {
    comp: ComputationId,
    values: HashMap<String, Vec<Val>>,
    capture: Capture,
}

/// The converter state.
pub(crate) struct Converter<'a> {
    pub module: Module,
    file: &'a str,
    /// Function name to its computation and AST.
    functions: HashMap<String, (ComputationId, &'a Function)>,
    scopes: Vec<Scope>,
    /// Suffix counter for instruction and computation names.
    counter: usize,
    comp_names: HashSet<String>,
    /// The module's `sdy.mesh`es.
    meshes: Vec<crate::ir::sharding::SdyMesh>,
    /// The stack-frame tables the instructions' metadata points into.
    frames: metadata::FrameTable,
    /// The metadata of the op being converted: every instruction it makes carries it.
    metadata: Option<Metadata>,
    /// An error was already given the source location of the op that failed.
    error_located: bool,
}

/// Converts a parsed module; `entry` names the entry function (without `@`).
pub fn convert_module(ast: &MlirModule, entry: &str, file: &str) -> Result<Module, ParseError> {
    let Some(entry_fn) = ast.functions.iter().find(|f| f.name == entry) else {
        return Err(ParseError {
            kind: crate::ir::ErrorKind::Invalid,
            file: file.into(),
            line: ast.loc.line,
            col: ast.loc.col,
            message: format!("there is no function @{entry}"),
        });
    };
    let name = ast.name.clone().unwrap_or_else(|| entry.to_string());
    let module = Module::new(name, Computation::new(entry_fn.name.clone()));
    let mut conv = Converter {
        module,
        file,
        functions: HashMap::new(),
        scopes: Vec::new(),
        counter: 0,
        comp_names: HashSet::new(),
        meshes: Vec::new(),
        frames: metadata::FrameTable::default(),
        metadata: None,
        error_located: false,
    };
    conv.set_meshes(&ast.meshes, ast.loc)?;
    for (k, v) in &ast.attributes {
        match (k.as_str(), v) {
            ("mhlo.num_partitions", super::attributes::Attr::Int(n)) => {
                conv.module.config.num_partitions = Some(*n as i64)
            }
            ("mhlo.num_replicas", super::attributes::Attr::Int(n)) => {
                conv.module.config.replica_count = Some(*n as i64)
            }
            _ => {}
        }
    }
    conv.comp_names.insert(entry_fn.name.clone());
    let entry_id = conv.module.entry;
    for f in &ast.functions {
        if conv.functions.contains_key(&f.name) {
            return Err(conv.err(f.loc, format!("function @{} is defined twice", f.name)));
        }
        let id = if f.name == entry {
            entry_id
        } else {
            let name = conv.unique_comp_name(&f.name);
            conv.module.add_computation(Computation::new(name))
        };
        conv.functions.insert(f.name.clone(), (id, f));
    }
    for f in &ast.functions {
        let id = conv.functions[&f.name].0;
        conv.convert_function(f, id)?;
    }
    conv.set_donation(entry_fn)?;
    conv.finish();
    conv.module.stack_frames = std::mem::take(&mut conv.frames).finish();
    Ok(conv.module)
}

impl<'a> Converter<'a> {
    /// A located error.
    pub(crate) fn err(&self, loc: Loc, message: impl Into<String>) -> ParseError {
        ParseError {
            kind: crate::ir::ErrorKind::Invalid,
            file: self.file.to_string(),
            line: loc.line,
            col: loc.col,
            message: message.into(),
        }
    }

    /// A helper's refusal (CHLO decompositions, dense literals) at `loc`, its kind kept.
    pub(crate) fn refused(&self, loc: Loc, refusal: crate::ir::Refusal) -> ParseError {
        ParseError {
            kind: refusal.kind,
            ..self.err(loc, refusal.message)
        }
    }

    /// A computation name not used yet.
    fn unique_comp_name(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        while self.comp_names.contains(&name) {
            self.counter += 1;
            name = format!("{base}.{}", self.counter);
        }
        self.comp_names.insert(name.clone());
        name
    }

    /// A fresh computation for a region, added to the module.
    pub(crate) fn new_computation(&mut self, base: &str) -> ComputationId {
        self.counter += 1;
        let name = self.unique_comp_name(&format!("{base}.{}", self.counter));
        self.module.add_computation(Computation::new(name))
    }

    /// The computation being filled.
    pub(crate) fn comp(&self) -> ComputationId {
        self.scopes
            .last()
            .map(|s| s.comp)
            .unwrap_or(self.module.entry)
    }

    /// Adds an instruction to the current computation.
    pub(crate) fn add(
        &mut self,
        shape: Shape,
        op: Op,
        operands: Vec<InstrId>,
        loc: Loc,
    ) -> InstrId {
        let comp = self.comp();
        self.add_to(comp, shape, op, operands, loc)
    }

    /// Adds an instruction to computation `comp`.
    pub(crate) fn add_to(
        &mut self,
        comp: ComputationId,
        shape: Shape,
        op: Op,
        operands: Vec<InstrId>,
        loc: Loc,
    ) -> InstrId {
        self.counter += 1;
        let name = match &op {
            Op::Parameter { number } => format!("Arg_{number}.{}", self.counter),
            _ => format!("{}.{}", op.opcode().name(), self.counter),
        };
        // Parameters are named, not located (XLA gives them only an `op_name`).
        let metadata = match &op {
            Op::Parameter { .. } => self.metadata.as_ref().and_then(|m| {
                let name = m.op_name.as_deref()?.rsplit('/').next()?;
                Some(Metadata {
                    op_name: Some(name.to_string()),
                    ..Metadata::default()
                })
            }),
            _ => self.metadata.clone(),
        };
        let c = &mut self.module.computations[comp];
        let mut instr = Instruction::new(name, shape, op, operands);
        instr.metadata = metadata;
        let id = c.push(instr);
        c.spans[id] = Span {
            line: loc.line,
            col: loc.col,
        };
        id
    }

    /// The shape of an instruction of the current computation.
    pub(crate) fn shape(&self, id: InstrId) -> &Shape {
        &self.module.computations[self.comp()].instrs[id].shape
    }

    /// `get-tuple-element(t), index=i` in the current computation.
    pub(crate) fn gte(&mut self, tuple: InstrId, index: usize, loc: Loc) -> InstrId {
        let shape = self
            .shape(tuple)
            .tuple_elements()
            .and_then(|e| e.get(index))
            .cloned()
            .unwrap_or(Shape::Tuple(vec![]));
        self.add(shape, Op::GetTupleElement { index }, vec![tuple], loc)
    }

    /// `tuple(xs...)` in the current computation.
    pub(crate) fn tuple(&mut self, elems: &[InstrId], loc: Loc) -> InstrId {
        let shape = Shape::Tuple(elems.iter().map(|&e| self.shape(e).clone()).collect());
        self.add(shape, Op::Plain(Opcode::Tuple), elems.to_vec(), loc)
    }

    /// Defines the results of `op` in the current scope.
    pub(crate) fn define(&mut self, op: &Operation, ids: Vec<InstrId>) -> Result<(), ParseError> {
        if ids.len() != op.result_types.len() {
            return Err(self.err(
                op.loc,
                format!(
                    "internal: '{}' produced {} results, expected {}",
                    op.name,
                    ids.len(),
                    op.result_types.len()
                ),
            ));
        }
        let mut vals = ids
            .into_iter()
            .zip(op.result_types.iter().cloned())
            .map(|(id, ty)| Val { id, ty });
        for group in &op.results {
            let vs: Vec<Val> = vals.by_ref().take(group.count).collect();
            self.bind(&group.name, vs);
        }
        Ok(())
    }

    /// Binds a name in the innermost scope.
    pub(crate) fn bind(&mut self, name: &str, vals: Vec<Val>) {
        if let Some(s) = self.scopes.last_mut() {
            s.values.insert(name.to_string(), vals);
        }
    }

    /// The value a use refers to, capturing it from an enclosing scope if needed.
    pub(crate) fn lookup(&mut self, r: &ValueRef) -> Result<Val, ParseError> {
        let level = self.scopes.len().saturating_sub(1);
        let vals = self.lookup_at(level, &r.name, r.loc)?;
        let n = vals.len();
        vals.into_iter().nth(r.index).ok_or_else(|| {
            self.err(
                r.loc,
                format!(
                    "%{}#{} does not exist: %{} has {n} result(s)",
                    r.name, r.index, r.name
                ),
            )
        })
    }

    fn lookup_at(&mut self, level: usize, name: &str, loc: Loc) -> Result<Vec<Val>, ParseError> {
        if let Some(v) = self.scopes.get(level).and_then(|s| s.values.get(name)) {
            return Ok(v.clone());
        }
        let undefined = || format!("undefined value %{name}");
        if level == 0 {
            return Err(self.err(loc, undefined()));
        }
        let outer = match self.lookup_at(level - 1, name, loc) {
            Ok(v) => v,
            Err(_) => return Err(self.err(loc, undefined())),
        };
        let mut local = Vec::new();
        for v in outer {
            local.push(self.capture(level, v, name, loc)?);
        }
        self.scopes[level]
            .values
            .insert(name.to_string(), local.clone());
        Ok(local)
    }

    /// Makes outer value `v` (of scope `level - 1`) available in scope `level`.
    fn capture(&mut self, level: usize, v: Val, name: &str, loc: Loc) -> Result<Val, ParseError> {
        let outer_comp = self.scopes[level - 1].comp;
        let comp = self.scopes[level].comp;
        // Constants are copied, whatever the region.
        let outer_instr = &self.module.computations[outer_comp].instrs[v.id];
        if let Op::Constant { .. } = outer_instr.op {
            let (shape, op) = (outer_instr.shape.clone(), outer_instr.op.clone());
            let id = self.add_to(comp, shape, op, vec![], loc);
            return Ok(Val { id, ty: v.ty });
        }
        let (param, index) = match &mut self.scopes[level].capture {
            Capture::Forbidden(op) => {
                let op = op.clone();
                return Err(self.err(loc, format!("the region of '{op}' uses %{name}, defined outside it; only while, if and case regions may do that")));
            }
            Capture::TupleElems { param, base, outer } => {
                let k = match outer.iter().position(|o| o.id == v.id) {
                    Some(k) => k,
                    None => {
                        outer.push(v.clone());
                        outer.len() - 1
                    }
                };
                (*param, *base + k)
            }
        };
        let shape = v.ty.to_shape();
        let id = self.add_to(comp, shape, Op::GetTupleElement { index }, vec![param], loc);
        Ok(Val { id, ty: v.ty })
    }

    /// Converts a function body into computation `id`.
    fn convert_function(&mut self, f: &'a Function, id: ComputationId) -> Result<(), ParseError> {
        self.scopes.push(Scope {
            comp: id,
            values: HashMap::new(),
            capture: Capture::Forbidden(format!("func.func @{}", f.name)),
        });
        for (i, (name, ty)) in f.arguments.iter().enumerate() {
            self.metadata = f
                .argument_locations
                .get(i)
                .and_then(|l| metadata::parameter_metadata(l));
            let p = self.add(ty.to_shape(), Op::Parameter { number: i }, vec![], f.loc);
            self.metadata = None;
            if let Some(attrs) = f.argument_attributes.get(i) {
                let s = self.sharding_attr(attrs, f.loc)?;
                self.module.computations[id].instrs[p].sharding = s;
            }
            self.bind(
                name,
                vec![Val {
                    id: p,
                    ty: ty.clone(),
                }],
            );
        }
        let result = self.convert_block_ops(&f.body, f.loc).and_then(|ret| {
            if ret.len() != f.results.len() {
                return Err(self.err(f.loc, format!("@{} returns {} values but declares {}", f.name, ret.len(), f.results.len())));
            }
            for (i, (v, t)) in ret.iter().zip(&f.results).enumerate() {
                if !v.ty.to_shape().compatible(&t.to_shape()) {
                    return Err(self.err(f.loc, format!("type mismatch: @{} result #{i} is declared {t} but the returned value is {}", f.name, v.ty)));
                }
            }
            // Annotated results: a sharding constraint on each returned value.
            let mut ret = ret;
            for (i, v) in ret.iter_mut().enumerate() {
                if let Some(s) = f
                    .result_attributes
                    .get(i)
                    .map(|a| self.sharding_attr(a, f.loc))
                    .transpose()?
                    .flatten()
                {
                    let shape = self.shape(v.id).clone();
                    v.id = self.sharding_call("Sharding", v.id, shape, s, f.loc);
                }
            }
            let root = self.root_of(&ret, f.loc);
            self.module.computations[id].root = root;
            Ok(())
        });
        self.scopes.pop();
        result
    }

    /// The root for returned values: the value itself, or a tuple of them.
    fn root_of(&mut self, ret: &[Val], loc: Loc) -> InstrId {
        if ret.len() == 1 {
            ret[0].id
        } else {
            // A return is not an op of its own: its tuple carries no metadata.
            let saved = self.metadata.take();
            let ids: Vec<InstrId> = ret.iter().map(|v| v.id).collect();
            let t = self.tuple(&ids, loc);
            self.metadata = saved;
            t
        }
    }

    /// Converts the operations of a region's single block; returns the terminator's operands.
    fn convert_block_ops(&mut self, region: &'a Region, loc: Loc) -> Result<Vec<Val>, ParseError> {
        let Some(block) = region.blocks.first() else {
            return Err(self.err(loc, "empty region"));
        };
        let Some((last, body)) = block.operations.split_last() else {
            return Err(self.err(region.loc, "a region must end with a return"));
        };
        for op in body {
            if matches!(op.name.as_str(), "func.return" | "stablehlo.return") {
                return Err(self.err(
                    op.loc,
                    format!("'{}' must be the last op of its block", op.name),
                ));
            }
            self.convert_op(op)?;
        }
        if !matches!(last.name.as_str(), "func.return" | "stablehlo.return") {
            return Err(self.err(
                last.loc,
                format!("a block must end with a return, not '{}'", last.name),
            ));
        }
        self.operands(last)
    }

    /// The operand values of `op`, type-checked against its declared operand types.
    pub(crate) fn operands(&mut self, op: &Operation) -> Result<Vec<Val>, ParseError> {
        let mut out = Vec::with_capacity(op.operands.len());
        for (i, r) in op.operands.iter().enumerate() {
            let v = self.lookup(r)?;
            if let Some(t) = op.operand_types.get(i)
                && (!v.ty.to_shape().compatible(&t.to_shape())
                    || (v.ty.quant().is_some() != t.quant().is_some()))
            {
                return Err(self.err(
                        r.loc,
                        format!("type mismatch: operand #{i} of '{}' is %{} of type {}, but the op declares {t}", op.name, r.name, v.ty),
                    ));
            }
            out.push(v);
        }
        Ok(out)
    }

    /// Converts a region into a computation whose parameters are its block arguments
    /// (reducers, comparators, scatter updates). Returns the computation.
    pub(crate) fn region_computation(
        &mut self,
        region: &'a Region,
        owner: &Operation,
        base: &str,
    ) -> Result<ComputationId, ParseError> {
        let comp = self.new_computation(base);
        self.scopes.push(Scope {
            comp,
            values: HashMap::new(),
            capture: Capture::Forbidden(owner.name.clone()),
        });
        let result = (|| {
            let block = region
                .blocks
                .first()
                .ok_or_else(|| self.err(region.loc, "empty region"))?;
            for (i, (name, ty)) in block.arguments.iter().enumerate() {
                let p = self.add(
                    ty.to_shape(),
                    Op::Parameter { number: i },
                    vec![],
                    region.loc,
                );
                self.bind(
                    name,
                    vec![Val {
                        id: p,
                        ty: ty.clone(),
                    }],
                );
            }
            let ret = self.convert_block_ops(region, owner.loc)?;
            let root = self.root_of(&ret, region.loc);
            self.module.computations[comp].root = root;
            Ok(comp)
        })();
        self.scopes.pop();
        result
    }

    /// Converts a region whose computation takes one tuple parameter: the block arguments
    /// (typed `args`) followed by captured values. `outer` seeds the captured list (so a
    /// while's condition and body agree). Returns the computation, the returned values,
    /// the tuple parameter and the captured values.
    pub(crate) fn tuple_region(
        &mut self,
        region: &'a Region,
        args: &[Type],
        outer: Vec<Val>,
        base: &str,
        loc: Loc,
    ) -> Result<(ComputationId, Vec<Val>, InstrId, Vec<Val>), ParseError> {
        let comp = self.new_computation(base);
        let param = self.add_to(
            comp,
            Shape::Tuple(vec![]),
            Op::Parameter { number: 0 },
            vec![],
            loc,
        );
        self.scopes.push(Scope {
            comp,
            values: HashMap::new(),
            capture: Capture::TupleElems {
                param,
                base: args.len(),
                outer,
            },
        });
        let result = (|| {
            let block = region
                .blocks
                .first()
                .ok_or_else(|| self.err(region.loc, "empty region"))?;
            if block.arguments.len() != args.len() {
                return Err(self.err(
                    region.loc,
                    format!(
                        "the region takes {} arguments, expected {}",
                        block.arguments.len(),
                        args.len()
                    ),
                ));
            }
            for (i, ((name, ty), want)) in block.arguments.iter().zip(args).enumerate() {
                if !ty.to_shape().compatible(&want.to_shape()) {
                    return Err(self.err(
                        region.loc,
                        format!("type mismatch: region argument %{name} is {ty}, expected {want}"),
                    ));
                }
                let g = self.add(
                    ty.to_shape(),
                    Op::GetTupleElement { index: i },
                    vec![param],
                    region.loc,
                );
                self.bind(
                    name,
                    vec![Val {
                        id: g,
                        ty: ty.clone(),
                    }],
                );
            }
            self.convert_block_ops(region, loc)
        })();
        let scope = self.scopes.pop();
        let ret = result?;
        let captured = match scope.map(|s| s.capture) {
            Some(Capture::TupleElems { outer, .. }) => outer,
            _ => Vec::new(),
        };
        Ok((comp, ret, param, captured))
    }

    /// Converts one operation and binds its results.
    pub(crate) fn convert_op(&mut self, op: &'a Operation) -> Result<(), ParseError> {
        let metadata = self.frames.op_metadata(&op.location);
        let saved = std::mem::replace(&mut self.metadata, metadata);
        let result = self.convert_located_op(op);
        self.metadata = saved;
        result.map_err(|e| self.locate_error(e, op))
    }

    /// An error while converting `op` names the op's source location (`f.py:3:7`), if it
    /// has one and no op inside it was named already.
    fn locate_error(&mut self, mut e: ParseError, op: &Operation) -> ParseError {
        if !self.error_located
            && let Some(p) = op.location.file_pos()
        {
            e.file = p.file.clone();
            e.line = p.line.max(1);
            e.col = p.col;
            self.error_located = true;
        }
        e
    }

    fn convert_located_op(&mut self, op: &'a Operation) -> Result<(), ParseError> {
        let ids = self.convert_op_inner(op)?;
        // GSPMD-mode shardings on ops (`custom_call @Sharding {mhlo.sharding = "..."}`).
        if let [id] = ids.as_slice() {
            let gspmd: Vec<(String, super::attributes::Attr)> = op
                .attributes
                .iter()
                .filter(|(k, _)| k == "mhlo.sharding")
                .cloned()
                .collect();
            if let Some(s) = self.sharding_attr(&gspmd, op.loc)? {
                let comp = self.comp();
                self.module.computations[comp].instrs[*id].sharding = Some(s);
            }
        }
        // Check the declared result types against what the instructions compute.
        for (i, (&id, ty)) in ids.iter().zip(&op.result_types).enumerate() {
            let comp = self.comp();
            let instr = &self.module.computations[comp].instrs[id];
            let declared = ty.to_shape();
            if !instr.shape.compatible(&declared) {
                return Err(self.err(op.loc, format!("type mismatch: result #{i} of '{}' is declared {ty}, but the op computes {}", op.name, crate::ir::shape_inference::human_string(&instr.shape))));
            }
            let checked = !matches!(
                instr.op,
                Op::Call { .. }
                    | Op::While { .. }
                    | Op::Conditional { .. }
                    | Op::CustomCall(_)
                    | Op::Unmodeled { .. }
                    | Op::Parameter { .. }
            ) && instr.operands.iter().all(|&o| {
                !matches!(
                    self.module.computations[comp].instrs[o].op,
                    Op::Call { .. } | Op::Conditional { .. } | Op::While { .. }
                )
            });
            if checked {
                let c = &self.module.computations[comp];
                match infer_shape(&self.module, c, id) {
                    Ok(s) if s.compatible(&declared) => {}
                    Ok(s) => {
                        return Err(self.err(op.loc, format!("type mismatch: '{}' declares result {ty}, but its operands give {}", op.name, crate::ir::shape_inference::human_string(&s))));
                    }
                    Err(e) => return Err(self.err(op.loc, format!("invalid '{}': {e}", op.name))),
                }
            }
        }
        self.define(op, ids)
    }

    /// Converts one operation; returns one instruction per result.
    fn convert_op_inner(&mut self, op: &'a Operation) -> Result<Vec<InstrId>, ParseError> {
        // Every conversion below may index its operands and results: counts first.
        arity::check_counts(op).map_err(|m| self.err(op.loc, m))?;
        if op
            .operand_types
            .iter()
            .chain(&op.result_types)
            .any(|t| t.quant().is_some())
        {
            return self.convert_quantized(op);
        }
        let name = op.name.as_str();
        if let Some(ids) = self.convert_sdy(op)? {
            return Ok(ids);
        }
        if let Some(ids) = self.convert_basic(op)? {
            return Ok(ids);
        }
        if let Some(ids) = self.convert_region_op(op)? {
            return Ok(ids);
        }
        if let Some(ids) = self.convert_misc(op)? {
            return Ok(ids);
        }
        Err(self.err(op.loc, format!("unknown op '{name}'")))
    }

    /// The declared shape of result `i`.
    pub(crate) fn result_shape(&self, op: &Operation, i: usize) -> Shape {
        op.result_types
            .get(i)
            .map(Type::to_shape)
            .unwrap_or(Shape::Tuple(vec![]))
    }

    /// For a multi-result op whose HLO result is a tuple: one `get-tuple-element` per result
    /// (or the instruction itself when there is a single result and `single_plain`).
    pub(crate) fn unpack(&mut self, id: InstrId, n: usize, loc: Loc) -> Vec<InstrId> {
        (0..n).map(|i| self.gte(id, i, loc)).collect()
    }

    /// The tuple shape of all declared results.
    pub(crate) fn results_tuple_shape(&self, op: &Operation) -> Shape {
        Shape::Tuple(op.result_types.iter().map(Type::to_shape).collect())
    }

    /// Puts computations in print order (callees first, entry last), keeping only those
    /// reachable from the entry, and makes instruction names unique per computation.
    fn finish(&mut self) {
        let mut order = Vec::new();
        let mut state: HashMap<ComputationId, bool> = HashMap::new();
        // Iterative post-order DFS.
        let mut stack = vec![(self.module.entry, false)];
        while let Some((c, done)) = stack.pop() {
            if done {
                order.push(c);
                state.insert(c, true);
                continue;
            }
            if state.contains_key(&c) {
                continue;
            }
            state.insert(c, false);
            stack.push((c, true));
            let comp = &self.module.computations[c];
            let mut callees = Vec::new();
            for (_, instr) in comp.iter() {
                callees.extend(instr.op.called_computations());
            }
            for callee in callees.into_iter().rev() {
                if !state.contains_key(&callee) {
                    stack.push((callee, false));
                }
            }
        }
        self.module.order = order;
        for (_, comp) in self.module.computations.iter_mut() {
            let mut seen = HashSet::new();
            let ids: Vec<InstrId> = comp.instrs.keys().collect();
            for id in ids {
                let mut name = comp.instrs[id].name.clone();
                let mut k = 0;
                while !seen.insert(name.clone()) {
                    k += 1;
                    name = format!("{}.u{k}", comp.instrs[id].name);
                }
                comp.instrs[id].name = name;
            }
        }
    }
}

#[cfg(test)]
mod tests;
