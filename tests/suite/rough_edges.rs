//! End-to-end tests of the rough edges a new user hits (issue 9): what the `risec` binary
//! accepts, refuses and says.

use crate::common::{risec, stderr, stdout, temp_file};

#[test]
fn duplicate_names_point_at_both_places() {
    let path = temp_file(
        "dup.rise",
        b"def f (x : f32) : f32 = x\ndef f {n n : nat} (x : n.f32) : n.f32 = x\n",
    );
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error: the name `f` is defined more than once"),
        "{err}"
    );
    assert!(err.contains("dup.rise:2:5"), "{err}");
    assert!(err.contains("first defined here"), "{err}");
    assert!(
        err.contains("error: `n` is bound more than once in this parameter list"),
        "{err}"
    );
    assert!(err.contains("dup.rise:2:10"), "{err}");
    assert!(err.contains("first bound here"), "{err}");
}

#[test]
fn long_flat_programs_are_accepted() {
    let sum = format!("def sum (x : f32) : f32 = x{}\n", " + x".repeat(99_999));
    let path = temp_file("sum100k.rise", sum.as_bytes());
    let out = risec(&["check", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "sum : f32 -> f32\n");
    let out = risec(&["eval", path.to_str().unwrap(), "--seed", "3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // x + x + … + x is 100,000 x (up to f32 rounding of the running sum).
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let x: f64 = lines[1].trim().parse().unwrap();
    let result: f64 = lines[3].trim().parse().unwrap();
    assert!(
        (result - 100_000.0 * x).abs() <= 1e-3 * (100_000.0 * x).abs() + 1e-3,
        "{text}"
    );

    let pipeline = format!(
        "def f (x : 8.f32) : 8.f32 = x{}\n",
        " |> map (fun a => a + 1.0)".repeat(1000)
    );
    let path = temp_file("pipe1000.rise", pipeline.as_bytes());
    let out = risec(&["eval", path.to_str().unwrap(), "--seed", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let app = format!(
        "def f (x : f32) : f32 = x{}\n",
        " |> (fun (y : f32) => y)".repeat(100_000)
    );
    let path = temp_file("pipe100k.rise", app.as_bytes());
    let out = risec(&["check", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn truly_nested_programs_are_still_refused() {
    let lambdas = format!("def f = {}1.0\n", "fun (x : f32) => ".repeat(20_000));
    let path = temp_file("lambdas20k.rise", lambdas.as_bytes());
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("nesting too deep"),
        "{}",
        stderr(&out)
    );
    let negations = format!("def f (x : f32) : f32 = {}x\n", "- ".repeat(20_000));
    let path = temp_file("neg20k.rise", negations.as_bytes());
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("nesting too deep"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn long_lines_are_cut_around_the_error() {
    let src = format!(
        "def f (x : f32) : f32 = x{} + y{}\n",
        " + x".repeat(10_000),
        " + x".repeat(10_000)
    );
    let path = temp_file("long-line.rise", src.as_bytes());
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.len() < 1000, "{} bytes:\n{err}", err.len());
    let column = src.find('y').unwrap() + 1;
    assert!(err.contains(&format!("long-line.rise:1:{column}")), "{err}");
    assert!(err.contains("1 │ …x + x + x"), "{err}");
    assert!(err.contains(" + y + x"), "{err}");
    // The underline sits under the `y` of the shown excerpt.
    let lines: Vec<&str> = err.lines().collect();
    let source_line = lines.iter().find(|l| l.contains(" + y + ")).unwrap();
    let caret_line = lines.iter().find(|l| l.contains("^ not defined")).unwrap();
    assert_eq!(
        source_line.chars().position(|c| c == 'y'),
        caret_line.chars().position(|c| c == '^')
    );
    let nested = format!("def f = {}x{}\n", "(".repeat(20_000), ")".repeat(20_000));
    let path = temp_file("deep-line.rise", nested.as_bytes());
    let err = stderr(&risec(&["check", path.to_str().unwrap()]));
    assert!(err.contains("nesting too deep"), "{err}");
    assert!(err.len() < 1000, "{} bytes:\n{err}", err.len());
}

#[test]
fn divisibility_problems_along_a_pipeline_are_reported_once_each() {
    let path = temp_file(
        "div3.rise",
        b"def g {m : nat} (x : m.f32) = x |> split 2 |> map (split 2) |> join |> join |> split 2 |> join |> split 2\n",
    );
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(
        errors,
        ["error: `m` is not provably a multiple of 2"],
        "{err}"
    );
    // At the first stage that needs it.
    assert!(err.contains("div3.rise:1:36"), "{err}");
}

#[test]
fn eval_stops_at_its_memory_budget_with_a_clear_error() {
    let path = temp_file(
        "memory.rise",
        b"def f (x : 20.f32) = x |> map (fun a => generate (fun (i : idx[1000000]) => a))\n",
    );
    let out = risec(&["eval", path.to_str().unwrap(), "--memory", "64MiB"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("need more memory than the interpreter's budget of 64.0 MiB"),
        "{err}"
    );
    // Within a larger budget the same program runs.
    let small = temp_file(
        "memory-small.rise",
        b"def f (x : 2.f32) = x |> map (fun a => generate (fun (i : idx[1000]) => a))\n",
    );
    let out = risec(&["eval", small.to_str().unwrap(), "--memory", "64MiB"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = risec(&["eval", small.to_str().unwrap(), "--memory", "lots"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not a size"), "{}", stderr(&out));
    // Inputs too large to generate state their real size.
    let big = temp_file("big-input.rise", b"def f (x : 100000.100000.f32) = x\n");
    let err = stderr(&risec(&["eval", big.to_str().unwrap()]));
    assert!(err.contains("an array of 10000000000 elements"), "{err}");
}

#[test]
fn eval_reads_and_writes_json() {
    let out = risec(&[
        "eval",
        "examples/matmul.rise",
        "--size",
        "m=2,n=3,k=4",
        "--seed",
        "5",
        "--output",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let first: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(first["entry"], "matmul");
    assert_eq!(first["sizes"], serde_json::json!({"m": 2, "n": 3, "k": 4}));
    assert_eq!(first["inputs"]["a"].as_array().unwrap().len(), 2);
    assert_eq!(first["result"][1].as_array().unwrap().len(), 3);
    // The output is an input: the same run again, sizes and all, without --size or --seed.
    let path = temp_file("matmul-run.json", stdout(&out).as_bytes());
    let again = risec(&[
        "eval",
        "examples/matmul.rise",
        "--inputs",
        path.to_str().unwrap(),
        "--output",
        "json",
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    let second: serde_json::Value = serde_json::from_str(&stdout(&again)).unwrap();
    assert_eq!(first, second);

    // Plain inputs, sizes read off the lists: a hand-checked dot product.
    let inputs = temp_file(
        "dot-inputs.json",
        br#"{"xs": [1, 2, 3, 4], "ys": [0.5, -1.5, 2, 0.25]}"#,
    );
    let out = risec(&[
        "eval",
        "examples/dot.rise",
        "--inputs",
        inputs.to_str().unwrap(),
        "--output",
        "json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["sizes"]["n"], 4);
    assert_eq!(json["result"], 4.5);
}

#[test]
fn sizes_that_may_be_negative_are_reported_and_checked_by_eval() {
    let path = temp_file(
        "minus5.rise",
        b"def f {n : nat} (x : (n-5).f32) : (n-5).f32 = x\n",
    );
    let out = risec(&["check", path.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "f : (n : nat) -> (n - 5).f32 -> (n - 5).f32\n  assumes `n ≥ 5`\n"
    );
    let out = risec(&["eval", path.to_str().unwrap(), "--size", "n=3"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the program assumes `n ≥ 5`, which is false for n=3"),
        "{}",
        stderr(&out)
    );
    let out = risec(&["eval", path.to_str().unwrap(), "--size", "n=7"]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn help_describes_what_exists() {
    let out = risec(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = stdout(&out);
    for command in ["check", "eval", "print", "rules", "prove"] {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "{command}: {help}"
        );
    }
    assert!(help.contains("docs/language.md"), "{help}");
    assert!(help.contains("Exit status"), "{help}");
    // The summary after the options names every command (`(bench)`), and what it says of
    // `bench` is what the command does: any program, not only the matrix multiplication.
    let commands: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 10, "{commands:?}");
    let summary = help.split("The main job,").nth(1).expect("the summary");
    // The commands the summary names: the words of its parentheses, `(rules, costs, prove)`.
    let named: Vec<&str> = summary
        .split('(')
        .skip(1)
        .filter_map(|s| s.split(')').next())
        .flat_map(|s| s.split(", "))
        .collect();
    for command in commands {
        assert!(
            named.contains(&command),
            "the summary does not name `{command}`: {summary}"
        );
    }
    assert!(!summary.contains("matmul kernels against"), "{summary}");
    let eval = stdout(&risec(&["eval", "--help"]));
    for option in ["--inputs", "--output", "--memory", "--size", "--seed"] {
        assert!(eval.contains(option), "{option}: {eval}");
    }
}

#[test]
fn helper_facts_that_fail_at_a_use_are_errors() {
    let path = temp_file(
        "halves.rise",
        b"def halves {n : nat} (xs : (n/2*2).f32) : (n/2).2.f32 = split 2 xs\ndef main (xs : 7.f32) = halves xs\n",
    );
    let out = risec(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("error: a size is not a natural number"),
        "{err}"
    );
    assert!(
        err.contains("this size is 7/2 here, not a whole number"),
        "{err}"
    );
    let ok = temp_file(
        "halves-ok.rise",
        b"def halves {n : nat} (xs : (n/2*2).f32) : (n/2).2.f32 = split 2 xs\ndef main (xs : 8.f32) = halves xs\n",
    );
    let out = risec(&["check", ok.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "main : 8.f32 -> 4.2.f32\n");
}

/// A file with a byte that is not UTF-8 (a Latin-1 `é`) is reported at that byte's line and
/// column, with the line shown: a program, a sketch and a file a sketch imports.
#[test]
fn invalid_utf8_is_reported_at_its_line_and_column() {
    let program = temp_file(
        "latin1.rise",
        b"// caf\xe9\ndef f (x : f32) : f32 = x + 1.0\n",
    );
    let out = risec(&["check", program.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("error: `"), "{err}");
    assert!(
        err.contains("latin1.rise` is not valid UTF-8 text"),
        "{err}"
    );
    assert!(err.contains("latin1.rise:1:7"), "{err}");
    assert!(err.contains("invalid byte 0xE9"), "{err}");
    let sketch = temp_file("latin1.sk", b"step s {\n  rules = []\n  sk\xe9tch = ?\n}\n");
    let out = risec(&[
        "examples/dot.rise",
        "--sketch",
        sketch.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("latin1.sk:3:5"), "{}", stderr(&out));
    let importing = temp_file("imports-latin1.sk", b"import \"latin1.sk\"\n");
    let out = risec(&[
        "examples/dot.rise",
        "--sketch",
        importing.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("latin1.sk:3:5"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());
}

/// Type errors name the sizes and types not inferred yet `?a`, `?b`, … (the same one the
/// same name within a message), never by their internal numbers (`?16.?19.f32`).
#[test]
fn unknown_sizes_in_type_errors_are_named_readably() {
    let cases: [(&str, &str, &str); 3] = [
        (
            "def k (x : 25.f32) : 25.f32 =\n  x |> split 3 |> join |> join\n",
            "expected `?a.?b.?c`, found `25.f32`",
            "`?a` and `?b` stand for sizes and `?c` for a type not inferred yet",
        ),
        (
            "def k (x : 24.f32) =\n  x |> split 3 |> map (fun (r : 4.4.f32) => r)\n",
            "expected `?a.4.4.f32`, found `8.3.f32`",
            "`?a` stands for a size not inferred yet",
        ),
        (
            "def k (x : 24.f32) =\n  zip (x |> split 3) (x |> split 3) |> map (fun (p : (4.f32, 4.f32)) => p)\n",
            "expected `?a.(4.f32, 4.f32)`, found `8.(3.f32, 3.f32)`",
            "`?a` stands for a size not inferred yet",
        ),
    ];
    for (i, (text, label, note)) in cases.iter().enumerate() {
        let path = temp_file(&format!("metas-{i}.rise"), text.as_bytes());
        let out = risec(&["check", path.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{text}");
        let err = stderr(&out);
        assert!(err.contains(label), "{err}");
        assert!(err.contains(note), "{err}");
        let numbered = err
            .split('?')
            .skip(1)
            .any(|rest| rest.starts_with(|c: char| c.is_ascii_digit() || c == 't'));
        assert!(!numbered, "an inference variable by its number: {err}");
    }
}

#[test]
fn a_split_of_a_size_with_an_offset_declares_its_fact_and_checks_again() {
    // A 5x5 convolution whose input has a border of 2: `split 64` of `n + 4` relies on 64
    // dividing `n + 4`, a fact over a sum (the search's result failed risec's own type check).
    let program = temp_file(
        "offset-conv.rise",
        b"def dot {k : nat} (a : k.f32) (b : k.f32) : f32 =\n  \
          zip a b |> map (fun p => fst p * snd p) |> reduce (+) 0.0\n\
          def conv {n m : nat} (input : (n+4).(m+4).f32) (w : 5.5.f32) : n.m.f32 =\n  \
          input |> map (slide 5 1) |> slide 5 1 |> map transpose\n        \
          |> map (map (fun nbh => dot (join w) (join nbh)))\n",
    );
    let sketch = temp_file(
        "offset-conv.sk",
        b"step s {\n  rules = [split-join(64), map-fission, split-before-map]\n  \
          sketch = contains((map : ? -> ((n+4)/64).? -> ?) ?)\n}\n",
    );
    let out = risec(&[
        program.to_str().unwrap(),
        "--sketch",
        sketch.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("(input : ((n + 4)/64*64).(m + 4).f32)"),
        "{text}"
    );
    assert!(
        stderr(&out).contains("the result relies on: (n + 4)/64"),
        "{}",
        stderr(&out)
    );
    let again = temp_file("offset-conv-result.rise", text.as_bytes());
    let checked = risec(&["check", again.to_str().unwrap()]);
    assert!(checked.status.success(), "{}", stderr(&checked));
    assert!(
        stdout(&checked).contains("assumes `(n + 4)/64` is a whole number"),
        "{}",
        stdout(&checked)
    );
}

/// Runs `program` with the guide steps `sketch` (both written to temporary files named after
/// `name`).
fn optimise(name: &str, program: &str, sketch: &str) -> std::process::Output {
    let program = temp_file(&format!("{name}.rise"), program.as_bytes());
    let sketch = temp_file(&format!("{name}.sk"), sketch.as_bytes());
    risec(&[
        program.to_str().unwrap(),
        "--sketch",
        sketch.to_str().unwrap(),
    ])
}

#[test]
fn splits_of_sizes_with_offsets_declare_their_facts_and_check_again() {
    // From the fuzz campaign's `offset` family: `split 2` then `split 7` of `2n + 2` relies on
    // 7 dividing `n + 1`, and `split 7` of the `n + 2` between two stencils on 7 dividing
    // `n + 2`. Neither sum is an extent of the signature: the facts were written in a comment,
    // and the result failed risec's own type check.
    let cases = [
        (
            "def f {n m : nat} (xs : (2*n+2).(m).f32) : (2*n+2).(m).f32 =\n  \
             xs |> map (map (fun x => x * 2.0))\n",
            "step s {\n  \
             rules = [split-join(7), split-join-1m(2), split-join(2), split-before-map]\n  \
             sketch = contains((map : ? -> ?.7.? -> ?) contains((map : ? -> ?.2.? -> ?) ?))\n}\n",
            "(xs : ((2*n + 2)/14*14).m.f32)",
            "the result relies on: (n + 1)/7",
        ),
        (
            "def f {n : nat} (xs : (n+4).f32) : n.f32 =\n  \
             xs |> slide 3 1 |> map (fun w => w |> reduce (+) 0.0)\n     \
             |> slide 3 1 |> map (fun w => w |> reduce (+) 0.0)\n",
            "step s {\n  rules = [split-join(7)]\n  \
             sketch = contains((map : ? -> ((n+2)/7).7.? -> ?) ?)\n}\n",
            "(xs : ((n + 2)/7*7 + 2).f32)",
            "the result relies on: (n + 2)/7",
        ),
    ];
    for (i, (program, sketch, declared, relies)) in cases.iter().enumerate() {
        let out = optimise(&format!("offset-fact-{i}"), program, sketch);
        assert!(out.status.success(), "{program}{}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains(declared), "{text}");
        assert!(!text.contains("relies on these sizes"), "{text}");
        assert!(stderr(&out).contains(relies), "{}", stderr(&out));
        let again = temp_file(&format!("offset-fact-{i}-result.rise"), text.as_bytes());
        let checked = risec(&["check", again.to_str().unwrap()]);
        assert!(checked.status.success(), "{text}{}", stderr(&checked));
    }
}

#[test]
fn splits_that_a_size_can_never_be_a_multiple_of_do_not_apply() {
    // `4n + 1` is odd and `4n + 2` twice an odd number: no split by 2^20 applies. The divisor
    // had more residues than were tried, so `(4n + 1)/2^20` was assumed, and anything followed
    // from it (a later `split 32` of `2m + 2` needed `(m + 1)/16`, and the result did not
    // check).
    let cases = [
        (
            "def f {n : nat} (xs : (n*4+1).f32) : (n*4+1).f32 =\n  \
             xs |> map (fun x => x * 2.0 + 1.0)\n",
            "step s {\n  rules = [split-join(1048576)]\n  \
             sketch = contains((map : ? -> ?.1048576.? -> ?) ?)\n}\n",
        ),
        (
            "def f {n m : nat} (xs : (n*4+2).(m).f32) : (n*4+2).f32 =\n  \
             xs |> map (fun row => row |> reduce (+) 0.0)\n",
            "step s {\n  \
             rules = [split-join(2147483647), split-join-1m(1048576), split-join(1048576), \
             split-before-map]\n  \
             sketch = contains((map : ? -> ?.2147483647.? -> ?) \
             contains((map : ? -> ?.1048576.? -> ?) ?))\n}\n",
        ),
    ];
    for (i, (program, sketch)) in cases.iter().enumerate() {
        let out = optimise(&format!("never-multiple-{i}"), program, sketch);
        let err = stderr(&out);
        assert!(!out.status.success(), "{program}{}", stdout(&out));
        assert!(err.contains("the sketch was not satisfied"), "{err}");
        assert!(err.contains("a size that is not a whole number"), "{err}");
        assert!(!err.contains("not well typed"), "{err}");
    }
}

#[test]
fn a_program_relying_on_facts_no_size_satisfies_together_is_no_result() {
    // Splits by 7 of the `n + 2` between two stencils, then of the input's `n + 4`: each is
    // possible, both are not (the result failed risec's own type check, whose facts then
    // proved nothing).
    let out = optimise(
        "joint-facts",
        "def f {n : nat} (xs : (n+4).f32) : n.f32 =\n  \
         xs |> map (fun x => x * 2.0) |> slide 3 1 |> map (fun w => w |> reduce (+) 0.0)\n     \
         |> slide 3 1 |> map (fun w => w |> reduce (+) 0.0)\n",
        "step a {\n  rules = [split-join(7)]\n  \
         sketch = contains((map : ? -> ((n+2)/7).7.? -> ?) ?)\n}\n\
         step b {\n  rules = [split-join(7)]\n  \
         sketch = contains((map : ? -> ((n+4)/7).7.? -> ?) ?)\n}\n",
    );
    let err = stderr(&out);
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(
        err.contains("step `b`: the program found relies on `(n + 2)/7` and `(n + 4)/7` both"),
        "{err}"
    );
    assert!(!err.contains("not well typed"), "{err}");
}
