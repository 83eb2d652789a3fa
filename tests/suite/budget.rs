//! The whole run's budget (issues 19 and 32): the searches stop at `--time` however the time
//! is spent (checked by the reason they give, never by a clock), sizes whose arithmetic would
//! overflow are refused instead of hanging the search, a sketch file cannot expand without
//! bound, and under a process memory limit (`ulimit -v`) the commands stop with an error
//! instead of aborting.

use crate::common::{risec, risec_command_within, risec_within, stderr, stdout, temp_file};
use std::process::Command;
use std::time::Duration;

/// A run that has not stopped after this long fails its test (and is killed). The tests check
/// why a run stopped, never how long it took: a busy machine slows a run, not its limits.
const WATCHDOG: Duration = Duration::from_secs(60);

/// The whole run's time as the process reports it (`--stats`), in seconds.
fn reported_seconds(stats: &std::path::Path) -> f64 {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(stats).unwrap()).unwrap();
    json["time_ms"].as_f64().expect("time_ms") / 1e3
}

/// What a run may report past its `--time`: an absolute allowance, far above what the last
/// check and the writing of the result take, so that a busy machine does not fail the test;
/// a budget that is not kept (seconds, minutes past it) does.
const REPORTED_SLACK_S: f64 = 5.0;

#[test]
fn the_time_budget_stops_a_search_that_cannot_finish() {
    // The unguided blocking sketch grows the e-graph for minutes; each sketch check on it takes
    // up to seconds, and used to run past the limit (20 s gave 29.7 s).
    let stats = crate::common::temp_file("time-budget-stats.json", b"");
    let out = risec_within(
        &[
            "examples/matmul.rise",
            "--sketch",
            "sketches/matmul/blocking-unguided.sk",
            "--time",
            "1s",
            "-q",
            "--stats",
            stats.to_str().unwrap(),
        ],
        WATCHDOG,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("time limit"), "{}", stderr(&out));
    let reported = reported_seconds(&stats);
    assert!(
        reported <= 1.0 + REPORTED_SLACK_S,
        "the run reports {reported} s for `--time 1s`"
    );
}

#[test]
fn the_time_budget_stops_the_diagnosis_of_a_failed_step() {
    // Found by the fuzzing campaign (seed 72327): register-blocking.sk with `pack-a-panels`
    // replaced by `beta-nat` cannot pack A; the diagnosis of the failed step searched the
    // e-graph for each candidate rule without a deadline (1 s gave 2.35 s; in the campaign,
    // 300 ms gave 5 min).
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rb-beta-nat");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("sketches/matmul/lib.sk", dir.join("lib.sk")).unwrap();
    let sketch = std::fs::read_to_string("sketches/matmul/register-blocking.sk")
        .unwrap()
        .replace("[pack-a-panels, pack-b-panels", "[beta-nat, pack-b-panels");
    let path = dir.join("register-blocking.sk");
    std::fs::write(&path, sketch).unwrap();
    let out = risec_within(
        &[
            "examples/matmul.rise",
            "--sketch",
            path.to_str().unwrap(),
            "--time",
            "1s",
            "-q",
        ],
        WATCHDOG,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("time limit") || err.contains("time budget"),
        "{err}"
    );
}

/// A map over `n + 1` elements and a step that splits it by 64 until it cannot.
fn offset_program_and_split_sketch(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let program = temp_file(
        &format!("{name}.rise"),
        b"def inc {n : nat} (xs : (n+1).f32) : (n+1).f32 =\n  xs |> map (fun x => x * 2.0)\n",
    );
    let sketch = temp_file(
        &format!("{name}.sk"),
        b"step tile {\n  rules = [split-join(64)]\n  sketch = contains((map : ? -> 7.? -> ?) ?)\n}\n",
    );
    (program, sketch)
}

#[test]
fn splitting_an_offset_size_by_64_stops() {
    // Eleven splits by 64 make the size (n + 1)/2^66: its feasibility check cast the
    // denominator to u64 (0) and counted residues towards 2^66, so the step never reached
    // its deadline (a convolution sketch ran for more than 10 minutes under `--time 60s`).
    // Now the split is refused and the e-graph saturates (in 0.3 s; the time limit only has to
    // be far from it on a busy machine, the watchdog catches a hang).
    let (program, sketch) = offset_program_and_split_sketch("offset-split");
    let out = risec_within(
        &[
            program.to_str().unwrap(),
            "--sketch",
            sketch.to_str().unwrap(),
            "--time",
            "30s",
            "-q",
        ],
        WATCHDOG,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("the sketch was not satisfied"), "{err}");
    assert!(err.contains("saturated"), "{err}");
}

