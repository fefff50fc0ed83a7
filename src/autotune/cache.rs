//! The on-disk autotune cache: one JSON file mapping "CPU | thunk fingerprint" to the
//! winning choice, so a later compile on the same machine uses what an earlier
//! `--autotune` race found without racing again. The file is `$XLAC_AUTOTUNE_CACHE`, or
//! `$HOME/.cache/xlac/autotune.json`.
//! XLA: the autotune results file of `--xla_gpu_per_fusion_autotune_cache_dir`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::AutotuneError;
use crate::runtime::tuning::Choice;

/// The cache file's location.
pub fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("XLAC_AUTOTUNE_CACHE") {
        return Some(PathBuf::from(p));
    }
    let home = std::env::var_os("HOME")?;
    Some(Path::new(&home).join(".cache/xlac/autotune.json"))
}

/// One remembered race result.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The winner.
    pub choice: Choice,
    /// Its median, and the default's, in milliseconds, when raced.
    pub winner_ms: f64,
    /// The default choice's median.
    pub default_ms: f64,
}

/// The cache's contents, keyed by `cpu|fingerprint`.
#[derive(Debug, Default)]
pub struct Cache {
    entries: BTreeMap<String, Entry>,
}

impl Cache {
    /// Reads `path`; a missing file is an empty cache, a damaged one an error.
    pub fn load(path: &Path) -> Result<Cache, AutotuneError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Cache::default()),
            Err(e) => return Err(AutotuneError::cache(path, format!("cannot read it: {e}"))),
        };
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| AutotuneError::cache(path, format!("not an autotune cache: {e}")))?;
        let mut entries = BTreeMap::new();
        if let Some(map) = v.get("entries").and_then(Value::as_object) {
            for (key, e) in map {
                let choice = e
                    .get("choice")
                    .and_then(Value::as_str)
                    .and_then(Choice::parse);
                let ms = |k: &str| e.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
                if let Some(choice) = choice {
                    entries.insert(
                        key.clone(),
                        Entry {
                            choice,
                            winner_ms: ms("winner_ms"),
                            default_ms: ms("default_ms"),
                        },
                    );
                }
            }
        }
        Ok(Cache { entries })
    }

    /// Writes the cache to `path` (creating its folder).
    pub fn save(&self, path: &Path) -> Result<(), AutotuneError> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                AutotuneError::cache(path, format!("cannot create {}: {e}", dir.display()))
            })?;
        }
        let entries: serde_json::Map<String, Value> = self
            .entries
            .iter()
            .map(|(k, e)| {
                (
                    k.clone(),
                    json!({
                        "choice": e.choice.to_string(),
                        "winner_ms": e.winner_ms,
                        "default_ms": e.default_ms,
                    }),
                )
            })
            .collect();
        let text = serde_json::to_string_pretty(&json!({ "version": 1, "entries": entries }))
            .map_err(|e| AutotuneError::cache(path, e.to_string()))?;
        std::fs::write(path, text)
            .map_err(|e| AutotuneError::cache(path, format!("cannot write it: {e}")))
    }

    /// The entry for `key`.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// Remembers a race result.
    pub fn insert(&mut self, key: String, entry: Entry) {
        self.entries.insert(key, entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::tuning::{DotStrategy, Split};

    #[test]
    fn entries_survive_a_save_and_load() {
        let dir = std::env::temp_dir().join(format!("xlac-cache-test-{}", std::process::id()));
        let path = dir.join("autotune.json");
        let mut c = Cache::default();
        let a = Entry {
            choice: Choice::Split(Split::Tasks(2)),
            winner_ms: 1.5,
            default_ms: 2.0,
        };
        c.insert("cpu|1".into(), a.clone());
        c.insert(
            "cpu|2".into(),
            Entry {
                choice: Choice::Dot(DotStrategy::BatchParallel),
                winner_ms: 0.5,
                default_ms: 0.5,
            },
        );
        c.save(&path).unwrap();
        let back = Cache::load(&path).unwrap();
        assert_eq!(back.get("cpu|1"), Some(&a));
        assert_eq!(
            back.get("cpu|2").map(|e| e.choice),
            Some(Choice::Dot(DotStrategy::BatchParallel))
        );
        assert!(
            Cache::load(&dir.join("missing.json"))
                .unwrap()
                .get("cpu|1")
                .is_none()
        );
        std::fs::write(&path, "not json").unwrap();
        assert!(Cache::load(&path).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
