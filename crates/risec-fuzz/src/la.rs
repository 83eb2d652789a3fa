//! The `la` family: `.la` files through `risec la`: the shipped workloads with assertions
//! added and tokens mutated (operators, functions, shapes, sizes up to 10⁹ and past 2⁶⁴,
//! non-zeros), generated files whose expressions are built to fit their shapes (small ones,
//! whose plans and proven assertions the dense evaluator checks, and large sparse ones), true
//! and false assertions, and long `let` chains; with random schedulers (`mcts` is refused),
//! seeds, `--time`, `--nodes` and `--iterations`.

use super::draws::{log_uniform, one_in, pick, time};
use super::shipped::LA_FILES;
use super::{mutate, Case, Family, Input, Settings};
use crate::eqsat::schedule::Scheduler;
use crate::interp::random::Rng;
use std::fmt::Write;

/// Words of the `.la` language a mutation inserts, and sizes.
const VOCABULARY: &[&str] = &[
    "%*%",
    "@",
    "+",
    "-",
    "*",
    "/",
    "^",
    "t",
    "sum",
    "rowSums",
    "colSums",
    "exp",
    "log",
    "sqrt",
    "abs",
    "sigmoid",
    "relu",
    "input",
    "let",
    "output",
    "assert",
    "scalar",
    "nnz",
    "sparsity",
    "x",
    ",",
    "==",
    "(",
    ")",
    "1000000000",
    "1e9",
    "0.5",
    "-1",
    "18446744073709551616",
];

/// Dimension sizes of generated files: small ones (checked numerically) and large ones.
const SMALL: &[u64] = &[2, 3, 4, 5, 7, 8];
const LARGE: &[u64] = &[1000, 20_000, 1_000_000, 1_000_000_000];

/// A generated file under construction: dimension sizes (index 0 is 1: vectors and scalars)
/// and the inputs declared so far.
struct Gen {
    dims: Vec<u64>,
    inputs: Vec<(usize, usize, String)>,
    decls: String,
    sparse: bool,
    /// The first letter of the inputs' names (`M0`, `M1`, …).
    prefix: char,
}

impl Gen {
    fn new(rng: &mut Rng, large: bool) -> Gen {
        let mut dims = vec![1];
        for _ in 0..2 + rng.below(2) {
            dims.push(if large {
                *pick(rng, LARGE)
            } else {
                *pick(rng, SMALL)
            });
        }
        Gen {
            dims,
            inputs: Vec::new(),
            decls: String::new(),
            sparse: large,
            prefix: 'M',
        }
    }

    /// The input of shape `(i, j)`, declared on first use.
    fn input(&mut self, rng: &mut Rng, i: usize, j: usize) -> String {
        if let Some((_, _, name)) = self.inputs.iter().find(|(a, b, _)| (*a, *b) == (i, j)) {
            return name.clone();
        }
        let name = format!("{}{}", self.prefix, self.inputs.len());
        let (r, c) = (self.dims[i], self.dims[j]);
        let shape = if (r, c) == (1, 1) {
            "scalar".to_string()
        } else {
            format!("{r} x {c}")
        };
        let density = if self.sparse && r * c > 1000 && rng.coin() {
            if rng.coin() {
                format!(", sparsity {}", pick(rng, &["0.01", "0.001", "0.5"]))
            } else {
                format!(
                    ", nnz {}",
                    log_uniform(rng, 1, (r.saturating_mul(c)).min(1 << 40))
                )
            }
        } else {
            String::new()
        };
        let _ = writeln!(self.decls, "input {name} : {shape}{density}");
        self.inputs.push((i, j, name.clone()));
        name
    }

