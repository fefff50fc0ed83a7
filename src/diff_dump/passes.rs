//! The numbered pass files of a dump, `SSSS.PIPELINE.after_PASS.before_NEXT.txt` (XLA's
//! copy-insertion writes `SSSS.copy-insertion.after_STEP.txt`, without `before_`), and how
//! many instructions each holds. Counting is textual, so a pass file xlac's parser would
//! reject (an intermediate state of an XLA pipeline) still counts.

/// Instructions in a module's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// In the `ENTRY` computation.
    pub entry: usize,
    /// In every computation.
    pub all: usize,
}

/// One numbered pass file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassFile {
    /// `SSSS`: the order the dump was written in.
    pub number: u32,
    /// The pipeline that ran the pass.
    pub pipeline: String,
    /// The pass (`pipeline-start` for the file written when a pipeline starts).
    pub pass: String,
    /// Instructions in the file.
    pub counts: Counts,
    /// The file's name.
    pub file: String,
}

/// Parses the part of a pass file's name after `module_NNNN.NAME.`; `None` when it is not
/// a pass file.
pub fn parse_pass_file_name(rest: &str) -> Option<PassFile> {
    let rest = rest.strip_suffix(".txt")?;
    let (number, rest) = rest.split_once('.')?;
    if number.len() != 4 || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let at = rest.find(".after_")?;
    let pipeline = &rest[..at];
    let after = &rest[at + ".after_".len()..];
    let pass = after.split(".before_").next().unwrap_or(after);
    if pipeline.is_empty() || pass.is_empty() {
        return None;
    }
    Some(PassFile {
        number: number.parse().ok()?,
        pipeline: pipeline.to_string(),
        pass: pass.to_string(),
        counts: Counts::default(),
        file: String::new(),
    })
}

/// Counts instruction lines (`  [ROOT] [%]name = ...`) inside computation bodies: a body
/// opens with a header line ending in `{` that is not an instruction and closes with `}`.
pub fn count_instructions(text: &str) -> Counts {
    let mut counts = Counts::default();
    let mut inside: Option<bool> = None; // Some(is_entry) within a body
    for line in text.lines() {
        let trimmed = line.trim();
        match inside {
            None => {
                if trimmed.ends_with('{')
                    && !is_instruction(trimmed)
                    && !trimmed.starts_with("HloModule")
                {
                    inside = Some(trimmed.starts_with("ENTRY"));
                }
            }
            Some(is_entry) => {
                if trimmed == "}" {
                    inside = None;
                } else if is_instruction(trimmed) {
                    counts.all += 1;
                    if is_entry {
                        counts.entry += 1;
                    }
                }
            }
        }
    }
    counts
}

/// `ROOT %add.3 = f32[] add(...)` or `x = ...`: an optional `ROOT`, a name, ` = `.
fn is_instruction(line: &str) -> bool {
    let line = line.strip_prefix("ROOT ").unwrap_or(line);
    let line = line.strip_prefix('%').unwrap_or(line);
    let name_len = line
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        .count();
    name_len > 0 && line[name_len..].trim_start().starts_with("= ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pass_file_names_of_both_dumps_parse() {
        let p = parse_pass_file_name(
            "0005.HLO_passes_through_layout_assignment.after_dot_decomposer.before_operand_upcaster.txt",
        )
        .unwrap();
        assert_eq!(
            (p.number, p.pipeline.as_str(), p.pass.as_str()),
            (5, "HLO_passes_through_layout_assignment", "dot_decomposer")
        );
        let p = parse_pass_file_name(
            "0036.copy-insertion.after_adding_copies_to_resolve_interference.txt",
        )
        .unwrap();
        assert_eq!(p.pass, "adding_copies_to_resolve_interference");
        for bad in [
            "before_optimizations.txt",
            "cpu_after_optimizations.txt",
            "12.x.after_y.txt",
            "0001.after_y.txt",
            "0001.p.after_.txt",
            "0001.p.after_x",
            "",
        ] {
            assert_eq!(parse_pass_file_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn counts_entry_and_all_instructions() {
        let text = "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\n\
                    %add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n\
                    ENTRY %main (p: f32[2]) -> f32[2] {\n  %p = f32[2]{0} parameter(0)\n  ROOT %n = f32[2]{0} negate(%p), metadata={op_name=\"a = b\"}\n}\n";
        assert_eq!(count_instructions(text), Counts { entry: 2, all: 5 });
        assert_eq!(count_instructions(""), Counts::default());
        assert_eq!(count_instructions("}\n{\n= \n"), Counts::default());
    }
}
