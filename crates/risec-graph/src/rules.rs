//! The graph substitutions: TASO-style rewrites of tensor graphs, each with a small graph on
//! which it applies (its validation, [`crate::validate`]).
//!
//! Single-pattern rules are egg rewrites with side conditions on the classes' shapes.
//! Multi-pattern rules (TENSAT's) match two operators that read the same input and replace
//! both by one wider operator whose result is split: two products by different weights
//! ([`MERGE_MATMULS`]), two convolutions with equal windows ([`MERGE_CONVS`]). A merge is not
//! applied where one operator's weights depend on the other's result (it would make the graph
//! a cycle: TENSAT's cycle filter).

use crate::lang::{GraphAnalysis, GraphEGraph, Meta, TensorLang};
use egg::{rewrite, Id, Language, Rewrite, Subst, Var};
use rustc_hash::{FxHashMap, FxHashSet};

/// The name of the multi-pattern rule merging products that share their left operand.
pub const MERGE_MATMULS: &str = "merge-matmuls";
/// The name of the multi-pattern rule merging convolutions that share their input.
pub const MERGE_CONVS: &str = "merge-convs";

/// A rule of the graph optimiser.
pub struct Rule {
    /// Its name, as listed by `risec graph --rules`.
    pub name: &'static str,
    /// What it does, in a line.
    pub doc: &'static str,
    /// A graph on whose outputs it applies: checked against the reference evaluation.
    pub example: &'static str,
    kind: Kind,
}

enum Kind {
    Single(Rewrite<TensorLang, GraphAnalysis>),
    MergeMatmuls,
    MergeConvs,
}

impl Rule {
    /// Whether it matches two operators at once (TENSAT's multi-pattern rules).
    pub fn is_multi(&self) -> bool {
        !matches!(self.kind, Kind::Single(_))
    }

    /// Applies every match once (at most `max_merges` merges for a multi-pattern rule) and
    /// rebuilds; whether the e-graph changed.
    pub fn apply(&self, egraph: &mut GraphEGraph, max_merges: usize) -> bool {
        let before = (egraph.total_number_of_nodes(), egraph.number_of_classes());
        match &self.kind {
            Kind::Single(rw) => {
                let matches = rw.search(egraph);
                rw.apply(egraph, &matches);
            }
            Kind::MergeMatmuls => merge(egraph, false, max_merges),
            Kind::MergeConvs => merge(egraph, true, max_merges),
        }
        egraph.rebuild();
        (egraph.total_number_of_nodes(), egraph.number_of_classes()) != before
    }

    /// Whether its source pattern occurs in the e-graph (for a multi-pattern rule: an operator
    /// of its kind occurs in two classes); a rule that does not may still be made to apply by
    /// later rewrites, but not by nothing (MCTS's blacklist).
    pub fn occurs(&self, egraph: &GraphEGraph) -> bool {
        match &self.kind {
            Kind::Single(rw) => !rw.search(egraph).is_empty(),
            Kind::MergeMatmuls | Kind::MergeConvs => {
                !candidates(egraph, matches!(self.kind, Kind::MergeConvs)).is_empty()
            }
        }
    }
}

fn var(name: &str) -> Var {
    name.parse().expect("a pattern variable")
}

fn meta<'a>(egraph: &'a GraphEGraph, subst: &Subst, v: &str) -> &'a Meta {
    &egraph[subst[var(v)]].data
}

fn dims(egraph: &GraphEGraph, subst: &Subst, v: &str) -> Vec<usize> {
    meta(egraph, subst, v)
        .shape()
        .map(|s| s.to_vec())
        .unwrap_or_default()
}

fn num(egraph: &GraphEGraph, subst: &Subst, v: &str) -> Option<usize> {
    meta(egraph, subst, v).num().map(|n| n as usize)
}

/// `?ax` is the last axis of `?t`.
fn last_axis(ax: &'static str, t: &'static str) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| num(eg, s, ax).is_some_and(|a| a + 1 == dims(eg, s, t).len())
}

/// `?ax` is the axis of rows (the second last) of `?t`.
fn rows_axis(ax: &'static str, t: &'static str) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| num(eg, s, ax).is_some_and(|a| a + 2 == dims(eg, s, t).len())
}

