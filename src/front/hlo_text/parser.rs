//! The HLO text parser: module header, stack-frame tables, computations, instructions and
//! operands. Attribute values are read by `attributes.rs`, turned into typed [`Op`]s by
//! `ops.rs`, literals by `literal.rs`.
//!
//! Lenient where XLA is strict about things that do not change meaning (unknown attributes
//! are kept verbatim with a warning), strict where XLA is (unknown opcodes, undefined
//! operands and computations, missing required attributes).
//! XLA: `HloParserImpl` in `xla/hlo/parser/hlo_parser.cc`.

use std::collections::HashMap;

use cranelift_entity::PrimaryMap;

use super::attributes::{
    parse_bool, parse_buffer_donor, parse_input_output_alias, parse_program_shape,
};
use super::lexer::{Cursor, MAX_DEPTH, PResult, Source};
use super::literal::parse_literal;
use super::shapes::{at_shape, parse_shape};
use super::{ParseError, ParseWarning};
use crate::ir::{
    Computation, ComputationId, FileLocation, InstrId, Instruction, Module, ModuleConfig, Op,
    Opcode, RawAttribute, Shape, StackFrame, StackFrameIndex,
};

/// Module-level attributes that xlac keeps verbatim without a warning.
const KNOWN_RAW_MODULE_ATTRIBUTES: &[&str] = &[
    "alias_passthrough_params",
    "frontend_attributes",
    "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output",
    "origin_recovery_table",
    "debug_attributes",
];

/// One `name=value` attribute as written: byte ranges into the source.
#[derive(Clone, Copy, Debug)]
pub(super) struct Attr<'a> {
    /// The attribute name.
    pub name: &'a str,
    /// Where the name starts (for messages).
    pub pos: usize,
    /// Where the value starts.
    pub start: usize,
    /// Where the value ends.
    pub end: usize,
}

/// The state of one module parse.
pub(super) struct Parser<'a> {
    pub src: &'a Source<'a>,
    pub computations: PrimaryMap<ComputationId, Computation>,
    pub order: Vec<ComputationId>,
    pub computation_names: HashMap<String, ComputationId>,
    pub warnings: Vec<ParseWarning>,
    /// Nesting of nested operands and inline computations, bounded by [`MAX_DEPTH`].
    pub depth: usize,
}

/// One computation being built: its instructions, their names, synthesized GTEs.
pub(super) struct Body {
    pub comp: Computation,
    pub names: HashMap<String, InstrId>,
    root: Option<InstrId>,
    /// Instructions the parser made up (compact GTEs, nested operands): named at the end,
    /// once every written name is known, so the made-up names never collide.
    synthetic: Vec<InstrId>,
    gte_cache: HashMap<(InstrId, usize), InstrId>,
}

