//! What `--autotune` (`src/autotune/`) needs from an executable: which thunks of the entry
//! sequence have choices, the candidates of each, and a stopwatch that times one thunk
//! alone under one choice, on buffers that a full run on real-shaped inputs has filled.
//! Thunks inside while bodies, branches and calls keep their default rules.

use std::time::Instant;

use crate::ir::Literal;

use super::execute::{run_sequence, run_single_thunk};
use super::thunk::Thunk;
use super::tuning::{Choice, ConvAlgorithm, DotStrategy, Split};
use super::{Executable, RuntimeError};

/// One thunk with choices.
#[derive(Clone, Debug)]
pub struct Tunable {
    /// Position in the entry sequence.
    pub index: usize,
    /// The thunk's instruction name (the kernel name for kernels).
    pub name: String,
    /// What it does, in words, for the race table.
    pub kind: &'static str,
    /// The choice its default rule makes (always among `candidates`).
    pub default: Choice,
    /// Every candidate, the default first.
    pub candidates: Vec<Choice>,
    /// What the thunk computes, as text: the autotune cache's key is a hash of it (the
    /// fused computation and shapes for a kernel, shapes and dimension numbers for a
    /// dot or convolution), so the same work in another module finds the same entry.
    pub key_text: String,
}

impl Executable {
    /// The thunks of the entry sequence that have more than one candidate.
    pub fn tunables(&self) -> Vec<Tunable> {
        let threads = rayon::current_num_threads() as u64;
        let mut out = Vec::new();
        for (index, t) in self.entry.thunks.iter().enumerate() {
            let (name, kind, default, mut candidates) = match t {
                Thunk::Kernel(k) if k.work_units >= 2 => {
                    let default = if k.parallel {
                        Split::Tasks(threads * 4)
                    } else {
                        Split::Serial
                    };
                    let mut c = vec![Split::Serial];
                    for n in [threads, threads * 4, threads * 16] {
                        if n >= 2 && n <= k.work_units {
                            c.push(Split::Tasks(n));
                        }
                    }
                    (
                        k.name.clone(),
                        "kernel thread split",
                        Choice::Split(default),
                        c.into_iter().map(Choice::Split).collect::<Vec<_>>(),
                    )
                }
                Thunk::Dot(d) | Thunk::OutputFusion { dot: d, .. } => {
                    let default = super::library::dot::default_strategy(d);
                    let mut c = vec![DotStrategy::GemmSerial, DotStrategy::GemmParallel];
                    if !d.dimension_numbers.lhs_batch_dimensions.is_empty() {
                        c.push(DotStrategy::BatchParallel);
                    }
                    (
                        d.name.clone(),
                        "dot: GEMM threading",
                        Choice::Dot(default),
                        c.into_iter().map(Choice::Dot).collect(),
                    )
                }
                Thunk::Convolution(c) if super::library::convolution::nhwc::applies(c) => {
                    let mut candidates = vec![
                        Choice::Conv(ConvAlgorithm::NhwcPatches),
                        Choice::Conv(ConvAlgorithm::GenericIm2col),
                    ];
                    if super::library::convolution::direct::applies(c) {
                        candidates.push(Choice::Conv(ConvAlgorithm::DirectSmallK));
                    }
                    let default = if super::library::convolution::direct::is_default(c) {
                        ConvAlgorithm::DirectSmallK
                    } else {
                        ConvAlgorithm::NhwcPatches
                    };
                    (
                        c.name.clone(),
                        "convolution algorithm",
                        Choice::Conv(default),
                        candidates,
                    )
                }
                _ => continue,
            };
            candidates.retain(|&c| c != default);
            candidates.insert(0, default);
            if candidates.len() > 1 {
                let key_text = self.key_text(t);
                out.push(Tunable {
                    index,
                    name,
                    kind,
                    default,
                    candidates,
                    key_text,
                });
            }
        }
        out
    }

