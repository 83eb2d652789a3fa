//! E-matching of compiled left-hand sides against the e-graph.
//!
//! A small backtracking matcher over e-classes: pattern variables bind e-classes, size
//! variables bind the size argument of a `NatApp` node. Patterns are untyped; the classes they
//! match carry the types.

use super::pattern::{NatPat, Pat};
use crate::egraph::{OpVariant, RiseEGraph, RiseOp};
use crate::ir::nat::Nat;
use egg::Id;

/// What a match binds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bindings {
    /// E-class of each expression pattern variable.
    pub exprs: Vec<Option<Id>>,
    /// Value of each size variable.
    pub nats: Vec<Option<Nat>>,
}

impl Bindings {
    /// Empty bindings for the given numbers of variables, with the first size variables preset.
    pub fn new(expr_vars: usize, nat_vars: usize, preset: &[Nat]) -> Bindings {
        let mut nats = vec![None; nat_vars];
        for (slot, v) in nats.iter_mut().zip(preset) {
            *slot = Some(v.clone());
        }
        Bindings {
            exprs: vec![None; expr_vars],
            nats,
        }
    }

    /// The class bound to expression variable `i`.
    pub fn expr(&self, i: usize) -> Id {
        self.exprs[i].expect("every pattern variable of a rule is bound by its left-hand side")
    }
}

/// Node visits of [`match_class`] between two calls of a search's interrupt check.
const VISITS_PER_CHECK: u32 = 4096;

/// The interrupt check of a running search, polled while it walks classes *and* while it
/// backtracks inside one: a single class can hold millions of partial matches (a rule whose
/// left-hand side nests applications over a class with many nodes), so checking only between
/// classes lets one class outlast any time limit.
pub struct Poll<'a> {
    interrupt: &'a mut dyn FnMut() -> bool,
    visits: u32,
    stopped: bool,
}

