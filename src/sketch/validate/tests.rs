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
        ("map f a", "let p = toMem (map transpose (split 6 a)) in map f (join (map transpose p))"),
        ("transpose b", "let p = toMem (map transpose (split 16 (transpose b))) in join (map transpose p)"),
        ("split s (transpose x)", "let p = toMem (map transpose (split s (transpose x))) in map transpose p"),
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
fn the_check_is_deterministic_and_fast() {
    let (l, r) = ("fun x => let y = v in b", "let y = v in fun x => b");
    let started = Instant::now();
    let a = check(l, r).unwrap();
    let b = check(l, r).unwrap();
    assert_eq!((a.trials, a.redrawn), (b.trials, b.redrawn));
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
}

#[test]
fn a_rule_that_cannot_be_instantiated_says_so() {
    // `split 1000000` needs inputs far beyond the element budget.
    let e = check("map f xs", "join (split 1000000 (map f xs))").unwrap_err();
    assert!(
        matches!(e, RuleCheckError::NotInstantiable { .. }),
        "{e:?}"
    );
    assert!(e.to_string().contains("cannot be checked"), "{e}");
}
