use super::*;

fn rule(lhs: &str, rhs: &str) -> Rule {
    Rule::new("r", "", lhs, rhs).unwrap()
}

fn check(lhs: &str, rhs: &str) -> Result<Report, RuleCheckError> {
    check_rule(&rule(lhs, rhs), lhs, rhs, &Options::default())
}

fn counterexample(lhs: &str, rhs: &str) -> Counterexample {
    match check(lhs, rhs) {
        Err(RuleCheckError::Counterexample(c)) => *c,
        other => panic!("{lhs} => {rhs}: expected a counterexample, got {other:?}"),
    }
}

#[test]
fn sound_rules_pass() {
    for (l, r) in [
        ("map f (map g xs)", "map (fun x => f (g x)) xs"),
        ("f (let y = v in b)", "let y = v in f b"),
        ("(let y = v in g) a", "let y = v in g a"),
        ("fun x => let y = v in b", "let y = v in fun x => b"),
        (
            "map f a",
            "let p = toMem (map transpose (split 6 a)) in map f (join (map transpose p))",
        ),
        (
            "transpose b",
            "let p = toMem (map transpose (split 16 (transpose b))) in join (map transpose p)",
        ),
        (
            "split s (transpose x)",
            "let p = toMem (map transpose (split s (transpose x))) in map transpose p",
        ),
        ("fst (makePair a b)", "a"),
        ("map f x", "join (split 2 (map f x))"),
    ] {
        let report = check(l, r).unwrap_or_else(|e| panic!("{l} => {r}: {e:?}"));
        assert_eq!(report.trials, Options::default().trials, "{l} => {r}");
    }
}

#[test]
fn an_application_is_not_its_argument() {
    let c = counterexample("f x", "x");
    assert_eq!(c.substitution.len(), 2);
    assert_ne!(c.lhs, c.rhs);
    let notes = c.notes().join("\n");
    assert!(notes.contains("instance: f = (fun"), "{notes}");
    assert!(notes.contains("left-hand side gives"), "{notes}");
}

#[test]
fn a_let_rebinding_its_variable_to_another_value_is_caught() {
    // The mutant of let-out-of-lambda: `y` is bound to `v` instead of `tileReduce v`.
    let c = counterexample(
        "fun x => let y = tileReduce v in b",
        "let y = v in fun x => b",
    );
    assert!(c.substitution.iter().any(|(n, _)| n == "b"));
}

#[test]
fn swapped_functions_are_caught() {
    counterexample("map f (map g xs)", "map (fun x => g (f x)) xs");
    counterexample("zip a b", "zip b a");
}

#[test]
fn the_check_is_deterministic() {
    let (l, r) = ("fun x => let y = v in b", "let y = v in fun x => b");
    let a = check(l, r).unwrap();
    let b = check(l, r).unwrap();
    assert_eq!((a.trials, a.redrawn), (b.trials, b.redrawn));
}

#[test]
fn a_rule_that_cannot_be_instantiated_says_so() {
    // `split 1000000` needs inputs far beyond the element budget.
    let e = check("map f xs", "join (split 1000000 (map f xs))").unwrap_err();
    assert!(matches!(e, RuleCheckError::NotInstantiable { .. }), "{e:?}");
    assert!(e.to_string().contains("cannot be checked"), "{e}");
}

