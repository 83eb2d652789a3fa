//! Search strategies (issue 22): the schedulers (`--scheduler`, `scheduler = …` in a step), their
//! determinism per seed, the sampling cap, Monte Carlo tree search on small goals, limits that
//! hold under every scheduler, and explanations (`--explain`).

use crate::common::{risec, stderr, stdout, temp_file};
use risec::{Limits, Scheduler, Strategy};
use risec_eqsat::prove::{Problem, ProveOptions};

const TILE3D: &str = "examples/goals/tile-3d.rise";
const TILE3D_FINAL: &str = "examples/goals/tile-3d-unguided.sk";

fn goals_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/goals")
}

fn fission_fusion(rules: &str) -> Problem {
    let dir = goals_dir();
    let start = dir.join("map-fission-fusion.start.rise");
    let goal = dir.join("map-fission-fusion.goal.rise");
    let options = ProveOptions {
        rules: rules.to_string(),
        ..ProveOptions::default()
    };
    Problem::load(start.to_str().unwrap(), goal.to_str().unwrap(), &options).unwrap()
}

/// `risec examples/matmul.rise --sketch sketches/matmul/blocking-unguided.sk ARGS…`: blocking
/// with only its final sketch.
fn unguided_blocking(args: &[&str]) -> std::process::Output {
    let mut all = vec![
        "examples/matmul.rise",
        "--sketch",
        "sketches/matmul/blocking-unguided.sk",
    ];
    all.extend_from_slice(args);
    risec(&all)
}

/// `risec examples/goals/tile-3d.rise --sketch examples/goals/tile-3d-unguided.sk --scheduler
/// SCHEDULER ARGS…`: the 3D tiling with only its final sketch.
fn tile3d_final(scheduler: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec![TILE3D, "--sketch", TILE3D_FINAL, "--scheduler", scheduler];
    all.extend_from_slice(args);
    risec(&all)
}

fn strategy(scheduler: &str, seed: u64) -> Strategy {
    Strategy {
        scheduler: scheduler.parse().unwrap(),
        seed,
    }
}

#[test]
fn sampling_applies_at_most_k_matches_per_rule_and_iteration() {
    let problem = fission_fusion("map-fusion,map-fission,eta,beta");
    for k in [1, 3] {
        let out = problem.search_with(
            &Limits::default(),
            &strategy(&format!("sample({k})"), 7),
            false,
        );
        assert!(out.found(), "sample({k}): {}", out.summary());
        let structural = |it: &risec::stats::IterationStats| -> Vec<u64> {
            let counts = &it.rewrites_per_rule.0;
            counts
                .iter()
                .filter(|(r, _)| r.starts_with("map-"))
                .map(|(_, c)| *c)
                .collect()
        };
        let its = &out.search.iterations;
        for (i, it) in its.iter().enumerate() {
            // The exception: after an iteration that changed nothing (no structural rewrite),
            // one applies every match, to tell saturation from bad luck.
            let after_a_stall = i > 0 && structural(&its[i - 1]).iter().all(|&c| c == 0);
            if !after_a_stall {
                for c in structural(it) {
                    assert!(c <= k, "sample({k}), iteration {}: {c}", it.iteration);
                }
            }
        }
    }
    // With every match applied, the first iteration applies more than 3 of some rule.
    let simple = problem.search_with(&Limits::default(), &Strategy::default(), false);
    assert!(simple.search.iterations[0]
        .rewrites_per_rule
        .0
        .iter()
        .any(|(r, c)| r.starts_with("map-") && *c > 3));
}

