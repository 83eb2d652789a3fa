//! End-to-end tests of `risec prove` and `risec rules`: the goals of `examples/goals/`, goals that
//! cannot be reached (the search must stop at its limit, quickly, with status 2 and the limit
//! named), errors (status 1), and the statistics file.

use crate::common::{risec, risec_within, stderr, stdout};
use std::path::PathBuf;
use std::process::Output;
use std::time::Duration;

/// Runs risec; a run that has not stopped after a minute fails the test. How long a run took
/// is never asserted: a busy machine slows it, not its limits.
fn watched(args: &[&str]) -> Output {
    risec_within(args, Duration::from_secs(60))
}

/// Borrows owned arguments for [`risec`].
fn args(owned: &[String]) -> Vec<&str> {
    owned.iter().map(String::as_str).collect()
}

/// A fresh, empty folder in the target directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("prove-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn start(goal: &str) -> String {
    format!("examples/goals/{goal}.start.rise")
}

fn goal(goal: &str) -> String {
    format!("examples/goals/{goal}.goal.rise")
}

const MAP_RULES: &str = "map-fusion,map-fission,eta,beta";

/// `risec prove` from the map fission/fusion start to `target` with `rules` and `extra` options.
fn prove_from_map_start(target: &str, rules: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "prove".to_string(),
        start("map-fission-fusion"),
        target.to_string(),
        "--rules".to_string(),
        rules.to_string(),
    ];
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// The map fission/fusion start with its first two maps swapped: same type, different meaning,
/// so no set of (sound) rules reaches it.
const SWAPPED: &str = "def swapped {n : nat} (f1 : f32 -> f32) (f2 : f32 -> f32) (f3 : f32 -> f32)
    (f4 : f32 -> f32) (f5 : f32 -> f32) : n.f32 -> n.f32 =
  map f2 >> map f1 >> map f3 >> map f4 >> map f5
";

fn swapped(dir: &std::path::Path) -> String {
    let path = dir.join("swapped.rise");
    std::fs::write(&path, SWAPPED).unwrap();
    path.to_str().unwrap().to_string()
}

/// Checks the summary `risec prove` prints after its headline.
fn assert_summary(text: &str) {
    for label in [
        "iterations",
        "e-nodes",
        "e-classes",
        "rewrites",
        "time",
        "peak memory",
    ] {
        assert!(
            text.lines().any(|l| l.trim_start().starts_with(label)),
            "no `{label}` in:\n{text}"
        );
    }
}

