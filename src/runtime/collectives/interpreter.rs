//! The interpreter as a device: its collectives go through the same [`Collectives`] as the
//! compiled backend's thunks (the evaluator reaches them through
//! `eval::collectives::CollectiveLink`, which this file implements). Operands are copied
//! to row-major bytes, the runtime moves them, the results become literals again.

use std::cell::RefCell;
use std::sync::Arc;

use super::op::{CollectiveOp, reducer_of};
use super::reduction::{Native, Reducer};
use super::{ArrayView, ArrayViewMut, Collectives, DeviceId, DeviceProgram};
use crate::eval::collectives::groups::CollectiveAttributes;
use crate::eval::collectives::{CollectiveLink, DeviceContext, ProcessGrid, ProcessId};
use crate::eval::index::integer_at;
use crate::eval::{CustomCallHandler, EvalError, EvalOptions, EvalResult, Evaluator, to_row_major};
use crate::ir::{ArrayLiteral, ArrayShape, ComputationId, Instruction, Literal, Module, Shape};
use crate::runtime::buffers::{literal_bytes, read_array, write_array};

/// One device's link: its id and the runtime.
pub struct InterpreterLink {
    /// The runtime.
    pub collectives: Arc<dyn Collectives>,
    /// This device.
    pub device: DeviceId,
}

/// A reduction computation run by the interpreter, element by element.
struct Interpreted<'e, 'm> {
    ev: RefCell<&'e mut Evaluator<'m>>,
    comp: ComputationId,
}

impl Reducer for Interpreted<'_, '_> {
    fn combine(
        &self,
        ty: crate::ir::PrimitiveType,
        acc: &mut [u8],
        x: &[u8],
    ) -> Result<(), String> {
        let scalar = ArrayShape::new(ty, &[]);
        let size = ty.byte_size();
        let mut ev = self.ev.borrow_mut();
        for (a, b) in acc.chunks_exact_mut(size).zip(x.chunks_exact(size)) {
            // SAFETY: each chunk holds one scalar of `ty`.
            let (la, lb): (Literal, Literal) = unsafe {
                (
                    read_array(a.as_ptr(), &scalar).into(),
                    read_array(b.as_ptr(), &scalar).into(),
                )
            };
            match ev.call(self.comp, &[&la, &lb]).map_err(|e| e.to_string())? {
                Literal::Array(r) if r.data.len() == 1 && r.element_type() == ty => {
                    // SAFETY: `a` holds one scalar of `ty`.
                    unsafe { write_array(a.as_mut_ptr(), &r, &scalar) }
                }
                _ => {
                    return Err(
                        "the reduction computation must return one scalar of the operand's type"
                            .into(),
                    );
                }
            }
        }
        Ok(())
    }
}

/// Result `j` of `n` of a collective, row-major.
fn result_shape(instr: &Instruction, j: usize, n: usize) -> EvalResult<ArrayShape> {
    let s = match (&instr.shape, n) {
        (Shape::Tuple(t), _) => t.get(j),
        (s, 1) => Some(s),
        _ => None,
    };
    s.and_then(Shape::as_array)
        .map(|a| ArrayShape::new(a.element_type, &a.dims))
        .ok_or_else(|| EvalError::new("collective result shape does not match its operands"))
}

