//! The definitions of the library's rules, written with names (see [`crate::rewrite::pattern`]).
//!
//! Left-hand sides are written in beta-eta normal form, because searches start from normal forms
//! (`fun b => a * b` is `mul a`). Shapes separate the two sides with `=>>` because `=>` is lambda
//! syntax. Side conditions that are about binders (eta, map-fission, reduce-seq-map-fission, …)
//! are not written here: the rule compiler derives them from the names. The few semantic ones
//! (types of lone-variable rules, associativity for blocked-reduce, growth guards) are `.when`
//! conditions below, and every rule is checked against the reference interpreter by
//! `tests/suite/rule_validation.rs` ([`super::validate`]).

use super::vectorize;
use super::RuleInfo;
use crate::core::Literal;
use crate::egraph::{OpVariant, RiseEGraph, RiseOp};
use crate::ir::nat::Nat;
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, ScalarType, Type, TypeNode};
use crate::rewrite::pattern::RuleSignature;
use crate::rewrite::Rule;
use egg::Id;

/// What a rule needs besides its shape and parameters.
#[derive(Clone, Copy, Default)]
struct Extra {
    /// The left-hand side is a lone pattern variable.
    any_class: bool,
    /// Variables computed by a deriver.
    derived: &'static [&'static str],
}

/// Builds a rule from its catalogue entry's shape `lhs =>> rhs`; a rule with parameters gets
/// their values in its name: `split-join(32)`.
fn build(
    name: &str,
    doc: &str,
    shape: &str,
    params: &[&str],
    values: &[Nat],
    extra: Extra,
) -> Rule {
    let (lhs, rhs) = shape
        .split_once("=>>")
        .expect("shapes are written `lhs =>> rhs`");
    let full_name = if params.is_empty() {
        name.to_string()
    } else {
        let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        format!("{name}({})", shown.join(","))
    };
    let sig = RuleSignature {
        params,
        values,
        derived: extra.derived,
        any_class: extra.any_class,
    };
    Rule::with_signature(full_name, doc, lhs, rhs, &sig)
        .unwrap_or_else(|e| panic!("built-in rule {name}: {}", e.message))
}

/// A catalogue entry: name, size parameters, doc, shape, and optionally what the rule needs
/// beyond its shape (`Extra`) and a function finishing it (adding conditions or a deriver).
macro_rules! rule {
    ($name:literal, [$($p:literal),*], $doc:literal, $shape:literal) => {
        rule!($name, [$($p),*], $doc, $shape, Extra::default(), |r| r)
    };
    ($name:literal, [$($p:literal),*], $doc:literal, $shape:literal, $extra:expr, $finish:expr) => {
        RuleInfo {
            name: $name,
            params: &[$($p),*],
            doc: $doc,
            shape: $shape,
            build: |values| {
                let finish: fn(Rule) -> Rule = $finish;
                finish(build($name, $doc, $shape, &[$($p),*], values, $extra))
            },
        }
    };
}

const LONE: Extra = Extra {
    any_class: true,
    derived: &[],
};

/// The class of pattern variable `var` in a match of `rule`.
fn slot(rule: &Rule, var: &str) -> usize {
    rule.compiled()
        .and_then(|c| c.expr_vars.iter().position(|v| v == var))
        .unwrap_or_else(|| panic!("rule {} has no variable {var}", rule.name))
}

/// Whether some node of the class applies primitive `p` (through up to four applications to
/// values or sizes): `toMem x`, `split s x`, `slide 3 1 x`, ….
fn applies(egraph: &RiseEGraph, class: Id, p: Primitive) -> bool {
    fn head(egraph: &RiseEGraph, class: Id, p: Primitive, fuel: u32) -> bool {
        fuel > 0
            && egraph[class].nodes.iter().any(|n| match n.variant() {
                OpVariant::Prim => n.op() == RiseOp::Prim(p),
                OpVariant::App | OpVariant::NatApp => {
                    head(egraph, n.children_ids()[0], p, fuel - 1)
                }
                _ => false,
            })
    }
    egraph[class]
        .nodes
        .iter()
        .any(|n| n.variant() == OpVariant::App && head(egraph, n.children_ids()[0], p, 4))
}

