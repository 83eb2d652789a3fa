//! Bounded, seeded fuzzing campaigns in CI (issues 19 and 32): mutants of the shipped sketch
//! files, programs and low-level programs through the main job and C generation, with the C of
//! every fifth case run under AddressSanitizer and UBSan against the interpreter; a few cases
//! of each other family (offset sizes and large splits, `prove` goals, `.la` files, budgets);
//! and the child-process runner's classification of hangs, aborts and panics. Any defect fails
//! the test with the cases that replay it
//! (`cargo run --release --example fuzz_campaign -- --replay FAMILY:SEED`).

use risec_fuzz::isolate::{self, Isolation};
use risec_fuzz::{self as fuzz, CaseOptions, Class, Family, Record, Tally};
use std::path::PathBuf;
use std::time::Duration;

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

#[test]
fn fuzzed_inputs_through_the_main_job_and_emit_c_show_no_defect() {
    let dir = dir("fuzz");
    let mut tally = Tally::default();
    // A different window of seeds each day would find more but could fail CI at random; the
    // window is fixed, and examples/fuzz_campaign runs the long campaigns.
    for seed in 1_000_000..1_000_600 {
        let case = fuzz::draw(seed);
        let options = CaseOptions {
            time: Duration::from_millis(300),
            run_c: seed % 5 == 0,
            dir: dir.clone(),
        };
        let result = fuzz::run_case(&case, &options);
        tally.add(&case, &result);
    }
    let table = tally.table();
    println!("{table}");
    assert!(tally.defects.is_empty(), "{table}{:#?}", tally.defects);
    // The campaign reaches every stage: refusals, searches, generated and executed C.
    assert!(
        tally.count("program refused with diagnostics") > 0
            && tally.count("sketch file refused with diagnostics") > 0,
        "{table}"
    );
    assert!(tally.count("C run: matches the interpreter") > 0, "{table}");
}

/// Cases of the other families that pass on this branch (results, limits and refusals; the
/// first of each with C run under sanitizers where it makes C). The long campaigns draw the
/// rest, and count the hangs and aborts that would stop a test run in process.
const CASES: &[(Family, &[u64])] = &[
    (Family::Offset, &[10, 1, 17, 23, 30, 2, 5, 0, 7]),
    (Family::Prove, &[1, 3, 9, 13, 15, 0, 2, 7]),
    (Family::La, &[1, 5, 8, 11, 12, 14, 0, 7]),
    (Family::Budget, &[2, 4, 5, 7, 11, 0, 1, 14]),
];

#[test]
fn a_few_cases_of_each_new_family_show_no_defect() {
    let dir = dir("fuzz-families");
    let mut tally = Tally::default();
    for &(family, seeds) in CASES {
        for (k, &seed) in seeds.iter().enumerate() {
            let mut case = family.draw(seed);
            // CI keeps each case short: the budget family draws up to 2 s.
            let time = case
                .settings
                .time
                .map(|t| t.min(Duration::from_millis(300)));
            case.settings.time = time;
            let options = CaseOptions {
                time: Duration::from_millis(300),
                run_c: k == 0,
                dir: dir.clone(),
            };
            let finished = fuzz::run_case_timed(&case, &options);
            tally.record(Record::of(&case, &finished, case.budget(options.time)));
        }
    }
    let table = tally.table();
    println!("{table}");
    assert!(tally.defects.is_empty(), "{table}{:#?}", tally.defects);
    for &(family, _) in CASES {
        let row = &tally.rows[&family];
        assert!(
            row.count(Class::Ok) > 0,
            "{family}: nothing ran through\n{table}"
        );
    }
    assert!(tally.count("C run: matches the interpreter") > 0, "{table}");
}

/// A child program that does what `script` says instead of running the case; `patience` is
/// the watchdog's grace and the checks' allowance.
fn fake_child(name: &str, script: &str, patience: Duration) -> Isolation {
    let dir = dir("fuzz-isolate");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join(name);
    std::fs::write(&exe, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&exe)
        .status()
        .unwrap();
    Isolation {
        exe,
        memory_cap: 1 << 30,
        grace: patience,
        checks: patience,
    }
}

#[test]
fn children_that_hang_abort_panic_or_answer_are_classified() {
    let mut case = Family::Prove.draw(1);
    case.settings.time = Some(Duration::from_millis(20));
    let options = CaseOptions {
        time: Duration::from_millis(20),
        run_c: false,
        dir: dir("fuzz-isolate").join("work"),
    };
    // Children that end get a minute (however loaded the machine); those that hang, 0.2 s.
    let run = |name: &str, script: &str| {
        let child = fake_child(name, script, Duration::from_secs(60));
        isolate::run_isolated(&case, &options, &child)
    };
    let hang = |name: &str, script: &str| {
        let child = fake_child(name, script, Duration::from_millis(200));
        isolate::run_isolated(&case, &options, &child)
    };
    assert_eq!(hang("hang.sh", "exec sleep 30").class, Class::Hang);
    // After risec's work, a hang is the checks' (a C kernel that loops): another defect.
    let checks = hang(
        "checks.sh",
        &format!("echo '{}'; exec sleep 30", isolate::CHECKS_MARK),
    );
    assert_eq!(checks.class, Class::Other);
    assert!(checks.outcome.contains("checks"), "{}", checks.outcome);
    let abort = run("abort.sh", "kill -ABRT $$");
    assert_eq!(abort.class, Class::Abort);
    assert!(abort.detail.contains("SIGABRT"), "{}", abort.detail);
    let panic = run(
        "panic.sh",
        "echo \"thread 'main' panicked at src/x.rs:1:1\" >&2; exit 101",
    );
    assert_eq!(panic.class, Class::Panic);
    assert!(panic.detail.contains("panicked"), "{}", panic.detail);
    assert_eq!(run("exit.sh", "exit 3").class, Class::Other);
    // A record on standard output is the run's result; the child is given its case.
    let record = Record {
        family: Family::Prove,
        seed: 1,
        origin: "o".into(),
        class: Class::Limit,
        outcome: "prove: not found within the limits".into(),
        detail: String::new(),
        elapsed_ms: 12.0,
        budget_ms: Some(20.0),
    };
    let json = serde_json::to_string(&record).unwrap();
    let script = format!(
        "[ \"$1 $2\" = \"--run-one prove:1\" ] || exit 9\necho '{}{json}'",
        isolate::RECORD_PREFIX
    );
    assert_eq!(run("answer.sh", &script), record);
}

#[test]
fn the_child_mode_runs_a_case_and_prints_its_record() {
    // What `fuzz_campaign --run-one` does, called directly.
    let args: Vec<String> = ["x", "--run-one", "la:3", "--time-ms", "100", "--dir"]
        .iter()
        .map(|s| s.to_string())
        .chain([dir("fuzz-child").display().to_string()])
        .collect();
    assert_eq!(isolate::run_child(&args), Ok(true));
    assert_eq!(isolate::run_child(&args[..1]), Ok(false));
    assert!(isolate::run_child(&["x".into(), "--run-one".into(), "nope:1".into()]).is_err());
}
