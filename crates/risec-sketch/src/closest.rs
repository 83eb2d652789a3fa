//! The closest partial match of a sketch in an e-graph, and the sketch node where it stops.
//!
//! Every sketch node gets a *score* per e-class, for the term of the class that matches it best.
//! A score is a pair compared lexicographically: first how many of the node's sketch nodes match
//! in order (pre-order, functions before arguments: an application whose function does not
//! match counts nothing of its argument), then how many match at all (the argument counts
//! anyway). A node counts when its own test passes (the primitive is there, the size is right,
//! the type matches). So the best match is the one that gets furthest down the sketch before its
//! first mismatch, and among those the one that matches most of the rest. A node is satisfied
//! exactly when it gets its maximum ([`Closest::satisfied`]). Scores are one pass over the
//! e-nodes per sketch node (`contains` adds a fixpoint over the classes a class reaches), as for
//! [`super::extract::SketchTable`], and are computed only after a step fails.
//!
//! [`Closest::miss`] then walks down from the root along the best-scoring terms to the first
//! sketch node that no term there matches: the node to report, the e-class that came closest to
//! it, and the sketch nodes matched on the way.

use super::{Sketch, TypeSketch};
use crate::eqsat::egraph::{OpVariant, RiseEGraph, RiseOp};
use crate::ir::nat::Nat;
use egg::{Id, Language};
use std::collections::VecDeque;

/// A sketch node, children as post-order indices (not shared: index = position in post-order).
#[derive(Clone, Debug)]
enum Node {
    Any,
    Leaf(Sketch),
    App(usize, usize),
    NatApp(usize, Nat),
    Lambda(usize),
    Contains(usize),
    Or(usize, usize),
    Typed(usize, TypeSketch),
}

/// Why a sketch node has no match at the class that came closest.
#[derive(Clone, Debug, PartialEq)]
pub enum MissKind {
    /// No e-node of the wanted form (primitive, application, lambda, size application) is there.
    Absent,
    /// An application to a size is there, but to this size instead of the wanted one.
    Size(Nat),
    /// The wanted term is there, but its type does not match the type sketch.
    Type,
}

/// The sketch node where the closest partial match stops.
#[derive(Clone, Debug)]
pub struct Miss {
    /// The node's post-order index in the sketch (the index of its origin).
    pub node: usize,
    /// The node as a sketch.
    pub sketch: Sketch,
    /// The e-class that came closest to matching it.
    pub class: Id,
    /// Why it does not match there.
    pub kind: MissKind,
    /// The innermost application above it on the way down, whose e-class gives context.
    pub context: Option<Id>,
    /// Sketch nodes matched on the way down (each a function applied to the part that fails),
    /// outermost first.
    pub found: Vec<Sketch>,
}

/// Partial-match scores of one sketch over one e-graph.
pub struct Closest<'a> {
    egraph: &'a RiseEGraph,
    nodes: Vec<Node>,
    sketches: Vec<Sketch>,
    max: Vec<Score>,
    scores: Vec<Vec<Score>>,
    /// For `contains` nodes: the best score of the inner node over the classes each class
    /// reaches (itself included).
    reach: Vec<Option<Vec<Score>>>,
    /// The node whose tables each node uses (the first node of an equal sub-sketch).
    shared: Vec<usize>,
}

fn slot(id: Id) -> usize {
    usize::from(id)
}

/// A score: matched in order (high half) and matched at all (low half), so that sums and
/// comparisons of the `u32` work on both at once (a sketch has far fewer than 2^16 nodes).
type Score = u32;

/// One node that matches.
const ONE: Score = (1 << 16) | 1;

/// The part of a score that still counts after a mismatch before it: matched at all.
fn loose(s: Score) -> Score {
    s & 0xffff
}

/// The score of `n` matching nodes.
fn all(n: u32) -> Score {
    (n << 16) | n
}

/// One e-node of a rebuilt e-graph, as the passes read it: its class, kind and children (slots
/// of canonical classes).
#[derive(Clone, Copy)]
struct ENode {
    class: u32,
    variant: OpVariant,
    children: [u32; 2],
    /// Its index in its class (to read its operator back from the e-graph).
    index: u32,
}

/// The e-graph as flat arrays, read once: every e-node, and for every class the classes whose
/// e-nodes have it as a child (compressed rows: `parents[parent_start[c]..parent_start[c + 1]]`).
struct Flat {
    classes: Vec<Id>,
    nodes: Vec<ENode>,
    parent_start: Vec<u32>,
    parents: Vec<u32>,
}

