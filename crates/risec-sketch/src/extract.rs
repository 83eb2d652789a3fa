//! Sketch satisfaction on an e-graph and sketch-constrained extraction (§4.5 of the paper).
//!
//! For every node of the sketch, bottom-up, a table maps each e-class to the cheapest term of
//! the class that satisfies that sub-sketch (its cost and how it is built: which e-node, and
//! which sub-sketch each child must satisfy), or to nothing. Structural sketches (`PRIM`,
//! `S1 S2`, `fun => S`, `S : T`, `or`) are one pass over the e-nodes using their sub-sketches'
//! finished tables; `contains(S)` and `?` are fixpoints over the e-graph, since a class can
//! reach the wanted subterm through any child. The tables are kept per child *position*, so an
//! e-node whose two children are the same class under different sub-sketches works. Cost is
//! about |sketch| × (e-nodes + e-classes) per fixpoint pass.
//!
//! [`SketchTable::cost_at`] answers "is the sketch satisfied at the root" (the search's stopping
//! test, which never builds a term); [`SketchTable::extract`] builds the cheapest term.

use super::cost::CostModel;
use super::Sketch;
use crate::core::Expr;
use crate::core::ExprKind;
use crate::eqsat::egraph::{OpVariant, RiseEGraph, RiseNode, RiseOp};
use egg::{Id, Language};

/// How the cheapest term of a class under a sketch node is built.
#[derive(Clone, Copy, Debug)]
enum Choice {
    /// Use e-node `node` of the class; its children satisfy the sub-sketches the sketch node
    /// prescribes.
    Node(u32),
    /// `contains(S)`: the class itself satisfies S.
    Here,
    /// `contains(S)`: e-node `node`, whose child `pos` contains S and other children are `?`.
    Through(u32, u8),
    /// `S1 or S2`: the left (`true`) or right alternative.
    Alt(bool),
    /// `S : T`: the inner sketch.
    Inner,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    cost: u64,
    choice: Choice,
}

/// A sketch node, with its sub-sketches as indices into the flattened sketch.
#[derive(Clone, Debug)]
enum Flat {
    Any,
    Leaf(Sketch),
    App(usize, usize),
    NatApp(usize, crate::ir::nat::Nat),
    Lambda(usize),
    Contains(usize),
    Or(usize, usize),
    Typed(usize, super::TypeSketch),
}

/// The extraction tables of one sketch over one e-graph.
pub struct SketchTable<'a> {
    egraph: &'a RiseEGraph,
    cost: CostModel,
    nodes: Vec<Flat>,
    tables: Vec<Vec<Option<Entry>>>,
    root_sketch: usize,
    /// Index of `?` in `nodes` (always present: `contains` needs it).
    any: usize,
}

fn slot(id: Id) -> usize {
    usize::from(id)
}

/// Keeps `cost` reached by `choice` as `class`'s entry in table `t` when it is cheaper than the
/// entry there.
fn improve(t: &mut [Option<Entry>], class: Id, cost: u64, choice: Choice) {
    let s = &mut t[slot(class)];
    if s.is_none_or(|e| cost < e.cost) {
        *s = Some(Entry { cost, choice });
    }
}

/// Evaluates one e-class from the current table: its best cost and how it is reached.
type ClassEval<'f, T> = dyn FnMut(&T, &[Option<Entry>], Id) -> Option<(u64, Choice)> + 'f;

