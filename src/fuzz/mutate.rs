//! Mutations: byte-level (bit flips, byte insert/delete/overwrite, interesting integers,
//! range duplication, splices with another input) and token-level for text (numbers
//! replaced by boundary values, words replaced from a dictionary gathered from the corpus,
//! tokens and lines deleted, duplicated or swapped). No coverage feedback: the corpus is
//! fixed, each case is a seed with 1 to 4 mutations stacked.

use std::collections::BTreeSet;

use crate::eval::SplitMix64;

/// The largest input a mutation may produce.
pub const MAX_INPUT: usize = 1 << 20;

/// Boundary numbers for text: zero, signs, powers of two at integer widths, values whose
/// products wrap, huge and odd floats.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "-2",
    "255",
    "256",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "100000000000",
    "1000000000000",
    "4611686018427387904",
    "1e38",
    "3.4e39",
    "-0.0",
    "1e-45",
    "nan",
    "inf",
    "-inf",
    "0x7FC00000",
];

/// Bytes that mean something to the formats: brackets, separators, quotes, NUL, high bits.
const BYTES: &[u8] = b"{}[]()<>,:;=\"'%#@.-x\n \x00\xff\x80\x7f\\";

/// Boundary integers for binary formats, written little-endian at widths 1, 2, 4 and 8.
const INTEGERS: &[u64] = &[
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0xffff,
    0x7fff_ffff,
    0xffff_ffff,
    0x8000_0000,
    u64::MAX,
    1 << 40,
    1 << 62,
];

/// Words seen in the corpus (op names, types, attribute names), for token mutations.
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    words: Vec<String>,
}