impl<'a> Parser<'a> {
    /// A parser over `src`.
    pub fn new(src: &'a Source<'a>) -> Parser<'a> {
        Parser {
            src,
            computations: PrimaryMap::new(),
            order: Vec::new(),
            computation_names: HashMap::new(),
            warnings: Vec::new(),
            depth: 0,
        }
    }

    /// Parses the whole text into a module.
    pub fn parse_module(mut self) -> PResult<(Module, Vec<ParseWarning>)> {
        let src = self.src;
        let mut cur = Cursor::new(src);
        let mut name = None;
        let mut config = ModuleConfig::default();
        if eat_keyword(&mut cur, "HloModule") {
            name = Some(cur.expect_name("a module name")?.to_string());
            self.parse_module_attributes(&mut cur, &mut config)?;
        }
        let stack_frames = if at_keyword(&mut cur, "FileNames") {
            Some(parse_stack_frames(&mut cur)?)
        } else {
            None
        };
        let mut entry = None;
        while !cur.at_end() {
            let start = cur.pos;
            let (id, is_entry) = self.parse_computation(&mut cur)?;
            if is_entry {
                if entry.is_some() {
                    return Err(src.error(start, "more than one ENTRY computation"));
                }
                entry = Some(id);
            }
        }
        let Some(&last) = self.order.last() else {
            return Err(cur.err("the module has no computations"));
        };
        let entry = entry.unwrap_or(last);
        // The entry prints last; XLA prints it last too whatever the text order was.
        self.order.retain(|&c| c != entry);
        self.order.push(entry);
        let name = name.unwrap_or_else(|| format!("module_{}", self.computations[entry].name));
        let module = Module {
            name,
            computations: self.computations,
            order: self.order,
            entry,
            config,
            stack_frames,
        };
        Ok((module, self.warnings))
    }

    /// `, is_scheduled=true, entry_computation_layout={...}, ...` after `HloModule name`.
    fn parse_module_attributes(
        &mut self,
        cur: &mut Cursor<'a>,
        config: &mut ModuleConfig,
    ) -> PResult<()> {
        let attrs = parse_attribute_list(cur)?;
        for attr in attrs {
            let mut v = cur.sub(attr.start, attr.end);
            match attr.name {
                "is_scheduled" => config.is_scheduled = parse_bool(&mut v)?,
                "entry_computation_layout" => {
                    config.entry_computation_layout = Some(parse_program_shape(&mut v)?)
                }
                "input_output_alias" => {
                    config.input_output_alias = parse_input_output_alias(&mut v)?
                }
                "buffer_donor" => config.buffer_donor = parse_buffer_donor(&mut v)?,
                "replica_count" => config.replica_count = Some(v.int()?),
                "num_partitions" => config.num_partitions = Some(v.int()?),
                name => {
                    if !KNOWN_RAW_MODULE_ATTRIBUTES.contains(&name) {
                        self.warnings.push(self.src.error(
                            attr.pos,
                            format!("unknown module attribute `{name}` kept verbatim"),
                        ));
                    }
                    v.pos = v.end;
                    config.raw_attributes.push(RawAttribute {
                        name: name.to_string(),
                        value: cur.slice(attr.start, attr.end).to_string(),
                    });
                }
            }
            finish_value(&mut v, attr.name)?;
        }
        Ok(())
    }

    /// `[ENTRY] [%]name [(p: shape, ...) -> shape] { instructions } [, execution_thread="..."]`.
    /// Returns the new computation and whether it is marked ENTRY.
    fn parse_computation(&mut self, cur: &mut Cursor<'a>) -> PResult<(ComputationId, bool)> {
        let is_entry = eat_keyword(cur, "ENTRY");
        cur.skip_ws();
        let name_pos = cur.pos;
        let name = cur.expect_name("a computation name (or `ENTRY`)")?;
        if self.computation_names.contains_key(name) {
            return Err(self
                .src
                .error(name_pos, format!("computation `{name}` is defined twice")));
        }
        if cur.peek() == Some(b'(') {
            // The parameter list is informational: parameters are instructions in the body.
            cur.expect("(")?;
            while !cur.eat(")") {
                cur.eat(",");
                cur.expect_name("a parameter name")?;
                cur.expect(":")?;
                parse_shape(cur)?;
            }
            cur.expect("->")?;
            parse_shape(cur)?;
        }
        let comp = self.parse_body(cur, name, name_pos)?;
        let id = self.add_computation(comp);
        if cur.looking_at(",") {
            let mut probe = cur.clone();
            probe.eat(",");
            if eat_keyword(&mut probe, "execution_thread") {
                *cur = probe;
                cur.expect("=")?;
                self.computations[id].execution_thread = Some(cur.string()?);
            }
        }
        Ok((id, is_entry))
    }

    /// Adds a finished computation in text order.
    pub fn add_computation(&mut self, comp: Computation) -> ComputationId {
        let name = comp.name.clone();
        let id = self.computations.push(comp);
        self.order.push(id);
        self.computation_names.insert(name, id);
        id
    }

    /// `{ instruction* }` of a computation named `name`.
    pub fn parse_body(
        &mut self,
        cur: &mut Cursor<'a>,
        name: &str,
        name_pos: usize,
    ) -> PResult<Computation> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.src.error(name_pos, "computations nest too deeply"));
        }
        cur.expect("{")?;
        let mut b = Body {
            comp: Computation::new(name),
            names: HashMap::new(),
            root: None,
            synthetic: Vec::new(),
            gte_cache: HashMap::new(),
        };
        loop {
            if cur.eat("}") {
                break;
            }
            if cur.at_end() {
                return Err(self.src.error(
                    name_pos,
                    format!("computation `{name}` is not closed with `}}`"),
                ));
            }
            self.parse_instruction(cur, &mut b)?;
        }
        self.depth -= 1;
        let Some(&last) = b.comp.order.last() else {
            return Err(self.src.error(
                name_pos,
                format!("computation `{name}` has no instructions"),
            ));
        };
        b.comp.root = b.root.unwrap_or(last);
        name_synthetic(&mut b);
        Ok(b.comp)
    }

    /// `[ROOT] [%]name = shape opcode(operands)[, attr=value]*`.
    fn parse_instruction(&mut self, cur: &mut Cursor<'a>, b: &mut Body) -> PResult<()> {
        cur.skip_ws();
        let start = cur.pos;
        let is_root = {
            let mut probe = cur.clone();
            probe.ident() == Some("ROOT") && probe.peek() != Some(b'=') && {
                *cur = probe;
                true
            }
        };
        cur.skip_ws();
        let name_pos = cur.pos;
        let name = cur.expect_name("an instruction name")?;
        cur.expect("=")?;
        if !at_shape(cur) {
            return Err(cur.expected("the result shape"));
        }
        let shape = parse_shape(cur)?;
        let id = self.parse_instruction_rhs(cur, b, name, shape, true)?;
        if b.names.insert(name.to_string(), id).is_some() {
            return Err(self
                .src
                .error(name_pos, format!("instruction `{name}` is defined twice")));
        }
        b.comp.spans[id] = self.src.span(start);
        if is_root {
            if b.root.is_some() {
                return Err(self.src.error(start, "more than one ROOT instruction"));
            }
            b.root = Some(id);
        }
        Ok(())
    }

    /// `opcode(operands), attributes` after the shape; adds the instruction to `b`.
    /// Nested operand instructions (`with_attributes == false`) carry no attributes.
    fn parse_instruction_rhs(
        &mut self,
        cur: &mut Cursor<'a>,
        b: &mut Body,
        name: &str,
        shape: Shape,
        with_attributes: bool,
    ) -> PResult<InstrId> {
        cur.skip_ws();
        let opcode_pos = cur.pos;
        let word = cur.expect_ident("an opcode")?;
        let opcode: Opcode = word.parse().map_err(|_| {
            self.src
                .error(opcode_pos, format!("unknown opcode `{word}`"))
        })?;
        cur.expect("(")?;
        let mut operands = Vec::new();
        let mut fixed_op = None;
        match opcode {
            Opcode::Parameter => {
                fixed_op = Some(Op::Parameter {
                    number: cur.index()?,
                });
                cur.expect(")")?;
            }
            Opcode::Constant => {
                let literal = parse_literal(cur, &shape, &mut self.warnings)?;
                cur.expect(")")?;
                fixed_op = Some(Op::Constant { literal });
            }
            _ => {
                while !cur.eat(")") {
                    if !operands.is_empty() {
                        cur.expect(",")?;
                    }
                    operands.push(self.parse_operand(cur, b)?);
                }
            }
        }
        let attrs = if with_attributes {
            parse_attribute_list(cur)?
        } else {
            Vec::new()
        };
        let mut attrs = super::ops::Attrs::new(attrs);
        let op = match fixed_op {
            Some(op) => op,
            None => self.build_op(cur, opcode, opcode_pos, name, &mut attrs)?,
        };
        let mut instr = Instruction::new(name, shape, op, operands);
        self.common_attributes(cur, b, &mut instr, &mut attrs)?;
        let id = b.comp.push(instr);
        b.comp.spans[id] = self.src.span(opcode_pos);
        Ok(id)
    }

    /// `[shape] [%]name[#i#j]` or a nested instruction `shape opcode(...)`.
    fn parse_operand(&mut self, cur: &mut Cursor<'a>, b: &mut Body) -> PResult<InstrId> {
        let shape = if at_shape(cur) {
            Some(parse_shape(cur)?)
        } else {
            None
        };
        cur.skip_ws();
        let pos = cur.pos;
        let name = cur.expect_name("an operand")?;
        let nested = !b.names.contains_key(name)
            && name.parse::<Opcode>().is_ok()
            && cur.peek() == Some(b'(');
        let mut id = if nested {
            let Some(shape) = shape else {
                return Err(self.src.error(
                    pos,
                    format!("nested `{name}` instruction needs a result shape"),
                ));
            };
            // Rewind to the opcode and parse it as an instruction of its own.
            cur.pos = pos;
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.src.error(pos, "operands nest too deeply"));
            }
            let id = self.parse_instruction_rhs(cur, b, "", shape, false)?;
            self.depth -= 1;
            b.synthetic.push(id);
            id
        } else {
            *b.names.get(name).ok_or_else(|| {
                self.src.error(
                    pos,
                    format!("operand `{name}` is not defined before this instruction"),
                )
            })?
        };
        // Compact GTE: `%t#0#1` is get-tuple-element 1 of get-tuple-element 0 of `t`.
        while cur.peek_at(0) == Some(b'#') {
            cur.pos += 1;
            let at = cur.pos;
            let index = cur.index()?;
            id = self.compact_gte(b, id, index, at)?;
        }
        Ok(id)
    }

    /// The get-tuple-element `index` of `tuple`, made once per (tuple, index).
    fn compact_gte(
        &mut self,
        b: &mut Body,
        tuple: InstrId,
        index: usize,
        at: usize,
    ) -> PResult<InstrId> {
        if let Some(&id) = b.gte_cache.get(&(tuple, index)) {
            return Ok(id);
        }
        let t = &b.comp.instrs[tuple];
        let Some(shape) = t.shape.tuple_elements().and_then(|e| e.get(index)).cloned() else {
            return Err(self.src.error(
                at,
                format!(
                    "`{}#{index}`: no tuple element {index} in {}",
                    t.name,
                    super::shapes::shape_string(&t.shape, false)
                ),
            ));
        };
        let instr = Instruction::new("", shape, Op::GetTupleElement { index }, vec![tuple]);
        let id = b.comp.push(instr);
        b.comp.spans[id] = self.src.span(at);
        b.synthetic.push(id);
        b.gte_cache.insert((tuple, index), id);
        Ok(id)
    }

    /// A computation named by an attribute value: `%name`, `name`, or an inline `{ ... }`.
    pub fn computation_ref(
        &mut self,
        cur: &mut Cursor<'a>,
        inline_name: &str,
    ) -> PResult<ComputationId> {
        cur.skip_ws();
        let pos = cur.pos;
        if cur.peek() == Some(b'{') {
            let mut name = inline_name.to_string();
            let mut n = 0;
            while self.computation_names.contains_key(&name) {
                n += 1;
                name = format!("{inline_name}.{n}");
            }
            let comp = self.parse_body(cur, &name, pos)?;
            return Ok(self.add_computation(comp));
        }
        let name = cur.expect_name("a computation name")?;
        self.computation_names.get(name).copied().ok_or_else(|| {
            self.src.error(
                pos,
                format!("computation `{name}` is not defined before its use (callees come first)"),
            )
        })
    }

    /// `{%a, %b}`: a list of computations.
    pub fn computation_list(
        &mut self,
        cur: &mut Cursor<'a>,
        inline_name: &str,
    ) -> PResult<Vec<ComputationId>> {
        cur.expect("{")?;
        let mut out = Vec::new();
        while !cur.eat("}") {
            if !out.is_empty() {
                cur.expect(",")?;
            }
            out.push(self.computation_ref(cur, inline_name)?);
        }
        Ok(out)
    }

    /// Looks up instructions named in `control-predecessors={%a, %b}`.
    pub fn instruction_list(&mut self, cur: &mut Cursor<'a>, b: &Body) -> PResult<Vec<InstrId>> {
        cur.expect("{")?;
        let mut out = Vec::new();
        while !cur.eat("}") {
            if !out.is_empty() {
                cur.expect(",")?;
            }
            cur.skip_ws();
            let pos = cur.pos;
            let name = cur.expect_name("an instruction name")?;
            out.push(*b.names.get(name).ok_or_else(|| {
                self.src.error(
                    pos,
                    format!("instruction `{name}` is not defined before this instruction"),
                )
            })?);
        }
        Ok(out)
    }
}

