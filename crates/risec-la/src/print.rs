//! Printing plans as `.la` text: operations whose result is used more than once become `let`s,
//! `a + (-1) * b` prints as `a - b`, `a * inv(b)` as `a / b`, `a * a` as `a ^ 2`, with R's
//! precedence and no more parentheses than it needs.

use super::lang::Math;
use egg::{Id, Language, RecExpr};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write;

/// A number as `.la` writes it (`2`, `0.5`, `-1`, `1e-3`).
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// Prints a plan: `let`s for shared operations, then one `output NAME = …` line per root.
pub fn plan(expr: &RecExpr<Math>, roots: &[(String, Id)]) -> String {
    let nodes = expr.as_ref();
    let mut uses = vec![0usize; nodes.len()];
    for node in nodes {
        for c in node.children() {
            uses[usize::from(*c)] += 1;
        }
    }
    for (_, r) in roots {
        uses[usize::from(*r)] += 1;
    }
    let mut printer = Printer {
        nodes,
        names: FxHashMap::default(),
    };
    let mut out = String::new();
    // Names a `let` may not take: the outputs' and the inputs'.
    let taken: FxHashSet<String> = roots
        .iter()
        .map(|(n, _)| n.clone())
        .chain(nodes.iter().filter_map(|n| match n {
            Math::Var(v) => Some(v.to_string()),
            _ => None,
        }))
        .collect();
    let placed_roots: FxHashSet<usize> = roots.iter().map(|(_, r)| usize::from(*r)).collect();
    let mut counter = 0;
    for (i, node) in nodes.iter().enumerate() {
        let shared = uses[i] > 1 && !node.is_leaf();
        if shared && !placed_roots.contains(&i) {
            let name = loop {
                counter += 1;
                let candidate = format!("t{counter}");
                if !taken.contains(&candidate) {
                    break candidate;
                }
            };
            let _ = writeln!(out, "let {name} = {}", printer.expr(Id::from(i), 0));
            printer.names.insert(i, name);
        }
    }
    for (name, root) in roots {
        let _ = writeln!(out, "output {name} = {}", printer.expr(*root, 0));
        printer.names.insert(usize::from(*root), name.clone());
    }
    out
}

struct Printer<'a> {
    nodes: &'a [Math],
    names: FxHashMap<usize, String>,
}

/// Precedence levels, loosest first.
const ADD: u8 = 1;
const MUL: u8 = 2;
const MMUL: u8 = 3;
const NEG: u8 = 4;
const POW: u8 = 5;
const ATOM: u8 = 6;

impl Printer<'_> {
    fn node(&self, id: Id) -> &Math {
        &self.nodes[usize::from(id)]
    }

    fn literal(&self, id: Id) -> Option<f64> {
        match self.node(id) {
            Math::Lit(l) => Some(l.0.value()),
            _ => None,
        }
    }

    /// `id` printed for a context that needs precedence at least `min`.
    fn expr(&self, id: Id, min: u8) -> String {
        if let Some(name) = self.names.get(&usize::from(id)) {
            return name.clone();
        }
        let (text, level) = crate::support::stack::guarded(|| self.bare(id));
        if level < min {
            format!("({text})")
        } else {
            text
        }
    }

    fn bare(&self, id: Id) -> (String, u8) {
        let call = |f: &str, x: Id| (format!("{f}({})", self.expr(x, 0)), ATOM);
        match self.node(id) {
            Math::Var(v) => (v.to_string(), ATOM),
            Math::Lit(l) => {
                let v = l.0.value();
                (number(v), if v < 0.0 { NEG } else { ATOM })
            }
            Math::Add([a, b]) => {
                if let Some((c, y)) = self.scaled(*b).filter(|(c, _)| *c < 0.0) {
                    let right = if c == -1.0 {
                        self.expr(y, MUL)
                    } else {
                        format!("{} * {}", number(-c), self.expr(y, MMUL))
                    };
                    return (format!("{} - {right}", self.expr(*a, ADD)), ADD);
                }
                (
                    format!("{} + {}", self.expr(*a, ADD), self.expr(*b, MUL)),
                    ADD,
                )
            }
            Math::Mul([a, b]) => {
                if self.literal(*a) == Some(-1.0) {
                    return (format!("-{}", self.expr(*b, NEG)), NEG);
                }
                if a == b {
                    return (format!("{} ^ 2", self.expr(*a, ATOM)), POW);
                }
                if let Math::Map([f, y]) = self.node(*b) {
                    if matches!(self.node(*f), Math::Func(super::check::Func::Inv)) {
                        return (
                            format!("{} / {}", self.expr(*a, MUL), self.expr(*y, MMUL)),
                            MUL,
                        );
                    }
                }
                (
                    format!("{} * {}", self.expr(*a, MUL), self.expr(*b, MMUL)),
                    MUL,
                )
            }
            Math::MMul([a, b]) => (
                format!("{} %*% {}", self.expr(*a, MMUL), self.expr(*b, NEG)),
                MMUL,
            ),
            Math::T(x) => call("t", *x),
            Math::Sum(x) => call("sum", *x),
            Math::RowSums(x) => call("rowSums", *x),
            Math::ColSums(x) => call("colSums", *x),
            Math::Map([f, x]) => match self.node(*f) {
                Math::Func(super::check::Func::Inv) => {
                    (format!("1 / {}", self.expr(*x, MMUL)), MUL)
                }
                Math::Func(func) => call(func.name(), *x),
                other => (format!("{other}"), ATOM),
            },
            other => (format!("<{other}>"), ATOM),
        }
    }

    /// `c * y` for a literal `c`.
    fn scaled(&self, id: Id) -> Option<(f64, Id)> {
        if self.names.contains_key(&usize::from(id)) {
            return None;
        }
        match self.node(id) {
            Math::Mul([a, b]) => self.literal(*a).map(|c| (c, *b)),
            _ => None,
        }
    }
}