impl Flat {
    fn new(eg: &RiseEGraph, width: usize) -> Flat {
        let classes: Vec<Id> = eg.classes().map(|c| c.id).collect();
        let mut nodes = Vec::with_capacity(eg.total_number_of_nodes());
        for class in eg.classes() {
            for (k, n) in class.nodes.iter().enumerate() {
                let mut children = [0u32; 2];
                for (j, &c) in n.children().iter().take(2).enumerate() {
                    children[j] = slot(eg.find(c)) as u32;
                }
                nodes.push(ENode {
                    class: slot(class.id) as u32,
                    variant: n.variant(),
                    children,
                    index: k as u32,
                });
            }
        }
        let arity = |n: &ENode| match n.variant {
            OpVariant::App => 2,
            OpVariant::Lambda | OpVariant::NatLambda | OpVariant::NatApp => 1,
            _ => 0,
        };
        let mut parent_start = vec![0u32; width + 1];
        for n in &nodes {
            for &c in &n.children[..arity(n)] {
                parent_start[c as usize + 1] += 1;
            }
        }
        for i in 0..width {
            parent_start[i + 1] += parent_start[i];
        }
        let mut fill = parent_start.clone();
        let mut parents = vec![0u32; parent_start[width] as usize];
        for n in &nodes {
            for &c in &n.children[..arity(n)] {
                parents[fill[c as usize] as usize] = n.class;
                fill[c as usize] += 1;
            }
        }
        Flat {
            classes,
            nodes,
            parent_start,
            parents,
        }
    }

    fn parents_of(&self, class: u32) -> &[u32] {
        let c = class as usize;
        &self.parents[self.parent_start[c] as usize..self.parent_start[c + 1] as usize]
    }
}

