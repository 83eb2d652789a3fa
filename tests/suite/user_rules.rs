//! User rules in sketch files are checked against the reference interpreter when the file is
//! loaded (a wrong rule is an error with a counterexample; `--trust-rule NAME` skips the check
//! with a warning), every rewrite's right-hand side is typed with the binders its pattern
//! variables use, and the optimised program is type-checked again before anything is written.

use crate::common::{risec, stderr, stdout, temp_file};

/// A program whose map body binds `s` to a reduction of an outer array: the shape the mutant
/// of let-out-of-lambda rewrites into an ill-typed program.
const PROGRAM: &[u8] = b"def main {n m : nat} (a : n.m.f32) (b : m.f32) : n.m.f32 =\n\
    a |> map (fun row => let s = reduce (+) 0.0 b in map (fun x => x * s) row)\n";

/// The built-in let-out-of-lambda with `y` bound to `v` instead of `tileReduce v`.
const MUTANT: &str =
    "rule let-out-of-lambda : fun x => let y = tileReduce v in b =>> let y = v in fun x => b\n";

const HOIST_STEP: &str = "step hoist {\n  rules = [let-out-of-lambda]\n  \
     sketch = contains(let ? (fun => fun => contains(map)))\n}\n";

fn files(name: &str, rules: &str) -> (String, String) {
    let program = temp_file(&format!("{name}.rise"), PROGRAM);
    let sketch = temp_file(
        &format!("{name}.sk"),
        format!("{rules}{HOIST_STEP}").as_bytes(),
    );
    (
        program.to_str().unwrap().to_string(),
        sketch.to_str().unwrap().to_string(),
    )
}