/// Gives made-up instructions XLA-style names (`get-tuple-element.3`) unused in the computation.
fn name_synthetic(b: &mut Body) {
    let mut next: HashMap<&'static str, usize> = HashMap::new();
    for &id in &b.synthetic {
        let base = b.comp.instrs[id].opcode().name();
        let n = next.entry(base).or_insert(0);
        let name = loop {
            let candidate = format!("{base}.{n}");
            *n += 1;
            if !b.names.contains_key(&candidate) {
                break candidate;
            }
        };
        b.names.insert(name.clone(), id);
        b.comp.instrs[id].name = name;
    }
}

/// `, name=value` pairs up to the end of the instruction (or header line).
pub(super) fn parse_attribute_list<'a>(cur: &mut Cursor<'a>) -> PResult<Vec<Attr<'a>>> {
    let mut out: Vec<Attr<'a>> = Vec::new();
    while cur.looking_at(",") {
        // `, execution_thread=` after a computation's `}` is not ours; callers stop there.
        cur.eat(",");
        cur.skip_ws();
        let pos = cur.pos;
        let name = cur.expect_ident("an attribute name")?;
        cur.expect("=")?;
        let (start, end) = cur.scan_value()?;
        if out.iter().any(|a| a.name == name) {
            return Err(cur
                .src
                .error(pos, format!("attribute `{name}` is given twice")));
        }
        out.push(Attr {
            name,
            pos,
            start,
            end,
        });
    }
    Ok(out)
}

