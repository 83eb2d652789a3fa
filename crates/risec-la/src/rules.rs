//! The rewrite rules of the linear-algebra optimiser.
//!
//! * [`relational`]: SPORES' R_EQ — distributivity of join over union, aggregates over unions,
//!   pushing and pulling aggregates through joins when the index is not free on the other side,
//!   `Σ_i A = A * dim(i)` when `i` is not in `A`, aggregates commute, joins and unions are
//!   associative and commutative — plus the unit and factoring laws of numbers.
//! * [`lifting`]: relational terms back to matrices (R_LR read backwards): a join or union of
//!   two bound matrices, an aggregate of one, an aggregate of a join (a matrix product), an
//!   elementwise function; transposition; and the few linear-algebra identities that make
//!   equal matrices meet (`t(t(A)) = A`, `colSums(rowSums(A)) = sum(A)`, …).
//!
//! No rule makes a new index, so saturation never grows the set of index names. Every rule's
//! side condition reads the e-class facts of [`super::lang`] (schemas, shapes).

use super::lang::{Constant, Data, IndexName, Kind, LaAnalysis, LaEGraph, Math};
use egg::{rewrite, Applier, Id, Pattern, PatternAst, Rewrite, Subst, Symbol, Var};

/// A rule of the optimiser.
pub type LaRewrite = Rewrite<Math, LaAnalysis>;

fn var(name: &str) -> Var {
    name.parse().expect("a pattern variable")
}

fn data<'a>(egraph: &'a LaEGraph, subst: &Subst, v: &str) -> &'a Data {
    &egraph[subst[var(v)]].data
}

fn index(egraph: &LaEGraph, subst: &Subst, v: &str) -> IndexName {
    data(egraph, subst, v).index().unwrap_or(IndexName::UNIT)
}

/// `?i` is not a free index of `?a`.
fn not_free(i: &'static str, a: &'static str) -> impl Fn(&mut LaEGraph, Id, &Subst) -> bool {
    move |egraph, _, subst| {
        let i = index(egraph, subst, i);
        !data(egraph, subst, a).schema().contains(&i)
    }
}

/// `?a * 0` is zero: `?a` is surely finite (`0 * inf` is NaN), and its schema is within that
/// of `?x` (so that dropping it changes no shape).
fn vanishes_beside(a: &'static str, x: &'static str) -> impl Fn(&mut LaEGraph, Id, &Subst) -> bool {
    move |egraph, _, subst| {
        let outer = data(egraph, subst, x).schema().to_vec();
        let a = data(egraph, subst, a);
        a.finite && a.schema().iter().all(|i| outer.contains(i))
    }
}

/// SPORES' relational equality rules R_EQ (both directions where they are equalities).
pub fn relational() -> Vec<LaRewrite> {
    let mut rules: Vec<LaRewrite> = vec![
        rewrite!("join-comm"; "(* ?a ?b)" => "(* ?b ?a)"),
        rewrite!("join-assoc"; "(* ?a (* ?b ?c))" => "(* (* ?a ?b) ?c)"),
        rewrite!("join-assoc-rev"; "(* (* ?a ?b) ?c)" => "(* ?a (* ?b ?c))"),
        rewrite!("union-comm"; "(+ ?a ?b)" => "(+ ?b ?a)"),
        rewrite!("union-assoc"; "(+ ?a (+ ?b ?c))" => "(+ (+ ?a ?b) ?c)"),
        rewrite!("union-assoc-rev"; "(+ (+ ?a ?b) ?c)" => "(+ ?a (+ ?b ?c))"),
        rewrite!("distribute"; "(* ?a (+ ?b ?c))" => "(+ (* ?a ?b) (* ?a ?c))"),
        rewrite!("factor"; "(+ (* ?a ?b) (* ?a ?c))" => "(* ?a (+ ?b ?c))"),
        rewrite!("factor-one"; "(+ ?a (* ?a ?b))" => "(* ?a (+ 1 ?b))"),
        rewrite!("twice"; "(+ ?a ?a)" => "(* 2 ?a)"),
        rewrite!("join-one"; "(* 1 ?a)" => "?a"),
        rewrite!("agg-union"; "(agg ?i (+ ?a ?b))" => "(+ (agg ?i ?a) (agg ?i ?b))"),
        rewrite!("agg-union-rev"; "(+ (agg ?i ?a) (agg ?i ?b))" => "(agg ?i (+ ?a ?b))"),
        rewrite!("agg-pull"; "(* ?a (agg ?i ?b))" => "(agg ?i (* ?a ?b))" if not_free("?i", "?a")),
        rewrite!("agg-push"; "(agg ?i (* ?a ?b))" => "(* ?a (agg ?i ?b))" if not_free("?i", "?a")),
        rewrite!("agg-comm"; "(agg ?i (agg ?j ?a))" => "(agg ?j (agg ?i ?a))"),
        rewrite!("union-zero"; "(+ ?x (* 0 ?a))" => "?x" if vanishes_beside("?a", "?x")),
    ];
    rules.push(built("agg-dim", "(agg ?i ?a)", dim_factor));
    rules
}