#[test]
fn rules_lists_every_rule_in_an_aligned_table() {
    let out = risec(&["rules"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let mut doc_columns = std::collections::HashSet::new();
    for info in risec_eqsat::rules::catalogue() {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{} ", info.signature())))
            .unwrap_or_else(|| panic!("no line for {}:\n{text}", info.signature()));
        doc_columns.insert(line.find(info.doc).expect("the rule's description"));
        assert!(text.contains(info.shape), "no shape for {}", info.name);
    }
    assert_eq!(
        doc_columns.len(),
        1,
        "descriptions are not aligned:\n{text}"
    );
    assert!(text.contains("split-join(s) "), "{text}");
}

#[test]
fn map_fission_fusion_is_found() {
    let out = risec(&args(&prove_from_map_start(
        &goal("map-fission-fusion"),
        MAP_RULES,
        &[],
    )));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("found: `half_fused` is equivalent to `fissioned`"),
        "{text}"
    );
    assert_summary(&text);
}

#[test]
fn lambda_compose_many_is_found_without_normalisation() {
    let out = risec(&[
        "prove",
        &start("lambda-compose-many"),
        &goal("lambda-compose-many"),
        "--rules",
        "eta,beta",
        "--no-normalize",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("found:"), "{text}");
    assert!(text.contains("beta"), "{text}");
    assert_summary(&text);
}

// Needs the whole binomial rule set: about 1.5 s and 14 iterations in a release build, well
// within the default limits (10 s), which is what this checks.
#[test]
fn binomial_is_found() {
    let out = risec(&[
        "prove",
        &start("binomial"),
        &goal("binomial"),
        "--rules",
        "transpose-pair-elimination,map-fusion,map-fission,slide-before-map,\
         map-slide-before-transpose,slide-before-map-map-f,separate-dot-vh,separate-dot-hv,\
         eta,beta",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).starts_with("found:"), "{}", stdout(&out));
}

#[test]
fn binomial_with_kernels_as_parameters_is_found() {
    let out = risec(&[
        "prove",
        &start("binomial-parametric"),
        &goal("binomial-parametric"),
        "--rules",
        "transpose-pair-elimination,map-fusion,map-fission,slide-before-map,\
         map-slide-before-transpose,slide-before-map-map-f,separate-dot-vh,separate-dot-hv,\
         eta,beta",
        "--time",
        "60s",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn an_unreachable_goal_saturates() {
    let dir = temp_dir("saturates");
    let target = swapped(&dir);
    let out = watched(&args(&prove_from_map_start(&target, "map-fusion", &[])));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("not found: the e-graph saturated"),
        "{text}"
    );
    assert_summary(&text);
}

#[test]
fn an_unreachable_goal_stops_at_each_limit() {
    let dir = temp_dir("limits");
    let target = swapped(&dir);
    let from = start("map-fission-fusion");
    let cases: [(&[&str], &str); 3] = [
        (
            // The e-graph grows by a few dozen e-nodes per iteration (issue 8).
            &["--rules", MAP_RULES, "--nodes", "500"],
            "not found: the e-node limit (500 e-nodes) stopped the search after",
        ),
        (
            &["--rules", MAP_RULES, "--iterations", "3"],
            "not found: the iteration limit (3) stopped the search after 3 iterations",
        ),
        // Fusion and fission grow the e-graph without end: far from a million e-nodes in 1 ms.
        (
            &["--rules", MAP_RULES, "--time", "1ms"],
            "not found: the time limit (1ms) stopped the search after",
        ),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["prove", from.as_str(), target.as_str()];
        args.extend_from_slice(extra);
        let out = watched(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.starts_with(expected), "{extra:?}:\n{text}");
        assert_summary(&text);
    }
}

#[test]
fn the_memory_limit_is_named_too() {
    // Far below what the process already uses: the first check stops the search.
    let dir = temp_dir("memory");
    let target = swapped(&dir);
    let out = risec(&args(&prove_from_map_start(
        &target,
        MAP_RULES,
        &["--memory", "1KiB"],
    )));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("not found: the memory limit (1.0 KiB) stopped the search"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn unknown_rules_are_errors_naming_the_rule() {
    let out = risec(&args(&prove_from_map_start(
        &goal("map-fission-fusion"),
        "map-fusion,map-fuse",
        &[],
    )));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown rule `map-fuse`"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).is_empty());
    let out = risec(&args(&prove_from_map_start(
        &goal("map-fission-fusion"),
        "split-join",
        &[],
    )));
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("split-join(s)"), "{}", stderr(&out));
}

#[test]
fn goals_of_another_type_are_errors_showing_both_types() {
    let out = risec(&args(&prove_from_map_start(
        &goal("lambda-compose-many"),
        "eta",
        &[],
    )));
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("different types"), "{err}");
    assert!(
        err.contains("(n : nat) -> (f32 -> f32) -> (f32 -> f32)"),
        "{err}"
    );
    assert!(
        err.contains("`added` (") && err.contains(": f32 -> f32"),
        "{err}"
    );
}

#[test]
fn bad_arguments_are_errors() {
    let (s, g) = (start("map-fission-fusion"), goal("map-fission-fusion"));
    let cases: [(&[&str], &str); 6] = [
        (&["--rules", "eta", "--time", "10"], "needs a unit"),
        (&["--rules", "eta", "--time", "soon"], "not a duration"),
        (&["--rules", "eta", "--memory", "4 parsecs"], "not a size"),
        (&["--rules", "eta", "--nodes", "many"], "--nodes"),
        (&["--rules", ""], "no rules given"),
        (&[], "--rules"),
    ];
    for (extra, expected) in cases {
        let mut args = vec!["prove", s.as_str(), g.as_str()];
        args.extend_from_slice(extra);
        let out = risec(&args);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(expected),
            "{extra:?}: {}",
            stderr(&out)
        );
    }
    let out = risec(&["prove", "does/not/exist.rise", &g, "--rules", "eta"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));
    let out = risec(&["prove", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("--no-normalize"));
}

#[test]
fn stats_hold_one_entry_per_iteration_and_the_summary() {
    let dir = temp_dir("stats");
    let path = dir.join("stats.json");
    let out = risec(&args(&prove_from_map_start(
        &goal("map-fission-fusion"),
        MAP_RULES,
        &["--stats", path.to_str().unwrap()],
    )));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("valid JSON");
    // One search: `steps` holds exactly one, as the main job's `--stats` holds one per step.
    assert_eq!(json["steps"].as_array().map(Vec::len), Some(1));
    let search = &json["steps"][0];
    let iterations = search["iterations"].as_array().expect("an iteration list");
    let summary = &search["summary"];
    assert_eq!(summary["found"], true);
    assert_eq!(summary["limit"], serde_json::Value::Null);
    assert_eq!(
        Some(iterations.len() as u64),
        summary["iterations"].as_u64()
    );
    let printed = stdout(&out);
    assert!(
        printed.contains(&format!("iterations   {}\n", iterations.len())),
        "{printed}"
    );
    let mut rewrites = 0;
    for (i, it) in iterations.iter().enumerate() {
        assert_eq!(it["iteration"].as_u64(), Some(i as u64 + 1));
        assert!(it["nodes"].as_u64().unwrap() > 0);
        assert!(it["classes"].as_u64().unwrap() > 0);
        assert!(it["time_ms"].as_f64().unwrap() >= 0.0);
        let per_rule = it["rewrites_per_rule"].as_object().unwrap();
        let total: u64 = per_rule.values().map(|v| v.as_u64().unwrap()).sum();
        assert_eq!(it["rewrites"].as_u64(), Some(total));
        rewrites += total;
    }
    assert_eq!(summary["rewrites"].as_u64(), Some(rewrites));
    assert_eq!(
        json["rules"],
        serde_json::json!(["map-fusion", "map-fission", "eta", "beta"])
    );
    // No temporary file is left beside it.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);

    // A search that is not found writes its statistics too.
    let target = swapped(&dir);
    let out = risec(&args(&prove_from_map_start(
        &target,
        MAP_RULES,
        &["--iterations", "2", "--stats", path.to_str().unwrap()],
    )));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("valid JSON");
    assert_eq!(json["found"], false);
    let search = &json["steps"][0];
    assert_eq!(search["summary"]["found"], false);
    assert_eq!(search["summary"]["limit"], "iterations");
    assert_eq!(search["iterations"].as_array().unwrap().len(), 2);
}

#[test]
fn unwritable_stats_are_errors_before_the_search_and_leave_nothing_behind() {
    let dir = temp_dir("unwritable");
    let missing = dir.join("missing/stats.json");
    let folder = dir.join("folder");
    std::fs::create_dir_all(folder.join("inside")).unwrap();
    for path in [&missing, &folder] {
        let out = risec(&args(&prove_from_map_start(
            &goal("map-fission-fusion"),
            MAP_RULES,
            &["--stats", path.to_str().unwrap()],
        )));
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains("cannot write"), "{}", stderr(&out));
    }
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["folder"]);
}

#[test]
fn assumed_divisibility_is_reported_unless_forbidden() {
    let dir = temp_dir("assume");
    let target = swapped(&dir);
    let from = start("map-fission-fusion");
    let args = [
        "prove",
        from.as_str(),
        target.as_str(),
        "--rules",
        "split-join(2)",
        "--iterations",
        "2",
    ];
    let out = risec(&args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("assumed      `n/2` is a whole number"),
        "{}",
        stdout(&out)
    );
    let mut strict = args.to_vec();
    strict.push("--no-assume");
    let out = risec(&strict);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!stdout(&out).contains("assumed"), "{}", stdout(&out));
}