impl<'a> SketchTable<'a> {
    /// Computes every table of `sketch` over `egraph` (which must be rebuilt) with `cost`.
    pub fn new(egraph: &'a RiseEGraph, sketch: &Sketch, cost: CostModel) -> SketchTable<'a> {
        let mut nodes = vec![Flat::Any];
        let root_sketch = flatten(sketch, &mut nodes);
        let width = egraph.classes().map(|c| slot(c.id) + 1).max().unwrap_or(0);
        let mut table = SketchTable {
            egraph,
            cost,
            nodes,
            tables: Vec::new(),
            root_sketch,
            any: 0,
        };
        for i in 0..table.nodes.len() {
            let t = table.compute(i, width);
            table.tables.push(t);
        }
        table
    }

    /// What [`SketchTable::new`] allocates per e-class id of the e-graph, in bytes: a table
    /// entry per sketch node, and the work list of its fixpoints.
    pub fn bytes_per_id(sketch: &Sketch) -> u64 {
        let mut nodes = vec![Flat::Any];
        flatten(sketch, &mut nodes);
        let entry = std::mem::size_of::<Option<Entry>>() as u64;
        (nodes.len() as u64 + 1).saturating_mul(entry) + std::mem::size_of::<Id>() as u64 + 1
    }

    /// The cost of the cheapest term of `class` satisfying the sketch, or `None`.
    pub fn cost_at(&self, class: Id) -> Option<u64> {
        let class = self.egraph.find(class);
        self.get(self.root_sketch, class).map(|e| e.cost)
    }

    /// The cheapest term of `class` satisfying the sketch.
    pub fn extract(&self, class: Id) -> Option<Expr> {
        let class = self.egraph.find(class);
        self.get(self.root_sketch, class)?;
        Some(self.build(self.root_sketch, class))
    }

    /// The largest `contains(…)` parts of the sketch that `class` satisfies (for "closest partial
    /// match" reports), outermost first. Read off the tables already computed, so it costs
    /// nothing on a large e-graph.
    pub fn partial_matches(&self, sketch: &Sketch, class: Id) -> Vec<Sketch> {
        let class = self.egraph.find(class);
        let mut out = Vec::new();
        collect_partial(
            sketch,
            &mut |s| {
                if !matches!(s, Sketch::Contains(_)) {
                    return false;
                }
                let mut scratch = self.nodes.clone();
                let i = flatten(s, &mut scratch);
                i < self.tables.len() && self.get(i, class).is_some()
            },
            &mut out,
        );
        out
    }

    fn get(&self, sketch: usize, class: Id) -> Option<Entry> {
        self.tables[sketch].get(slot(class)).copied().flatten()
    }

    fn child_cost(&self, sketch: usize, class: Id) -> Option<u64> {
        self.get(sketch, self.egraph.find(class)).map(|e| e.cost)
    }

    /// The table of sketch node `i` over classes `0..width`: the fixpoints of `?` and
    /// `contains`, the structural sketches in one pass over the e-nodes, `or` and `S : T` from
    /// their sub-sketches' tables.
    fn compute(&self, i: usize, width: usize) -> Vec<Option<Entry>> {
        let mut t: Vec<Option<Entry>> = vec![None; width];
        match &self.nodes[i] {
            Flat::Any => self.any_table(&mut t),
            Flat::Leaf(s) => self.node_table(&mut t, |n| {
                let leaf = matches!(n.variant(), OpVariant::Prim | OpVariant::Literal);
                let hit = leaf
                    && match (s, &n.op()) {
                        (Sketch::Prim(p), RiseOp::Prim(q)) => p == q,
                        (Sketch::Literal(l), RiseOp::Literal(m)) => l == m,
                        _ => false,
                    };
                hit.then(|| self.cost.node_cost(n))
            }),
            Flat::App(f, a) => self.node_table(&mut t, |n| {
                let ch = n.children();
                let cost = match n.variant() {
                    OpVariant::App => self
                        .child_cost(*f, ch[0])
                        .zip(self.child_cost(*a, ch[1]))
                        .map(|(x, y)| x.saturating_add(y)),
                    OpVariant::NatApp if *a == self.any => self.child_cost(*f, ch[0]),
                    _ => None,
                };
                cost.map(|c| c.saturating_add(self.cost.node_cost(n)))
            }),
            Flat::NatApp(f, want) => self.node_table(&mut t, |n| {
                if n.variant() == OpVariant::NatApp && n.op() == RiseOp::NatApp(want.clone()) {
                    let c = self.child_cost(*f, n.children()[0])?;
                    Some(c.saturating_add(self.cost.node_cost(n)))
                } else {
                    None
                }
            }),
            Flat::Lambda(b) => self.node_table(&mut t, |n| {
                if n.variant() == OpVariant::Lambda {
                    let c = self.child_cost(*b, n.children()[0])?;
                    Some(c.saturating_add(self.cost.node_cost(n)))
                } else {
                    None
                }
            }),
            Flat::Or(a, b) => {
                for class in self.egraph.classes() {
                    if let Some(e) = self.get(*a, class.id) {
                        improve(&mut t, class.id, e.cost, Choice::Alt(true));
                    }
                    if let Some(e) = self.get(*b, class.id) {
                        improve(&mut t, class.id, e.cost, Choice::Alt(false));
                    }
                }
            }
            Flat::Typed(s, ty) => {
                for class in self.egraph.classes() {
                    if let Some(e) = self.get(*s, class.id) {
                        if ty.matches(class.data.ty()) {
                            t[slot(class.id)] = Some(Entry {
                                cost: e.cost,
                                choice: Choice::Inner,
                            });
                        }
                    }
                }
            }
            Flat::Contains(s) => self.contains_table(&mut t, *s),
        }
        t
    }

    /// The table of a structural sketch node: for every e-node of every class, `cost` gives
    /// the cost of the e-node as a term satisfying it (its children satisfying the
    /// sub-sketches, from their finished tables), or `None`; each class keeps its cheapest.
    fn node_table(&self, t: &mut [Option<Entry>], cost: impl Fn(&RiseNode) -> Option<u64>) {
        for class in self.egraph.classes() {
            for (k, n) in class.nodes.iter().enumerate() {
                if let Some(total) = cost(n) {
                    improve(t, class.id, total, Choice::Node(k as u32));
                }
            }
        }
    }

    /// The table of `?`: the cheapest term of every class (a fixpoint, since a class's cost
    /// depends on its children's).
    fn any_table(&self, t: &mut [Option<Entry>]) {
        let eg = self.egraph;
        self.fixpoint(t, &mut |this, t, class| {
            let mut best: Option<(u64, Choice)> = None;
            for (k, n) in eg[class].nodes.iter().enumerate() {
                let mut cost = this.cost.node_cost(n);
                let mut ok = true;
                for &c in n.children() {
                    match t[slot(eg.find(c))] {
                        Some(e) => cost = cost.saturating_add(e.cost),
                        None => {
                            ok = false;
                            break;
                        }
                    }
                }
                if ok && best.is_none_or(|(b, _)| cost < b) {
                    best = Some((cost, Choice::Node(k as u32)));
                }
            }
            best
        });
    }

    /// The table of `contains(S)` (`inner`: S's node): the classes that satisfy S, then, to a
    /// fixpoint, those with an e-node one of whose children contains S (its other children
    /// anything).
    fn contains_table(&self, t: &mut [Option<Entry>], inner: usize) {
        let eg = self.egraph;
        for class in eg.classes() {
            if let Some(e) = self.get(inner, class.id) {
                t[slot(class.id)] = Some(Entry {
                    cost: e.cost,
                    choice: Choice::Here,
                });
            }
        }
        self.fixpoint(t, &mut |this, t, class| {
            let mut best: Option<(u64, Choice)> =
                this.get(inner, class).map(|e| (e.cost, Choice::Here));
            for (k, n) in eg[class].nodes.iter().enumerate() {
                let ch = n.children();
                for pos in 0..ch.len() {
                    let Some(inside) = t[slot(eg.find(ch[pos]))] else {
                        continue;
                    };
                    let mut cost = this.cost.node_cost(n).saturating_add(inside.cost);
                    let mut ok = true;
                    for (j, &c) in ch.iter().enumerate() {
                        if j != pos {
                            match this.child_cost(this.any, c) {
                                Some(x) => cost = cost.saturating_add(x),
                                None => ok = false,
                            }
                        }
                    }
                    if ok && best.is_none_or(|(b, _)| cost < b) {
                        best = Some((cost, Choice::Through(k as u32, pos as u8)));
                    }
                }
            }
            best
        });
    }

    /// Solves a table that depends on itself through children: every class is evaluated by
    /// `eval` (from the current table), and the parents of a class whose entry improves are
    /// evaluated again, until nothing improves. Costs only decrease and every node costs at
    /// least 1, so this terminates.
    fn fixpoint(&self, t: &mut [Option<Entry>], eval: &mut ClassEval<'_, Self>) {
        let eg = self.egraph;
        let mut queue: std::collections::VecDeque<Id> = eg.classes().map(|c| c.id).collect();
        let mut queued = vec![true; t.len()];
        while let Some(class) = queue.pop_front() {
            queued[slot(class)] = false;
            let Some((cost, choice)) = eval(self, t, class) else {
                continue;
            };
            let entry = &mut t[slot(class)];
            if entry.is_some_and(|e| e.cost <= cost) {
                continue;
            }
            *entry = Some(Entry { cost, choice });
            for p in eg[class].parents() {
                let p = eg.find(p);
                if !queued[slot(p)] {
                    queued[slot(p)] = true;
                    queue.push_back(p);
                }
            }
        }
    }

    /// Builds the term chosen for `class` under sketch node `s`.
    fn build(&self, s: usize, class: Id) -> Expr {
        crate::support::stack::guarded(|| self.build_unguarded(s, class))
    }

    fn build_unguarded(&self, s: usize, class: Id) -> Expr {
        let class = self.egraph.find(class);
        let entry = self
            .get(s, class)
            .expect("built only where a choice exists");
        let eg = self.egraph;
        let node_of = |k: u32| -> &RiseNode { &eg[class].nodes[k as usize] };
        match (entry.choice, &self.nodes[s]) {
            (Choice::Node(k), Flat::Any) => {
                let n = node_of(k);
                node_expr(n, &mut |_, c| self.build(self.any, c))
            }
            (Choice::Node(k), Flat::Leaf(_)) => node_expr(node_of(k), &mut |_, _| unreachable!()),
            (Choice::Node(k), Flat::App(f, a)) => {
                let (f, a) = (*f, *a);
                node_expr(node_of(k), &mut |pos, c| {
                    self.build(if pos == 0 { f } else { a }, c)
                })
            }
            (Choice::Node(k), Flat::NatApp(f, _) | Flat::Lambda(f)) => {
                let f = *f;
                node_expr(node_of(k), &mut |_, c| self.build(f, c))
            }
            (Choice::Alt(left), Flat::Or(a, b)) => self.build(if left { *a } else { *b }, class),
            (Choice::Inner, Flat::Typed(inner, _)) => self.build(*inner, class),
            (Choice::Here, Flat::Contains(inner)) => self.build(*inner, class),
            (Choice::Through(k, pos), Flat::Contains(_)) => node_expr(node_of(k), &mut |p, c| {
                self.build(if p == pos as usize { s } else { self.any }, c)
            }),
            (choice, flat) => unreachable!("choice {choice:?} for sketch node {flat:?}"),
        }
    }
}

/// A core node from an e-node, each child built by `child(position, class)`.
fn node_expr(node: &RiseNode, child: &mut dyn FnMut(usize, Id) -> Expr) -> Expr {
    let mut pos = 0;
    crate::eqsat::egraph::node_to_expr(node, &mut |c| {
        let e = child(pos, c);
        pos += 1;
        e
    })
}

/// Flattens `s` into `nodes` (post-order, structurally equal sub-sketches shared); returns the
/// index of `s`. `nodes[0]` must be `Flat::Any`.
fn flatten(s: &Sketch, nodes: &mut Vec<Flat>) -> usize {
    let flat = match s {
        Sketch::Any => return 0,
        Sketch::Prim(_) | Sketch::Literal(_) => Flat::Leaf(s.clone()),
        Sketch::App(f, a) => Flat::App(flatten(f, nodes), flatten(a, nodes)),
        Sketch::NatApp(f, n) => Flat::NatApp(flatten(f, nodes), n.clone()),
        Sketch::Lambda(b) => Flat::Lambda(flatten(b, nodes)),
        Sketch::Contains(b) => Flat::Contains(flatten(b, nodes)),
        Sketch::Or(a, b) => Flat::Or(flatten(a, nodes), flatten(b, nodes)),
        Sketch::Typed(b, t) => Flat::Typed(flatten(b, nodes), t.clone()),
    };
    if let Some(i) = nodes.iter().position(|n| same(n, &flat)) {
        return i;
    }
    nodes.push(flat);
    nodes.len() - 1
}

fn same(a: &Flat, b: &Flat) -> bool {
    match (a, b) {
        (Flat::Any, Flat::Any) => true,
        (Flat::Leaf(x), Flat::Leaf(y)) => x == y,
        (Flat::App(a, b), Flat::App(c, d)) | (Flat::Or(a, b), Flat::Or(c, d)) => a == c && b == d,
        (Flat::NatApp(a, n), Flat::NatApp(b, m)) => a == b && n == m,
        (Flat::Lambda(a), Flat::Lambda(b)) | (Flat::Contains(a), Flat::Contains(b)) => a == b,
        (Flat::Typed(a, s), Flat::Typed(b, t)) => a == b && s == t,
        _ => false,
    }
}

/// Walks `s` top-down; where `satisfied` holds for a sub-sketch, records it and stops there.
fn collect_partial(s: &Sketch, satisfied: &mut dyn FnMut(&Sketch) -> bool, out: &mut Vec<Sketch>) {
    if *s != Sketch::Any && satisfied(s) {
        out.push(s.clone());
        return;
    }
    match s {
        Sketch::App(a, b) | Sketch::Or(a, b) => {
            collect_partial(a, satisfied, out);
            collect_partial(b, satisfied, out);
        }
        Sketch::NatApp(a, _) | Sketch::Lambda(a) | Sketch::Contains(a) | Sketch::Typed(a, _) => {
            collect_partial(a, satisfied, out)
        }
        _ => {}
    }
}

/// The cost of a term under a cost model (the sum of its nodes' costs).
pub fn term_cost(e: &Expr, cost: CostModel) -> u64 {
    let node = crate::eqsat::egraph::RiseNode::new(
        match &e.kind {
            ExprKind::Var(i) => RiseOp::Var(*i),
            ExprKind::Lambda(_) => RiseOp::Lambda,
            ExprKind::App(..) => RiseOp::App,
            ExprKind::NatLambda(_) => RiseOp::NatLambda,
            ExprKind::NatApp(_, n) => RiseOp::NatApp(n.clone()),
            ExprKind::Prim(p) => RiseOp::Prim(*p),
            ExprKind::Literal(l) => RiseOp::Literal(*l),
        },
        &vec![Id::from(0usize); arity(e)],
        e.ty.clone(),
    );
    let own = cost.node_cost(&node);
    own + match &e.kind {
        ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => term_cost(b, cost),
        ExprKind::App(f, a) => term_cost(f, cost) + term_cost(a, cost),
        _ => 0,
    }
}

fn arity(e: &Expr) -> usize {
    match &e.kind {
        ExprKind::App(..) => 2,
        ExprKind::Lambda(_) | ExprKind::NatLambda(_) | ExprKind::NatApp(..) => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::normalize::program_normal;
    use crate::diagnostics::SourceFile;
    use crate::eqsat::egraph::{add_expr, enumerate, lookup};
    use crate::eqsat::rewrite::Assumptions;
    use crate::resolve::load_source;

    /// A small e-graph: a program grown by a few iterations of some rules.
    fn small_egraph(
        src: &str,
        rules: &str,
        iterations: usize,
    ) -> (RiseEGraph, Id, crate::core::TypedProgram) {
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        let mut eg = RiseEGraph::default();
        let root = add_expr(&mut eg, &program_normal(&p.term).unwrap());
        let rules = crate::eqsat::rules::lookup_all(rules).unwrap();
        let limits = crate::eqsat::limits::Limits {
            iterations,
            ..Default::default()
        };
        let mut assumptions = Assumptions {
            facts: p.facts.clone(),
            allow_new: true,
            assumed: Vec::new(),
        };
        crate::eqsat::runner::run(
            &mut eg,
            &rules,
            &limits,
            &mut assumptions,
            &mut |_| false,
            &mut |_| {},
        );
        (eg, root, p)
    }

    fn sketch(src: &str, p: &crate::core::TypedProgram) -> Sketch {
        let steps = load_source("t.sk", &format!("step s {{ sketch = {src} }}"), p).unwrap();
        steps[0].sketch.clone()
    }

    /// Sketch-constrained extraction returns a cheapest satisfying term: compared with all terms
    /// of the root class up to a depth that contains the optimum, enumerated by brute force.
    #[test]
    fn extraction_is_optimal_against_brute_force() {
        let cases = [
            (
                "def f {n : nat} (g : f32 -> f32) (h : f32 -> f32) (xs : n.f32) : n.f32 = xs |> map g |> map h",
                "map-fusion, map-fission, eta, beta",
                &["contains(map (fun => ?))", "map ? (map ? ?) or contains(mapSeq)", "contains(fun => contains(map))", "?"][..],
            ),
            (
                "def f {n : nat} (xs : (4*n).f32) (ys : (4*n).f32) : f32 = zip xs ys |> map (fun p => fst p * snd p) |> reduce (+) 0.0",
                "reduce-seq, reduce-seq-map-fusion, blocked-reduce(4), eta, beta",
                &["contains(reduceSeq)", "contains((reduceSeq : ? -> ? -> n.? -> ?) ?)", "contains(split 4 ?)", "contains(add ? contains(mul))"][..],
            ),
        ];
        for (src, rules, sketches) in cases {
            let (eg, root, p) = small_egraph(src, rules, 3);
            let all = enumerate::terms(&eg, root, 200_000, 14);
            assert!(all.len() < 200_000, "enumeration was cut off");
            for s in sketches {
                let sk = sketch(s, &p);
                for cost in [CostModel::AstSize, CostModel::SequentialFirst] {
                    let table = SketchTable::new(&eg, &sk, cost);
                    let best = all
                        .iter()
                        .filter(|t| sk.satisfied_by(t))
                        .map(|t| term_cost(t, cost))
                        .min();
                    let got = table.extract(root);
                    assert_eq!(got.is_some(), best.is_some(), "{s}: found differs");
                    if let Some(t) = got {
                        assert!(sk.satisfied_by(&t), "{s}: extracted term does not satisfy");
                        assert_eq!(
                            lookup(&eg, &t).map(|c| eg.find(c)),
                            Some(eg.find(root)),
                            "{s}"
                        );
                        assert_eq!(Some(term_cost(&t, cost)), best, "{s}: not the cheapest");
                        assert_eq!(table.cost_at(root), best, "{s}: reported cost");
                    }
                }
            }
        }
    }

    /// Two children of one e-node can be the same class under different sub-sketches.
    #[test]
    fn same_class_under_different_sub_sketches() {
        let src = "def f (x : f32) : f32 = x + x";
        let (eg, root, p) = small_egraph(src, "eta", 1);
        let sk = sketch("contains(add (? : f32) (? or (? : f64)))", &p);
        let t = SketchTable::new(&eg, &sk, CostModel::AstSize)
            .extract(root)
            .unwrap();
        assert!(sk.satisfied_by(&t));
        let sk2 = sketch("contains(add ? (? : f64))", &p);
        assert!(SketchTable::new(&eg, &sk2, CostModel::AstSize)
            .cost_at(root)
            .is_none());
    }
}