/// `?at` is the size of `?a` along `?ax`: the split undoes the concatenation.
fn splits_at(
    ax: &'static str,
    at: &'static str,
    a: &'static str,
) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| match (num(eg, s, ax), num(eg, s, at)) {
        (Some(ax), Some(at)) => dims(eg, s, a).get(ax) == Some(&at),
        _ => false,
    }
}

fn same_shape(a: &'static str, b: &'static str) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| dims(eg, s, a) == dims(eg, s, b)
}

/// Weights `?w1` and `?w2` have the same window (and input channels).
fn same_window(a: &'static str, b: &'static str) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| {
        let (x, y) = (dims(eg, s, a), dims(eg, s, b));
        x.len() == 4 && y.len() == 4 && x[1..] == y[1..]
    }
}

/// `?a` and `?c` are matrices with as many rows (so that they stand side by side).
fn matrices_side_by_side(
    a: &'static str,
    c: &'static str,
) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| {
        let (x, y) = (dims(eg, s, a), dims(eg, s, c));
        x.len() == 2 && y.len() == 2 && x[0] == y[0]
    }
}

/// Inputs `?x`, `?y` differ only in channels and weights `?w1`, `?w2` only in input channels
/// (and are not the same input: that is `add-convs`).
fn stackable_inputs(
    x: &'static str,
    y: &'static str,
    w1: &'static str,
    w2: &'static str,
) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| {
        let but_channels = |p: Vec<usize>, q: Vec<usize>| {
            p.len() == 4 && q.len() == 4 && p[0] == q[0] && p[2..] == q[2..]
        };
        s[var(x)] != s[var(y)]
            && but_channels(dims(eg, s, x), dims(eg, s, y))
            && but_channels(dims(eg, s, w1), dims(eg, s, w2))
    }
}

fn one_by_one(w: &'static str) -> impl Fn(&mut GraphEGraph, Id, &Subst) -> bool {
    move |eg, _, s| dims(eg, s, w).get(2..) == Some(&[1, 1][..])
}

fn single(
    name: &'static str,
    doc: &'static str,
    example: &'static str,
    rw: Rewrite<TensorLang, GraphAnalysis>,
) -> Rule {
    debug_assert_eq!(rw.name.as_str(), name);
    Rule {
        name,
        doc,
        example,
        kind: Kind::Single(rw),
    }
}