impl<'a> Closest<'a> {
    /// Scores every node of `sketch` over every class of `egraph` (which must be rebuilt).
    pub fn new(egraph: &'a RiseEGraph, sketch: &Sketch) -> Closest<'a> {
        let mut c = Closest {
            egraph,
            nodes: Vec::new(),
            sketches: Vec::new(),
            max: Vec::new(),
            scores: Vec::new(),
            reach: Vec::new(),
            shared: Vec::new(),
        };
        c.flatten(sketch);
        let width = egraph.classes().map(|k| slot(k.id) + 1).max().unwrap_or(0);
        let flat = Flat::new(egraph, width);
        for i in 0..c.nodes.len() {
            // Equal sub-sketches (a definition used several times) share one table.
            let (s, r) = match (0..i).find(|&j| c.sketches[j] == c.sketches[i]) {
                Some(j) => {
                    c.shared.push(j);
                    (Vec::new(), None)
                }
                None => {
                    c.shared.push(i);
                    c.compute(i, &flat, width)
                }
            };
            c.scores.push(s);
            c.reach.push(r);
        }
        c
    }

    fn flatten(&mut self, s: &Sketch) -> usize {
        let node = match s {
            Sketch::Any => Node::Any,
            Sketch::Prim(_) | Sketch::Literal(_) => Node::Leaf(s.clone()),
            Sketch::App(f, a) => Node::App(self.flatten(f), self.flatten(a)),
            Sketch::NatApp(f, n) => Node::NatApp(self.flatten(f), n.clone()),
            Sketch::Lambda(b) => Node::Lambda(self.flatten(b)),
            Sketch::Contains(b) => Node::Contains(self.flatten(b)),
            Sketch::Or(a, b) => Node::Or(self.flatten(a), self.flatten(b)),
            Sketch::Typed(b, t) => Node::Typed(self.flatten(b), t.clone()),
        };
        let max = match &node {
            Node::Any | Node::Leaf(_) => ONE,
            Node::App(f, a) => ONE + self.max[*f] + self.max[*a],
            Node::NatApp(f, _) | Node::Lambda(f) | Node::Contains(f) | Node::Typed(f, _) => {
                ONE + self.max[*f]
            }
            Node::Or(a, b) => ONE + all(self.max[*a].max(self.max[*b]) >> 16),
        };
        self.nodes.push(node);
        self.sketches.push(s.clone());
        self.max.push(max);
        self.nodes.len() - 1
    }

    /// The index of the root sketch node.
    fn root(&self) -> usize {
        self.nodes.len() - 1
    }

    /// The score of the whole sketch at `class`: how many of its nodes the best match there
    /// matches in order, and how many at all.
    pub fn score(&self, class: Id) -> (u32, u32) {
        let s = self.at(self.root(), class);
        (s >> 16, s & 0xffff)
    }

    /// The score of a complete match of the whole sketch (its number of nodes, twice).
    pub fn max_score(&self) -> (u32, u32) {
        let s = self.max[self.root()];
        (s >> 16, s & 0xffff)
    }

    /// Whether the whole sketch is satisfied at `class`.
    pub fn satisfied(&self, class: Id) -> bool {
        self.score(class) == self.max_score()
    }

    fn at(&self, i: usize, class: Id) -> Score {
        self.at_canonical(i, self.egraph.find(class))
    }

    fn at_canonical(&self, i: usize, class: Id) -> Score {
        self.scores[self.shared[i]]
            .get(slot(class))
            .copied()
            .unwrap_or(0)
    }

    fn full(&self, i: usize, class: Id) -> bool {
        self.at(i, class) == self.max[i]
    }

    /// An application's score from its function's and argument's: the argument counts in
    /// order only if the function matches.
    fn app(&self, f: usize, fs: Score, a: Score) -> Score {
        ONE + fs + if fs == self.max[f] { a } else { loose(a) }
    }

    /// The score of node `i` at every class, and for a `contains` node the reach of its inner
    /// node.
    fn compute(&self, i: usize, flat: &Flat, width: usize) -> (Vec<Score>, Option<Vec<Score>>) {
        let eg = self.egraph;
        let mut t = vec![0 as Score; width];
        let at = |j: usize, c: u32| self.scores[self.shared[j]][c as usize];
        // The best over the class's e-nodes of `score` (0 where none counts).
        let mut each_node = |score: &dyn Fn(&ENode) -> Option<Score>| {
            for n in &flat.nodes {
                if let Some(v) = score(n) {
                    let e = &mut t[n.class as usize];
                    *e = (*e).max(v);
                }
            }
        };
        match &self.nodes[i] {
            Node::Any => each_node(&|_| Some(ONE)),
            Node::Leaf(s) => each_node(&|n| {
                if !matches!(n.variant, OpVariant::Prim | OpVariant::Literal) {
                    return None;
                }
                let op = eg[Id::from(n.class as usize)].nodes[n.index as usize].op();
                let hit = match (s, &op) {
                    (Sketch::Prim(p), RiseOp::Prim(q)) => p == q,
                    (Sketch::Literal(l), RiseOp::Literal(m)) => l == m,
                    _ => false,
                };
                hit.then_some(ONE)
            }),
            Node::App(f, a) => {
                let (f, a) = (*f, *a);
                let any = matches!(self.nodes[a], Node::Any);
                each_node(&|n| match n.variant {
                    OpVariant::App => Some(self.app(f, at(f, n.children[0]), at(a, n.children[1]))),
                    OpVariant::NatApp if any => Some(self.app(f, at(f, n.children[0]), ONE)),
                    _ => None,
                })
            }
            Node::NatApp(f, want) => {
                let f = *f;
                each_node(&|n| {
                    if n.variant != OpVariant::NatApp {
                        return None;
                    }
                    let op = eg[Id::from(n.class as usize)].nodes[n.index as usize].op();
                    let own = if op == RiseOp::NatApp(want.clone()) {
                        ONE
                    } else {
                        0
                    };
                    Some(at(f, n.children[0]) + own)
                })
            }
            Node::Lambda(b) => {
                let b = *b;
                each_node(&|n| (n.variant == OpVariant::Lambda).then(|| ONE + at(b, n.children[0])))
            }
            Node::Or(a, b) => {
                let (a, b) = (*a, *b);
                for &id in &flat.classes {
                    let c = slot(id) as u32;
                    let (sa, sb) = (at(a, c), at(b, c));
                    t[slot(id)] = if sa == self.max[a] || sb == self.max[b] {
                        self.max[i]
                    } else {
                        ONE + sa.max(sb)
                    };
                }
            }
            Node::Typed(s, ty) => {
                let s = *s;
                for class in eg.classes() {
                    let own = if ty.matches(class.data.ty()) { ONE } else { 0 };
                    t[slot(class.id)] = at(s, slot(class.id) as u32) + own;
                }
            }
            Node::Contains(s) => {
                let reach = self.reach_max(*s, flat, width);
                for &id in &flat.classes {
                    t[slot(id)] = ONE + reach[slot(id)];
                }
                return (t, Some(reach));
            }
        }
        (t, None)
    }

    /// The best score of node `s` over the classes each class reaches through its e-nodes'
    /// children (itself included): every class's own score is carried up to its ancestors,
    /// highest scores first, so that each class is settled by the first score that reaches it.
    fn reach_max(&self, s: usize, flat: &Flat, width: usize) -> Vec<Score> {
        let own = &self.scores[self.shared[s]];
        let mut r = vec![0 as Score; width];
        let mut seeds: Vec<(Score, u32)> = flat
            .classes
            .iter()
            .map(|&id| (own[slot(id)], slot(id) as u32))
            .filter(|(v, _)| *v > 0)
            .collect();
        seeds.sort_unstable_by(|a, b| b.cmp(a));
        let mut stack = Vec::new();
        for (v, class) in seeds {
            if r[class as usize] >= v {
                continue;
            }
            r[class as usize] = v;
            stack.push(class);
            while let Some(k) = stack.pop() {
                for &p in flat.parents_of(k) {
                    if r[p as usize] < v {
                        r[p as usize] = v;
                        stack.push(p);
                    }
                }
            }
        }
        r
    }

    /// Where the best partial match of the whole sketch at `class` stops; `None` when the
    /// sketch is satisfied there.
    pub fn miss(&self, class: Id) -> Option<Miss> {
        let mut i = self.root();
        let mut class = self.egraph.find(class);
        if self.full(i, class) {
            return None;
        }
        let mut found = Vec::new();
        let mut context = None;
        let eg = self.egraph;
        // Walks down: every step moves to a child sketch node, so this ends.
        loop {
            let best_node = |pred: &dyn Fn(&crate::eqsat::egraph::RiseNode) -> Option<Score>| {
                eg[class]
                    .nodes
                    .iter()
                    .filter_map(|n| pred(n).map(|s| (s, n)))
                    .max_by_key(|(s, _)| *s)
                    .map(|(_, n)| n.children().to_vec())
            };
            let miss = |kind: MissKind, found: Vec<Sketch>| Miss {
                node: i,
                sketch: self.sketches[i].clone(),
                class,
                kind,
                context,
                found,
            };
            match &self.nodes[i] {
                Node::Any | Node::Leaf(_) => return Some(miss(MissKind::Absent, found)),
                Node::App(f, a) => {
                    let (f, a) = (*f, *a);
                    let any = matches!(self.nodes[a], Node::Any);
                    let Some(ch) = best_node(&|n| {
                        let ch = n.children();
                        match n.variant() {
                            OpVariant::App => {
                                Some(self.app(f, self.at(f, ch[0]), self.at(a, ch[1])))
                            }
                            OpVariant::NatApp if any => Some(self.app(f, self.at(f, ch[0]), ONE)),
                            _ => None,
                        }
                    }) else {
                        return Some(miss(MissKind::Absent, found));
                    };
                    context = Some(class);
                    if !self.full(f, ch[0]) {
                        (i, class) = (f, eg.find(ch[0]));
                    } else {
                        found.push(self.sketches[f].clone());
                        (i, class) = (a, eg.find(ch[1]));
                    }
                }
                Node::NatApp(f, want) => {
                    let f = *f;
                    let Some(ch) = best_node(&|n| match n.op() {
                        RiseOp::NatApp(m) => {
                            Some(self.at(f, n.children()[0]) + if &m == want { ONE } else { 0 })
                        }
                        _ => None,
                    }) else {
                        return Some(miss(MissKind::Absent, found));
                    };
                    if !self.full(f, ch[0]) {
                        (i, class) = (f, eg.find(ch[0]));
                        continue;
                    }
                    let have = eg[class].nodes.iter().find_map(|n| match n.op() {
                        RiseOp::NatApp(m) if self.full(f, n.children()[0]) => Some(m),
                        _ => None,
                    });
                    return Some(miss(MissKind::Size(have.expect("scored above")), found));
                }
                Node::Lambda(b) => {
                    let b = *b;
                    let Some(ch) = best_node(&|n| {
                        (n.variant() == OpVariant::Lambda)
                            .then(|| ONE + self.at(b, n.children()[0]))
                    }) else {
                        return Some(miss(MissKind::Absent, found));
                    };
                    (i, class) = (b, eg.find(ch[0]));
                }
                Node::Or(a, b) => {
                    let (a, b) = (*a, *b);
                    // The alternative that got further.
                    i = if self.at(b, class) > self.at(a, class) {
                        b
                    } else {
                        a
                    };
                }
                Node::Typed(s, _) => {
                    let s = *s;
                    if self.full(s, class) {
                        return Some(miss(MissKind::Type, found));
                    }
                    if matches!(self.nodes[s], Node::Leaf(_)) {
                        return Some(miss(MissKind::Absent, found));
                    }
                    i = s;
                }
                Node::Contains(s) => {
                    let s = *s;
                    let best = self.nearest_best(s, i, class);
                    if self.at(s, best) >> 16 <= 1 && matches!(self.nodes[s], Node::App(..)) {
                        // No application below has the wanted function: report that function
                        // at the class searched, not at some application that matches none of
                        // it.
                        let mut head = s;
                        while let Node::App(f, _) = self.nodes[head] {
                            head = f;
                        }
                        let sketch = self.sketches[head].clone();
                        let node = match (&self.nodes[head], &sketch) {
                            (Node::Typed(..), _) | (Node::Leaf(_), _) => head,
                            _ => s,
                        };
                        return Some(Miss {
                            node,
                            sketch: self.sketches[node].clone(),
                            class,
                            kind: MissKind::Absent,
                            context,
                            found,
                        });
                    }
                    (i, class) = (s, best);
                }
            }
        }
    }

    /// The class nearest to `class` (breadth-first through children) among those it reaches
    /// where inner node `s` of `contains` node `c` scores best.
    fn nearest_best(&self, s: usize, c: usize, class: Id) -> Id {
        let eg = self.egraph;
        let reach = self.reach[self.shared[c]]
            .as_ref()
            .expect("contains nodes keep their reach");
        let target = reach[slot(class)];
        let mut seen = std::collections::HashSet::new();
        let mut queue = VecDeque::from([class]);
        seen.insert(class);
        while let Some(k) = queue.pop_front() {
            if self.at(s, k) == target {
                return k;
            }
            for n in &eg[k].nodes {
                for &ch in n.children() {
                    let ch = eg.find(ch);
                    if reach[slot(ch)] == target && seen.insert(ch) {
                        queue.push_back(ch);
                    }
                }
            }
        }
        class
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::normalize::program_normal;
    use crate::cost::CostModel;
    use crate::diagnostics::SourceFile;
    use crate::eqsat::egraph::add_expr;
    use crate::extract::SketchTable;
    use crate::resolve::load_source;

    fn setup(src: &str, sketch: &str) -> (RiseEGraph, Id, Sketch, crate::core::TypedProgram) {
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        let mut eg = RiseEGraph::default();
        let root = add_expr(&mut eg, &program_normal(&p.term).unwrap());
        eg.rebuild();
        let steps = load_source("t.sk", &format!("step s {{ sketch = {sketch} }}"), &p).unwrap();
        (eg, root, steps[0].sketch.clone(), p)
    }

    const SCALE: &str = "def f {n : nat} (xs : n.f32) : n.f32 = map (fun x => x * 2.0) xs";

    /// Satisfied exactly when the extraction tables say so.
    #[test]
    fn full_score_is_satisfaction() {
        for s in [
            "contains(map)",
            "contains(mul)",
            "contains(reduceSeq)",
            "contains((map : ? -> n.? -> ?) ?)",
            "contains((map : ? -> 4.? -> ?) ?)",
            "contains(reduce or mul)",
            "contains(split 4 ?)",
            "contains(fun => contains(mul))",
            "contains(fun => contains(add))",
            "?",
        ] {
            let (eg, root, sk, _) = setup(SCALE, s);
            let table = SketchTable::new(&eg, &sk, CostModel::AstSize);
            let c = Closest::new(&eg, &sk);
            assert_eq!(c.satisfied(root), table.cost_at(root).is_some(), "{s}");
            assert_eq!(c.miss(root).is_none(), c.satisfied(root), "{s}");
        }
    }

    #[test]
    fn a_wrong_loop_size_is_a_type_miss_under_what_matched() {
        let (eg, root, sk, _) = setup(SCALE, "contains((map : ? -> (n/4).? -> ?) contains(mul))");
        let miss = Closest::new(&eg, &sk).miss(root).unwrap();
        assert_eq!(miss.kind, MissKind::Type);
        assert!(
            matches!(miss.sketch, Sketch::Typed(..)),
            "{:?}",
            miss.sketch
        );
        assert!(miss.context.is_some());
    }

    #[test]
    fn an_absent_primitive_is_found_below_the_matched_function() {
        let (eg, root, sk, _) = setup(SCALE, "contains(map (fun => contains(add)) ?)");
        let miss = Closest::new(&eg, &sk).miss(root).unwrap();
        assert_eq!(miss.kind, MissKind::Absent);
        assert_eq!(
            miss.sketch,
            Sketch::Prim(crate::ir::primitive::Primitive::Add)
        );
        assert_eq!(miss.found.len(), 1, "{:?}", miss.found);
    }

    #[test]
    fn a_wrong_size_argument_is_reported_with_the_size_there() {
        let src = "def f {n : nat} (xs : (4*n).f32) : (4*n).f32 = join (split 4 xs)";
        let (eg, root, sk, _) = setup(src, "contains(split 8 ?)");
        let miss = Closest::new(&eg, &sk).miss(root).unwrap();
        assert_eq!(miss.kind, MissKind::Size(crate::ir::nat::lit(4)));
    }
}