/// Fails unless a value cursor has been read to its end.
pub(super) fn finish_value(v: &mut Cursor<'_>, name: &str) -> PResult<()> {
    if v.at_end() {
        Ok(())
    } else {
        let found = v.describe_here();
        Err(v.src.error(
            v.pos,
            format!("unexpected {found} in the value of `{name}`"),
        ))
    }
}

/// True if the next identifier is exactly `word`.
fn at_keyword(cur: &mut Cursor<'_>, word: &str) -> bool {
    cur.clone().ident() == Some(word)
}

/// Consumes the identifier `word` if it is next.
fn eat_keyword(cur: &mut Cursor<'_>, word: &str) -> bool {
    let mut probe = cur.clone();
    if probe.ident() == Some(word) {
        *cur = probe;
        true
    } else {
        false
    }
}

/// The `FileNames` / `FunctionNames` / `FileLocations` / `StackFrames` tables.
fn parse_stack_frames(cur: &mut Cursor<'_>) -> PResult<StackFrameIndex> {
    let mut index = StackFrameIndex::default();
    if eat_keyword(cur, "FileNames") {
        index.file_names = parse_table(cur, "FileNames", |c| c.string())?;
    }
    if eat_keyword(cur, "FunctionNames") {
        index.function_names = parse_table(cur, "FunctionNames", |c| c.string())?;
    }
    if eat_keyword(cur, "FileLocations") {
        index.file_locations = parse_table(cur, "FileLocations", |c| {
            let mut l = FileLocation::default();
            for (key, value, at) in parse_int_fields(c)? {
                *match key {
                    "file_name_id" => &mut l.file_name_id,
                    "function_name_id" => &mut l.function_name_id,
                    "line" => &mut l.line,
                    "end_line" => &mut l.end_line,
                    "column" => &mut l.column,
                    "end_column" => &mut l.end_column,
                    _ => return Err(c.src.error(at, format!("unknown field `{key}`"))),
                } = value;
            }
            Ok(l)
        })?;
    }
    if eat_keyword(cur, "StackFrames") {
        index.stack_frames = parse_table(cur, "StackFrames", |c| {
            let mut f = StackFrame::default();
            for (key, value, at) in parse_int_fields(c)? {
                *match key {
                    "file_location_id" => &mut f.file_location_id,
                    "parent_frame_id" => &mut f.parent_frame_id,
                    _ => return Err(c.src.error(at, format!("unknown field `{key}`"))),
                } = value;
            }
            Ok(f)
        })?;
    }
    Ok(index)
}

