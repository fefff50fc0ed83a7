//! The buffer plan of a dump, read from `*-buffer-assignment.txt` (XLA's format, which xlac
//! writes too): `allocation N: size S, KIND...:` lines, each followed by the values placed
//! in it (` value: <ID NAME @0> (size=...,offset=...): SHAPE`).

/// One allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    /// `allocation N`.
    pub index: usize,
    /// Bytes.
    pub size: u64,
    /// What it is, as the file says it after the size (`parameter 0`, `constant`,
    /// `preallocated-temp`, `maybe-live-out`, `thread-local`).
    pub kind: String,
    /// Names of the values placed in it.
    pub values: Vec<String>,
}

/// The plan's figures a comparison needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BufferSummary {
    /// Every allocation, in file order.
    pub allocations: Vec<Allocation>,
}

impl BufferSummary {
    /// Bytes of the `preallocated-temp` allocations (XLA's `temp_size_in_bytes`).
    pub fn temp_bytes(&self) -> u64 {
        self.allocations
            .iter()
            .filter(|a| a.kind.contains("preallocated-temp"))
            .map(|a| a.size)
            .sum()
    }

    /// The `n` largest allocations, largest first (file order among equals).
    pub fn largest(&self, n: usize) -> Vec<&Allocation> {
        let mut all: Vec<&Allocation> = self.allocations.iter().collect();
        all.sort_by(|a, b| b.size.cmp(&a.size).then(a.index.cmp(&b.index)));
        all.truncate(n);
        all
    }
}

/// Reads the allocations of a buffer-assignment file; lines it does not recognize are
/// skipped (the file carries more sections than this needs).
pub fn parse_buffer_assignment(text: &str) -> BufferSummary {
    let mut summary = BufferSummary::default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("allocation ") {
            let Some((index, rest)) = rest.split_once(": size ") else {
                continue;
            };
            let Ok(index) = index.trim().parse() else {
                continue;
            };
            let (size, kind) = rest
                .split_once(',')
                .unwrap_or((rest.trim_end_matches(':'), ""));
            let Ok(size) = size.trim().parse() else {
                continue;
            };
            summary.allocations.push(Allocation {
                index,
                size,
                kind: allocation_kind(kind),
                values: Vec::new(),
            });
        } else if let Some(rest) = line.trim_start().strip_prefix("value: <") {
            // XLA writes `<223 w1.1 @0>`, xlac `<223 w1.1>`.
            let name = rest
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .trim_end_matches('>');
            if let Some(last) = summary.allocations.last_mut()
                && !name.is_empty()
            {
                last.values.push(name.to_string());
            }
        }
    }
    summary
}

/// `parameter 9, shape |f32[32,64]| at ShapeIndex {}:` → `parameter 9`;
/// `output shape is |f32[2]|, maybe-live-out:` → `maybe-live-out`; ` constant:` → `constant`.
fn allocation_kind(text: &str) -> String {
    let text = text.trim().trim_end_matches(':');
    let parts: Vec<&str> = text
        .split(", ")
        .map(str::trim)
        .filter(|p| !p.starts_with("shape ") && !p.starts_with("output shape"))
        .collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const XLA: &str = "BufferAssignment:\n\
allocation 0: size 8192, parameter 9, shape |f32[32,64]| at ShapeIndex {}:\n value: <223 w1.1 @0> (size=8192,offset=0): f32[32,64]{1,0}\n\
allocation 6: size 2048, output shape is |f32[2,8,32]|, maybe-live-out:\n value: <196 add_fusion.1 @0> (size=2048,offset=0): f32[16,32]{1,0}\n value: <199 t.2 @0> (size=2048,offset=0): f32[2,4,8,8]{3,2,1,0}\n\
allocation 14: size 4, constant:\n value: <193 constant.25 @0> (size=4,offset=0): f32[]\n\
allocation 33: size 8192, preallocated-temp:\n value: <1 a @0> (size=4096,offset=0): f32[1024]{0}\n\
allocation 34: size 100, preallocated-temp:\n value: <2 b>\n";

    #[test]
    fn reads_allocations_kinds_and_values() {
        let s = parse_buffer_assignment(XLA);
        assert_eq!(s.allocations.len(), 5);
        assert_eq!(s.allocations[0].kind, "parameter 9");
        assert_eq!(s.allocations[1].kind, "maybe-live-out");
        assert_eq!(s.allocations[1].values, vec!["add_fusion.1", "t.2"]);
        assert_eq!(s.allocations[2].kind, "constant");
        assert_eq!(s.temp_bytes(), 8292);
        assert_eq!(s.allocations[4].values, vec!["b"]);
        let big: Vec<usize> = s.largest(2).iter().map(|a| a.index).collect();
        assert_eq!(big, vec![0, 33]);
    }

    #[test]
    fn bad_lines_are_skipped() {
        let s = parse_buffer_assignment(
            "allocation x: size 3, constant:\nallocation 1: size -3, constant:\nallocation 2: size 7\n value: <\n value: <1>\n",
        );
        assert_eq!(s.allocations.len(), 1);
        assert_eq!(
            (s.allocations[0].size, s.allocations[0].kind.as_str()),
            (7, "")
        );
    }
}
