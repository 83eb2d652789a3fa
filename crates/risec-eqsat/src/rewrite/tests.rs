use super::*;
use crate::core::print::expr_to_source;
use crate::core::Expr;
use crate::egraph::{add_expr, check_types, extract_smallest};

use crate::frontend::load::test_term as program;

/// Applies `rule` once to every match and returns the e-graph and the root.
fn apply_once(rule: &Rule, e: &Expr, assumptions: &mut Assumptions) -> (RiseEGraph, Id, usize) {
    let mut eg = RiseEGraph::default();
    let root = add_expr(&mut eg, e);
    eg.rebuild();
    let matches = rule.search(&eg, usize::MAX);
    let mut changed = 0;
    for m in &matches {
        if rule.apply(&mut eg, m, assumptions) == Ok(true) {
            changed += 1;
        }
    }
    eg.rebuild();
    check_types(&eg).unwrap();
    (eg, root, changed)
}

/// Whether the class of `root` contains `goal`.
fn contains(eg: &mut RiseEGraph, root: Id, goal: &Expr) -> bool {
    let g = add_expr(eg, goal);
    eg.rebuild();
    eg.find(g) == eg.find(root)
}

#[test]
fn map_fusion_fuses_with_shifted_functions() {
    let rule = Rule::new(
        "map-fusion",
        "",
        "map f (map g xs)",
        "map (fun x => f (g x)) xs",
    )
    .unwrap();
    let start = program("def p {n : nat} (y : f32) (xs : n.f32) = xs |> map (fun a => a * y) |> map (fun b => b + y)");
    let goal = program("def p {n : nat} (y : f32) (xs : n.f32) = xs |> map (fun x => (fun b => b + y) ((fun a => a * y) x))");
    let (mut eg, root, changed) = apply_once(&rule, &start, &mut Assumptions::default());
    assert_eq!(changed, 1);
    assert!(
        contains(&mut eg, root, &goal),
        "got {}",
        expr_to_source(&extract_smallest(&eg, root))
    );
}

#[test]
fn eta_checks_its_side_condition() {
    let rule = Rule::new("eta", "", "fun x => f x", "f").unwrap();
    // fun x => add x x: f = add x uses x, so eta must not fire on the outer lambda.
    let start = program("def p = fun (x : f32) => add x x");
    let (_, _, changed) = apply_once(&rule, &start, &mut Assumptions::default());
    assert_eq!(changed, 0);
    let start = program("def p (y : f32) = fun (x : f32) => add y x");
    let goal = program("def p (y : f32) = add y");
    let (mut eg, root, changed) = apply_once(&rule, &start, &mut Assumptions::default());
    assert_eq!(changed, 1);
    assert!(contains(&mut eg, root, &goal));
}

#[test]
fn split_join_records_divisibility_assumptions() {
    let sig = pattern::RuleSignature {
        params: &["s"],
        values: &[crate::ir::nat::lit(32)],
        ..Default::default()
    };
    let rule = Rule::with_signature(
        "split-join(32)",
        "",
        "map f xs",
        "join (map (map f) (split s xs))",
        &sig,
    )
    .unwrap();
    let start = program("def p {m : nat} (xs : m.f32) = xs |> map (fun a => a * 2.0)");
    let mut strict = Assumptions::default();
    let (_, _, changed) = apply_once(&rule, &start, &mut strict);
    assert_eq!(changed, 0, "32 | m is not provable");
    let mut lenient = Assumptions {
        allow_new: true,
        ..Default::default()
    };
    let (_, _, changed) = apply_once(&rule, &start, &mut lenient);
    assert_eq!(changed, 1);
    assert_eq!(lenient.assumed.len(), 1);
    let concrete = program("def p (xs : 64.f32) = xs |> map (fun a => a * 2.0)");
    let (_, _, changed) = apply_once(&rule, &concrete, &mut Assumptions::default());
    assert_eq!(changed, 1);
    let bad = program("def p (xs : 40.f32) = xs |> map (fun a => a * 2.0)");
    let (_, _, changed) = apply_once(
        &rule,
        &bad,
        &mut Assumptions {
            allow_new: true,
            ..Default::default()
        },
    );
    assert_eq!(changed, 0, "32 does not divide 40");
}

#[test]
fn beta_reduces_by_extraction() {
    let start = program("def p (y : f32) = (fun (x : f32) => x + y) 1.0");
    let goal = program("def p (y : f32) = 1.0 + y");
    let (mut eg, root, changed) = apply_once(&Rule::beta(), &start, &mut Assumptions::default());
    assert_eq!(changed, 1);
    assert!(contains(&mut eg, root, &goal));
}

