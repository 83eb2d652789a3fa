//! End-to-end tests of the `risec` binary: what a user sees on the shipped examples and on errors.

mod common;

use common::{risec, stderr, stdout, temp_file};

#[test]
fn check_succeeds_on_every_example() {
    let mut seen = 0;
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/examples")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rise") {
            let out = risec(&["check", path.to_str().unwrap()]);
            assert!(out.status.success(), "{}: {}", path.display(), stderr(&out));
            seen += 1;
        }
    }
    assert!(seen >= 3);
    let out = risec(&["check", "examples/matmul.rise"]);
    assert_eq!(
        stdout(&out),
        "matmul : (m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 -> k.n.f32 -> m.n.f32\n"
    );
}

/// Parses the nested-list rendering of an f32 matrix printed by `risec eval`.
fn parse_matrix(text: &str) -> Vec<Vec<f32>> {
    let inner = text
        .trim()
        .strip_prefix("[[")
        .and_then(|t| t.strip_suffix("]]"))
        .expect("a matrix");
    inner
        .split("], [")
        .map(|row| {
            row.split(", ")
                .map(|x| x.parse::<f32>().expect("a float"))
                .collect()
        })
        .collect()
}

#[test]
fn eval_of_matmul_matches_a_hand_computation() {
    let out = risec(&[
        "eval",
        "examples/matmul.rise",
        "--size",
        "m=2,n=3,k=4",
        "--seed",
        "7",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "a : m.k.f32 =");
    assert_eq!(lines[2], "b : k.n.f32 =");
    assert_eq!(lines[4], "result : m.n.f32 =");
    let (a, b, c) = (
        parse_matrix(lines[1]),
        parse_matrix(lines[3]),
        parse_matrix(lines[5]),
    );
    assert_eq!((a.len(), a[0].len(), b.len(), b[0].len()), (2, 4, 4, 3));
    for i in 0..2 {
        for j in 0..3 {
            // Inputs are multiples of 1/32, so these sums are exact in f32.
            let expected: f32 = (0..4).map(|l| a[i][l] * b[l][j]).sum();
            assert_eq!(c[i][j], expected, "c[{i}][{j}]");
        }
    }
    // Same seed, same inputs.
    let again = risec(&[
        "eval",
        "examples/matmul.rise",
        "--size",
        "m=2,n=3,k=4",
        "--seed",
        "7",
    ]);
    assert_eq!(stdout(&again), text);
}

#[test]
fn eval_reports_bad_sizes() {
    let out = risec(&["eval", "examples/matmul.rise", "--size", "m=2,n=3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("missing sizes for k"),
        "{}",
        stderr(&out)
    );
    let out = risec(&["eval", "examples/matmul.rise", "--size", "m=2,n=3,k=4,q=1"]);
    assert!(
        stderr(&out).contains("no size parameter `q`"),
        "{}",
        stderr(&out)
    );
    let div = temp_file(
        "blocks.rise",
        b"def f {m : nat} (x : m.f32) : (m/4).4.f32 = split 4 x",
    );
    let out = risec(&["eval", div.to_str().unwrap(), "--size", "m=6"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("assumes `m/4` is a whole number"),
        "{}",
        stderr(&out)
    );
    let out = risec(&["eval", div.to_str().unwrap(), "--size", "m=8"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn print_output_checks_again() {
    let out = risec(&["print", "examples/matmul.rise"]);
    assert!(out.status.success());
    let printed = temp_file("matmul-printed.rise", &out.stdout);
    let again = risec(&["check", printed.to_str().unwrap()]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        stdout(&again),
        stdout(&risec(&["check", "examples/matmul.rise"]))
    );
}

#[test]
fn type_errors_show_file_line_column_and_underline() {
    let bad = temp_file(
        "bad-zip.rise",
        b"def f {n m : nat} (xs : n.f32) (ys : m.f32) =\n  zip xs ys\n",
    );
    let out = risec(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error: type mismatch"), "{err}");
    assert!(err.contains("bad-zip.rise:2:10"), "{err}");
    assert!(err.contains("zip xs ys"), "{err}");
    assert!(err.contains("^^ expected `n.f32`, found `m.f32`"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn syntax_errors_show_what_was_expected() {
    let bad = temp_file("bad-syntax.rise", b"def f (x : f32) : f32 = (x + \n");
    let out = risec(&["check", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("bad-syntax.rise:"), "{err}");
    assert!(err.contains("expected"), "{err}");
}

#[test]
fn twenty_thousand_nested_parentheses_give_a_clear_error() {
    let depth = 20_000;
    let src = format!(
        "def f (x : f32) : f32 = {}x{}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let path = temp_file("deep.rise", src.as_bytes());
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("nesting too deep"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn deep_but_accepted_programs_compile() {
    // Just under the nesting limit: the passes after parsing must not overflow their stack.
    let src = format!("def f (x : f32) : f32 = x{}", " + 1.0".repeat(400));
    let path = temp_file("long-sum.rise", src.as_bytes());
    let out = risec(&["eval", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lambdas = format!("def f = {}1.0", "fun (x : f32) => ".repeat(400));
    let path = temp_file("many-lambdas.rise", lambdas.as_bytes());
    let out = risec(&["check", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn unreadable_and_binary_files_are_errors_not_crashes() {
    let out = risec(&["check", "does/not/exist.rise"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));
    let path = temp_file("binary.rise", &[0xff, 0xfe, 0x00, 0x41]);
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not valid UTF-8"), "{}", stderr(&out));
}

#[test]
fn entry_selects_a_definition() {
    let src = b"def double (x : f32) : f32 = x * 2.0\ndef main (x : f32) : f32 = double x + 1.0\n";
    let path = temp_file("entry.rise", src);
    let out = risec(&["check", path.to_str().unwrap(), "--entry", "double"]);
    assert_eq!(stdout(&out), "double : f32 -> f32\n");
    let out = risec(&["check", path.to_str().unwrap(), "--entry", "nope"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no definition named `nope`"),
        "{}",
        stderr(&out)
    );
}
