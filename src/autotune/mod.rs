//! `--autotune`: where a fixed rule cannot rank the candidates on paper (how many tasks a
//! kernel call splits into, whether a dot threads inside the GEMM or across batches,
//! which convolution algorithm runs), race them on the real shapes and keep the winner.
//!
//! A race runs the whole program once on inputs of the entry parameters' shapes (random
//! values, as `xlac run` makes), then times the one thunk alone under each candidate,
//! interleaved round by round so machine noise hits every candidate alike; the median
//! decides. The default choice stays unless a candidate's median beats it by more than
//! [`NOISE`], so a winner is never slower than the default by more than noise. Results go
//! to the on-disk cache (`cache.rs`) keyed by CPU and a hash of what the thunk computes;
//! compiles without `--autotune` use the cache when it has an entry. With `--dump-to`,
//! every raced or cached thunk gets `KERNEL.autotune.txt`: each candidate, its times, the
//! winner.
//! XLA: `xla/service/gpu/autotuning/gemm_fusion_autotuner.cc` races Triton configs the
//! same way on GPUs; XLA:CPU has no autotuner.

pub mod cache;

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::io::random_inputs::random_literal;
use crate::runtime::Executable;
use crate::runtime::race::Tunable;
use crate::runtime::tuning::Choice;

/// A candidate must beat the default's median by this fraction to replace it.
pub const NOISE: f64 = 0.03;

/// Timed rounds per race: at least this many.
const MIN_ROUNDS: usize = 5;
/// And at most this many.
const MAX_ROUNDS: usize = 31;
/// Time budget of one race's timed rounds, in milliseconds.
const RACE_BUDGET_MS: f64 = 300.0;

/// What a compile does about tuning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AutotuneMode {
    /// Use cached winners when the cache has them; race nothing (the default).
    #[default]
    UseCache,
    /// Race every tunable thunk, update the cache, use the winners (`--autotune`).
    Race,
    /// Neither read nor write the cache.
    Off,
}

/// One candidate's times in a race.
#[derive(Clone, Debug)]
pub struct Timing {
    /// The candidate.
    pub choice: Choice,
    /// Median milliseconds.
    pub median_ms: f64,
    /// Fastest run.
    pub min_ms: f64,
}

/// The outcome for one thunk.
#[derive(Clone, Debug)]
pub struct Race {
    /// The thunk's name (kernel or instruction).
    pub thunk: String,
    /// What was tuned.
    pub kind: &'static str,
    /// Hash of what the thunk computes (the cache key with the CPU).
    pub fingerprint: u64,
    /// The default rule's choice.
    pub default: Choice,
    /// What the thunk now uses.
    pub winner: Choice,
    /// Every candidate's times (empty when the winner came from the cache).
    pub timings: Vec<Timing>,
    /// Timed rounds per candidate.
    pub rounds: usize,
    /// True if the winner came from the cache without a race.
    pub from_cache: bool,
}

impl Race {
    /// `KERNEL.autotune.txt`.
    pub fn table(&self, cpu: &str, cache_path: Option<&PathBuf>) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "autotune {} ({})", self.thunk, self.kind);
        let _ = writeln!(out, "cpu: {cpu}");
        let _ = writeln!(out, "fingerprint: {:016x}", self.fingerprint);
        if let Some(p) = cache_path {
            let _ = writeln!(out, "cache: {}", p.display());
        }
        if self.from_cache {
            let _ = writeln!(
                out,
                "winner: {} (from the cache: raced by an earlier --autotune; default {})",
                self.winner, self.default
            );
            return out;
        }
        let _ = writeln!(
            out,
            "race: {} timed rounds after 1 warm-up, candidates interleaved; milliseconds",
            self.rounds
        );
        let _ = writeln!(out, "{:<18} {:>10} {:>10}", "candidate", "median", "min");
        for t in &self.timings {
            let mut mark = String::new();
            if t.choice == self.default {
                mark.push_str(" default");
            }
            if t.choice == self.winner {
                mark.push_str(" winner");
            }
            let _ = writeln!(
                out,
                "{:<18} {:>10.4} {:>10.4}{mark}",
                t.choice.to_string(),
                t.median_ms,
                t.min_ms
            );
        }
        let median = |c: Choice| {
            self.timings
                .iter()
                .find(|t| t.choice == c)
                .map_or(f64::NAN, |t| t.median_ms)
        };
        let _ = writeln!(
            out,
            "winner: {} ({:.3}x the default's median; a candidate must beat the default by {:.0}%)",
            self.winner,
            median(self.winner) / median(self.default),
            NOISE * 100.0
        );
        out
    }
}

/// This machine, as the cache keys it: architecture, CPU model, threads.
pub fn cpu_id() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name") || l.starts_with("uarch"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    format!(
        "{} {model} x{}",
        std::env::consts::ARCH,
        rayon::current_num_threads()
    )
}