/// Wrong rules of the kinds a check on small values and affine functions let through: each
/// must be refused with a counterexample.
const WRONG: &[(&str, &str)] = &[
    // Thresholds: the sides differ only beyond (or between) the rule's constants.
    ("select (lt x 1.0) a b", "a"),
    ("select (lt x 0.0) a b", "select (lt x 0.5) a b"),
    ("select (gt x 2.5) a b", "select (gt x 3.0) a b"),
    ("select (lt 1000.0 x) a b", "b"),
    ("select (lt x 1.0e-3) a b", "select (lt x 0.0) a b"),
    ("map (fun x => select (lt x 10.0) x 10.0) xs", "xs"),
    // Right for whole numbers only.
    ("select (lt x 1.0) a b", "select (lt x 0.5) a b"),
    // Ties and equalities.
    ("select (eq x 0.0) a b", "b"),
    ("select (eq x y) a b", "b"),
    ("select (lt x y) a b", "select (lt y x) b a"),
    // Right for affine functions only (the second gave C computing 2x² for (2x)²).
    ("f (x * 2.0)", "f x * 2.0"),
    ("f (neg x)", "neg (f x)"),
    (
        "map f (map (fun x => x + x) xs)",
        "map (fun y => f y + f y - f 0.0) xs",
    ),
    ("f (f x)", "f x"),
    ("x * x", "x + x"),
    // Within an absolute tolerance, not a relative one.
    ("x - x", "0.00009"),
    ("x * 1.0001", "x"),
    // Right in real arithmetic, wrong in `f32` (large magnitudes absorb small ones).
    ("(x + 100000000.0) - 100000000.0", "x"),
    ("(x + y) - y", "x"),
    // Zeros: the sign of a zero made visible, NaN from finite inputs.
    ("1.0 / (x + 0.0)", "1.0 / x"),
    ("1.0 / (x * 0.0)", "1.0 / 0.0"),
    ("x / x", "1.0"),
    ("(x * y) / y", "x"),
    // Integers: division truncates, products wrap.
    ("(x / 2i32) * 2i32", "x"),
    ("(x * 2i32) / 2i32", "x"),
];

#[test]
fn wrong_rules_are_refused_with_a_counterexample() {
    for (l, r) in WRONG {
        let c = counterexample(l, r);
        assert_ne!(c.lhs, c.rhs, "{l} =>> {r}");
        let notes = c.notes().join("\n");
        for part in [
            "instance: ",
            "left-hand side gives",
            "right-hand side gives",
        ] {
            assert!(notes.contains(part), "{l} =>> {r}: {notes}");
        }
    }
}

#[test]
fn counterexamples_show_the_values_that_break_the_rule() {
    // A threshold: the input is at or above 1.
    let c = counterexample("select (lt x 1.0) a b", "a");
    let x = &c.inputs[0];
    assert_eq!((x.0.as_str(), x.1.as_str()), ("_in1", "f32"));
    assert!(x.2.parse::<f32>().unwrap() >= 1.0, "{c:?}");
    // The sign of a zero: `x = -0` divides to `-inf`.
    let c = counterexample("1.0 / (x + 0.0)", "1.0 / x");
    assert_eq!((c.lhs.as_str(), c.rhs.as_str()), ("inf", "-inf"), "{c:?}");
    // A function that is not affine.
    let c = counterexample(
        "map f (map (fun x => x + x) xs)",
        "map (fun y => f y + f y - f 0.0) xs",
    );
    let f = &c.substitution[0].1;
    assert!(f.contains('*') && f.contains("let"), "{f}");
}

#[test]
fn rules_right_for_finite_values_pass() {
    for (l, r) in [
        // Wrong for an infinite or NaN x, which is never drawn; `-0.0` equals `0.0`.
        ("x * 0.0", "0.0"),
        ("x - x", "0.0"),
        ("x + 0.0", "x"),
        ("x * 2.0", "x + x"),
        ("x * 0.5", "x / 2.0"),
        ("(x * 2.0) / 2.0", "x"),
        ("neg (neg x)", "x"),
        ("x - y", "x + neg y"),
        ("select (lt x y) x y", "select (gt x y) y x"),
        ("f (select c a b)", "select c (f a) (f b)"),
        // Integers wrap both ways.
        ("x + 1i32 - 1i32", "x"),
    ] {
        let report = check(l, r).unwrap_or_else(|e| panic!("{l} =>> {r}: {e:?}"));
        assert_eq!(
            report.trials,
            Options::default().scalar_trials,
            "{l} =>> {r}"
        );
    }
}
