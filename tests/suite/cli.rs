//! End-to-end tests of the `risec` binary: what a user sees on the shipped examples and on errors.

use crate::common::{risec, stderr, stdout, temp_file};

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

/// Runs risec in `dir` with `RISEC_TEST_PAUSE=point` (see `support::cleanup`), waits until it
/// says where it paused, sends it `signal` (`INT`, `TERM`) and returns its exit status and the
/// path it paused at.
#[cfg(unix)]
fn interrupted(
    dir: &std::path::Path,
    point: &str,
    args: &[&str],
    signal: &str,
) -> (Option<i32>, std::path::PathBuf) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_risec"))
        .args(args)
        .current_dir(dir)
        .env("RISEC_TEST_PAUSE", point)
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let prefix = format!("risec: paused at {point}: ");
    let paused = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix(&prefix).map(std::path::PathBuf::from));
    let Some(paused) = paused else {
        let _ = child.kill();
        panic!("risec {args:?} did not pause at {point}");
    };
    assert!(
        paused.exists(),
        "{} exists while risec is paused",
        paused.display()
    );
    let sent = std::process::Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    (child.wait().unwrap().code(), paused)
}

/// SIGINT or SIGTERM while an output is written removes its temporary file (the output is
/// not made) and exits with 130 or 143; the work folder of `risec verify` goes too.
#[cfg(unix)]
#[test]
fn signals_remove_temporary_files_and_work_folders() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("signals");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("examples/lowlevel/naive.rise"),
        dir.join("naive.rise"),
    )
    .unwrap();
    let emit = ["emit-c", "naive.rise", "-o", "mm.c"];
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let (status, temporary) = interrupted(&dir, "write", &emit, signal);
        assert_eq!(status, Some(code), "SIG{signal}");
        assert!(
            !temporary.exists(),
            "SIG{signal} left {}",
            temporary.display()
        );
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["naive.rise"],
            "SIG{signal}: nothing is left but the input"
        );
    }
    let program = root.join("examples/dot.rise");
    let verify = ["verify", program.to_str().unwrap()];
    let (status, work) = interrupted(&dir, "work-dir", &verify, "TERM");
    assert_eq!(status, Some(143));
    assert!(!work.exists(), "the work folder {} is left", work.display());
}

/// SIGTERM while a benchmark's driver runs stops the driver too: no process is left running
/// the executable of the removed work folder.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_stops_the_benchmark_driver_too() {
    let dir = crate::common::temp_file("signal-driver.txt", b"").with_extension("d");
    std::fs::create_dir_all(&dir).unwrap();
    let program = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/dot.rise");
    let bench = [
        "bench",
        program.to_str().unwrap(),
        "--size",
        "n=16777216",
        "--rounds",
        "200",
    ];
    let (status, exe) = interrupted(&dir, "driver-bench", &bench, "TERM");
    assert_eq!(status, Some(143));
    assert!(!exe.exists(), "the driver {} is left", exe.display());
    let running: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).into_owned())
        .filter(|c| c.starts_with(exe.to_str().unwrap()))
        .collect();
    assert!(running.is_empty(), "still running: {running:?}");
}