/// Rows `1 <entry>`, `2 <entry>`, ... numbered from 1 without gaps.
fn parse_table<T>(
    cur: &mut Cursor<'_>,
    table: &str,
    mut entry: impl FnMut(&mut Cursor<'_>) -> PResult<T>,
) -> PResult<Vec<T>> {
    let mut out = Vec::new();
    while matches!(cur.peek(), Some(b'0'..=b'9')) {
        cur.skip_ws();
        let at = cur.pos;
        let id = cur.int()?;
        if id != out.len() as i64 + 1 {
            return Err(cur.src.error(
                at,
                format!("{table} entry {id} should be numbered {}", out.len() + 1),
            ));
        }
        out.push(entry(cur)?);
    }
    Ok(out)
}

/// `{key=1 key=2}` (space- or comma-separated): (key, value, position) triples.
fn parse_int_fields<'a>(cur: &mut Cursor<'a>) -> PResult<Vec<(&'a str, i64, usize)>> {
    cur.expect("{")?;
    let mut out = Vec::new();
    while !cur.eat("}") {
        cur.eat(",");
        cur.skip_ws();
        let at = cur.pos;
        let key = cur.expect_ident("a field name")?;
        cur.expect("=")?;
        out.push((key, cur.int()?, at));
    }
    Ok(out)
}

/// Parses, returning the module and warnings (the body of [`super::parse_module`]).
pub(super) fn parse(text: &str, file: &str) -> Result<(Module, Vec<ParseWarning>), ParseError> {
    let src = Source::new(text, file);
    Parser::new(&src).parse_module()
}