/// The rules that translate relational terms back to matrices, and the linear-algebra
/// identities that let equal matrices meet.
pub fn lifting() -> Vec<LaRewrite> {
    let pair = "(bind ?a ?b ?A) (bind ?c ?d ?B)";
    vec![
        built("lift-join", &format!("(* {pair})"), |e, s| {
            lift_pair(e, s, false)
        }),
        built("lift-union", &format!("(+ {pair})"), |e, s| {
            lift_pair(e, s, true)
        }),
        built("lift-agg", "(agg ?j (bind ?a ?b ?A))", lift_agg),
        built("lift-mmul", &format!("(agg ?j (* {pair}))"), lift_matmul),
        built("lift-map", "(map ?f (bind ?a ?b ?A))", lift_map),
        built("transpose", "(bind ?a ?b ?A)", transpose),
        Rewrite::new("unbind", pattern("(bind ?a ?b ?A)"), Unbind).expect("a valid rule"),
        rewrite!("t-t"; "(t (t ?A))" => "?A"),
        rewrite!("sum-rows-cols"; "(colsums (rowsums ?A))" => "(sum ?A)"),
        rewrite!("sum-cols-rows"; "(rowsums (colsums ?A))" => "(sum ?A)"),
    ]
}

fn pattern(text: &str) -> Pattern<Math> {
    text.parse().expect("a valid pattern")
}

/// An applier that builds a node from the match (or nothing, when a side condition fails)
/// and unions it with the matched class.
struct Build(fn(&mut LaEGraph, &Subst) -> Option<Math>);

impl Applier<Math, LaAnalysis> for Build {
    fn apply_one(
        &self,
        egraph: &mut LaEGraph,
        eclass: Id,
        subst: &Subst,
        _: Option<&PatternAst<Math>>,
        _: Symbol,
    ) -> Vec<Id> {
        let Some(node) = (self.0)(egraph, subst) else {
            return vec![];
        };
        let id = egraph.add(node);
        if egraph.union(eclass, id) {
            vec![id]
        } else {
            vec![]
        }
    }
}

/// A rule whose right-hand side [`Build`] makes.
fn built(name: &str, lhs: &str, build: fn(&mut LaEGraph, &Subst) -> Option<Math>) -> LaRewrite {
    Rewrite::new(name, pattern(lhs), Build(build)).expect("a valid rule")
}

fn bind(egraph: &mut LaEGraph, i: IndexName, j: IndexName, m: Id) -> Math {
    let ii = egraph.add(Math::Index(i));
    let jj = egraph.add(Math::Index(j));
    Math::Bind([ii, jj, m])
}

/// `Σ_i A = A * dim(i)` when `i` is not free in `A`.
fn dim_factor(egraph: &mut LaEGraph, subst: &Subst) -> Option<Math> {
    let i = index(egraph, subst, "?i");
    if i.is_unit() || data(egraph, subst, "?a").schema().contains(&i) {
        return None;
    }
    let n = egraph.analysis.size(i) as f64;
    let dim = egraph.add(Math::Num(Constant::new(n)));
    let a = subst[var("?a")];
    Some(Math::Join([a, dim]))
}

/// Where one operand's index meets the other's: equal, or one of them is the unit index.
fn meet(x: IndexName, y: IndexName) -> Option<IndexName> {
    match (x.is_unit(), y.is_unit()) {
        (true, _) => Some(y),
        (_, true) => Some(x),
        _ if x == y => Some(x),
        _ => None,
    }
}

