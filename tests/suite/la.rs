//! `risec la`: SPORES' derivations are proven, false equalities are not, the workloads'
//! plans are the ones the paper derives and agree numerically with the expressions as written,
//! and bad input is reported at its place.

use crate::common::{risec, stderr, stdout, temp_file};
use risec::SourceFile;
use risec_la::{self as la, Check, LaOptions};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{ROOT}/{path}")).unwrap()
}

/// The number of `assert` statements of a `.la` text.
fn assertions(text: &str) -> usize {
    text.lines()
        .filter(|l| l.trim_start().starts_with("assert "))
        .count()
}

#[test]
fn the_sum_product_derivations_are_proven() {
    let out = risec(&["la", "tests/la/derivations.la", UNHURRIED[0], UNHURRIED[1]]);
    let text = stdout(&out);
    let expected = assertions(&read("tests/la/derivations.la"));
    assert!(expected >= 30, "only {expected} derivations");
    assert_eq!(
        text.matches("\nproven: ").count() + usize::from(text.starts_with("proven: ")),
        expected,
        "{text}"
    );
    assert!(!text.contains("not proven"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn equalities_that_do_not_hold_are_never_proven() {
    let out = risec(&["la", "tests/la/unsound.la"]);
    let text = stdout(&out);
    let expected = assertions(&read("tests/la/unsound.la"));
    assert!(expected >= 15);
    assert_eq!(text.matches("not proven: ").count(), expected, "{text}");
    assert_eq!(out.status.code(), Some(2));
    // Also under sampling, for longer.
    let out = risec(&[
        "la",
        "tests/la/unsound.la",
        "--scheduler",
        "sample(16)",
        "--seed",
        "1",
        "--time",
        "3s",
    ]);
    assert_eq!(stdout(&out).matches("not proven: ").count(), expected);
}

/// The example at `path` with its large sizes divided, so that the direct evaluation is quick.
fn scaled_down(path: &str) -> la::LaProgram {
    let text = read(path)
        .replace("20000", "300")
        .replace("5000", "70")
        .replace("1000", "50");
    la::parse(&SourceFile::new(path, text)).unwrap()
}

/// The plan of the workload at `path`, with time to saturate on a busy machine: the default
/// second (a quarter of it kept for extraction) is several times what each workload takes
/// alone, but a loaded machine once cut the loss's saturation short (another plan).
fn plan_of(path: &str) -> la::LaPlan {
    let program = la::load(std::path::Path::new(&format!("{ROOT}/{path}"))).unwrap();
    la::optimize(&program, &unhurried()).unwrap()
}

/// The default options with a 60 s time limit: for the tests that check what saturation
/// reaches, not how fast (the searches take well under a second; the limit is never reached).
fn unhurried() -> LaOptions {
    LaOptions {
        time: std::time::Duration::from_secs(60),
        ..LaOptions::default()
    }
}

/// `--time` for the commands whose saturations and proofs must finish (the default 1 s can
/// run out on a busy machine).
const UNHURRIED: [&str; 2] = ["--time", "60s"];

#[test]
fn the_workloads_get_the_papers_plans() {
    // PNMF: sum(W %*% H) without the product.
    let p = plan_of("examples/la/pnmf.la");
    assert!(p.text.contains("colSums(W) %*% rowSums(H)"), "{}", p.text);
    assert!(p.original_cost / p.plan_cost > 1000.0);
    // ALS: distributed, X %*% V on the sparse X, U %*% (t(V) %*% V).
    let p = plan_of("examples/la/als.la");
    assert!(p.text.contains("U %*% (t(V) %*% V)"), "{}", p.text);
    assert!(!p.text.contains("U %*% t(V)"), "{}", p.text);
    // The loss: no dense m x n product at all; t(U) %*% U and t(V) %*% V instead.
    let p = plan_of("examples/la/loss.la");
    assert!(
        !p.text.contains("U %*% t(V)") && !p.text.contains("U %*% t1"),
        "{}",
        p.text
    );
    assert!(p.original_cost / p.plan_cost > 50.0, "{}", p.text);
    // MLR: P factored out, X read once.
    let p = plan_of("examples/la/mlr.la");
    assert_eq!(p.text.matches('X').count(), 1, "{}", p.text);
    for path in ["examples/la/glm.la", "examples/la/l2svm.la"] {
        let p = plan_of(path);
        assert!(p.plan_cost <= p.original_cost, "{path}: {}", p.text);
        assert_eq!(p.stats.stop, "saturated", "{path}");
    }
}

#[test]
fn every_plan_agrees_with_the_expressions_as_written() {
    let mut checked = 0;
    for entry in std::fs::read_dir(format!("{ROOT}/examples/la")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "la") {
            continue;
        }
        let name = format!(
            "examples/la/{}",
            path.file_name().unwrap().to_str().unwrap()
        );
        let program = scaled_down(&name);
        for seed in 0..3 {
            let options = LaOptions {
                seed,
                ..LaOptions::default()
            };
            let plan = la::optimize(&program, &options).unwrap();
            match la::check_plan(&program, &plan, seed) {
                Check::Agrees(e) => assert!(e < 1e-9),
                other => panic!("{name}: {other:?}\n{}", plan.text),
            }
        }
        checked += 1;
    }
    assert!(checked >= 6);
}

#[test]
fn the_command_prints_the_plan_and_its_cost() {
    let out = risec(&["la", "examples/la/pnmf.la", UNHURRIED[0], UNHURRIED[1]]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("output s = colSums(W) %*% rowSums(H)\n"),
        "{text}"
    );
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("estimated cost: 1.20e9 -> "), "{last}");
    // Small enough to evaluate: the check says so.
    let small = temp_file(
        "small-als.la",
        b"input X : 40 x 30, nnz 100\ninput U : 40 x 3\ninput V : 30 x 3\noutput g = (U %*% t(V) - X) %*% V\n",
    );
    let out = risec(&[
        "la",
        small.to_str().unwrap(),
        "--stats",
        UNHURRIED[0],
        UNHURRIED[1],
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("checked: the plan agrees"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("stopped: saturated"),
        "{}",
        stderr(&out)
    );
    let out = risec(&[
        "la",
        small.to_str().unwrap(),
        "--scheduler",
        "sample(8)",
        "--seed",
        "3",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = risec(&["la", small.to_str().unwrap(), "--scheduler", "mcts(8, 3)"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("not available for linear algebra"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_input_is_reported_at_its_place() {
    let cases = [
        (
            "input X : 3 x 4\noutput y = X %*% X\n",
            "small.la:2:12",
            "do not agree",
        ),
        (
            "input X : 3 x 4\noutput y = X +\n",
            "small.la:3:1",
            "unexpected end of file",
        ),
        (
            "input X : 3 x 4\noutput y = foo(X)\n",
            "small.la:2:12",
            "unknown function `foo`",
        ),
        (
            "input X : 3 x 4, nnz 13\noutput y = X\n",
            "small.la:1:22",
            "non-zeros",
        ),
        (
            "input X : 3 x 4\noutput y = X % X\n",
            "small.la:2:14",
            "unexpected character `%`",
        ),
        (
            "input X : 3 x 4\nassert X == t(X)\n",
            "small.la:2:13",
            "different shapes",
        ),
        ("input X : 3 x 4\n", "small.la:2:1", "nothing to do"),
    ];
    for (k, (text, place, message)) in cases.into_iter().enumerate() {
        let file = temp_file(&format!("bad{k}.la"), text.as_bytes());
        let place = place.replace("small.la", &format!("bad{k}.la"));
        let out = risec(&["la", file.to_str().unwrap()]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{text}: {err}");
        assert!(err.contains(&place), "{text}: {err}");
        assert!(err.contains(message), "{text}: {err}");
        assert!(err.contains('^'), "{text}: the line is underlined: {err}");
        assert!(stdout(&out).is_empty());
    }
    let out = risec(&["la", "no/such/file.la"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read"));
}

/// Compiles a C file with warnings as errors.
fn compiles_cleanly(c: &std::path::Path) {
    let out = std::process::Command::new("cc")
        .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-c"])
        .arg(c)
        .arg("-o")
        .arg(c.with_extension("o"))
        .output()
        .expect("cc runs");
    assert!(
        out.status.success(),
        "{}: {}",
        c.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn plans_compile_to_c_that_agrees_with_the_outputs_as_written() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    for (flag, name) in [
        (None, "la_kernels_plan.c"),
        (Some("--original"), "la_kernels_original.c"),
    ] {
        let c = dir.join(name);
        let mut args = vec!["la", "tests/la/kernels.la", "-o", c.to_str().unwrap()];
        args.extend(flag);
        let out = risec(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let header = std::fs::read_to_string(c.with_extension("h")).unwrap();
        assert!(header.contains("const la_csr *in_X"), "{header}");
        compiles_cleanly(&c);
    }
    // The plan's C against the outputs' C on random inputs (sparse X in CSR).
    let out = risec(&["la", "tests/la/kernels.la", "--bench", "--rounds", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("outputs agree within"),
        "{}",
        stdout(&out)
    );
    // With a matmul sketch for the products (tiles of 32, sizes that 32 does not divide).
    let out = risec(&[
        "la",
        "tests/la/kernels.la",
        "--bench",
        "--rounds",
        "1",
        "--matmul-sketch",
        "sketches/matmul/blocking.sk",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("outputs agree within"),
        "{}",
        stdout(&out)
    );
    // A sketch for another program is an error that says what the sketch was for.
    let out = risec(&[
        "la",
        "tests/la/kernels.la",
        "--bench",
        "--matmul-sketch",
        "sketches/blur/parallel.sk",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("must describe a matrix multiplication"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    // Each workload, scaled down, likewise.
    for name in ["loss", "als", "pnmf", "mlr", "glm", "l2svm"] {
        let path = format!("examples/la/{name}.la");
        let text = read(&path)
            .replace("20000", "300")
            .replace("5000", "70")
            .replace("1000", "50");
        let file = temp_file(&format!("bench-{name}.la"), text.as_bytes());
        let out = risec(&["la", file.to_str().unwrap(), "--bench", "--rounds", "1"]);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(
            stdout(&out).contains("speed-up"),
            "{name}: {}",
            stdout(&out)
        );
    }
}

/// The ILP extractor (`--features ilp`): never worse than the greedy plan it starts from, and
/// on GLM it shares `t(X %*% v * w) %*% X` between the two outputs, which greedy misses.
#[cfg(feature = "ilp")]
#[test]
fn the_ilp_extractor_is_never_worse_than_greedy() {
    for name in ["pnmf", "als", "mlr", "glm"] {
        let path = format!("{ROOT}/examples/la/{name}.la");
        let program = la::load(std::path::Path::new(&path)).unwrap();
        let greedy = la::optimize(&program, &LaOptions::default()).unwrap();
        let options = LaOptions {
            extractor: la::Extractor::Ilp(std::time::Duration::from_secs(20)),
            ..LaOptions::default()
        };
        let ilp = la::optimize(&program, &options).unwrap();
        assert!(
            ilp.plan_cost <= greedy.plan_cost,
            "{name}: {}",
            ilp.extractor
        );
        if name == "glm" {
            assert!(ilp.plan_cost < 0.9 * greedy.plan_cost, "{}", ilp.extractor);
        }
        let small = scaled_down(&format!("examples/la/{name}.la"));
        let plan = la::optimize(&small, &options).unwrap();
        assert!(matches!(la::check_plan(&small, &plan, 1), Check::Agrees(_)));
    }
}

/// Cases a review found: `0 * x` is not zero where x may be infinite, cancellation is judged
/// against the intermediates' scale, NaN is never "agreement", random CSR has no duplicate
/// columns, numbers beyond f32 and odd output names are refused or handled.
#[test]
fn edge_cases_of_the_check_and_the_c() {
    let case = |name: &str, text: &str, args: &[&str]| {
        let file = temp_file(name, text.as_bytes());
        let mut all = vec!["la", file.to_str().unwrap()];
        all.extend(args);
        let out = risec(&all);
        (out.status.code(), stdout(&out), stderr(&out))
    };
    let nan = "input X : 50 x 40\ninput Y : 50 x 40, sparsity 0.1\noutput o = X + 0 * log(Y)\n";
    let (code, out, err) = case("edge-nan.la", nan, &["--bench", "--rounds", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("log(Y)"), "the infinite term stays: {out}");
    let cancel =
        "input X : 50 x 40\noutput o = (X + 1e8) - 1e8\noutput p = X * 1e12 + X - X * 1e12\n";
    let (code, _, err) = case("edge-cancel.la", cancel, &[]);
    assert_eq!(code, Some(0), "{err}");
    let dup = "input X : 200 x 3, nnz 400\noutput a = sum(X * 2 + X)\n";
    let (code, out, err) = case("edge-dup.la", dup, &["--bench", "--rounds", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("agree"), "{out}");
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let big = "input X : 5 x 4\noutput o = X * 1e39\n";
    let c = dir.join("edge-big.c");
    let (code, _, err) = case("edge-big.la", big, &["-o", c.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("range of f32"), "{err}");
    let small = "input X : 5 x 4\noutput o = 2 * X\n";
    let c = dir.join("int.c");
    let (code, _, err) = case("edge-int.la", small, &["-o", c.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    compiles_cleanly(&c);
    let h = dir.join("edge.h");
    let (code, _, err) = case("edge-h.la", small, &["-o", h.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert!(err.contains("header"), "{err}");
    let (code, _, err) = case(
        "edge-assert.la",
        "input X : 2 x 2\nassert X == t(t(X))\n",
        &["--bench"],
    );
    assert_eq!(code, Some(1));
    assert!(err.contains("no `output`"), "{err}");
}

/// `risec la -o` never replaces an input: the `.la` file itself, a `.la` file that is the C
/// file's header (`-o X.c` writes `X.h`), or the matmul sketch and the files it imports.
#[test]
fn c_outputs_that_name_an_input_are_refused_and_nothing_is_written() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("la-inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let text = "input A : 30 x 40\ninput B : 40 x 20\noutput C = t(t(A %*% B))\n";
    for name in ["mm.la", "mm.h"] {
        std::fs::write(dir.join(name), text).unwrap();
    }
    for name in ["blocking.sk", "lib.sk"] {
        std::fs::copy(format!("{ROOT}/sketches/matmul/{name}"), dir.join(name)).unwrap();
    }
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let runs: [(&str, Vec<String>); 4] = [
        (
            "the .la file",
            vec![path("mm.la"), "-o".into(), path("mm.la")],
        ),
        ("the header", vec![path("mm.h"), "-o".into(), path("mm.c")]),
        (
            "the matmul sketch",
            vec![
                path("mm.la"),
                "--matmul-sketch".into(),
                path("blocking.sk"),
                "-o".into(),
                path("blocking.sk"),
            ],
        ),
        (
            "a file the sketch imports",
            vec![
                path("mm.la"),
                "--matmul-sketch".into(),
                path("blocking.sk"),
                "-o".into(),
                path("lib.sk"),
            ],
        ),
    ];
    for (what, args) in runs {
        let mut all = vec!["la"];
        all.extend(args.iter().map(String::as_str));
        let out = risec(&all);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("would overwrite the input"),
            "{what}: {}",
            stderr(&out)
        );
        assert!(
            stdout(&out).is_empty(),
            "{what}: nothing is optimised first"
        );
    }
    assert_eq!(std::fs::read_to_string(dir.join("mm.la")).unwrap(), text);
    assert_eq!(std::fs::read_to_string(dir.join("mm.h")).unwrap(), text);
    assert!(!dir.join("mm.c").exists() && !dir.join("lib.h").exists());
    let sketch = std::fs::read_to_string(format!("{ROOT}/sketches/matmul/lib.sk")).unwrap();
    assert_eq!(std::fs::read_to_string(dir.join("lib.sk")).unwrap(), sketch);
}

/// `--rounds 0` is refused (no round gives no time), and a time of zero gives no speed-up.
#[test]
fn zero_rounds_are_refused_and_zero_times_give_no_speed_up() {
    let out = risec(&["la", "tests/la/kernels.la", "--bench", "--rounds", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("at least 1 timed round"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    // Called as a function too (its arguments built without the command line's check).
    #[derive(clap::Parser)]
    struct Args {
        #[command(flatten)]
        la: risec_cli::la::LaArgs,
    }
    let path = format!("{ROOT}/tests/la/kernels.la");
    let args = risec_cli::la::LaArgs {
        rounds: 0,
        bench: true,
        ..<Args as clap::Parser>::parse_from(["la", path.as_str()]).la
    };
    assert!(risec_cli::la::la(&args)
        .unwrap_err()
        .contains("at least 1 timed round"));
    use risec_cli::la::speed_up;
    assert_eq!(speed_up(3.0, 1.5), "speed-up 2.0x");
    for (a, b) in [(0.0, 0.0), (1.0, 0.0), (0.0, 2.0)] {
        assert!(
            speed_up(a, b).starts_with("no speed-up measured"),
            "{a} {b}"
        );
    }
}

/// A `.la` file with a byte that is not UTF-8 is reported at that byte's line and column.
#[test]
fn invalid_utf8_in_a_la_file_is_reported_at_its_place() {
    let path = temp_file(
        "latin1.la",
        b"input A : 3 x 4\nassert sum(t(A)) == \xe9sum(A)\n",
    );
    let out = risec(&["la", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("is not valid UTF-8 text"), "{err}");
    assert!(err.contains("latin1.la:2:21"), "{err}");
    assert!(err.contains("invalid byte 0xE9"), "{err}");
}

/// Four 10 x 10 matrices and a vector: the inputs of the expressions whose saturation explodes.
const EXPLODING_INPUTS: &str = "input A : 10 x 10\ninput B : 10 x 10\ninput C : 10 x 10\n\
                                input D : 10 x 10\ninput u : 10 x 1\n";

/// An assertion whose saturation grows without end (the associativity rules alone find 1.7
/// million matches in one iteration): it used to take 730 MB and, larger, abort.
fn exploding_assertion(name: &str) -> std::path::PathBuf {
    temp_file(
        name,
        format!(
            "{EXPLODING_INPUTS}assert sum((((C * A) + (B - A)) + ((C + C) + (A %*% u)))^3) == sum(A)\n"
        )
        .as_bytes(),
    )
}

/// Runs `risec la ARGS`; a run that has not stopped after a minute fails the test (the tests
/// check why a saturation stopped, never how long it took).
fn la_within(args: &[&str]) -> std::process::Output {
    let mut all = vec!["la"];
    all.extend_from_slice(args);
    crate::common::risec_within(&all, std::time::Duration::from_secs(60))
}

#[test]
#[cfg(target_os = "linux")]
fn an_exploding_assertion_stops_at_the_memory_limit() {
    let path = exploding_assertion("explode-memory.la");
    let out = la_within(&[
        "--time",
        "30s",
        "--nodes",
        "100000000",
        "--memory",
        "100MiB",
        path.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}{}", stderr(&out));
    assert!(text.contains("not proven: "), "{text}");
    assert!(
        text.contains("(saturation stopped: memory limit (100.0 MiB; "),
        "{text}"
    );
}

#[test]
fn an_exploding_assertion_stops_at_the_time_limit() {
    let path = exploding_assertion("explode-time.la");
    let out = la_within(&[
        "--time",
        "1s",
        "--nodes",
        "100000000",
        path.to_str().unwrap(),
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}{}", stderr(&out));
    assert!(text.contains("(saturation stopped: time limit, "), "{text}");
}

#[test]
fn an_exploding_assertion_stops_at_the_node_limit_within_the_iteration() {
    // egg checked the e-node limit between rules: one rule's matches could add hundreds of
    // thousands of e-nodes past it.
    let path = exploding_assertion("explode-nodes.la");
    let out = la_within(&["--time", "30s", "--nodes", "20000", path.to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}{}", stderr(&out));
    let tail = text
        .split("(saturation stopped: e-node limit (20000), after ")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    let enodes: usize = tail
        .split(" and ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!(enodes <= 20_000, "{text}");
}

#[test]
#[cfg(target_os = "linux")]
fn an_exploding_assertion_under_an_address_space_limit_stops_with_an_error() {
    // Under `ulimit -v` the default memory limit is 3/4 of the address space: the saturation
    // stops there instead of aborting the process.
    let path = exploding_assertion("explode-ulimit.la");
    let out = crate::common::risec_command_within(
        std::process::Command::new("sh").arg("-c").arg(format!(
            "ulimit -v 1000000 && exec {} la --time 60s --nodes 100000000 {}",
            env!("CARGO_BIN_EXE_risec"),
            path.display()
        )),
        std::time::Duration::from_secs(120),
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{text}{}", stderr(&out));
    assert!(text.contains("(saturation stopped: memory limit"), "{text}");
}

#[test]
fn an_exploding_output_gives_a_checked_plan_within_its_limits() {
    // The outputs' saturation takes at most 3/4 of the time and memory; an extraction that a
    // limit stops gives the cheapest plan found by then, or the outputs as written.
    let path = temp_file(
        "explode-output.la",
        format!(
            "{EXPLODING_INPUTS}output o = sum(A * B * C * D * A * B * C * D * A * B * C * D)\n"
        )
        .as_bytes(),
    );
    let cases: [&[&str]; 2] = [&["--time", "1s"], &["--time", "30s", "--memory", "150MiB"]];
    for limits in cases {
        let mut args = vec!["--nodes", "100000000", "--stats"];
        args.extend_from_slice(limits);
        args.push(path.to_str().unwrap());
        let out = la_within(&args);
        let (text, err) = (stdout(&out), stderr(&out));
        assert_eq!(out.status.code(), Some(0), "{limits:?}: {err}");
        assert!(text.contains("output o = "), "{limits:?}: {text}");
        assert!(
            err.contains("checked: the plan agrees"),
            "{limits:?}: {err}"
        );
        let limit = if limits.len() == 2 {
            "stopped: time limit"
        } else {
            "stopped: memory limit (112.5 MiB"
        };
        assert!(err.contains(limit), "{limits:?}: {err}");
    }
}

#[test]
fn the_numerical_check_keeps_within_the_memory_limit() {
    let file = SourceFile::new(
        "check.la",
        "input X : 300 x 300\ninput Y : 300 x 300\noutput o = sum(X %*% Y)\n",
    );
    let program = la::parse(&file).unwrap();
    let plan = la::optimize(&program, &LaOptions::default()).unwrap();
    assert!(matches!(
        la::check_plan_within(&program, &plan, 0, 1),
        Check::OverMemory(bytes) if bytes > 300 * 300 * 8
    ));
    assert!(matches!(
        la::check_plan_within(&program, &plan, 0, u64::MAX),
        Check::Agrees(_)
    ));
}

/// `--emit python`: the module on standard output (the plan's `.la` text on standard error),
/// one function per output and `compute`, every input's shape checked, the runtime of the
/// target in it; the outputs as written with `--original`. (tests/python runs the modules.)
#[test]
fn emit_python_writes_a_module_per_target() {
    let out = risec(&["la", "examples/la/glm.la", "--emit", "python"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let module = stdout(&out);
    assert!(module.starts_with("\"\"\"The optimised plan of `examples/la/glm.la`"));
    for line in [
        "def Hv(X, w, v, lambda_):",
        "def q(X, w, v, lambda_):",
        "def compute(X, w, v, lambda_):",
        "    X = _la_input(X, \"X\", (20000, 1000), True)",
        "import scipy.sparse as _sp",
    ] {
        assert!(module.contains(line), "no `{line}` in\n{module}");
    }
    assert!(stderr(&out).contains("output q = "), "{}", stderr(&out));
    let dask = stdout(&risec(&[
        "la",
        "examples/la/glm.la",
        "--emit",
        "python",
        "--target",
        "dask",
    ]));
    assert!(dask.contains("import dask.array as _da") && dask.contains("TARGET = \"dask\""));
    let original = stdout(&risec(&[
        "la",
        "examples/la/glm.la",
        "--emit",
        "python",
        "--original",
    ]));
    assert!(original.starts_with("\"\"\"The outputs as written"));
    // `compute` computes `X %*% v` once in the plan (shared by both outputs), twice as written.
    let products = |text: &str| {
        text.split("def compute(")
            .nth(1)
            .unwrap()
            .matches("_la_mm(X, v)")
            .count()
    };
    assert_eq!((products(&module), products(&original)), (1, 2));
}

#[test]
fn python_options_that_do_not_go_together_are_errors() {
    for (args, message) in [
        (
            &["--target", "numpy"][..],
            "`--target` needs `--emit python` or `--bench`",
        ),
        (
            &["--emit", "python", "--target", "c"][..],
            "needs `--target numpy` or `--target dask`",
        ),
        (
            &["--bench", "--target", "numpy", "--worker-memory", "1GiB"][..],
            "go with `--bench --target dask`",
        ),
        (
            &["--original"][..],
            "`--original` needs `-o FILE` or `--emit python`",
        ),
        (
            &["--bench", "--target", "dask", "--workers", "0"][..],
            "at least one worker",
        ),
    ] {
        let mut all = vec!["la", "examples/la/als.la"];
        all.extend_from_slice(args);
        let out = risec(&all);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(stderr(&out).contains(message), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn a_python_benchmark_without_the_interpreter_says_how_to_get_one() {
    let out = risec(&[
        "la",
        "examples/la/pnmf.la",
        "--bench",
        "--target",
        "numpy",
        "--python",
        "/nonexistent/python3",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("error: cannot run `/nonexistent/python3`"),
        "{}",
        stderr(&out)
    );
}