    fn key_text(&self, t: &Thunk) -> String {
        let comp = self.module.entry_computation();
        match t {
            Thunk::Kernel(k) => {
                let Some(id) = comp.find(&k.name) else {
                    return format!("kernel {} units {}", k.name, k.work_units);
                };
                let instr = comp.instr(id);
                let body = match &instr.op {
                    crate::ir::Op::Fusion { calls, .. } => {
                        format!("{:?}", self.module.computation(*calls))
                    }
                    _ => String::new(),
                };
                format!("kernel {} units {}\n{body}", instr.shape, k.work_units)
            }
            Thunk::Dot(d) | Thunk::OutputFusion { dot: d, .. } => format!(
                "dot {} {} -> {} {:?}",
                crate::ir::Shape::Array(d.lhs.shape.clone()),
                crate::ir::Shape::Array(d.rhs.shape.clone()),
                crate::ir::Shape::Array(d.out.shape.clone()),
                d.dimension_numbers
            ),
            Thunk::Convolution(c) => format!(
                "convolution {} {} -> {} {:?} {:?} {} {}",
                crate::ir::Shape::Array(c.lhs.shape.clone()),
                crate::ir::Shape::Array(c.rhs.shape.clone()),
                crate::ir::Shape::Array(c.out.shape.clone()),
                c.window,
                c.dimension_numbers,
                c.feature_group_count,
                c.batch_group_count
            ),
            _ => String::new(),
        }
    }

    /// Makes thunk `index` of the entry sequence use `choice` (ignored if it does not fit).
    pub fn set_choice(&mut self, index: usize, choice: Choice) {
        if let Some(t) = self.entry.thunks.get_mut(index) {
            apply_choice(t, choice);
        }
    }

    /// Runs the whole program once on `args`, then times thunk `index` alone under each of
    /// `choices`, interleaved round by round (so a burst of machine noise hits every
    /// candidate alike), `rounds` times after one warm-up round; milliseconds per run, per
    /// choice. The executable's own choice is not changed.
    pub fn race_thunk(
        &mut self,
        args: &[Literal],
        index: usize,
        choices: &[Choice],
        rounds: usize,
    ) -> Result<Vec<Vec<f64>>, RuntimeError> {
        let mut local = match self.entry.thunks.get(index) {
            Some(Thunk::Kernel(k)) => Thunk::Kernel(k.clone()),
            Some(Thunk::Dot(d)) => Thunk::Dot(d.clone()),
            Some(Thunk::Convolution(c)) => Thunk::Convolution(c.clone()),
            Some(Thunk::OutputFusion {
                dot,
                epilogue,
                units_per_row,
                columns_per_unit,
            }) => Thunk::OutputFusion {
                dot: dot.clone(),
                epilogue: epilogue.clone(),
                units_per_row: *units_per_row,
                columns_per_unit: *columns_per_unit,
            },
            _ => return Err(RuntimeError::new(format!("thunk {index} has no choices"))),
        };
        let mut borrowed: Vec<super::Argument<'_>> =
            args.iter().map(super::Argument::Borrowed).collect();
        let (bases, _) = self.bind(&mut borrowed)?;
        let mut ctx = self.context(bases);
        run_sequence(&self.entry, &mut ctx)?;
        let mut times = vec![Vec::with_capacity(rounds); choices.len()];
        for round in 0..=rounds {
            for (c, &choice) in choices.iter().enumerate() {
                apply_choice(&mut local, choice);
                let start = Instant::now();
                run_single_thunk(&local, &mut ctx)?;
                let ms = start.elapsed().as_secs_f64() * 1e3;
                if round > 0 {
                    times[c].push(ms);
                }
            }
        }
        Ok(times)
    }
}

/// Sets `choice` on `t` if it is the kind of choice `t` takes.
fn apply_choice(t: &mut Thunk, choice: Choice) {
    match (t, choice) {
        (Thunk::Kernel(k), Choice::Split(s)) => k.split = Some(s),
        (Thunk::Dot(d), Choice::Dot(s)) | (Thunk::OutputFusion { dot: d, .. }, Choice::Dot(s)) => {
            d.strategy = Some(s)
        }
        (Thunk::Convolution(c), Choice::Conv(a)) => c.algorithm = Some(a),
        _ => {}
    }
}