/// `A(a, b) * B(c, d)` (or `+`) is `(A ⊙ B)(a ∪ c, b ∪ d)` when the indices meet; a column
/// times a row is the matrix product `A %*% B` (an outer product).
fn lift_pair(egraph: &mut LaEGraph, subst: &Subst, union: bool) -> Option<Math> {
    let [a, b, c, d] = ["?a", "?b", "?c", "?d"].map(|v| index(egraph, subst, v));
    let (Some(rows), Some(cols)) = (meet(a, c), meet(b, d)) else {
        return None;
    };
    if rows == cols && !rows.is_unit() {
        // One index on both sides: a diagonal, which no matrix operation here makes.
        return None;
    }
    let (x, y) = (subst[var("?A")], subst[var("?B")]);
    let outer = !union && !a.is_unit() && b.is_unit() && c.is_unit() && !d.is_unit();
    let m = if outer {
        Math::MMul([x, y])
    } else if union {
        Math::Add([x, y])
    } else {
        Math::Mul([x, y])
    };
    let m = egraph.add(m);
    let node = bind(egraph, rows, cols, m);
    Some(node)
}

/// `Σ_j A(a, j)` is `rowSums(A)(a)`; `Σ_j A(j, b)` is `colSums(A)(b)`.
fn lift_agg(egraph: &mut LaEGraph, subst: &Subst) -> Option<Math> {
    let [j, a, b] = ["?j", "?a", "?b"].map(|v| index(egraph, subst, v));
    let m = subst[var("?A")];
    let (rows, cols, node) = if !j.is_unit() && j == b && j != a {
        (a, IndexName::UNIT, Math::RowSums(m))
    } else if !j.is_unit() && j == a && j != b {
        (IndexName::UNIT, b, Math::ColSums(m))
    } else {
        return None;
    };
    let m = egraph.add(node);
    let node = bind(egraph, rows, cols, m);
    Some(node)
}

/// `Σ_j A(a, j) * B(j, d)` is `(A %*% B)(a, d)`.
fn lift_matmul(egraph: &mut LaEGraph, subst: &Subst) -> Option<Math> {
    let [j, a, b, c, d] = ["?j", "?a", "?b", "?c", "?d"].map(|v| index(egraph, subst, v));
    let distinct = a != d || a.is_unit();
    if j.is_unit() || b != j || c != j || a == j || d == j || !distinct {
        return None;
    }
    let m = egraph.add(Math::MMul([subst[var("?A")], subst[var("?B")]]));
    let node = bind(egraph, a, d, m);
    Some(node)
}

/// `f(A(a, b))` is `f(A)(a, b)` for an elementwise function `f`.
fn lift_map(egraph: &mut LaEGraph, subst: &Subst) -> Option<Math> {
    if !matches!(data(egraph, subst, "?A").kind, Kind::Matrix(_)) {
        return None;
    }
    let [a, b] = ["?a", "?b"].map(|v| index(egraph, subst, v));
    let m = egraph.add(Math::Map([subst[var("?f")], subst[var("?A")]]));
    let node = bind(egraph, a, b, m);
    Some(node)
}

/// `A(a, b)` is `t(A)(b, a)`.
fn transpose(egraph: &mut LaEGraph, subst: &Subst) -> Option<Math> {
    let [a, b] = ["?a", "?b"].map(|v| index(egraph, subst, v));
    if a.is_unit() && b.is_unit() {
        return None;
    }
    let t = egraph.add(Math::T(subst[var("?A")]));
    let node = bind(egraph, b, a, t);
    Some(node)
}

/// `unbind(a, b, R)` is `A` for every `bind(a, b, A)` in `R`: two matrices bound to the same
/// indices in one relation are equal.
struct Unbind;

impl Applier<Math, LaAnalysis> for Unbind {
    fn apply_one(
        &self,
        egraph: &mut LaEGraph,
        eclass: Id,
        subst: &Subst,
        _: Option<&PatternAst<Math>>,
        _: Symbol,
    ) -> Vec<Id> {
        let (a, b, m) = (subst[var("?a")], subst[var("?b")], subst[var("?A")]);
        let unbound = egraph.add(Math::Unbind([a, b, eclass]));
        if egraph.union(m, unbound) {
            vec![unbound]
        } else {
            vec![]
        }
    }
}