impl Dictionary {
    /// Collects up to 4096 distinct identifier-like words from `inputs`.
    pub fn from_corpus(inputs: &[Vec<u8>]) -> Dictionary {
        let mut words = BTreeSet::new();
        'outer: for input in inputs {
            for token in tokens(input) {
                if token.kind == TokenKind::Word && token.end - token.start <= 40 {
                    if let Ok(w) = std::str::from_utf8(&input[token.start..token.end]) {
                        words.insert(w.to_string());
                    }
                    if words.len() >= 4096 {
                        break 'outer;
                    }
                }
            }
        }
        Dictionary {
            words: words.into_iter().collect(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokenKind {
    Number,
    Word,
    Punct,
    Space,
}

#[derive(Clone, Copy, Debug)]
struct Token {
    kind: TokenKind,
    start: usize,
    end: usize,
}

/// Splits text into numbers, words (identifiers with `.`, `_`, `-`, `%`, `@`, `$`),
/// whitespace runs and single punctuation bytes. Non-ASCII bytes count as word bytes.
fn tokens(data: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    let word = |b: u8| b.is_ascii_alphanumeric() || b"._%@$".contains(&b) || b >= 0x80;
    while i < data.len() {
        let b = data[i];
        let start = i;
        let kind = if b.is_ascii_digit()
            || (b == b'-' && data.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
            while i < data.len() && (data[i].is_ascii_alphanumeric() || data[i] == b'.') {
                i += 1;
            }
            TokenKind::Number
        } else if word(b) {
            while i < data.len() && (word(data[i]) || data[i] == b'-' || data[i].is_ascii_digit()) {
                i += 1;
            }
            TokenKind::Word
        } else if b.is_ascii_whitespace() {
            while i < data.len() && data[i].is_ascii_whitespace() {
                i += 1;
            }
            TokenKind::Space
        } else {
            i += 1;
            TokenKind::Punct
        };
        out.push(Token {
            kind,
            start,
            end: i,
        });
    }
    out
}

fn below(rng: &mut SplitMix64, n: usize) -> usize {
    if n == 0 {
        0
    } else {
        (rng.next_u64() % n as u64) as usize
    }
}

fn pick<'a, T>(rng: &mut SplitMix64, items: &'a [T]) -> Option<&'a T> {
    if items.is_empty() {
        None
    } else {
        Some(&items[below(rng, items.len())])
    }
}

/// Applies 1 to 4 random mutations to `input`; `other` is a second corpus entry for
/// splices. Text inputs (valid UTF-8 seeds) get token mutations half of the time.
pub fn mutate(
    input: &[u8],
    other: &[u8],
    dict: &Dictionary,
    text: bool,
    rng: &mut SplitMix64,
) -> Vec<u8> {
    let mut data = input.to_vec();
    let rounds = 1 + below(rng, 4);
    for _ in 0..rounds {
        if text && rng.next_u64().is_multiple_of(2) {
            token_mutation(&mut data, other, dict, rng);
        } else {
            byte_mutation(&mut data, other, rng);
        }
        data.truncate(MAX_INPUT);
    }
    data
}

fn byte_mutation(data: &mut Vec<u8>, other: &[u8], rng: &mut SplitMix64) {
    let len = data.len();
    match below(rng, 9) {
        0 if len > 0 => {
            let i = below(rng, len);
            data[i] ^= 1 << below(rng, 8);
        }
        1 if len > 0 => {
            let i = below(rng, len);
            data[i] = rng.next_u64() as u8;
        }
        2 if len > 0 => {
            let i = below(rng, len);
            data[i] = BYTES[below(rng, BYTES.len())];
        }
        3 => {
            let i = below(rng, len + 1);
            let n = 1 + below(rng, 8);
            let bytes: Vec<u8> = (0..n)
                .map(|_| {
                    if rng.next_u64().is_multiple_of(2) {
                        BYTES[below(rng, BYTES.len())]
                    } else {
                        rng.next_u64() as u8
                    }
                })
                .collect();
            data.splice(i..i, bytes);
        }
        4 if len > 0 => {
            let i = below(rng, len);
            let n = (1 + below(rng, 16)).min(len - i);
            data.drain(i..i + n);
        }
        5 if len > 0 => {
            // Duplicate a range in place.
            let i = below(rng, len);
            let n = (1 + below(rng, 64)).min(len - i);
            let piece = data[i..i + n].to_vec();
            let at = below(rng, len + 1);
            data.splice(at..at, piece);
        }
        6 if !other.is_empty() => {
            // Splice: a range of this input replaced by a range of another.
            let a = below(rng, len + 1);
            let b = (a + below(rng, 256)).min(len);
            let c = below(rng, other.len());
            let d = (c + 1 + below(rng, 256)).min(other.len());
            data.splice(a..b, other[c..d].iter().copied());
        }
        7 if len > 0 => {
            // An interesting integer, little-endian, at a random width.
            let value = INTEGERS[below(rng, INTEGERS.len())];
            let width = [1usize, 2, 4, 8][below(rng, 4)];
            let i = below(rng, len);
            for (k, b) in value.to_le_bytes().iter().take(width).enumerate() {
                if let Some(slot) = data.get_mut(i + k) {
                    *slot = *b;
                }
            }
        }
        _ => {
            // Truncate: a file cut short.
            let at = below(rng, len + 1);
            data.truncate(at);
        }
    }
}

fn token_mutation(data: &mut Vec<u8>, other: &[u8], dict: &Dictionary, rng: &mut SplitMix64) {
    let toks = tokens(data);
    let of_kind = |kind: TokenKind| -> Vec<Token> {
        toks.iter().copied().filter(|t| t.kind == kind).collect()
    };
    let replace = |data: &mut Vec<u8>, t: Token, with: &[u8]| {
        data.splice(t.start..t.end, with.iter().copied());
    };
    match below(rng, 8) {
        0 | 1 => {
            if let Some(&t) = pick(rng, &of_kind(TokenKind::Number)) {
                let n = NUMBERS[below(rng, NUMBERS.len())];
                replace(data, t, n.as_bytes());
            }
        }
        2 => {
            if let (Some(&t), Some(w)) =
                (pick(rng, &of_kind(TokenKind::Word)), pick(rng, &dict.words))
            {
                replace(data, t, w.as_bytes());
            }
        }
        3 => {
            let candidates: Vec<Token> = toks
                .iter()
                .copied()
                .filter(|t| t.kind != TokenKind::Space)
                .collect();
            if let Some(&t) = pick(rng, &candidates) {
                replace(data, t, b"");
            }
        }
        4 => {
            let candidates: Vec<Token> = toks
                .iter()
                .copied()
                .filter(|t| t.kind != TokenKind::Space)
                .collect();
            if let Some(&t) = pick(rng, &candidates) {
                let piece = data[t.start..t.end].to_vec();
                data.splice(t.end..t.end, piece);
            }
        }
        5 => {
            // Swap two tokens (the later one first, so offsets stay valid).
            let candidates: Vec<Token> = toks
                .iter()
                .copied()
                .filter(|t| t.kind != TokenKind::Space)
                .collect();
            if let (Some(&a), Some(&b)) = (pick(rng, &candidates), pick(rng, &candidates)) {
                let (a, b) = if a.start <= b.start { (a, b) } else { (b, a) };
                if a.end <= b.start {
                    let ta = data[a.start..a.end].to_vec();
                    let tb = data[b.start..b.end].to_vec();
                    data.splice(b.start..b.end, ta);
                    data.splice(a.start..a.end, tb);
                }
            }
        }
        6 => line_mutation(data, other, rng),
        _ => {
            // A line of another input inserted here.
            let lines: Vec<&[u8]> = other.split(|&b| b == b'\n').collect();
            if let Some(line) = pick(rng, &lines) {
                let starts = line_starts(data);
                let at = *pick(rng, &starts).unwrap_or(&0);
                let mut piece = line.to_vec();
                piece.push(b'\n');
                data.splice(at..at, piece);
            }
        }
    }
}

fn line_starts(data: &[u8]) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(
        data.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .map(|(i, _)| i + 1),
    );
    starts
}