    /// An expression of shape `(i, j)` (indices into `dims`), at most `depth` deep.
    fn expr(&mut self, rng: &mut Rng, i: usize, j: usize, depth: u32) -> String {
        let n = self.dims.len();
        if depth == 0 || one_in(rng, 4) {
            return match rng.below(3) {
                0 if (i, j) == (0, 0) => pick(rng, &["2", "0.5", "1", "3"]).to_string(),
                1 => format!("t({})", self.input(rng, j, i)),
                _ => self.input(rng, i, j),
            };
        }
        let d = depth - 1;
        match rng.below(9) {
            0 => format!("t({})", self.expr(rng, j, i, d)),
            1 | 2 => {
                let k = rng.below(n as u64) as usize;
                format!(
                    "({} %*% {})",
                    self.expr(rng, i, k, d),
                    self.expr(rng, k, j, d)
                )
            }
            3 | 4 => {
                let op = pick(rng, &["+", "-", "*", "/"]);
                format!(
                    "({} {op} {})",
                    self.expr(rng, i, j, d),
                    self.expr(rng, i, j, d)
                )
            }
            5 => format!(
                "{} * {}",
                pick(rng, &["2", "0.5", "-1"]),
                self.expr(rng, i, j, d)
            ),
            6 => {
                let f = pick(rng, &["exp", "log", "sqrt", "abs", "sigmoid", "relu"]);
                format!("{f}({})", self.expr(rng, i, j, d))
            }
            7 => format!(
                "{} ^ {}",
                self.expr(rng, i, j, d),
                pick(rng, &["2", "3", "-1", "0.5"])
            ),
            _ => {
                let k = rng.below(n as u64) as usize;
                match (i, j) {
                    (0, 0) => format!("sum({})", self.expr(rng, k, k.max(1), d)),
                    (_, 0) => format!("rowSums({})", self.expr(rng, i, k, d)),
                    (0, _) => format!("colSums({})", self.expr(rng, k, j, d)),
                    _ => self.expr(rng, i, j, d),
                }
            }
        }
    }

    /// An assertion, true or (one in three) false, between expressions of shape `(i, j)`.
    fn assertion(&mut self, rng: &mut Rng) -> String {
        let n = self.dims.len() as u64;
        let (i, j, k) = (
            rng.below(n) as usize,
            rng.below(n) as usize,
            rng.below(n) as usize,
        );
        let depth = 1 + rng.below(2) as u32;
        let e = self.expr(rng, i, j, depth);
        let f = self.expr(rng, i, j, depth);
        let g = self.expr(rng, i, j, depth);
        let h = self.expr(rng, j, k, depth);
        let truths = [
            format!("sum(t({e})) == sum({e})"),
            format!("t(t({e})) == {e}"),
            format!("{e} + {f} == {f} + {e}"),
            format!("{e} * ({f} + {g}) == {e} * {f} + {e} * {g}"),
            format!("t({e} %*% {h}) == t({h}) %*% t({e})"),
            format!("sum({e} %*% {h}) == sum(t(colSums({e})) * rowSums({h}))"),
            format!("{e} - {f} * {e} == (1 - {f}) * {e}"),
        ];
        let falsehoods = [
            format!("{e} + {f} == {e} * {f}"),
            format!("sum({e}) == sum({e} * {e})"),
            format!("{e} - {f} == {f} - {e}"),
            format!("exp({e}) == {e}"),
            format!("{e} %*% {h} == {e} %*% {h} * 2"),
        ];
        if one_in(rng, 3) {
            pick(rng, &falsehoods).clone()
        } else {
            pick(rng, &truths).clone()
        }
    }
}

/// A generated file: outputs and assertions over inputs that fit them.
fn generated(rng: &mut Rng, large: bool) -> String {
    let mut g = Gen::new(rng, large);
    let mut body = String::new();
    let n = g.dims.len() as u64;
    for k in 0..rng.below(3) {
        let (i, j) = (rng.below(n) as usize, rng.below(n) as usize);
        let depth = 1 + rng.below(4) as u32;
        let e = g.expr(rng, i, j, depth);
        let _ = writeln!(body, "output o{k} = {e}");
    }
    for _ in 0..rng.below(4) {
        let a = g.assertion(rng);
        let _ = writeln!(body, "assert {a}");
    }
    if body.is_empty() {
        let e = g.expr(rng, 0, 0, 3);
        let _ = writeln!(body, "output s = {e}");
    }
    format!("{}{body}", g.decls)
}

