//! The parsed form of an MLIR file, before conversion: modules, functions, regions, blocks
//! and operations in MLIR's generic shape. Pretty op syntax is normalized into this shape
//! by the parser (`pretty.rs`), so conversion reads one form: `"dialect.op"(operands)
//! {attributes} (regions) : (operand types) -> result types`.
//! MLIR: `mlir/include/mlir/IR/Operation.h` (generic operation form).

use std::sync::Arc;

use super::attributes::Attr;
use super::lexer::Loc;
use super::location::Location;
use super::types::Type;

/// A parsed file or `// -----` chunk: one module (explicit or implicit).
#[derive(Clone, Debug)]
pub struct MlirModule {
    /// `module @name`, if named.
    pub name: Option<String>,
    /// `attributes {...}` of the module.
    pub attributes: Vec<(String, Attr)>,
    /// The functions, in text order.
    pub functions: Vec<Function>,
    /// `sdy.mesh @name = <[...]>`: each mesh's name and its `<...>` text.
    pub meshes: Vec<(String, String)>,
    /// Where the module (or its first function) starts.
    pub loc: Loc,
}

/// `func.func [public|private] @name(%arg: T {attrs}, ...) -> (R {attrs}, ...) { body }`.
#[derive(Clone, Debug)]
pub struct Function {
    /// The symbol name, without `@`.
    pub name: String,
    /// Argument names (without `%`) and types.
    pub arguments: Vec<(String, Type)>,
    /// Result types.
    pub results: Vec<Type>,
    /// Each argument's source location (`%arg0: tensor<4xf32> loc("x")`: JAX names
    /// parameters this way); empty when none is written.
    pub argument_locations: Vec<Arc<Location>>,
    /// Each argument's attributes (`{sdy.sharding = ..., mhlo.sharding = "..."}`).
    pub argument_attributes: Vec<Vec<(String, Attr)>>,
    /// Each result's attributes.
    pub result_attributes: Vec<Vec<(String, Attr)>>,
    /// The body (one block).
    pub body: Region,
    /// Where `func.func` is.
    pub loc: Loc,
}

/// A region: a list of blocks. StableHLO regions have one block.
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// The blocks.
    pub blocks: Vec<Block>,
    /// Where the region's `{` is.
    pub loc: Loc,
}

/// A block: arguments and operations.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// `^bb0(%a: T, ...)` arguments (names without `%`).
    pub arguments: Vec<(String, Type)>,
    /// Each argument's source location (a region written in a short form, as
    /// `applies stablehlo.add`, gives its arguments the op's); empty when none is known.
    pub argument_locations: Vec<Arc<Location>>,
    /// The operations, the terminator last.
    pub operations: Vec<Operation>,
}

/// A use of an SSA value: `%name` or `%name#index`.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueRef {
    /// The name without `%`.
    pub name: String,
    /// The result index (`#1`); 0 when absent.
    pub index: usize,
    /// Where it is written.
    pub loc: Loc,
}

/// One result group on the left of `=`: `%0:2` (count 2) or `%a` (count 1).
#[derive(Clone, Debug, PartialEq)]
pub struct ResultGroup {
    /// The name without `%`.
    pub name: String,
    /// How many results the name stands for.
    pub count: usize,
}

/// An operation in generic form.
#[derive(Clone, Debug)]
pub struct Operation {
    /// The results it defines.
    pub results: Vec<ResultGroup>,
    /// Full name with dialect: `stablehlo.add`, `func.call`, `check.expect_eq`.
    pub name: String,
    /// Operands.
    pub operands: Vec<ValueRef>,
    /// Attributes and properties, by name.
    pub attributes: Vec<(String, Attr)>,
    /// Regions.
    pub regions: Vec<Region>,
    /// One type per operand.
    pub operand_types: Vec<Type>,
    /// One type per result.
    pub result_types: Vec<Type>,
    /// Where the operation starts in the text (its first result name, or its name);
    /// 0:0 for bytecode, whose ops have no text position.
    pub loc: Loc,
    /// Its source location (`loc(...)`), what HLO metadata and diagnostics name.
    pub location: Arc<Location>,
}

impl Operation {
    /// The attribute with this name.
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, a)| a)
    }

    /// The number of results the left-hand side declares.
    pub fn result_count(&self) -> usize {
        self.results.iter().map(|r| r.count).sum()
    }
}