impl CollectiveLink for InterpreterLink {
    fn collective(
        &self,
        ev: &mut Evaluator<'_>,
        instr: &Instruction,
        operands: &[&Literal],
    ) -> EvalResult {
        let attrs = CollectiveAttributes::of(instr)?;
        // A dynamic-root broadcast's last operand names each data operand's source.
        let (data, roots) = if attrs.has_dynamic_root {
            let (root, data) = operands
                .split_last()
                .ok_or_else(|| EvalError::new("collective_broadcast needs a root operand"))?;
            let root = root
                .as_array()
                .ok_or_else(|| EvalError::new("collective_broadcast's root is not an array"))?;
            let roots = (0..root.data.len())
                .map(|i| integer_at(root, i).map(|v| v.max(0) as usize))
                .collect::<EvalResult<Vec<_>>>()?;
            (data, Some(roots))
        } else {
            (operands, None)
        };
        let grid = self.collectives.grid().clone();
        let op = CollectiveOp::from_instruction(ev.module, instr, &grid, roots)
            .map_err(|e| EvalError::new(e.to_string()))?;
        let rows: Vec<ArrayLiteral> = data
            .iter()
            .map(|l| match to_row_major(l) {
                Literal::Array(a) => Ok(a),
                _ => Err(EvalError::new("collective operands must be arrays")),
            })
            .collect::<EvalResult<_>>()?;
        let n = rows.len();
        let shapes: Vec<ArrayShape> = (0..n)
            .map(|j| result_shape(instr, j, n))
            .collect::<EvalResult<_>>()?;
        let mut buffers: Vec<Vec<u8>> = shapes.iter().map(|s| vec![0u8; s.byte_size()]).collect();
        let views: Vec<ArrayView<'_>> = rows
            .iter()
            .map(|a| ArrayView {
                shape: &a.shape,
                data: literal_bytes(a),
            })
            .collect();
        let mut outs: Vec<ArrayViewMut<'_>> = shapes
            .iter()
            .zip(buffers.iter_mut())
            .map(|(shape, data)| ArrayViewMut { shape, data })
            .collect();
        let module = ev.module;
        let comp = reducer_of(instr);
        let native = comp.and_then(|c| Native::recognize(module, c));
        let outcome = match (native, comp) {
            (Some(native), _) => {
                self.collectives
                    .collective(self.device, &op, Some(&native), &views, &mut outs)
            }
            (None, Some(comp)) => {
                let reducer = Interpreted {
                    ev: RefCell::new(ev),
                    comp,
                };
                self.collectives
                    .collective(self.device, &op, Some(&reducer), &views, &mut outs)
            }
            (None, None) => self
                .collectives
                .collective(self.device, &op, None, &views, &mut outs),
        };
        outcome.map_err(|e| EvalError::new(e.headline()))?;
        drop(outs);
        let values: Vec<Literal> = shapes
            .iter()
            .zip(&buffers)
            // SAFETY: each buffer holds its row-major shape.
            .map(|(s, b)| unsafe { read_array(b.as_ptr(), s) }.into())
            .collect();
        Ok(match &instr.shape {
            Shape::Tuple(_) => Literal::Tuple(values),
            _ => values
                .into_iter()
                .next()
                .ok_or_else(|| EvalError::new("no result"))?,
        })
    }
}

/// The interpreter running one computation of a module as a device.
pub struct InterpretedDevice<'m> {
    /// The module.
    pub module: &'m Module,
    /// The computation this device runs (the entry, or one `run_parallel` program).
    pub computation: ComputationId,
    /// Interpreter settings.
    pub options: EvalOptions,
    /// Custom calls the caller handles (`xlac check`'s `check.*`).
    pub handler: Option<Arc<dyn CustomCallHandler>>,
    /// The send/recv channels and infeed/outfeed queues the devices share.
    pub queues: Arc<ProcessGrid>,
}

impl DeviceProgram for InterpretedDevice<'_> {
    fn run(
        &mut self,
        collectives: &Arc<dyn Collectives>,
        device: DeviceId,
        args: Vec<crate::runtime::Argument<'_>>,
    ) -> Result<Literal, String> {
        let grid = collectives.grid();
        let mut ev = Evaluator::new(self.module, self.options.clone());
        ev.custom_call_handler = self.handler.clone();
        let process = ProcessId::new(grid.replica(device), grid.partition(device));
        let mut context = DeviceContext::new(self.queues.clone(), process);
        context.link = Some(Arc::new(InterpreterLink {
            collectives: collectives.clone(),
            device,
        }));
        ev.device = context;
        let args: Vec<Literal> = args.iter().map(|a| to_row_major(a.literal())).collect();
        let refs: Vec<&Literal> = args.iter().collect();
        let outcome = ev.call(self.computation, &refs).map_err(|e| e.to_string());
        self.queues.finish(process);
        outcome
    }
}
