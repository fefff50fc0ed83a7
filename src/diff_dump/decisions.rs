//! xlac's `fusion-decisions.txt`, read back: one line per producer–consumer pair the
//! fusion passes considered, `  fused      PRODUCER -> CONSUMER (into FUSION): RULE` or
//! `  not fused  PRODUCER -> CONSUMER: RULE` (`crate::fusion::decisions::decisions_text`).

/// One decision line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Fused or not.
    pub fused: bool,
    /// The producer's name.
    pub producer: String,
    /// The consumer's name.
    pub consumer: String,
    /// The fusion holding both, when fused.
    pub into: Option<String>,
    /// The rule, in words.
    pub rule: String,
}

/// Reads every decision line; other lines (the header, `pass ..., computation ...:`) are
/// skipped.
pub fn parse_decisions(text: &str) -> Vec<Decision> {
    text.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Decision> {
    let line = line.trim_start();
    let (fused, rest) = if let Some(r) = line.strip_prefix("not fused") {
        (false, r)
    } else if let Some(r) = line.strip_prefix("fused") {
        (true, r)
    } else {
        return None;
    };
    let rest = rest.trim_start();
    let (pair, rule) = rest.split_once(": ")?;
    let (pair, into) = match pair.split_once(" (into ") {
        Some((p, i)) => (p, Some(i.strip_suffix(')')?.to_string())),
        None => (pair, None),
    };
    let (producer, consumer) = pair.split_once(" -> ")?;
    if producer.is_empty() || consumer.is_empty() {
        return None;
    }
    Some(Decision {
        fused,
        producer: producer.to_string(),
        consumer: consumer.to_string(),
        into,
        rule: rule.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_verdicts() {
        let text = "3 producer-consumer pairs considered, 1 fused, 2 not fused\n\n\
                    pass fusion, computation main:\n\
                    \x20 fused      exp.1 -> add.2 (into add_fusion): elementwise producer: fused into its consumer\n\
                    \x20 not fused  dot.3 -> add_fusion: dots are not fused: a: b\n";
        let d = parse_decisions(text);
        assert_eq!(d.len(), 2);
        assert!(d[0].fused);
        assert_eq!(d[0].into.as_deref(), Some("add_fusion"));
        assert_eq!(d[0].producer, "exp.1");
        assert!(!d[1].fused);
        assert_eq!(d[1].consumer, "add_fusion");
        assert_eq!(d[1].rule, "dots are not fused: a: b");
    }

    #[test]
    fn malformed_lines_are_skipped() {
        for bad in [
            "fused",
            "fused a -> b",
            "not fused  -> b: r",
            "fused a -> b (into x: r",
            "fusedx",
        ] {
            assert_eq!(parse_decisions(bad), vec![], "{bad}");
        }
    }
}
