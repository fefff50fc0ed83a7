//! Following one instruction through the provenance log. An instruction is known by
//! (computation, name) at each moment; the events of the log say when that pair hands its
//! value to another one: replaced by `new` (same computation), copied into a computation
//! (inlining, fusion), fused into a fusion instruction. The trace keeps every pair that
//! carries the value and collects the events about them, in order.

use std::collections::HashSet;

use crate::ir::provenance::{Change, Event, Provenance};

/// One thing a pass did that concerns the traced instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The event, as logged.
    pub event: Event,
    /// True when the event is about another instruction that handed its uses to one we
    /// follow (a CSE'd duplicate, a simplified user's replacement).
    pub absorbed: bool,
}

/// The steps about `(computation, name)` and the pairs that carry its value at the end
/// (live or not: the caller checks the final module).
pub fn follow(
    log: &Provenance,
    computation: &str,
    name: &str,
) -> (Vec<Step>, Vec<(String, String)>) {
    let mut tracked: Vec<(String, String)> = vec![(computation.to_string(), name.to_string())];
    let mut dead: HashSet<(String, String)> = HashSet::new();
    let mut steps = Vec::new();
    let is_tracked =
        |tracked: &[(String, String)], dead: &HashSet<(String, String)>, c: &str, n: &str| {
            tracked.iter().any(|(tc, tn)| tc == c && tn == n)
                && !dead.contains(&(c.to_string(), n.to_string()))
        };
    for e in &log.events {
        let ours = is_tracked(&tracked, &dead, &e.computation, &e.instruction);
        if !ours {
            // Another instruction whose uses now go to one we follow.
            if let Change::ReplacedBy { new } = &e.change
                && is_tracked(&tracked, &dead, &e.computation, new)
            {
                steps.push(Step {
                    event: e.clone(),
                    absorbed: true,
                });
            }
            continue;
        }
        let key = (e.computation.clone(), e.instruction.clone());
        match &e.change {
            // A name that is created again belongs to a new instruction: the one we
            // followed was dead already.
            Change::Created { .. } => {
                dead.insert(key);
                continue;
            }
            Change::Removed => {
                dead.insert(key);
            }
            Change::ReplacedBy { new } => add(&mut tracked, &mut dead, &e.computation, new),
            Change::Cloned { computation, name } => add(&mut tracked, &mut dead, computation, name),
            Change::Fused { fusion, .. } => add(&mut tracked, &mut dead, &e.computation, fusion),
        }
        steps.push(Step {
            event: e.clone(),
            absorbed: false,
        });
    }
    (steps, tracked)
}

fn add(
    tracked: &mut Vec<(String, String)>,
    dead: &mut HashSet<(String, String)>,
    computation: &str,
    name: &str,
) {
    let key = (computation.to_string(), name.to_string());
    dead.remove(&key);
    if !tracked.contains(&key) {
        tracked.push(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(pass: &str, c: &str, n: &str, change: Change) -> Event {
        Event {
            pass: pass.into(),
            computation: c.into(),
            instruction: n.into(),
            change,
        }
    }

    #[test]
    fn follows_replacements_clones_and_fusions() {
        let log = Provenance {
            events: vec![
                ev("a/algsimp", "main", "other", Change::Removed),
                ev(
                    "a/cse",
                    "main",
                    "dup",
                    Change::ReplacedBy { new: "t".into() },
                ),
                ev(
                    "f/fusion",
                    "main",
                    "t",
                    Change::Fused {
                        fusion: "t_fusion".into(),
                        rule: "r".into(),
                    },
                ),
                ev(
                    "f/fusion",
                    "main",
                    "t",
                    Change::Cloned {
                        computation: "fused_computation".into(),
                        name: "t".into(),
                    },
                ),
                ev(
                    "f/fusion",
                    "main",
                    "t_fusion",
                    Change::ReplacedBy { new: "gte".into() },
                ),
            ],
        };
        let (steps, tracked) = follow(&log, "main", "t");
        assert_eq!(steps.len(), 4);
        assert!(steps[0].absorbed);
        assert!(tracked.contains(&("fused_computation".into(), "t".into())));
        assert!(tracked.contains(&("main".into(), "gte".into())));
    }

    #[test]
    fn a_recreated_name_is_not_followed() {
        let log = Provenance {
            events: vec![
                ev("p/dce", "main", "t", Change::Removed),
                ev("p/x", "main", "t", Change::Created { requested: None }),
                ev("p/y", "main", "t", Change::Removed),
            ],
        };
        let (steps, _) = follow(&log, "main", "t");
        assert_eq!(steps.len(), 1);
    }
}