fn holds_prim(egraph: &RiseEGraph, class: Id, p: Primitive) -> bool {
    egraph[class]
        .nodes
        .iter()
        .any(|n| n.variant() == OpVariant::Prim && n.op() == RiseOp::Prim(p))
}

/// Whether the class holds a literal equal to `v` (floats or integers).
fn holds_number(egraph: &RiseEGraph, class: Id, v: f64) -> bool {
    egraph[class]
        .nodes
        .iter()
        .any(|n| n.variant() == OpVariant::Literal && literal_equals(&n.op(), v))
}

/// Whether `op` is a literal equal to `v`.
fn literal_equals(op: &RiseOp, v: f64) -> bool {
    match *op {
        RiseOp::Literal(Literal::F32(bits)) => f32::from_bits(bits) as f64 == v,
        RiseOp::Literal(Literal::F64(bits)) => f64::from_bits(bits) == v,
        RiseOp::Literal(Literal::I32(i)) => i as f64 == v,
        RiseOp::Literal(Literal::I64(i)) => i as f64 == v,
        _ => false,
    }
}

fn is_array(egraph: &RiseEGraph, class: Id) -> bool {
    matches!(egraph[class].data.ty().get(), TypeNode::Array(..))
}

fn is_f32_array(egraph: &RiseEGraph, class: Id) -> bool {
    matches!(egraph[class].data.ty().get(),
        TypeNode::Array(_, e) if matches!(e.get(), TypeNode::Scalar(ScalarType::F32)))
}

/// store-to-mem: data-typed classes that are not themselves a `toMem` (which would grow
/// `toMem (toMem …)` forever).
fn store_to_mem(rule: Rule) -> Rule {
    rule.when(|eg, _, id| eg[id].data.ty().is_data() && !applies(eg, id, Primitive::ToMem))
}

/// join-split: arrays that are not themselves a `split` (which would grow `split (split …)`
/// forever) nor a `toMem` (which would grow forever together with store-to-mem, which stores
/// every new `split`).
fn join_split(rule: Rule) -> Rule {
    rule.when(|eg, _, id| {
        is_array(eg, id) && !applies(eg, id, Primitive::Split) && !applies(eg, id, Primitive::ToMem)
    })
}

/// blocked-reduce: only `reduce add 0` and `reduce mul 1`, whose operator is associative with
/// the initial value as neutral element (up to floating-point rounding).
fn blocked_reduce(rule: Rule) -> Rule {
    let (op, init) = (slot(&rule, "op"), slot(&rule, "init"));
    rule.when(move |eg, b, _| {
        let (op, init) = (b.expr(op), b.expr(init));
        (holds_prim(eg, op, Primitive::Add) && holds_number(eg, init, 0.0))
            || (holds_prim(eg, op, Primitive::Mul) && holds_number(eg, init, 1.0))
    })
}

/// reduce-lanes: `reduce add 0`, whose partial sums can be taken in any order (up to
/// floating-point rounding), and whose initial value may start every lane; and `reduce max`
/// and `reduce min` from any initial value: associative, commutative and idempotent (a NaN
/// operand is passed over whatever the order), so the lanes and the final reduction give the
/// same value exactly (up to the sign of a zero: `max(0.0, -0.0)` is the second operand).
fn reduce_lanes(rule: Rule) -> Rule {
    let (op, init) = (slot(&rule, "op"), slot(&rule, "init"));
    rule.when(move |eg, b, _| {
        let (op, init) = (b.expr(op), b.expr(init));
        (holds_prim(eg, op, Primitive::Add) && holds_number(eg, init, 0.0))
            || holds_prim(eg, op, Primitive::Max)
            || holds_prim(eg, op, Primitive::Min)
    })
}

/// vec-before-map and its pair and triple forms: `f : arg -> f32`, vectorised by the deriver
/// (`arg` is `f32`, `(f32, f32)` or `(f32, (f32, f32))`).
fn vec_before_map(rule: Rule, arg: Type) -> Rule {
    let f = slot(&rule, "f");
    let ty = types::fun(arg, types::f32());
    rule.when(move |eg, b, _| *eg[b.expr(f)].data.ty() == ty)
        .deriving(vectorize::deriver("f", "fv", "w"))
}

