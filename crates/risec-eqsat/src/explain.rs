//! Explanations: the rewrites that lead from one term to an equal one, each with the rule and
//! the subterm it rewrote.
//!
//! They come from egg's proof-producing e-graph: with explanations enabled
//! ([`explaining_egraph`]), every union a rule makes records the rule's name
//! ([`crate::rewrite::Rule::apply`]), and egg turns the unions between two terms of one
//! e-class into a chain of single rewrites, each at one position of the term (congruence is
//! what carries a rewrite of a subterm to the whole term). Explanations cost memory (egg keeps
//! every e-node as it was added), so a search records them only when asked (`--explain`).

use crate::core::Expr;
use crate::egraph::{node_to_expr, to_recexpr, RiseEGraph, RiseNode};
use egg::FlatTerm;

/// An e-graph that records why its classes were merged.
pub fn explaining_egraph() -> RiseEGraph {
    RiseEGraph::default().with_explanations_enabled()
}

/// One step of an explanation: a rule rewrote one subterm.
#[derive(Clone, Debug)]
pub struct ExplanationStep {
    /// The rule's name.
    pub rule: String,
    /// Whether the rule was used right to left (it rewrote `after` into `before`).
    pub reversed: bool,
    /// The subterm before the rewrite.
    pub before: Expr,
    /// The subterm after it.
    pub after: Expr,
    /// The whole term after it.
    pub term: Expr,
    /// The lambdas around the subterm, outermost first: for each, whether it is one of the
    /// term's outermost lambdas (the program's parameters, in order) and else its depth.
    pub binders: Vec<Binder>,
}

/// A lambda around a rewritten subterm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binder {
    /// The term's `k`-th outermost lambda (under its size lambdas only): parameter `k`.
    Parameter(usize),
    /// A lambda inside the body, the `k`-th lambda on the way down.
    Inner(usize),
}

/// The rewrites from `from` to `to`, which must be in one e-class of `egraph` (an e-graph made
/// by [`explaining_egraph`]); `None` when they are not, or explanations are off.
pub fn explain(egraph: &mut RiseEGraph, from: &Expr, to: &Expr) -> Option<Vec<ExplanationStep>> {
    if !egraph.are_explanations_enabled() {
        return None;
    }
    let (a, b) = (to_recexpr(from), to_recexpr(to));
    let (ia, ib) = (egraph.lookup_expr(&a)?, egraph.lookup_expr(&b)?);
    if egraph.find(ia) != egraph.find(ib) {
        return None;
    }
    let mut explanation = egraph.explain_equivalence(&a, &b);
    let flat = explanation.make_flat_explanation();
    let mut out = Vec::new();
    for pair in flat.windows(2) {
        let Some((path, rule, reversed)) = rewritten(&pair[1]) else {
            continue;
        };
        out.push(ExplanationStep {
            rule,
            reversed,
            before: to_expr(at(&pair[0], &path)),
            after: to_expr(at(&pair[1], &path)),
            term: to_expr(&pair[1]),
            binders: binders(&pair[1], &path),
        });
    }
    Some(out)
}

/// The position of the rewrite in a term of a flat explanation (child indices from the root),
/// its rule, and whether it was used backwards.
fn rewritten(t: &FlatTerm<RiseNode>) -> Option<(Vec<usize>, String, bool)> {
    if let Some(r) = &t.forward_rule {
        return Some((Vec::new(), r.to_string(), false));
    }
    if let Some(r) = &t.backward_rule {
        return Some((Vec::new(), r.to_string(), true));
    }
    t.children.iter().enumerate().find_map(|(i, c)| {
        rewritten(c).map(|(mut path, rule, rev)| {
            path.insert(0, i);
            (path, rule, rev)
        })
    })
}

/// The lambdas on the way from the root of `t` down `path`.
fn binders(t: &FlatTerm<RiseNode>, path: &[usize]) -> Vec<Binder> {
    use crate::egraph::RiseOp;
    let mut out = Vec::new();
    let mut top = true;
    let mut node = t;
    for &i in path {
        match node.node.op() {
            RiseOp::Lambda if top => out.push(Binder::Parameter(out.len())),
            RiseOp::Lambda => out.push(Binder::Inner(out.len())),
            RiseOp::NatLambda => {}
            _ => top = false,
        }
        node = &node.children[i];
    }
    out
}

fn at<'t>(t: &'t FlatTerm<RiseNode>, path: &[usize]) -> &'t FlatTerm<RiseNode> {
    path.iter().fold(t, |t, &i| &t.children[i])
}

fn to_expr(t: &FlatTerm<RiseNode>) -> Expr {
    crate::support::stack::guarded(|| {
        let mut next = 0;
        node_to_expr(&t.node, &mut |_| {
            next += 1;
            to_expr(&t.children[next - 1])
        })
    })
}

/// The explanation as text, one numbered entry per rewrite: the rule (noted when used right to
/// left) and the subterm before and after, written by `show` (which gets the lambdas around it).
pub fn render(rewrites: &[ExplanationStep], show: &dyn Fn(&Expr, &[Binder]) -> String) -> String {
    let mut out = String::new();
    for (i, r) in rewrites.iter().enumerate() {
        let arrow = if r.reversed { " (right to left)" } else { "" };
        out.push_str(&format!(
            "  {:>3}. {}{arrow}\n         {}\n      => {}\n",
            i + 1,
            r.rule,
            show(&r.before, &r.binders),
            show(&r.after, &r.binders)
        ));
    }
    out
}

/// A rewritten subterm as Rise, with the size names of `program` and its variables named: the
/// program's parameters by their names, inner lambdas `v1`, `v2`, ….
pub fn subterm_text(program: &crate::core::TypedProgram, e: &Expr, binders: &[Binder]) -> String {
    let names: Vec<String> = binders
        .iter()
        .map(|b| match b {
            Binder::Parameter(k) => program
                .value_params
                .get(*k)
                .cloned()
                .unwrap_or_else(|| format!("v{k}")),
            Binder::Inner(k) => format!("v{k}"),
        })
        .collect();
    crate::core::print::program_subterm_to_source_under(program, e, names)
}

/// `1 rewrite`, `3 rewrites`.
pub fn count(n: usize) -> String {
    format!("{n} rewrite{}", if n == 1 { "" } else { "s" })
}