/// FNV-1a: a stable 64-bit hash (the standard library's may change between releases).
fn fingerprint(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Why tuning failed.
#[derive(Debug, Clone, PartialEq)]
pub enum AutotuneError {
    /// The cache file could not be read, parsed or written.
    Cache {
        /// The cache file.
        path: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A race's run failed.
    Race {
        /// The raced thunk.
        thunk: String,
        /// The run's error.
        error: crate::runtime::RuntimeError,
    },
}

impl AutotuneError {
    fn cache(path: &std::path::Path, reason: impl Into<String>) -> AutotuneError {
        AutotuneError::Cache {
            path: path.to_path_buf(),
            reason: reason.into(),
        }
    }

    /// A damaged cache is the user's file; a failed race keeps its run's kind.
    pub fn kind(&self) -> crate::ir::ErrorKind {
        match self {
            AutotuneError::Cache { .. } => crate::ir::ErrorKind::Invalid,
            AutotuneError::Race { error, .. } => error.kind,
        }
    }
}

impl std::fmt::Display for AutotuneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AutotuneError::Cache { path, reason } => write!(f, "{}: {reason}", path.display()),
            AutotuneError::Race { thunk, error } => write!(f, "autotuning {thunk}: {error}"),
        }
    }
}

impl std::error::Error for AutotuneError {}

/// Tunes `exe` as `mode` says; returns one [`Race`] per thunk raced or taken from the cache.
pub fn tune(exe: &mut Executable, mode: AutotuneMode) -> Result<Vec<Race>, AutotuneError> {
    if mode == AutotuneMode::Off {
        return Ok(Vec::new());
    }
    let Some(path) = cache::default_path() else {
        return Ok(Vec::new());
    };
    if mode == AutotuneMode::UseCache && !path.exists() {
        return Ok(Vec::new());
    }
    let mut cache = cache::Cache::load(&path)?;
    let cpu = cpu_id();
    let tunables = exe.tunables();
    let args = if mode == AutotuneMode::Race && !tunables.is_empty() {
        synthetic_inputs(exe)
    } else {
        Vec::new()
    };
    let mut races = Vec::new();
    for t in tunables {
        let fp = fingerprint(&t.key_text);
        let key = format!("{cpu}|{fp:016x}");
        if mode == AutotuneMode::UseCache {
            if let Some(e) = cache.get(&key)
                && t.candidates.contains(&e.choice)
            {
                exe.set_choice(t.index, e.choice);
                races.push(Race {
                    thunk: t.name.clone(),
                    kind: t.kind,
                    fingerprint: fp,
                    default: t.default,
                    winner: e.choice,
                    timings: Vec::new(),
                    rounds: 0,
                    from_cache: true,
                });
            }
            continue;
        }
        let race = race(exe, &args, &t, fp).map_err(|error| AutotuneError::Race {
            thunk: t.name.clone(),
            error,
        })?;
        exe.set_choice(t.index, race.winner);
        let median = |c: Choice| {
            race.timings
                .iter()
                .find(|x| x.choice == c)
                .map_or(f64::NAN, |x| x.median_ms)
        };
        cache.insert(
            key,
            cache::Entry {
                choice: race.winner,
                winner_ms: median(race.winner),
                default_ms: median(race.default),
            },
        );
        races.push(race);
    }
    if mode == AutotuneMode::Race && !races.is_empty() {
        cache.save(&path)?;
    }
    Ok(races)
}

/// One race: a probe run sizes the rounds to the budget, then the interleaved rounds.
fn race(
    exe: &mut Executable,
    args: &[crate::ir::Literal],
    t: &Tunable,
    fingerprint: u64,
) -> Result<Race, crate::runtime::RuntimeError> {
    let probe = exe.race_thunk(args, t.index, &t.candidates, 1)?;
    let per_round: f64 = probe.iter().map(|v| v[0]).sum::<f64>().max(1e-3);
    let rounds = ((RACE_BUDGET_MS / per_round) as usize).clamp(MIN_ROUNDS, MAX_ROUNDS);
    let times = exe.race_thunk(args, t.index, &t.candidates, rounds)?;
    let timings: Vec<Timing> = t
        .candidates
        .iter()
        .zip(times)
        .map(|(&choice, mut v)| {
            v.sort_by(f64::total_cmp);
            Timing {
                choice,
                median_ms: v[v.len() / 2],
                min_ms: v[0],
            }
        })
        .collect();
    let default_ms = timings[0].median_ms;
    let best = timings
        .iter()
        .min_by(|a, b| a.median_ms.total_cmp(&b.median_ms))
        .map_or(t.default, |b| b.choice);
    let best_ms = timings
        .iter()
        .find(|x| x.choice == best)
        .map_or(default_ms, |x| x.median_ms);
    let winner = if best_ms < default_ms * (1.0 - NOISE) {
        best
    } else {
        t.default
    };
    Ok(Race {
        thunk: t.name.clone(),
        kind: t.kind,
        fingerprint,
        default: t.default,
        winner,
        timings,
        rounds,
        from_cache: false,
    })
}

/// Random values of the entry parameters' shapes (the same generator as `xlac run`).
fn synthetic_inputs(exe: &Executable) -> Vec<crate::ir::Literal> {
    let entry = exe.module.entry_computation();
    let mut params: Vec<(usize, crate::ir::Shape)> = entry
        .parameters()
        .iter()
        .filter_map(|&p| match entry.instr(p).op {
            crate::ir::Op::Parameter { number } => Some((number, entry.instr(p).shape.clone())),
            _ => None,
        })
        .collect();
    params.sort_by_key(|(n, _)| *n);
    params
        .iter()
        .map(|(n, shape)| random_literal(shape, 0, *n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_stable_and_distinguish_texts() {
        // FNV-1a's published test vectors.
        assert_eq!(fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
        assert_ne!(fingerprint("dot f32[2,3]"), fingerprint("dot f32[3,2]"));
    }
}
