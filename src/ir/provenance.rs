//! Provenance: a log of what each pass did to each instruction, written by the passes
//! themselves at the moment they rewrite (so `xlac explain` reports facts, not guesses made
//! from names afterwards).
//!
//! The log is fed by one-line hooks at the places where instructions change identity: the
//! rewrite helpers of `rewrite.rs` (`replace_all_uses` = "replaced by", the removal helpers
//! = "removed", `insert_before`/`insert_after` = "created"), cloning into another
//! computation (call inlining, fusion) and the fusion decisions ("fused into F by rule R").
//! The pass manager (`pipeline::Pipeline`) tells the log which pass is running, so every
//! event names its pass.
//!
//! The recorder is per thread and off unless a [`Recording`] is alive: the hooks sit in
//! helpers that have no module or pass context to thread a log through, and a compile runs
//! its passes on one thread. While off, a hook costs one thread-local read.
//!
//! What it is not: a record of in-place edits (a pass that rewrites an instruction's op or
//! layout without replacing it leaves no event), and not a diff of dumps. XLA has no such
//! log; the closest are `HloInstruction::metadata` (which survives rewrites) and the pass
//! dumps (`--xla_dump_hlo_pass_re`).

use std::cell::RefCell;
use std::fmt;

/// What happened to one instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// Every use of the instruction now uses `new` (XLA's `ReplaceAllUsesWith`): a
    /// simplification, a folded constant, a CSE'd duplicate, an expansion.
    ReplacedBy {
        /// The instruction that took over the uses, in the same computation.
        new: String,
    },
    /// Dropped from its computation (dead, or moved elsewhere).
    Removed,
    /// Added by the pass. `requested` is the name the pass asked for when the computation
    /// had to rename the instruction to keep names unique.
    Created {
        /// The name asked for, when it differs from the one given.
        requested: Option<String>,
    },
    /// Copied into another computation (call inlining, fusion), where it computes the same
    /// value under `name`.
    Cloned {
        /// The computation the copy lives in.
        computation: String,
        /// The copy's name there.
        name: String,
    },
    /// Fused into the fusion instruction `fusion` (same computation), by `rule`: the
    /// sentence `fusion-decisions.txt` prints for the fusion pass's typed rule.
    Fused {
        /// The fusion instruction that computes it now.
        fusion: String,
        /// Why (`FusionRule`'s sentence).
        rule: String,
    },
}

/// One entry of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// The running pass, as `pipeline/pass` (`simplification/algsimp`).
    pub pass: String,
    /// The computation the instruction belonged to when it happened.
    pub computation: String,
    /// The instruction's name at that time.
    pub instruction: String,
    /// What happened.
    pub change: Change,
}

/// The whole log of one compile, in the order things happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Provenance {
    /// Every event.
    pub events: Vec<Event>,
}

impl Provenance {
    /// Events about the instruction `name` of computation `computation`.
    pub fn about<'a>(
        &'a self,
        computation: &'a str,
        name: &'a str,
    ) -> impl Iterator<Item = &'a Event> + 'a {
        self.events
            .iter()
            .filter(move |e| e.computation == computation && e.instruction == name)
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::ReplacedBy { new } => write!(f, "replaced by %{new}"),
            Change::Removed => write!(f, "removed"),
            Change::Created { requested: None } => write!(f, "created"),
            Change::Created { requested: Some(r) } => {
                write!(f, "created (asked for %{r}, renamed to stay unique)")
            }
            Change::Cloned { computation, name } => {
                write!(f, "copied into {computation} as %{name}")
            }
            Change::Fused { fusion, rule } => write!(f, "fused into %{fusion}: {rule}"),
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: %{} in {} {}",
            self.pass, self.instruction, self.computation, self.change
        )
    }
}

struct Recorder {
    pass: String,
    events: Vec<Event>,
}

thread_local! {
    static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
}

/// While alive, hooks on this thread append to a log; [`Recording::finish`] returns it.
/// Nested recordings stack: the inner one collects until it ends, then the outer resumes.
pub struct Recording {
    outer: Option<Recorder>,
    done: bool,
}

impl Recording {
    /// Starts recording on this thread.
    pub fn start() -> Recording {
        let outer = RECORDER.with(|r| {
            r.borrow_mut().replace(Recorder {
                pass: String::from("(no pass)"),
                events: Vec::new(),
            })
        });
        Recording { outer, done: false }
    }

    /// Stops recording and returns the log.
    pub fn finish(mut self) -> Provenance {
        self.done = true;
        let outer = self.outer.take();
        let ours = RECORDER.with(|r| std::mem::replace(&mut *r.borrow_mut(), outer));
        Provenance {
            events: ours.map(|r| r.events).unwrap_or_default(),
        }
    }
}

impl Drop for Recording {
    fn drop(&mut self) {
        if !self.done {
            let outer = self.outer.take();
            RECORDER.with(|r| *r.borrow_mut() = outer);
        }
    }
}

/// True while a [`Recording`] is alive on this thread.
pub fn is_recording() -> bool {
    RECORDER.with(|r| r.borrow().is_some())
}

/// Names the pass whose events follow (called by the pass manager before each pass).
pub fn set_pass(pipeline: &str, pass: &str) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            rec.pass = format!("{pipeline}/{pass}");
        }
    });
}

/// Appends an event about instruction `instruction` of `computation`, if recording.
/// `change` is only called when recording, so a hook costs nothing otherwise.
pub fn record(computation: &str, instruction: &str, change: impl FnOnce() -> Change) {
    RECORDER.with(|r| {
        if let Some(rec) = r.borrow_mut().as_mut() {
            let event = Event {
                pass: rec.pass.clone(),
                computation: computation.to_string(),
                instruction: instruction.to_string(),
                change: change(),
            };
            rec.events.push(event);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_only_while_recording_and_names_the_pass() {
        record("main", "a", || Change::Removed);
        let rec = Recording::start();
        set_pass("simplification", "dce");
        record("main", "b", || Change::Removed);
        let log = rec.finish();
        record("main", "c", || Change::Removed);
        assert_eq!(log.events.len(), 1);
        assert_eq!(log.events[0].pass, "simplification/dce");
        assert_eq!(log.events[0].instruction, "b");
        assert!(!is_recording());
    }

    #[test]
    fn nested_recordings_restore_the_outer_one() {
        let outer = Recording::start();
        record("m", "x", || Change::Removed);
        {
            let inner = Recording::start();
            record("m", "y", || Change::Removed);
            assert_eq!(inner.finish().events.len(), 1);
        }
        record("m", "z", || Change::Removed);
        let names: Vec<String> = outer
            .finish()
            .events
            .into_iter()
            .map(|e| e.instruction)
            .collect();
        assert_eq!(names, vec!["x", "z"]);
    }
}