#[test]
fn the_let_out_of_lambda_mutant_is_rejected_with_a_counterexample() {
    let (program, sketch) = files("mutant", MUTANT);
    let out = temp_file("mutant-out.c", b"");
    std::fs::remove_file(&out).unwrap();
    let o = risec(&[&program, "--sketch", &sketch, "-o", out.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: rule `let-out-of-lambda` is wrong: its two sides differ"),
        "{err}"
    );
    assert!(err.contains("mutant.sk:1:26"), "{err}");
    assert!(err.contains("^^^^"), "{err}");
    for part in [
        "instance: tileReduce = ",
        "inputs: ",
        "left-hand side gives",
        "right-hand side gives",
        "--trust-rule let-out-of-lambda",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }
    assert!(!out.exists(), "nothing is written");
    assert!(stdout(&o).is_empty());
}

#[test]
fn a_trusted_mutant_warns_and_cannot_produce_an_ill_typed_program() {
    let (program, sketch) = files("trusted", MUTANT);
    let o = risec(&[
        &program,
        "--sketch",
        &sketch,
        "-q",
        "--trust-rule",
        "let-out-of-lambda",
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("warning: rule `let-out-of-lambda` is trusted (--trust-rule)"),
        "{err}"
    );
    // The per-match type check refuses the rewrite that rebinds `y` to `b : m.f32`: the sketch
    // is not reached, nothing ill typed is printed.
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
}

#[test]
fn bench_takes_trust_rule_too() {
    let o = risec(&[
        "bench",
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/register-blocking-any.sk",
        "--trust-rule",
        "pack-a-panels",
        "--size",
        "m=30,n=20,k=10",
        "--rounds",
        "1",
        "--no-baselines",
    ]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("warning: rule `pack-a-panels` is trusted (--trust-rule)"),
        "{err}"
    );
    assert!(
        stdout(&o).contains("register-blocking-any"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn the_correct_rule_still_hoists_and_the_result_checks() {
    let rule = "rule let-out-of-lambda : fun x => let y = v in b =>> let y = v in fun x => b\n";
    let (program, sketch) = files("correct", rule);
    let o = risec(&[&program, "--sketch", &sketch, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let result = temp_file("correct-out.rise", stdout(&o).as_bytes());
    let checked = risec(&["check", result.to_str().unwrap()]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    assert!(stdout(&o).starts_with("def main"), "{}", stdout(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
}

#[test]
fn an_application_rewritten_to_its_argument_is_rejected() {
    let sk = temp_file(
        "bad-rule.sk",
        b"rule bad : f x => x\nstep s { rules = [bad] sketch = ? }\n",
    );
    let o = risec(&["examples/matmul.rise", "--sketch", sk.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error: rule `bad` is wrong"), "{err}");
    assert!(err.contains("bad-rule.sk:1:12"), "{err}");
    assert!(err.contains("instance: f = (fun"), "{err}");
    // Trusted, it loads (and the warning says so).
    let o = risec(&[
        "examples/matmul.rise",
        "--sketch",
        sk.to_str().unwrap(),
        "--trust-rule",
        "bad",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("warning: rule `bad` is trusted"), "{err}");
    // Rendered as errors are: at the rule's name, with its line underlined.
    let at = format!("{}:", sk.display());
    assert!(err.contains(&at) && err.contains("^^^ trusted"), "{err}");
}

#[test]
fn a_trusted_name_without_a_rule_warns() {
    let o = risec(&[
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/baseline.sk",
        "--trust-rule",
        "no-such-rule",
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: --trust-rule no-such-rule:"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_rule_the_interpreter_cannot_check_points_at_the_flag() {
    let sk = temp_file(
        "huge-rule.sk",
        b"rule huge : map f xs => join (split 1000000 (map f xs))\nstep s { rules = [huge] sketch = ? }\n",
    );
    let o = risec(&["examples/matmul.rise", "--sketch", sk.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("rule `huge`: it cannot be checked"), "{err}");
    assert!(
        err.contains("`--trust-rule huge` skips this check"),
        "{err}"
    );
}

#[test]
fn the_shipped_sketches_load_quickly_through_the_api() {
    let root = env!("CARGO_MANIFEST_DIR");
    let matmul = risec::load_program(format!("{root}/examples/matmul.rise"), None).unwrap();
    let matvec = risec::load_program(format!("{root}/examples/matvec.rise"), None).unwrap();
    let mut sketches = Vec::new();
    for dir in ["sketches/matmul", "sketches/matvec"] {
        for e in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "sk") && !p.ends_with("lib.sk") {
                sketches.push(p);
            }
        }
    }
    sketches.sort();
    assert!(sketches.len() >= 10);
    for sk in &sketches {
        let program = if sk.to_str().unwrap().contains("matvec") {
            &matvec
        } else {
            &matmul
        };
        let loaded = risec::load_sketch_with(sk, program, &risec::SketchOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", sk.display()));
        assert!(!loaded.steps.is_empty());
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
    }
    // Trusting a rule skips its check and says so.
    let sk = format!("{root}/sketches/matmul/parallel.sk");
    let options = risec::SketchOptions {
        trusted_rules: vec!["pack-columns".into()],
        ..Default::default()
    };
    let loaded = risec::load_sketch_with(&sk, &matmul, &options).unwrap();
    assert_eq!(loaded.warnings.len(), 1, "{:?}", loaded.warnings);
    assert!(loaded.warnings[0].contains("`pack-columns` is trusted"));
}

#[test]
fn a_wrong_rule_is_an_error_callers_can_match() {
    let root = env!("CARGO_MANIFEST_DIR");
    let program = risec::load_program(format!("{root}/examples/matmul.rise"), None).unwrap();
    let sk = temp_file(
        "api-bad-rule.sk",
        b"rule swapped : map f (map g xs) => map (fun x => g (f x)) xs\n\
          step s { rules = [swapped] sketch = ? }\n",
    );
    match risec::load_sketch(&sk, &program) {
        Err(risec::Error::Sketch(e)) => {
            let text = e.to_string();
            assert!(text.contains("rule `swapped` is wrong"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

/// The `.sk` files under `dir` (recursively), sorted.
fn sketch_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sketch_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "sk") {
            out.push(p);
        }
    }
}

#[test]
fn every_shipped_sketch_file_loads_with_its_user_rules_checked() {
    // Every file with guide steps, with the program it is for: its user rules (and those of
    // the files it imports) pass the check on wide values and bent functions.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sketch_files(&root.join("sketches"), &mut files);
    sketch_files(&root.join("examples/goals"), &mut files);
    files.sort();
    let with_rules = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            text.lines().any(|l| l.starts_with("rule "))
        })
        .count();
    assert!(with_rules >= 10, "{with_rules} files with user rules");
    let mut loaded = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        if !text.lines().any(|l| l.trim_start().starts_with("step ")) {
            continue; // a library of definitions and rules, loaded through its importers
        }
        let program = if f.starts_with(root.join("examples/goals")) {
            let stem = f.file_stem().unwrap().to_str().unwrap();
            root.join(format!("examples/goals/{}.rise", &stem[..7]))
        } else {
            let kernel = f.strip_prefix(root.join("sketches")).unwrap();
            let kernel = kernel.iter().next().unwrap().to_str().unwrap();
            root.join(format!("examples/{kernel}.rise"))
        };
        let program = risec::load_program(&program, None)
            .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
        risec::load_sketch(f, &program).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        loaded += 1;
    }
    assert!(loaded >= 40, "{loaded} sketch files loaded");
}

#[test]
fn wrong_scalar_rules_are_each_refused_at_their_text() {
    // A threshold, a rule right only for affine functions, one right only within an absolute
    // tolerance, one right only in real arithmetic, and one wrong for `x = -0.0`: each is an
    // error at its own line, with the inputs and both results.
    let sk = temp_file(
        "wrong-scalars.sk",
        b"rule below-one : select (lt x 1.0) a b =>> a\n\
          rule doubled : map f (map (fun x => x + x) xs) =>>\n    map (fun y => f y + f y - f 0.0) xs\n\
          rule almost-zero : x - x =>> 0.00009\n\
          rule absorbed : (x + 100000000.0) - 100000000.0 =>> x\n\
          rule signed-zero : 1.0 / (x + 0.0) =>> 1.0 / x\n\
          rule right : x * 0.0 =>> 0.0\n\
          step s { rules = [below-one, right] sketch = ? }\n",
    );
    let o = risec(&["examples/matmul.rise", "--sketch", sk.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    for (name, at) in [
        ("below-one", "wrong-scalars.sk:1:18"),
        ("doubled", "wrong-scalars.sk:2:16"),
        ("almost-zero", "wrong-scalars.sk:4:20"),
        ("absorbed", "wrong-scalars.sk:5:17"),
        ("signed-zero", "wrong-scalars.sk:6:20"),
    ] {
        assert!(
            err.contains(&format!(
                "error: rule `{name}` is wrong: its two sides differ"
            )),
            "{name}: {err}"
        );
        assert!(err.contains(at), "{name} at {at}: {err}");
    }
    assert!(!err.contains("rule `right`"), "{err}");
    assert_eq!(err.matches("= inputs: ").count(), 5, "{err}");
    assert_eq!(err.matches("= left-hand side gives").count(), 5, "{err}");
    // The sign of a zero shows as infinities of opposite signs.
    assert!(err.contains("_in1 : f32 = -0\n"), "{err}");
    assert!(err.contains("left-hand side gives inf\n"), "{err}");
    assert!(err.contains("right-hand side gives -inf\n"), "{err}");
}