impl<'a> Poll<'a> {
    /// A poll that asks `interrupt` every few thousand node visits whether to stop.
    pub fn new(interrupt: &'a mut dyn FnMut() -> bool) -> Poll<'a> {
        Poll {
            interrupt,
            visits: 0,
            stopped: false,
        }
    }

    /// Counts one visit; true once the search has been told to stop (and ever after).
    fn visit(&mut self) -> bool {
        self.visits += 1;
        if self.visits >= VISITS_PER_CHECK {
            self.visits = 0;
            self.stop_now();
        }
        self.stopped
    }

    /// Asks the interrupt at once; true once the search has been told to stop.
    pub fn stop_now(&mut self) -> bool {
        if !self.stopped {
            self.stopped = (self.interrupt)();
        }
        self.stopped
    }

    /// Whether the search has been told to stop.
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

/// All matches of `pat` in class `class`, extending `base`. Returns early, with `out`
/// incomplete, once `poll` says to stop; the caller must then check [`Poll::stopped`].
pub fn match_class(
    egraph: &RiseEGraph,
    pat: &Pat,
    class: Id,
    base: &Bindings,
    out: &mut Vec<Bindings>,
    poll: &mut Poll,
) {
    if poll.visit() {
        return;
    }
    match pat {
        Pat::Var(v) => match base.exprs[*v] {
            Some(bound) if egraph.find(bound) != egraph.find(class) => {}
            Some(_) => out.push(base.clone()),
            None => {
                let mut b = base.clone();
                b.exprs[*v] = Some(egraph.find(class));
                out.push(b);
            }
        },
        _ => {
            for node in egraph[class].nodes.iter() {
                if poll.stopped() {
                    return;
                }
                if !root_matches(pat, node.variant()) {
                    continue;
                }
                let ids = node.children_ids();
                match (pat, &node.op()) {
                    (Pat::Bound(i), RiseOp::Var(j)) if i == j => out.push(base.clone()),
                    (Pat::Prim(p), RiseOp::Prim(q)) if p == q => out.push(base.clone()),
                    (Pat::Literal(l), RiseOp::Literal(m)) if l == m => out.push(base.clone()),
                    (Pat::Lambda(b), RiseOp::Lambda) | (Pat::NatLambda(b), RiseOp::NatLambda) => {
                        match_class(egraph, b, ids[0], base, out, poll)
                    }
                    (Pat::App(f, a), RiseOp::App) => {
                        let mut partial = Vec::new();
                        match_class(egraph, f, ids[0], base, &mut partial, poll);
                        for b in &partial {
                            match_class(egraph, a, ids[1], b, out, poll);
                        }
                    }
                    (Pat::NatApp(f, np), RiseOp::NatApp(n)) => {
                        let bound = match np {
                            NatPat::Exact(m) if m == n => Some(base.clone()),
                            NatPat::Exact(_) => None,
                            NatPat::Var(v) => match &base.nats[*v] {
                                Some(m) if m == n => Some(base.clone()),
                                Some(_) => None,
                                None => {
                                    let mut b = base.clone();
                                    b.nats[*v] = Some(n.clone());
                                    Some(b)
                                }
                            },
                        };
                        if let Some(b) = bound {
                            match_class(egraph, f, ids[0], &b, out, poll);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Whether a node with an operator of this variant can be the root of a match of `pat`.
pub fn root_matches(pat: &Pat, op: OpVariant) -> bool {
    matches!(
        (pat, op),
        (Pat::Bound(_), OpVariant::Var)
            | (Pat::Prim(_), OpVariant::Prim)
            | (Pat::Literal(_), OpVariant::Literal)
            | (Pat::Lambda(_), OpVariant::Lambda)
            | (Pat::NatLambda(_), OpVariant::NatLambda)
            | (Pat::App(..), OpVariant::App)
            | (Pat::NatApp(..), OpVariant::NatApp)
    )
}

/// Every match of `pat` in the e-graph: `(class, bindings)` pairs, at most `limit`.
pub fn search(
    egraph: &RiseEGraph,
    pat: &Pat,
    base: &Bindings,
    limit: usize,
) -> Vec<(Id, Bindings)> {
    search_until(egraph, pat, base, limit, &mut || false)
        .expect("a search that is never interrupted completes")
}

/// E-classes searched between two calls of the interrupt check of [`search_until`], however
/// few nodes they hold.
const CLASSES_PER_CHECK: usize = 256;

/// Like [`search`], but calls `interrupt` every `CLASSES_PER_CHECK` e-classes and every few
/// thousand node visits inside one, and returns `None` as soon as it says to stop.
pub fn search_until(
    egraph: &RiseEGraph,
    pat: &Pat,
    base: &Bindings,
    limit: usize,
    interrupt: &mut dyn FnMut() -> bool,
) -> Option<Vec<(Id, Bindings)>> {
    let mut found = Vec::new();
    search_each(egraph, pat, base, interrupt, &mut |class, b| {
        found.push((class, b));
        found.len() < limit
    })?;
    Some(found)
}

/// Calls `each` with every match of `pat` (class and bindings) until it returns false; calls
/// `interrupt` every `CLASSES_PER_CHECK` e-classes and every few thousand node visits inside
/// one, and returns `None` as soon as it says to stop. Matches are handed over one by one, so a caller can store them compactly.
pub fn search_each(
    egraph: &RiseEGraph,
    pat: &Pat,
    base: &Bindings,
    interrupt: &mut dyn FnMut() -> bool,
    each: &mut dyn FnMut(Id, Bindings) -> bool,
) -> Option<()> {
    let mut scratch = Vec::new();
    let mut poll = Poll::new(interrupt);
    for (k, class) in egraph.classes().enumerate() {
        if k % CLASSES_PER_CHECK == CLASSES_PER_CHECK - 1 && poll.stop_now() {
            return None;
        }
        if !matches!(pat, Pat::Var(_))
            && !class.nodes.iter().any(|n| root_matches(pat, n.variant()))
        {
            continue;
        }
        scratch.clear();
        match_class(egraph, pat, class.id, base, &mut scratch, &mut poll);
        if poll.stopped() {
            return None;
        }
        scratch.dedup();
        for b in scratch.drain(..) {
            if !each(class.id, b) {
                return Some(());
            }
        }
    }
    Some(())
}