#[test]
fn the_same_seed_gives_the_same_search_and_others_differ() {
    let problem = fission_fusion("map-fusion,map-fission,eta,beta");
    for scheduler in ["sample(2)", "mcts(4, 2)"] {
        let run = |seed| {
            let out = problem.search_with(&Limits::default(), &strategy(scheduler, seed), false);
            let per_iteration: Vec<_> = out
                .search
                .iterations
                .iter()
                .map(|i| (i.nodes, i.classes, i.rewrites_per_rule.clone()))
                .collect();
            (out.found(), per_iteration)
        };
        let first = run(3);
        assert_eq!(first, run(3), "{scheduler}: seed 3 twice");
        if scheduler.starts_with("sample") {
            let others: Vec<_> = (0..6).map(run).collect();
            assert!(
                others.iter().any(|o| o.1 != first.1),
                "{scheduler}: six other seeds all grew the same e-graph"
            );
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_program_from_the_command_line() {
    let run = |seed: &str| {
        let out = tile3d_final("mcts(6, 3)", &["--seed", seed]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let steps: Vec<String> = stderr(&out)
            .lines()
            .filter(|l| l.starts_with("step "))
            // The line ends with the time and memory, which vary.
            .map(|l| l.split(" rewrites").next().unwrap().to_string())
            .collect();
        (stdout(&out), steps)
    };
    // Seed 1 finds the tiling in a few iterations (seed 11 took 12 s to do so); seed 2 takes
    // another path, so the seed does reach the search.
    let first = run("1");
    assert_eq!(first, run("1"));
    assert_ne!(first.1, run("2").1, "seeds 1 and 2 gave the same search");
}

#[test]
fn mcts_finds_the_3d_tiling_with_only_the_final_sketch_in_a_small_egraph() {
    let stats = temp_file("mcts-tile3d.json", b"");
    let out = tile3d_final("mcts(8, 3)", &["--stats", stats.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    let step = &json["steps"][0];
    assert_eq!(step["scheduler"], "mcts(8, 3)");
    assert_eq!(step["seed"], 0);
    // Every match of every rule (the default) takes about 190,000 e-nodes to find it.
    let nodes = step["summary"]["nodes"].as_u64().unwrap();
    assert!(nodes < 20_000, "{nodes} e-nodes");
}

#[test]
fn mcts_and_backoff_prove_a_goal() {
    let problem = fission_fusion("map-fusion,map-fission,eta,beta");
    for scheduler in ["mcts(6, 3)", "backoff", "backoff(2, 1)"] {
        let out = problem.search_with(&Limits::default(), &strategy(scheduler, 0), false);
        assert!(out.found(), "{scheduler}: {}", out.summary());
    }
}

#[test]
fn a_step_names_its_scheduler_and_a_wrong_one_is_an_error_at_its_place() {
    let good = temp_file(
        "sched-good.sk",
        format!(
            "import \"{}/examples/goals/lib.sk\"\nstep tile {{\n  rules = [split-join(4), split-join-1m(4), transpose-around-map-map-1m]\n  scheduler = mcts(6, 3)\n  sketch = containsMap(n/4, containsMap(m/4, containsMap(4, containsMap(4, ?))))\n}}\n",
            env!("CARGO_MANIFEST_DIR")
        )
        .as_bytes(),
    );
    let stats = temp_file("sched-good.json", b"");
    let out = risec(&[
        "examples/goals/tile-2d.rise",
        "--sketch",
        good.to_str().unwrap(),
        "--stats",
        stats.to_str().unwrap(),
        "--scheduler",
        "sample(2)",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json = std::fs::read_to_string(&stats).unwrap();
    assert!(json.contains("\"scheduler\": \"mcts(6, 3)\""), "{json}");

    // `sample (8)`, with a space, is `sample(8)`.
    let spaced = temp_file(
        "sched-spaced.sk",
        b"step s {\n  scheduler = sample (8)\n  sketch = ?\n}\n",
    );
    let out = risec(&[
        "examples/goals/tile-2d.rise",
        "--sketch",
        spaced.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let bad = temp_file(
        "sched-bad.sk",
        b"step s {\n  scheduler = greedy(3)\n  sketch = ?\n}\n",
    );
    let out = risec(&[
        "examples/goals/tile-2d.rise",
        "--sketch",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("unknown scheduler `greedy(3)`"), "{err}");
    assert!(err.contains("sched-bad.sk:2:3"), "{err}");

    let out = risec(&[
        "examples/goals/tile-2d.rise",
        "--sketch",
        bad.to_str().unwrap(),
        "--scheduler",
        "sample(0)",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("unknown scheduler `sample(0)`"));
}

#[test]
fn the_time_limit_holds_under_every_scheduler() {
    // The unguided blocking search cannot finish in 2 s under any scheduler.
    // What it stopped on is checked, not how long it took (a busy machine stretches that).
    for scheduler in ["backoff", "sample(64)", "mcts(8, 3)"] {
        let out = unguided_blocking(&["--scheduler", scheduler, "--time", "2s", "-q"]);
        assert_eq!(out.status.code(), Some(2), "{scheduler}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("the time limit"),
            "{scheduler}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn the_node_limit_of_the_main_job_caps_every_step() {
    let out = unguided_blocking(&["--nodes", "5000"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the e-node limit (5000) stopped it"),
        "{}",
        stderr(&out)
    );
}

/// The slow group (`cargo test --release -- --ignored slow_`): back-off's search of the
/// blocking without guide steps takes 20 s on an idle machine and a minute on a busy one. The
/// quick tests keep the back-off scheduler itself: `mcts_and_backoff_prove_a_goal` finds a goal
/// with it, `the_time_limit_holds_under_every_scheduler` runs it on this search under `--time`.
#[test]
#[ignore = "slow: a search of 20 s to minutes (cargo test --release -- --ignored slow_)"]
fn slow_backoff_finds_blocking_without_guide_steps() {
    // The sketch paper's negative result: every match of every rule does not find it (risec:
    // stopped after 36 s of a 60 s limit at 1.2 M e-nodes; the Scala reference: not in 1 h and
    // 60 GB). Back-off finds it in about 19 s here. The shipped sketch's step limits itself to
    // 60 s, which `--time` cannot raise (a busy machine once took 62.6 s), so the step runs
    // from a copy whose own limit is 10 minutes.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("backoff-unguided");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("sketches/matmul/lib.sk", dir.join("lib.sk")).unwrap();
    let shipped = std::fs::read_to_string("sketches/matmul/blocking-unguided.sk").unwrap();
    assert!(shipped.contains("time = 60s"), "{shipped}");
    let sketch = dir.join("blocking-unguided.sk");
    std::fs::write(&sketch, shipped.replace("time = 60s", "time = 600s")).unwrap();
    let out_file = temp_file("blocking-unguided.rise", b"");
    let out = crate::common::risec_within(
        &[
            "examples/matmul.rise",
            "--sketch",
            sketch.to_str().unwrap(),
            "--scheduler",
            "backoff",
            "--time",
            "600s",
            "-o",
            out_file.to_str().unwrap(),
        ],
        std::time::Duration::from_secs(900),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The program found runs as C and agrees with the interpreter and the naive lowering.
    let version = format!("unguided={}", out_file.display());
    let out = risec(&[
        "verify",
        "examples/matmul.rise",
        "--version",
        &version,
        "--check-size",
        "m=32,n=64,k=8",
        "--size",
        "m=96,n=64,k=40",
        "--threads",
        "1",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        stdout(&out).matches("unguided  ok").count(),
        2,
        "{}",
        stdout(&out)
    );
}

#[test]
fn an_explanation_leads_from_the_start_to_the_goal_one_rule_at_a_time() {
    let problem = fission_fusion("map-fusion,map-fission,eta,beta");
    let out = problem.search_with(&Limits::default(), &Strategy::default(), true);
    assert!(out.found());
    let rewrites = out.explanation.as_ref().expect("an explanation");
    assert!(!rewrites.is_empty());
    for r in rewrites {
        assert!(
            ["map-fusion", "map-fission", "eta", "beta"].contains(&r.rule.as_str()),
            "{}",
            r.rule
        );
        assert_ne!(r.before, r.after);
    }
    // The chain ends at the goal, and its first step rewrote a subterm of the start.
    assert_eq!(rewrites.last().unwrap().term, problem.goal_term);
    let text = out.explanation_text().unwrap();
    assert!(
        text.starts_with(&format!("explanation: {} rewrite", rewrites.len())),
        "{text}"
    );

    // The command line prints it after the figures.
    let dir = goals_dir();
    let out = risec(&[
        "prove",
        dir.join("map-fission-fusion.start.rise").to_str().unwrap(),
        dir.join("map-fission-fusion.goal.rise").to_str().unwrap(),
        "--rules",
        "map-fusion,map-fission,eta,beta",
        "--explain",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("explanation: "), "{}", stdout(&out));
}

#[test]
fn the_main_job_writes_each_steps_rewrites() {
    let path = temp_file("tile-3d-explain.txt", b"");
    let out = risec(&[
        TILE3D,
        "--sketch",
        "examples/goals/tile-3d.sk",
        "--explain",
        path.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&path).unwrap();
    // Three splits, then three loop interchanges, each named with the subterm it rewrote.
    assert!(text.starts_with("step `split`: 3 rewrites"), "{text}");
    assert!(text.contains("step `reorder`: 3 rewrites"), "{text}");
    for rule in [
        "split-join(4)",
        "split-join-1m(4)",
        "split-join-2m(4)",
        "transpose-around-map-map-3m",
    ] {
        assert!(text.contains(&format!(". {rule}\n")), "{rule}: {text}");
    }
    assert!(
        text.contains("x |> map (map (map (fun (x0 : f32) => x0 * 2.0)))"),
        "{text}"
    );
    // A scheduler's result is explained as well.
    let out = tile3d_final("mcts(8, 3)", &["--explain", path.to_str().unwrap(), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .starts_with("step `tile`: "));
}

#[test]
fn scheduler_names_round_trip() {
    for s in ["simple", "backoff(1000, 5)", "sample(8)", "mcts(20, 4)"] {
        assert_eq!(s.parse::<Scheduler>().unwrap().to_string(), s);
    }
}

#[test]
fn extreme_scheduler_arguments_and_normal_form_rules_alone_do_not_break_the_search() {
    // Only normal-form rules: MCTS has no rule to choose among, and says the search saturated.
    let problem = fission_fusion("eta,beta");
    let out = problem.search_with(&Limits::default(), &strategy("mcts(4, 2)", 0), false);
    assert_eq!(
        out.search.summary.stop,
        risec::StopReason::Saturated,
        "{}",
        out.summary()
    );
    // Bans that would overflow an iteration count saturate instead.
    let problem = fission_fusion("map-fusion,map-fission,eta,beta");
    let huge = format!("backoff(1, {})", usize::MAX);
    let out = problem.search_with(&Limits::default(), &strategy(&huge, 0), false);
    assert!(out.search.summary.iterations > 0, "{}", out.summary());
}