fn line_mutation(data: &mut Vec<u8>, _other: &[u8], rng: &mut SplitMix64) {
    let starts = line_starts(data);
    let i = below(rng, starts.len());
    let start = starts[i];
    let end = starts.get(i + 1).copied().unwrap_or(data.len());
    match below(rng, 3) {
        0 => {
            data.drain(start..end);
        }
        1 => {
            let line = data[start..end].to_vec();
            data.splice(end..end, line);
        }
        _ => {
            // Move the line elsewhere.
            let line: Vec<u8> = data.drain(start..end).collect();
            let starts = line_starts(data);
            let at = *pick(rng, &starts).unwrap_or(&0);
            data.splice(at..at, line);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_text() {
        let text = b"%x = f32[2,3] add(%a, -1.5e3)";
        let toks = tokens(text);
        let kinds: String = toks
            .iter()
            .map(|t| match t.kind {
                TokenKind::Number => 'n',
                TokenKind::Word => 'w',
                TokenKind::Punct => 'p',
                TokenKind::Space => 's',
            })
            .collect();
        assert_eq!(kinds, "wspswpnpnpswpwpsnp");
        assert_eq!(toks.last().unwrap().end, text.len());
    }

    #[test]
    fn mutations_are_seeded_and_bounded() {
        let seed = b"HloModule m\nENTRY e {\n  ROOT c = f32[2] constant({1, 2})\n}\n".to_vec();
        let dict = Dictionary::from_corpus(std::slice::from_ref(&seed));
        let run = |s: u64| {
            let mut rng = SplitMix64::new(s);
            (0..200)
                .map(|_| mutate(&seed, &seed, &dict, true, &mut rng))
                .collect::<Vec<_>>()
        };
        let a = run(1);
        assert_eq!(a, run(1), "same seed, same cases");
        assert_ne!(a, run(2));
        assert!(a.iter().all(|m| m.len() <= MAX_INPUT));
        assert!(a.iter().any(|m| m != &seed), "mutations change the input");
    }
}