/// Every rule, single-pattern ones first, in the order TENSAT's strategy applies them.
pub fn all() -> Vec<Rule> {
    let mut rules = vec![
        single("fuse-matmul-relu", "relu(matmul(a, b)) is one product with a fused relu",
            "input a : 3 x 4\nweight b : 4 x 5\nlet y = matmul(a, b)\nlet z = relu(y)\noutput z",
            rewrite!("fuse-matmul-relu"; "(relu (matmul none ?a ?b))" => "(matmul relu ?a ?b)")),
        single("fuse-matmul-tanh", "tanh(matmul(a, b)) is one product with a fused tanh",
            "input a : 3 x 4\nweight b : 4 x 5\nlet y = matmul(a, b)\nlet z = tanh(y)\noutput z",
            rewrite!("fuse-matmul-tanh"; "(tanh (matmul none ?a ?b))" => "(matmul tanh ?a ?b)")),
        single("fuse-matmul-sigmoid", "sigmoid(matmul(a, b)) is one product with a fused sigmoid",
            "input a : 3 x 4\nweight b : 4 x 5\nlet y = matmul(a, b)\nlet z = sigmoid(y)\noutput z",
            rewrite!("fuse-matmul-sigmoid"; "(sigmoid (matmul none ?a ?b))" => "(matmul sigmoid ?a ?b)")),
        single("fuse-conv-relu", "relu(conv2d(x, w)) is one convolution with a fused relu",
            "input x : 1 x 2 x 5 x 5\nweight w : 3 x 2 x 3 x 3\nlet y = conv2d(x, w, pad=1)\nlet z = relu(y)\noutput z",
            rewrite!("fuse-conv-relu"; "(relu (conv2d ?s ?p none ?x ?w))" => "(conv2d ?s ?p relu ?x ?w)")),
        single("matmul-assoc", "a(bc) = (ab)c",
            "input a : 3 x 4\nweight b : 4 x 2\nweight c : 2 x 6\nlet bc = matmul(b, c)\nlet y = matmul(a, bc)\noutput y",
            rewrite!("matmul-assoc"; "(matmul none ?a (matmul none ?b ?c))" => "(matmul none (matmul none ?a ?b) ?c)")),
        single("matmul-assoc-rev", "(ab)c = a(bc)",
            "input a : 3 x 4\nweight b : 4 x 2\nweight c : 2 x 6\nlet ab = matmul(a, b)\nlet y = matmul(ab, c)\noutput y",
            rewrite!("matmul-assoc-rev"; "(matmul none (matmul none ?a ?b) ?c)" => "(matmul none ?a (matmul none ?b ?c))")),
        single("matmul-factor-left", "ab + ac = a(b + c)",
            "input a : 3 x 4\nweight b : 4 x 5\nweight c : 4 x 5\nlet x = matmul(a, b)\nlet y = matmul(a, c)\nlet z = add(x, y)\noutput z",
            rewrite!("matmul-factor-left"; "(add (matmul none ?a ?b) (matmul none ?a ?c))" => "(matmul none ?a (add ?b ?c))")),
        single("matmul-factor-right", "ac + bc = (a + b)c",
            "input a : 3 x 4\ninput b : 3 x 4\nweight c : 4 x 5\nlet x = matmul(a, c)\nlet y = matmul(b, c)\nlet z = add(x, y)\noutput z",
            rewrite!("matmul-factor-right"; "(add (matmul none ?a ?c) (matmul none ?b ?c))" => "(matmul none (add ?a ?b) ?c)")),
        single("add-comm", "a + b = b + a",
            "input a : 2 x 3\ninput b : 2 x 3\nlet y = add(a, b)\noutput y",
            rewrite!("add-comm"; "(add ?a ?b)" => "(add ?b ?a)")),
        single("mul-comm", "a * b = b * a (elementwise)",
            "input a : 2 x 3\ninput b : 2 x 3\nlet y = mul(a, b)\noutput y",
            rewrite!("mul-comm"; "(mul ?a ?b)" => "(mul ?b ?a)")),
        single("add-assoc", "a + (b + c) = (a + b) + c",
            "input a : 2 x 3\ninput b : 2 x 3\ninput c : 2 x 3\nlet s = add(b, c)\nlet y = add(a, s)\noutput y",
            rewrite!("add-assoc"; "(add ?a (add ?b ?c))" => "(add (add ?a ?b) ?c)")),
        single("concat-matmul-cols", "products of one input by two weights, side by side, are one product by the weights side by side",
            "input x : 3 x 4\nweight p : 4 x 2\nweight q : 4 x 5\nlet a = matmul(x, p, act=relu)\nlet b = matmul(x, q, act=relu)\nlet y = concat(a, b, axis=1)\noutput y",
            rewrite!("concat-matmul-cols"; "(concat ?ax (matmul ?act ?x ?w1) (matmul ?act ?x ?w2))" => "(matmul ?act ?x (concat ?ax ?w1 ?w2))" if last_axis("?ax", "?w1"))),
        single("matmul-concat-cols", "a product by weights side by side is the two products side by side",
            "input x : 3 x 4\nweight p : 4 x 2\nweight q : 4 x 5\nlet w = concat(p, q, axis=1)\nlet y = matmul(x, w)\noutput y",
            rewrite!("matmul-concat-cols"; "(matmul ?act ?x (concat ?ax ?w1 ?w2))" => "(concat ?ax (matmul ?act ?x ?w1) (matmul ?act ?x ?w2))" if last_axis("?ax", "?w1"))),
        single("concat-matmul-rows", "products of two inputs by one weight, stacked, are one product of the stacked inputs",
            "input a : 3 x 4\ninput b : 2 x 4\nweight w : 4 x 5\nlet x = matmul(a, w)\nlet y = matmul(b, w)\nlet z = concat(x, y, axis=0)\noutput z",
            rewrite!("concat-matmul-rows"; "(concat ?ax (matmul ?act ?a1 ?w) (matmul ?act ?a2 ?w))" => "(matmul ?act (concat ?ax ?a1 ?a2) ?w)" if rows_axis("?ax", "?a1"))),
        single("split-concat-first", "the first part of a split that undoes a concat is its first operand",
            "input a : 2 x 3\ninput b : 2 x 4\nlet c = concat(a, b, axis=1)\nlet p, q = split(c, axis=1, at=3)\noutput p",
            rewrite!("split-concat-first"; "(split0 (split ?ax ?at (concat ?ax ?a ?b)))" => "?a" if splits_at("?ax", "?at", "?a"))),
        single("split-concat-second", "the second part of a split that undoes a concat is its second operand",
            "input a : 2 x 3\ninput b : 2 x 4\nlet c = concat(a, b, axis=1)\nlet p, q = split(c, axis=1, at=3)\noutput q",
            rewrite!("split-concat-second"; "(split1 (split ?ax ?at (concat ?ax ?a ?b)))" => "?b" if splits_at("?ax", "?at", "?a"))),
        single("concat-split", "concatenating the two parts of a split gives the tensor split",
            "input x : 2 x 7\nlet p, q = split(x, axis=1, at=3)\nlet y = concat(p, q, axis=1)\noutput y",
            rewrite!("concat-split"; "(concat ?ax (split0 (split ?ax ?at ?x)) (split1 (split ?ax ?at ?x)))" => "?x")),
        single("concat-conv-channels", "convolutions of one input by two weights, stacked by channel, are one convolution by the stacked weights",
            "input x : 1 x 2 x 5 x 5\nweight w1 : 3 x 2 x 3 x 3\nweight w2 : 4 x 2 x 3 x 3\nlet a = conv2d(x, w1, pad=1)\nlet b = conv2d(x, w2, pad=1)\nlet y = concat(a, b, axis=1)\noutput y",
            rewrite!("concat-conv-channels"; "(concat 1 (conv2d ?s ?p ?act ?x ?w1) (conv2d ?s ?p ?act ?x ?w2))" => "(conv2d ?s ?p ?act ?x (concat 0 ?w1 ?w2))" if same_window("?w1", "?w2"))),
        single("conv-enlarge", "a 1x1 convolution is a 3x3 one, padded by 1, whose weights are zero but in the centre",
            "input x : 1 x 2 x 5 x 5\nweight w : 3 x 2 x 1 x 1\nlet y = conv2d(x, w, stride=2)\noutput y",
            rewrite!("conv-enlarge"; "(conv2d ?s 0 ?act ?x ?w)" => "(conv2d ?s 1 ?act ?x (enlarge 3 ?w))" if one_by_one("?w"))),
        single("add-convs", "the sum of two convolutions of one input is the convolution by the summed weights",
            "input x : 1 x 2 x 5 x 5\nweight w1 : 3 x 2 x 3 x 3\nweight w2 : 3 x 2 x 3 x 3\nlet a = conv2d(x, w1, pad=1)\nlet b = conv2d(x, w2, pad=1)\nlet y = add(a, b)\noutput y",
            rewrite!("add-convs"; "(add (conv2d ?s ?p none ?x ?w1) (conv2d ?s ?p none ?x ?w2))" => "(conv2d ?s ?p none ?x (add ?w1 ?w2))" if same_shape("?w1", "?w2"))),
        single("add-matmuls-concat", "a·b + c·d is one product of a and c side by side by b stacked on d",
            "input a : 3 x 4\ninput c : 3 x 2\nweight b : 4 x 5\nweight d : 2 x 5\nlet x = matmul(a, b)\nlet y = matmul(c, d)\nlet z = add(x, y)\noutput z",
            rewrite!("add-matmuls-concat"; "(add (matmul none ?a ?b) (matmul none ?c ?d))" => "(matmul none (concat 1 ?a ?c) (concat 0 ?b ?d))" if matrices_side_by_side("?a", "?c"))),
        single("add-convs-concat", "the sum of convolutions of two inputs is one convolution of the inputs stacked by channel, by the weights stacked by input channel",
            "input x : 1 x 2 x 5 x 5\ninput y : 1 x 3 x 5 x 5\nweight w1 : 4 x 2 x 3 x 3\nweight w2 : 4 x 3 x 3 x 3\nlet a = conv2d(x, w1, pad=1)\nlet b = conv2d(y, w2, pad=1)\nlet z = add(a, b)\noutput z",
            rewrite!("add-convs-concat"; "(add (conv2d ?s ?p none ?x ?w1) (conv2d ?s ?p none ?y ?w2))" => "(conv2d ?s ?p none (concat 1 ?x ?y) (concat 1 ?w1 ?w2))" if stackable_inputs("?x", "?y", "?w1", "?w2"))),
        single("relu-concat", "relu of each part, concatenated, is relu of the concatenation",
            "input a : 2 x 3\ninput b : 2 x 4\nlet x = relu(a)\nlet y = relu(b)\nlet z = concat(x, y, axis=1)\noutput z",
            rewrite!("relu-concat"; "(concat ?ax (relu ?a) (relu ?b))" => "(relu (concat ?ax ?a ?b))")),
        single("transpose-transpose", "transposing twice is the identity",
            "input a : 2 x 3\nlet x = transpose(a)\nlet y = transpose(x)\noutput y",
            rewrite!("transpose-transpose"; "(transpose (transpose ?x))" => "?x")),
        single("transpose-matmul", "(ab)ᵀ = bᵀaᵀ",
            "input a : 2 x 3\nweight b : 3 x 4\nlet x = matmul(a, b)\nlet y = transpose(x)\noutput y",
            rewrite!("transpose-matmul"; "(transpose (matmul none ?a ?b))" => "(matmul none (transpose ?b) (transpose ?a))")),
        single("add-concat", "the sum of two concatenations of equal parts is the concatenation of the sums",
            "input a : 2 x 3\ninput b : 2 x 4\ninput c : 2 x 3\ninput d : 2 x 4\nlet x = concat(a, b, axis=1)\nlet y = concat(c, d, axis=1)\nlet z = add(x, y)\noutput z",
            rewrite!("add-concat"; "(add (concat ?ax ?a ?b) (concat ?ax ?c ?d))" => "(concat ?ax (add ?a ?c) (add ?b ?d))" if same_shape("?a", "?c"))),
    ];
    rules.push(Rule {
        name: MERGE_MATMULS,
        doc: "two products of one input by different weights are one product by the weights side by side, split",
        example: "input x : 3 x 4\nweight p : 4 x 2\nweight q : 4 x 5\nlet a = matmul(x, p)\nlet b = matmul(x, q)\noutput a, b",
        kind: Kind::MergeMatmuls,
    });
    rules.push(Rule {
        name: MERGE_CONVS,
        doc: "two convolutions of one input with equal windows are one convolution by the stacked weights, split by channel",
        example: "input x : 1 x 2 x 5 x 5\nweight p : 3 x 2 x 3 x 3\nweight q : 2 x 2 x 3 x 3\nlet a = conv2d(x, p, pad=1, act=relu)\nlet b = conv2d(x, q, pad=1, act=relu)\noutput a, b",
        kind: Kind::MergeConvs,
    });
    rules
}