#[test]
fn proving_with_splits_of_an_offset_size_stops() {
    let (start, _) = offset_program_and_split_sketch("offset-prove");
    let goal = temp_file(
        "offset-prove-goal.rise",
        b"def inc {n : nat} (xs : (n+1).f32) : (n+1).f32 =\n  xs |> map (fun x => x * 3.0)\n",
    );
    let out = risec_within(
        &[
            "prove",
            start.to_str().unwrap(),
            goal.to_str().unwrap(),
            "--rules",
            "split-join(64)",
            // Saturates in 0.01 s; a limit far from that on a busy machine.
            "--time",
            "30s",
        ],
        WATCHDOG,
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("not found: the e-graph saturated"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_type_divided_past_64_bits_is_an_error() {
    let size = format!("((n+1){})", "/64".repeat(11));
    let program = temp_file(
        "divided-past-64-bits.rise",
        format!("def f {{n : nat}} (xs : {size}.f32) : {size}.f32 = xs\n").as_bytes(),
    );
    let out = risec_within(&["check", program.to_str().unwrap()], WATCHDOG);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("error: this size's divisor is too large"),
        "{err}"
    );
    assert!(err.contains("divides by more than 2^64"), "{err}");
}

#[test]
fn a_sketch_of_doubling_definitions_is_refused_at_once() {
    // 42 lines whose expansion has 2^42 nodes: it used to take 2 GB and never answer.
    let mut text = String::from("def d0 = map(?)\n");
    for i in 1..=42 {
        text.push_str(&format!("def d{i} = d{} or d{}\n", i - 1, i - 1));
    }
    text.push_str("step s {\n  rules = [split-join(32)]\n  sketch = d42\n}\n");
    let path = temp_file("doubling.sk", text.as_bytes());
    let out = risec(&["examples/matmul.rise", "--sketch", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("the sketch is too large"), "{err}");
    assert!(err.contains("doubling.sk:"), "{err}");
}

/// Runs `risec ARGS` in a shell whose address space is limited to `kib` KiB.
fn risec_with_address_limit(kib: u64, args: &str) -> std::process::Output {
    risec_command_within(
        Command::new("sh").arg("-c").arg(format!(
            "ulimit -v {kib} && exec {} {args}",
            env!("CARGO_BIN_EXE_risec")
        )),
        WATCHDOG * 3,
    )
}

#[test]
fn eval_under_an_address_space_limit_stops_with_an_error() {
    // An outer product of 12,000² elements needs gigabytes; under `ulimit -v` the default
    // budget used to be 4 GiB, past what the process could allocate: SIGABRT.
    let program = temp_file(
        "outer.rise",
        b"def outer {n : nat} (xs : n.f32) (ys : n.f32) : n.n.f32 =\n  \
          xs |> map (fun x => ys |> map (fun y => x * y))\n",
    );
    let out = risec_with_address_limit(
        1_500_000,
        &format!("eval {} --size n=12000", program.display()),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("memory"), "{}", stderr(&out));
}

#[test]
fn a_search_under_an_address_space_limit_stops_at_the_memory_limit() {
    // A goal the rules cannot reach (another initial value), so the e-graph grows until a
    // limit stops it: under 1 GB of address space that must be the memory limit, not SIGABRT.
    let matmul = std::fs::read_to_string("examples/matmul.rise").unwrap();
    let goal = temp_file(
        "matmul-init-1.rise",
        matmul
            .replace("reduce (+) 0.0", "reduce (+) 1.0")
            .as_bytes(),
    );
    let out = risec_with_address_limit(
        1_000_000,
        &format!(
            "prove examples/matmul.rise {} --rules map-array,map-fission,map-fusion \
             --time 120s --nodes 100000000 --iterations 1000",
            goal.display()
        ),
    );
    let (text, err) = (crate::common::stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(text.contains("the memory limit"), "{text}{err}");
}