#[test]
fn nat_beta_substitutes_sizes_in_types() {
    let start =
        program("def p (xs : 8.f32) = (fun (n : nat) => fun (v : (2*n).f32) => split n v) 4 xs");
    let goal = program("def p (xs : 8.f32) = (fun (v : 8.f32) => split 4 v) xs");
    let (mut eg, root, changed) =
        apply_once(&Rule::beta_nat(), &start, &mut Assumptions::default());
    assert_eq!(changed, 1);
    assert!(contains(&mut eg, root, &goal));
}

#[test]
fn unsatisfiable_divisibility_is_never_assumed() {
    use super::Assumptions;
    use crate::ir::nat;
    let mut a = Assumptions {
        facts: Vec::new(),
        allow_new: true,
        assumed: Vec::new(),
    };
    let n = nat::index(0);
    // (2n + 1)/2 = n + 1/2 is whole for no n: the match must be skipped, not assumed.
    let half = nat::div(
        &nat::add(&nat::mul(&nat::lit(2), &n), &nat::lit(1)),
        &nat::lit(2),
    );
    assert_eq!(a.admit(&half), Err(super::Skip::Divisibility));
    assert!(a.assumed.is_empty());
    // n/2 may be whole: assumed and reported.
    assert_eq!(a.admit(&nat::div(&n, &nat::lit(2))), Ok(()));
    assert_eq!(a.assumed.len(), 1);
}

#[test]
fn a_divisor_past_64_bits_is_refused_at_once() {
    use super::{Assumptions, Skip};
    use crate::ir::nat;
    // (n + 1)/64^11, as eleven applications of split-join(64) to a map over n + 1 make: its
    // feasibility check used to count towards 2^66.
    let mut size = nat::add(&nat::index(0), &nat::lit(1));
    for _ in 0..11 {
        size = nat::div(&size, &nat::lit(64));
    }
    let mut a = Assumptions {
        facts: Vec::new(),
        allow_new: true,
        assumed: Vec::new(),
    };
    assert_eq!(a.admit(&size), Err(Skip::SizeTooLarge));
    assert!(a.assumed.is_empty());
}

#[test]
fn compact_matches_hold_the_same_matches() {
    let e = program(
        "def f {n : nat} (g : f32 -> f32) (h : f32 -> f32) (xs : n.f32) = xs |> map h |> map g |> map h",
    );
    let mut eg = RiseEGraph::default();
    add_expr(&mut eg, &e);
    eg.rebuild();
    let rule = crate::rules::lookup("map-fusion").unwrap();
    let plain = rule.search(&eg, usize::MAX);
    let compact = rule.search_compact(&eg, usize::MAX, &mut || false).unwrap();
    assert_eq!(plain.len(), 2);
    assert_eq!(compact.len(), plain.len());
    for (i, m) in plain.iter().enumerate() {
        let c = compact.get(i);
        assert_eq!((c.class, &c.bindings), (m.class, &m.bindings));
    }
    let limited = rule.search_compact(&eg, 1, &mut || false).unwrap();
    assert_eq!(limited.len(), 1);
    assert!(
        rule.search_compact(&eg, 9, &mut || true).is_some(),
        "too few classes to interrupt"
    );
}

#[test]
fn a_rule_that_rebinds_a_used_variable_at_another_type_does_not_fire() {
    // The mutant of let-out-of-lambda binds `y` to `v : m.f32` while `b` uses it as an `f32`.
    let mutant = Rule::new(
        "let-out-of-lambda-mutant",
        "",
        "fun x => let y = t v in b",
        "let y = v in fun x => b",
    )
    .unwrap();
    let start = program(
        "def p {n m : nat} (a : n.m.f32) (b : m.f32) = \
         a |> map (fun row => let s = reduce (+) 0.0 b in map (fun x => x * s) row)",
    );
    let start = crate::core::normalize::program_normal(&start).unwrap();
    let (_, _, changed) = apply_once(&mutant, &start, &mut Assumptions::default());
    assert_eq!(changed, 0);
    // The correct rule fires on the same program.
    let rule = Rule::new(
        "let-out-of-lambda",
        "",
        "fun x => let y = v in b",
        "let y = v in fun x => b",
    )
    .unwrap();
    let (_, _, changed) = apply_once(&rule, &start, &mut Assumptions::default());
    assert!(changed > 0);
}