const DERIVES_FV: Extra = Extra {
    any_class: false,
    derived: &["fv"],
};

pub(super) static CATALOGUE: &[RuleInfo] = &[
    // Normal form
    rule!(
        "eta",
        [],
        "fun x => f x = f, when x is not free in f",
        "fun x => f x =>> f",
        Extra::default(),
        |r| r.reduction()
    ),
    RuleInfo {
        name: "beta",
        params: &[],
        doc: "(fun x => b) a = b with a for x (extraction-based substitution)",
        shape: "(fun x => b) a =>> b[x := a]",
        build: |_| Rule::beta(),
    },
    RuleInfo {
        name: "beta-nat",
        params: &[],
        doc: "(fun (n : nat) => b) s = b with s for n (extraction-based substitution)",
        shape: "(fun (n : nat) => b) s =>> b[n := s]",
        build: |_| Rule::beta_nat(),
    },
    // Map fusion and fission
    rule!(
        "map-fusion",
        [],
        "two maps in a row become one map of the composed function",
        "map f (map g xs) =>> map (fun x => f (g x)) xs"
    ),
    rule!(
        "map-fission",
        [],
        "a map of a composed function becomes two maps (f must not use the element)",
        "map (fun x => f gx) =>> fun ys => map f (map (fun x => gx) ys)"
    ),
    rule!(
        "map-eta-abstraction",
        [],
        "a partially applied map gets its array argument back: map f = fun x => map f x",
        "map f =>> fun x => map f x"
    ),
    rule!(
        "eliminate-map-identity",
        [],
        "mapping the identity changes nothing",
        "map (fun x => x) xs =>> xs"
    ),
    rule!(
        "map-array",
        [],
        "any array is the identity mapped over it (gives later rules a map to work on)",
        "x =>> map (fun y => y) x",
        LONE,
        |r| r.when(|eg, _, id| is_array(eg, id))
    ),
    // Transpose
    rule!(
        "transpose-pair-elimination",
        [],
        "transposing twice is the identity",
        "transpose (transpose x) =>> x"
    ),
    rule!(
        "map-transpose",
        [],
        "an element-wise map commutes with transpose (map inside first, then outside)",
        "transpose (map (map f) y) =>> map (map f) (transpose y)"
    ),
    rule!(
        "map-transpose-reverse",
        [],
        "an element-wise map commutes with transpose (transpose first, then inside)",
        "map (map f) (transpose y) =>> transpose (map (map f) y)"
    ),
    rule!(
        "transpose-around-map-map",
        [],
        "loop interchange: a 2D element-wise map equals the map of the transpose, transposed back",
        "map (map f) xs =>> transpose (map (map f) (transpose xs))"
    ),
    rule!(
        "transpose-around-map-map-1m",
        [],
        "transpose-around-map-map under one more map: interchange the inner two of three loops",
        "map (map (map f)) xs =>> map transpose (map (map (map f)) (map transpose xs))"
    ),
    rule!(
        "transpose-around-map-map-2m",
        [],
        "transpose-around-map-map under two more maps: interchange the inner two of four loops",
        "map (map (map (map f))) xs =>> \
         map (map transpose) (map (map (map (map f))) (map (map transpose) xs))"
    ),
    rule!(
        "map-map-interchange",
        [],
        "loop interchange of a map over a second array that does not depend on the outer element \
         (the rows of a matrix and the columns of another): the maps swap, the result is \
         transposed back (ys must not use x)",
        "map (fun x => map fx ys) xs =>> transpose (map (fun y => map (fun x => fx y) xs) ys)"
    ),
    // Reductions
    rule!(
        "reduce-seq",
        [],
        "reduce is computed by a sequential loop",
        "reduce =>> reduceSeq"
    ),
    rule!(
        "reduce-seq-map-fusion",
        [],
        "a sequential reduction of a mapped array applies the function in the loop",
        "reduceSeq f init (map g xs) =>> reduceSeq (fun acc x => f acc (g x)) init xs"
    ),
    rule!(
        "reduce-seq-map-fission",
        [],
        "the element computation of a sequential reduction moves into a map \
         (op must use neither the accumulator nor the element)",
        "reduceSeq (fun acc y => op acc gy) init =>> \
         fun xs => reduceSeq op init (map (fun y => gy) xs)"
    ),
    rule!(
        "lift-reduce-seq",
        [],
        "a map of reductions of rows becomes one reduction over the columns of vectors",
        "map (reduceSeq op init) =>> fun rows => reduceSeq \
         (fun acc y => map (fun z => op (fst z) (snd z)) (zip acc y)) \
         (generate (fun i => init)) (transpose rows)"
    ),
    rule!(
        "lift-reduce-seq-2",
        [],
        "map of (a + sum of g over a row) becomes one reduction over columns starting from the \
         a's (g must use neither x nor acc; reassociates the additions)",
        "map (fun x => add (fst x) (reduceSeq (fun acc y => add acc gy) 0.0 (snd x))) =>> \
         fun rows => reduceSeq \
         (fun acc2 ys => map (fun z => add (fst z) ((fun y => gy) (snd z))) (zip acc2 ys)) \
         (fst (unzip rows)) (transpose (snd (unzip rows)))"
    ),
    rule!(
        "lift-reduce-seq-3",
        [],
        "a map of reductions with per-row initial vectors becomes one reduction over the \
         transposed rows (op must not use x)",
        "map (fun x => reduceSeq op (fst (unzip x)) (transpose (snd (unzip x)))) =>> \
         fun rows => reduceSeq (fun acc ys => map (fun z => op (fst z) (snd z)) (zip acc ys)) \
         (fst (unzip (map unzip rows))) \
         (transpose (map transpose (snd (unzip (map unzip rows)))))"
    ),
    rule!(
        "blocked-reduce",
        ["s"],
        "a reduction becomes a sequential reduction of reductions of blocks of s (only for \
         add with 0 and mul with 1; reassociates)",
        "reduce op init xs =>> reduceSeq (fun acc y => op acc (reduce op init y)) init (split s xs)",
        Extra::default(),
        blocked_reduce
    ),
    rule!(
        "reduce-lanes",
        ["w"],
        "a sum (or maximum, or minimum) becomes w interleaved partial ones, accumulated as \
         one array of w over blocks of w, then reduced (only for add with 0, max and min; \
         reassociates): with vec-after and vec-before-map-pair, a vector accumulator",
        "reduce op init =>> fun xs => reduce op init (reduceSeq (fun acc ys => map (fun p => \
         op (fst p) (snd p)) (zip acc ys)) (generate (fun i => init)) (split w xs))",
        Extra::default(),
        reduce_lanes
    ),
    // Split and join
    rule!(
        "split-join",
        ["s"],
        "map over blocks of s: map f = join . map (map f) . split s",
        "map f xs =>> join (map (map f) (split s xs))"
    ),
    rule!(
        "split-join-1m",
        ["s"],
        "split-join under one more map: blocks of s in the inner dimension of a 2D map",
        "map (map f) xs =>> map join (map (map (map f)) (map (split s) xs))"
    ),
    rule!(
        "split-join-2m",
        ["s"],
        "split-join under two more maps: blocks of s in the innermost dimension of a 3D map",
        "map (map (map f)) xs =>> \
         map (map join) (map (map (map (map f))) (map (map (split s)) xs))"
    ),
    rule!(
        "join-split",
        ["s"],
        "any array is the join of its blocks of s (the prototypes' split-join-2; not for arrays \
         that are a split or a toMem)",
        "x =>> join (split s x)",
        LONE,
        join_split
    ),
    rule!(
        "split-before-map",
        [],
        "splitting a mapped array is mapping over the split array's blocks",
        "split n (map f xs) =>> map (map f) (split n xs)"
    ),
    // Memory and lowering
    rule!(
        "store-to-mem",
        [],
        "any data value may be materialised in memory first (not a value already in memory)",
        "x =>> let y = toMem x in y",
        LONE,
        store_to_mem
    ),
    rule!("map-seq", [], "map is computed by a sequential loop", "map =>> mapSeq"),
    rule!(
        "map-par",
        [],
        "map is computed by a parallel (OpenMP) loop",
        "map =>> mapPar"
    ),
    rule!(
        "map-seq-unroll",
        [],
        "map is computed by a fully unrolled sequential loop (its length must be a constant)",
        "map =>> mapSeqUnroll"
    ),
    rule!(
        "reduce-seq-unroll",
        [],
        "a sequential reduction is unrolled",
        "reduceSeq =>> reduceSeqUnroll"
    ),
    // Vectorisation
    rule!(
        "vec-after",
        ["w"],
        "any array of f32 is the scalars of its vectors of w lanes (w must divide the length)",
        "x =>> asScalar (asVector w x)",
        LONE,
        |r| r.when(|eg, _, id| is_f32_array(eg, id))
    ),
    rule!(
        "vec-before-map",
        ["w"],
        "vectors of a mapped array are the lane-wise function mapped over the vectors \
         (f : f32 -> f32 built from add, sub, mul, div, neg, literals and f32 variables)",
        "asVector w (map f xs) =>> map fv (asVector w xs)",
        DERIVES_FV,
        |r| vec_before_map(r, types::f32())
    ),
    rule!(
        "vec-before-map-pair",
        ["w"],
        "vec-before-map for f : (f32, f32) -> f32, vectorising both components of the pairs",
        "asVector w (map f xs) =>> \
         map fv (zip (asVector w (fst (unzip xs))) (asVector w (snd (unzip xs))))",
        DERIVES_FV,
        |r| vec_before_map(r, types::pair(types::f32(), types::f32()))
    ),
    rule!(
        "vec-before-map-triple",
        ["w"],
        "vec-before-map for f : (f32, (f32, f32)) -> f32 (an accumulator and a pair of factors), \
         vectorising the three components",
        "asVector w (map f xs) =>> \
         map fv (zip (asVector w (fst (unzip xs))) \
         (zip (asVector w (fst (unzip (snd (unzip xs))))) (asVector w (snd (unzip (snd (unzip xs)))))))",
        DERIVES_FV,
        |r| vec_before_map(
            r,
            types::pair(types::f32(), types::pair(types::f32(), types::f32()))
        )
    ),
    rule!(
        "fst-unzip-zip",
        [],
        "the first component of an unzipped zip is the first array",
        "fst (unzip (zip a b)) =>> a"
    ),
    rule!(
        "snd-unzip-zip",
        [],
        "the second component of an unzipped zip is the second array",
        "snd (unzip (zip a b)) =>> b"
    ),
    rule!(
        "vec-promote-aligned",
        [],
        "asVector on memory known to be aligned (same values; a hint for code generation)",
        "asVector n xs =>> asVectorAligned n xs"
    ),
    // Stencils
    rule!(
        "slide-before-map",
        [],
        "sliding windows of mapped elements are mapped windows",
        "slide sz sp (map f y) =>> map (map f) (slide sz sp y)"
    ),
    rule!(
        "slide-before-map-map-f",
        [],
        "mapped windows are windows of mapped elements (slide-before-map reversed)",
        "map (map f) (slide sz sp y) =>> slide sz sp (map f y)"
    ),
    rule!(
        "map-slide-before-transpose",
        [],
        "transposing row-wise windows is windowing the transposed array, then transposing \
         each window",
        "transpose (map (slide sz sp) y) =>> map transpose (slide sz sp (transpose y))"
    ),
    rule!(
        "separate-dot-hv",
        [],
        "a dot product with an outer-product weight matrix is a dot of row dots (rows first; \
         reassociates)",
        "reduce add 0.0 (map (fun m => fst m * snd m) \
         (zip (join (map (fun a => map (mul a) wh) wv)) (join nbh))) =>> \
         reduce add 0.0 (map (fun m => fst m * snd m) \
         (zip wv (map (fun s => reduce add 0.0 (map (fun m => fst m * snd m) (zip wh s))) nbh)))"
    ),
    rule!(
        "separate-dot-vh",
        [],
        "a dot product with an outer-product weight matrix is a dot of column dots (columns \
         first; reassociates)",
        "reduce add 0.0 (map (fun m => fst m * snd m) \
         (zip (join (map (fun a => map (mul a) wh) wv)) (join nbh))) =>> \
         reduce add 0.0 (map (fun m => fst m * snd m) \
         (zip wh (map (fun s => reduce add 0.0 (map (fun m => fst m * snd m) (zip wv s))) \
         (transpose nbh))))"
    ),
];
