//! `interpreter.run_parallel` (the StableHLO reference interpreter's grid, used by the
//! conformance corpus): runs `called_computations` (row-major over replicas x partitions)
//! as devices of this runtime, on the interpreter, and returns their results flattened in
//! device order. It is a custom call the interpreter cannot run alone: a
//! [`RunParallel`] handler runs it and hands every other target to the handler it wraps
//! (`xlac check`'s `check.*`). StableHLO reference: `stablehlo/reference/Api.cpp`.
//!
//! Device i takes as many consecutive operands as its program has parameters. A program
//! whose root is a tuple returns its elements as separate results (that is how a function
//! with several results is converted).

use std::sync::Arc;

use super::interpreter::InterpretedDevice;
use super::{CollectiveMode, DeviceGrid, DeviceProgram, InProcess, run_devices};
use crate::eval::collectives::grid::RunParallelConfig;
use crate::eval::{CustomCallHandler, EvalError, EvalResult, Evaluator, ProcessGrid};
use crate::ir::{CustomCall, Instruction, Literal, Shape};

/// The custom-call handler that runs `interpreter.run_parallel` grids.
pub struct RunParallel {
    /// Every other target goes here first (`None`: only the interpreter's built-ins).
    pub inner: Option<Arc<dyn CustomCallHandler>>,
}

impl RunParallel {
    /// A handler for `run_parallel` in front of `inner`.
    pub fn wrapping(inner: Option<Arc<dyn CustomCallHandler>>) -> Arc<RunParallel> {
        Arc::new(RunParallel { inner })
    }
}

impl CustomCallHandler for RunParallel {
    fn custom_call(
        &self,
        ev: &mut Evaluator<'_>,
        instr: &Instruction,
        operands: &[&Literal],
        cc: &CustomCall,
    ) -> Option<EvalResult> {
        if cc.target == "interpreter.run_parallel" {
            // The devices get the evaluator's own handler: this one, so grids nest.
            let handler = ev.custom_call_handler.clone();
            return Some(run_parallel(ev, instr, operands, cc, handler));
        }
        self.inner.as_ref()?.custom_call(ev, instr, operands, cc)
    }
}

/// Runs one `interpreter.run_parallel` op.
pub fn run_parallel(
    ev: &mut Evaluator<'_>,
    instr: &Instruction,
    operands: &[&Literal],
    cc: &CustomCall,
    handler: Option<Arc<dyn CustomCallHandler>>,
) -> EvalResult {
    let config = RunParallelConfig::of(instr)?;
    let module = ev.module;
    let (r, p) = (config.num_replicas, config.num_partitions);
    let count = (r as usize) * (p as usize);
    let programs = cc.called_computations.get(..count).ok_or_else(|| {
        EvalError::new(format!(
            "interpreter.run_parallel: {} programs for a {r}x{p} grid",
            cc.called_computations.len()
        ))
    })?;
    let queues = Arc::new(ProcessGrid::new(r, p));
    for name in &config.infeed {
        let id = module.find_computation(name).ok_or_else(|| {
            EvalError::new(format!(
                "interpreter.run_parallel: no infeed function `{name}`"
            ))
        })?;
        let mut feeder = Evaluator::new(module, ev.options.clone());
        feeder.custom_call_handler = handler.clone();
        queues.push_infeed(match feeder.call(id, &[])? {
            Literal::Tuple(mut t) if t.len() == 1 => t.remove(0),
            v => v,
        });
    }
    let mut args: Vec<Vec<Literal>> = Vec::with_capacity(count);
    let mut next = 0;
    for &prog in programs {
        let n = module.computations[prog].parameters().len();
        let taken = operands.get(next..next + n).ok_or_else(|| {
            EvalError::new(format!(
                "interpreter.run_parallel: {} operands are too few for the programs",
                operands.len()
            ))
        })?;
        args.push(taken.iter().map(|l| (*l).clone()).collect());
        next += n;
    }
    if next != operands.len() {
        return Err(EvalError::new(format!(
            "interpreter.run_parallel: {} operands, the programs take {next}",
            operands.len()
        )));
    }
    let mut devices: Vec<Box<dyn DeviceProgram + '_>> = programs
        .iter()
        .map(|&computation| {
            Box::new(InterpretedDevice {
                module,
                computation,
                options: ev.options.clone(),
                handler: handler.clone(),
                queues: queues.clone(),
            }) as Box<dyn DeviceProgram + '_>
        })
        .collect();
    // Threaded: a device blocked in `recv` (outside this runtime) must not hold the others.
    let collectives = Arc::new(InProcess::new(
        DeviceGrid::new(r, p),
        CollectiveMode::Threaded {
            deadline: std::time::Duration::from_secs(30),
        },
    ));
    let run = run_devices(&mut devices, &args, collectives)
        .map_err(|e| EvalError::new(format!("interpreter.run_parallel: {}", e.headline())))?;
    let mut flat = Vec::new();
    for (&prog, value) in programs.iter().zip(run.results) {
        let returns_tuple = module.computations[prog].root_instr().shape.is_tuple();
        match value {
            Literal::Tuple(t) if returns_tuple => flat.extend(t),
            v => flat.push(v),
        }
    }
    match &instr.shape {
        Shape::Tuple(t) if t.len() == flat.len() => Ok(Literal::Tuple(flat)),
        _ if flat.len() == 1 => Ok(flat.remove(0)),
        s => Err(EvalError::new(format!(
            "interpreter.run_parallel: the programs return {} values, the op's shape is {s:?}",
            flat.len()
        ))),
    }
}