/// A product's or convolution's pieces: the class, the attribute classes, the input and weights.
#[derive(Clone, Copy)]
struct Op {
    class: Id,
    attrs: [Id; 3],
    x: Id,
    w: Id,
}

/// Pairs of operators of one kind reading the same input with the same attributes, in
/// different classes, whose weights fit a merge.
fn candidates(egraph: &GraphEGraph, convs: bool) -> Vec<(Op, Op)> {
    let mut groups: FxHashMap<([Id; 3], Id), Vec<Op>> = FxHashMap::default();
    for class in egraph.classes() {
        for node in &class.nodes {
            let op = match node {
                TensorLang::Matmul([act, x, w]) if !convs => Op {
                    class: class.id,
                    attrs: [*act, *act, *act],
                    x: *x,
                    w: *w,
                },
                TensorLang::Conv2d([s, p, act, x, w]) if convs => Op {
                    class: class.id,
                    attrs: [*s, *p, *act],
                    x: *x,
                    w: *w,
                },
                _ => continue,
            };
            let op = Op {
                x: egraph.find(op.x),
                w: egraph.find(op.w),
                attrs: op.attrs.map(|a| egraph.find(a)),
                ..op
            };
            groups.entry((op.attrs, op.x)).or_default().push(op);
        }
    }
    let mut pairs = Vec::new();
    let mut keys: Vec<_> = groups.keys().copied().collect();
    keys.sort();
    for key in keys {
        let ops = &groups[&key];
        for (i, a) in ops.iter().enumerate() {
            for b in &ops[i + 1..] {
                if a.class == b.class || a.w == b.w {
                    continue;
                }
                let (wa, wb) = (egraph[a.w].data.shape(), egraph[b.w].data.shape());
                let fits = match (wa, wb) {
                    (Some(p), Some(q)) if convs => p.len() == 4 && q.len() == 4 && p[1..] == q[1..],
                    (Some(p), Some(q)) => {
                        p.len() == q.len() && p.len() >= 2 && p[..p.len() - 1] == q[..q.len() - 1]
                    }
                    _ => false,
                };
                if fits {
                    pairs.push(if a.class < b.class {
                        (*a, *b)
                    } else {
                        (*b, *a)
                    });
                }
            }
        }
    }
    pairs
}

