//! Token-level mutation of program and sketch text: what a user's typo, a wrong size or a
//! misremembered rule name does to a file that works.
//!
//! Text is cut into tokens (names, numbers, runs of white space, single other characters);
//! each mutation deletes, duplicates, swaps or replaces tokens, replacing from the text's own
//! tokens, from a vocabulary of the languages' words (primitives, rule names, keywords), or, for
//! numbers, from sizes that stress the back end (0, 1, 2³¹−1, a tile whose byte count wraps).

use crate::interp::random::Rng;

/// Numbers a mutation substitutes for a number.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "31",
    "32",
    "33",
    "64",
    "1024",
    "65536",
    "1000000",
    "100000000",
    "1518500250",
    "2147483647",
    "4294967295",
    "0.0",
    "1.5",
];

/// Words and symbols of the two languages a mutation may insert.
const KEYWORDS: &[&str] = &[
    "def", "fun", "=>", "|>", "let", "in", "nat", "f32", "i32", "f64", ":", ".", "(", ")", "{",
    "}", "[", "]", ",", "+", "*", "-", "/", "step", "rules", "sketch", "cost", "rule", "=>>",
    "contains", "or", "?", "import", "=", "time", "nodes",
];

/// How a text is cut: the tokens, in order; concatenated they give the text back.
pub fn tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let class = |b: u8| -> u8 {
            if b.is_ascii_alphabetic() || b == b'_' {
                b'a'
            } else if b.is_ascii_digit() {
                b'0'
            } else if b.is_ascii_whitespace() {
                b' '
            } else {
                b'.'
            }
        };
        match class(c) {
            b'a' => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'-')
                {
                    i += 1;
                }
            }
            b'0' => {
                while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                    i += 1;
                }
            }
            b' ' => {
                while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
            }
            _ => {
                // One character (UTF-8 aware).
                i += text[i..].chars().next().map_or(1, char::len_utf8);
            }
        }
        out.push(&text[start..i]);
    }
    out
}

/// `text` with `count` random mutations; `vocabulary` adds words (primitive and rule names).
pub fn mutate(text: &str, count: usize, vocabulary: &[String], rng: &mut Rng) -> String {
    let mut toks: Vec<String> = tokens(text).into_iter().map(str::to_string).collect();
    for _ in 0..count {
        let words: Vec<usize> = (0..toks.len())
            .filter(|&i| !toks[i].trim().is_empty())
            .collect();
        if words.is_empty() {
            break;
        }
        let pick = |rng: &mut Rng| words[rng.below(words.len() as u64) as usize];
        let i = pick(rng);
        match rng.below(6) {
            0 => {
                toks.remove(i);
            }
            1 => {
                let t = toks[i].clone();
                toks.insert(i, t);
            }
            2 => {
                let j = pick(rng);
                toks.swap(i, j);
            }
            3 => {
                let j = pick(rng);
                toks[i] = toks[j].clone();
            }
            4 => {
                toks[i] = if toks[i].starts_with(|c: char| c.is_ascii_digit()) {
                    NUMBERS[rng.below(NUMBERS.len() as u64) as usize].to_string()
                } else {
                    KEYWORDS[rng.below(KEYWORDS.len() as u64) as usize].to_string()
                };
            }
            _ => {
                if !vocabulary.is_empty() {
                    toks[i] = vocabulary[rng.below(vocabulary.len() as u64) as usize].clone();
                }
            }
        }
    }
    toks.concat()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_give_the_text_back() {
        let text = "def f {n : nat} (x : n.f32) : f32 = x |> reduce (+) 0.0 // é\nstep s { rules = [split-join(32)] }";
        assert_eq!(tokens(text).concat(), text);
        assert!(tokens(text).contains(&"split-join"));
        assert!(tokens(text).contains(&"0.0"));
    }

    #[test]
    fn mutations_change_the_text_and_are_reproducible() {
        let text = "def f (x : f32) : f32 = x + 1.0";
        let vocab = vec!["map".to_string()];
        let a = mutate(text, 3, &vocab, &mut Rng::new(5));
        let b = mutate(text, 3, &vocab, &mut Rng::new(5));
        assert_eq!(a, b);
        let changed = (0..20).any(|s| mutate(text, 1, &vocab, &mut Rng::new(s)) != text);
        assert!(changed);
    }
}