/// A chain of `let`s, each using the one before and an earlier one: `length` deep.
fn let_chain(rng: &mut Rng, length: usize) -> String {
    let size = if rng.coin() { 4 } else { 1000 };
    let mut text = format!("input X : {size} x {size}\ninput Y : {size} x {size}\nlet a0 = X\n");
    for k in 1..length {
        let earlier = rng.below(k as u64);
        let op = pick(rng, &["+", "*", "-", "%*%"]);
        let other = if rng.coin() {
            format!("a{earlier}")
        } else {
            "Y".to_string()
        };
        let _ = writeln!(text, "let a{k} = a{} {op} {other}", k - 1);
    }
    let last = length - 1;
    let _ = writeln!(text, "output s = sum(a{last})");
    if rng.coin() {
        let _ = writeln!(text, "assert sum(t(a{last})) == sum(a{last})");
    }
    text
}

/// Draws case `seed` of the family.
pub fn draw(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let (origin, mut text) = match rng.below(6) {
        0 | 1 => {
            let (path, text) = *pick(&mut rng, LA_FILES);
            let mut text = text.to_string();
            let mut origin = path.to_string();
            if one_in(&mut rng, 3) {
                // An assertion over inputs of its own (named N0, N1, …), small enough for the
                // numerical check.
                let mut g = Gen::new(&mut rng, false);
                g.prefix = 'N';
                let a = g.assertion(&mut rng);
                text.push_str(&format!("{}assert {a}\n", g.decls));
                origin.push_str(" + assert");
            }
            (origin, text)
        }
        2 => ("generated, small".to_string(), generated(&mut rng, false)),
        3 => ("generated, large".to_string(), generated(&mut rng, true)),
        4 => {
            let length = log_uniform(&mut rng, 2, 1000) as usize;
            (
                format!("let chain of {length}"),
                let_chain(&mut rng, length),
            )
        }
        _ => {
            let (path, text) = *pick(&mut rng, LA_FILES);
            (path.to_string(), text.to_string())
        }
    };
    let mut origin = origin;
    if one_in(&mut rng, 2) {
        let vocabulary: Vec<String> = VOCABULARY.iter().map(|w| w.to_string()).collect();
        let mutations = 1 + rng.below(3) as usize;
        text = mutate::mutate(&text, mutations, &vocabulary, &mut rng);
        origin.push_str(&format!(" ×{mutations}"));
    }
    let scheduler = match rng.below(10) {
        0..=4 => Scheduler::Simple,
        5 => crate::eqsat::schedule::BACKOFF_DEFAULT,
        6 => Scheduler::Backoff {
            match_limit: log_uniform(&mut rng, 1, 10_000) as usize,
            ban_length: 1 + rng.below(8) as usize,
        },
        7 | 8 => Scheduler::Sample(log_uniform(&mut rng, 1, 1000) as usize),
        _ => Scheduler::Mcts {
            budget: 2,
            depth: 2,
        },
    };
    let settings = Settings {
        time: Some(time(&mut rng, 50, 500)),
        nodes: one_in(&mut rng, 3).then(|| log_uniform(&mut rng, 10, 1_000_000) as usize),
        iterations: one_in(&mut rng, 3).then(|| log_uniform(&mut rng, 1, 100) as usize),
        scheduler,
        seed: rng.below(1000),
        ..Settings::default()
    };
    Case {
        family: Family::La,
        seed,
        origin,
        input: Input::La { text },
        settings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_small_files_parse() {
        let mut parsed = 0;
        for seed in 0..40 {
            let text = generated(&mut Rng::new(seed), false);
            let file = crate::diagnostics::SourceFile::new("g.la", text.as_str());
            parsed += risec_la::parse(&file).is_ok() as usize;
        }
        // Functions of negative numbers and shapes that do not broadcast are refused; most
        // files parse.
        assert!(parsed > 20, "{parsed} of 40");
    }
}