/// Whether class `to` is reachable from class `from` through any node's operands.
fn reaches(egraph: &GraphEGraph, from: Id, to: Id) -> bool {
    let (from, to) = (egraph.find(from), egraph.find(to));
    let mut seen = FxHashSet::default();
    let mut stack = vec![from];
    while let Some(c) = stack.pop() {
        if c == to {
            return true;
        }
        if !seen.insert(c) {
            continue;
        }
        for node in &egraph[c].nodes {
            stack.extend(node.children().iter().map(|k| egraph.find(*k)));
        }
    }
    false
}

fn merge(egraph: &mut GraphEGraph, convs: bool, max_merges: usize) {
    let pairs = candidates(egraph, convs);
    let mut done = 0;
    for (a, b) in pairs {
        if done >= max_merges {
            break;
        }
        // The cycle filter: neither operator may feed the other's weights; and one computed
        // from the other (a part of an earlier merge) is not merged again.
        if reaches(egraph, b.w, a.class)
            || reaches(egraph, a.w, b.class)
            || reaches(egraph, a.class, b.class)
            || reaches(egraph, b.class, a.class)
        {
            continue;
        }
        let Some(wa) = egraph[a.w].data.shape().map(|s| s.to_vec()) else {
            continue;
        };
        let (w_axis, out_axis, first) = if convs {
            (0, 1, wa[0])
        } else {
            (wa.len() - 1, wa.len() - 1, wa[wa.len() - 1])
        };
        let ax_w = egraph.add(TensorLang::Num(w_axis as i64));
        let weights = egraph.add(TensorLang::Concat([ax_w, a.w, b.w]));
        let wide = if convs {
            egraph.add(TensorLang::Conv2d([
                a.attrs[0], a.attrs[1], a.attrs[2], a.x, weights,
            ]))
        } else {
            egraph.add(TensorLang::Matmul([a.attrs[0], a.x, weights]))
        };
        let ax_o = egraph.add(TensorLang::Num(out_axis as i64));
        let at = egraph.add(TensorLang::Num(first as i64));
        let pair = egraph.add(TensorLang::Split([ax_o, at, wide]));
        let p0 = egraph.add(TensorLang::Split0(pair));
        let p1 = egraph.add(TensorLang::Split1(pair));
        egraph.union(a.class, p0);
        egraph.union(b.class, p1);
        done += 1;
    }
}

/// A pattern's source, for listing.
pub fn source(rule: &Rule) -> String {
    match &rule.kind {
        Kind::Single(rw) => rw
            .searcher
            .get_pattern_ast()
            .map(|p| p.to_string())
            .unwrap_or_default(),
        Kind::MergeMatmuls => "(matmul ?act ?x ?w1), (matmul ?act ?x ?w2)".into(),
        Kind::MergeConvs => "(conv2d ?s ?p ?act ?x ?w1), (conv2d ?s ?p ?act ?x ?w2)".into(),
    }
}

#[cfg(test)]
impl Rule {
    /// A single-pattern rule outside the library (tests of the validation).
    pub fn single_for_tests(
        name: &'static str,
        example: &'static str,
        rw: Rewrite<TensorLang, GraphAnalysis>,
    ) -> Rule {
        Rule {
            name,
            doc: "",
            example,
            kind: Kind::Single(rw),
        }
    }
}
