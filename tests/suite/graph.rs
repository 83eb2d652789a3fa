//! `risec graph`: tensor graphs parsed and checked with errors at their place, every rule
//! validated, both construction strategies on the shipped workloads giving graphs that agree
//! with the graph as written, and the optimised graph printed as a file that reads back.

use crate::common::{risec, stderr, stdout, temp_file};
use risec::SourceFile;
use risec_graph::{self as graph, Limits, Options, Strategy};
use std::time::Duration;

const WORKLOADS: [&str; 5] = ["nasrnn", "resnext", "bert", "inception", "squeezenet"];

fn load(name: &str) -> graph::Graph {
    graph::load(std::path::Path::new(&format!(
        "{}/examples/graphs/{name}.graph",
        env!("CARGO_MANIFEST_DIR")
    )))
    .unwrap()
}

/// Small search budgets: what the tests check does not depend on the budget's size.
fn quick(strategy: Strategy) -> Options {
    Options {
        strategy,
        extractor: graph::Extractor::Greedy,
        limits: Limits {
            nodes: 600,
            iterations: 6,
            time: Duration::from_secs(60),
            merges: 8,
        },
        seed: 1,
    }
}

const QUICK_MCTS: Strategy = Strategy::Mcts {
    budget: 6,
    depth: 3,
    exploration: 0.5,
};
const TENSAT: Strategy = Strategy::Tensat {
    multi_iterations: 1,
};

#[test]
fn shape_errors_are_reported_at_their_statement() {
    let path = temp_file(
        "bad-shapes.graph",
        b"input x : 4 x 5\nweight w : 4 x 5\nlet y = matmul(x, w)\noutput y\n",
    );
    let out = risec(&["graph", path.to_str().unwrap()]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad-shapes.graph:3:"), "{err}");
    assert!(err.contains("matmul of 4 x 5 by 4 x 5"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn names_operators_and_attributes_are_checked() {
    let cases: [(&str, &str); 6] = [
        (
            "input x : 4 x 5\nlet y = relu(z)\noutput y",
            "unknown value `z`",
        ),
        (
            "input x : 4 x 5\nlet y = gelu(x)\noutput y",
            "unknown operator `gelu`",
        ),
        (
            "input x : 4 x 5\nlet y = relu(x, stride=2)\noutput y",
            "`relu` has no attribute `stride`",
        ),
        (
            "input x : 4 x 5\nlet y = relu(x)\nlet y = relu(x)\noutput y",
            "`y` is defined twice",
        ),
        (
            "input x : 4 x 5\nlet a, b = split(x, axis=1, at=5)\noutput a",
            "0 < at < its size",
        ),
        ("input x : 4 x 5\nlet y = relu(x)", "no `output` statement"),
    ];
    for (text, want) in cases {
        let file = SourceFile::new("case.graph", text);
        let err = graph::parse(&file).unwrap_err().to_string();
        assert!(err.contains(want), "{text}\n---\n{err}");
        assert!(err.contains("case.graph:"), "{err}");
    }
}

#[test]
fn every_rule_is_listed_and_valid() {
    let out = risec(&["graph", "--rules"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(text.lines().count(), graph::rules::all().len(), "{text}");
    assert!(text.lines().all(|l| l.contains(" ok ")), "{text}");
    assert!(
        text.contains("merge-matmuls") && text.contains("multi"),
        "{text}"
    );
}

#[test]
fn both_strategies_optimise_every_workload_and_agree_with_it() {
    for name in WORKLOADS {
        let g = load(name);
        for strategy in [TENSAT, QUICK_MCTS] {
            let opt = graph::optimize(&g, &quick(strategy)).unwrap();
            assert!(opt.cost <= opt.original_cost, "{name} {strategy:?}");
            assert!(
                !opt.built.applied.is_empty(),
                "{name} {strategy:?}: no rule applied"
            );
            let d = graph::check(&g, &opt.expr, 7);
            assert!(d < 1e-9, "{name} {strategy:?}: differs by {d}");
        }
    }
}

#[test]
fn convolutions_sharing_an_input_are_merged() {
    // The Inception module's 1x1 convolutions of its input become one wider convolution
    // (weights stacked, result split): the estimated cost falls.
    let g = load("inception");
    let opt = graph::optimize(&g, &quick(TENSAT)).unwrap();
    assert!(
        opt.cost < opt.original_cost * 0.99,
        "{} -> {}",
        opt.original_cost,
        opt.cost
    );
    let text = graph::print(&g, &opt.expr);
    assert!(
        text.contains("concat(") && text.contains("split("),
        "{text}"
    );
}

#[test]
fn products_of_weights_alone_are_folded() {
    // In the BERT layer, q·kᵀ = x·(Wq·Wkᵀ)·xᵀ and (p·v)·Wo = p·(x·(Wv·Wo)): the products of
    // weights are computed before inference, so the graph found is cheaper.
    let g = load("bert");
    let opt = graph::optimize(&g, &quick(TENSAT)).unwrap();
    assert!(
        opt.cost < opt.original_cost * 0.9,
        "{} -> {}",
        opt.original_cost,
        opt.cost
    );
    let text = graph::print(&g, &opt.expr);
    assert!(
        text.contains("matmul(wq, ") || text.contains("matmul(wv, wo)"),
        "{text}"
    );
}

#[test]
fn mcts_is_reproducible_for_a_seed() {
    let g = load("squeezenet");
    let a = graph::optimize(&g, &quick(QUICK_MCTS)).unwrap();
    let b = graph::optimize(&g, &quick(QUICK_MCTS)).unwrap();
    assert_eq!(a.built.applied, b.built.applied);
    assert_eq!(a.expr.to_string(), b.expr.to_string());
}

#[test]
fn the_printed_graph_reads_back_with_the_same_cost() {
    let out_path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bert-opt.graph");
    let _ = std::fs::remove_file(&out_path);
    let out = risec(&[
        "graph",
        "examples/graphs/bert.graph",
        "--strategy",
        "tensat",
        "-o",
        out_path.to_str().unwrap(),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("estimated cost:") && err.contains("check: the outputs agree"),
        "{err}"
    );
    let back = graph::load(&out_path).unwrap();
    let original = load("bert");
    assert!(graph::check(&original, &back.expr, 3) < 1e-9);
    let again = graph::optimize(
        &back,
        &Options {
            limits: Limits {
                iterations: 0,
                ..Limits::default()
            },
            ..Options::default()
        },
    )
    .unwrap();
    let opt = graph::optimize(&original, &quick(TENSAT)).unwrap();
    assert!(
        (again.original_cost - opt.cost).abs() < 1e-6 * opt.cost,
        "{} vs {}",
        again.original_cost,
        opt.cost
    );
}

#[test]
fn compare_prints_both_strategies() {
    let out = risec(&[
        "graph",
        "examples/graphs/squeezenet.graph",
        "--compare",
        "2",
        "--budget",
        "4",
        "--depth",
        "2",
        "--iterations",
        "4",
    ]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(text.matches("| mcts |").count(), 2, "{text}");
    assert_eq!(text.matches("| tensat |").count(), 1, "{text}");
    assert!(text.contains("mcts over 2 seeds"), "{text}");
}

#[test]
fn every_operator_compiles_to_c_that_agrees_with_the_reference() {
    // With the shipped sketches and with the naive lowering of every kernel, under the
    // sanitizers: both graphs' outputs are checked against the reference evaluation by the
    // command itself (an error above 1e-4 fails it).
    for sketches in ["sketches", "no-such-folder"] {
        let out = risec(&[
            "graph",
            "tests/graphs/every-op.graph",
            "--bench",
            "--strategy",
            "tensat",
            "--rounds",
            "1",
            "--sanitize",
            "--sketches",
            sketches,
        ]);
        let (text, err) = (stdout(&out), stderr(&out));
        assert_eq!(out.status.code(), Some(0), "{sketches}: {err}");
        assert!(
            text.contains("| as written |") && text.contains("| optimised |"),
            "{text}"
        );
        assert!(
            !err.contains("runtime error") && !err.contains("AddressSanitizer"),
            "{err}"
        );
        let naive = sketches != "sketches";
        assert_eq!(err.contains("(0 by a shipped sketch"), naive, "{err}");
    }
}

#[test]
fn an_optimised_workload_compiles_and_agrees_with_the_reference() {
    let out = risec(&[
        "graph",
        "examples/graphs/resnext.graph",
        "--bench",
        "--strategy",
        "tensat",
        "--rounds",
        "1",
    ]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(text.contains("speed-up:"), "{text}");
}

#[test]
fn the_graph_is_written_as_c_with_its_header() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("graph-c");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("fire.c");
    let out = risec(&[
        "graph",
        "examples/graphs/squeezenet.graph",
        "--strategy",
        "tensat",
        "-o",
        c.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let source = std::fs::read_to_string(&c).unwrap();
    let header = std::fs::read_to_string(dir.join("fire.h")).unwrap();
    assert!(source.contains("#include \"fire.h\""), "{source}");
    for f in [
        "fire_prepare(",
        "int fire(const fire_state *s",
        "fire_release(",
    ] {
        assert!(header.contains(f), "{f}: {header}");
    }
}

#[test]
fn the_measured_cost_model_times_each_shape_once() {
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("graph-costs.json");
    let _ = std::fs::remove_file(&cache);
    let run = || {
        risec(&[
            "graph",
            "examples/graphs/squeezenet.graph",
            "--strategy",
            "tensat",
            "--cost",
            "measured",
            "--rounds",
            "2",
            "--cost-cache",
            cache.to_str().unwrap(),
        ])
    };
    let first = run();
    let err = stderr(&first);
    assert_eq!(first.status.code(), Some(0), "{err}");
    assert!(
        err.contains("operator shapes timed, 0 taken from the cache"),
        "{err}"
    );
    let table: std::collections::BTreeMap<String, f64> =
        serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    assert!(
        table
            .keys()
            .any(|k| k.starts_with("conv2d 1 1 relu | 1x16x55x55 64x16x3x3")),
        "{table:?}"
    );
    assert!(
        table.values().all(|us| *us > 0.0 && us.is_finite()),
        "{table:?}"
    );
    let second = run();
    let err = stderr(&second);
    assert_eq!(second.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!(
            "0 operator shapes timed, {} taken from the cache",
            table.len()
        )),
        "{err}"
    );
}

#[test]
fn a_part_of_a_split_costs_a_copy_only_when_it_is_not_contiguous() {
    // Rows of a matrix are contiguous (a pointer); columns are not (a copy).
    let rows = "input x : 8 x 4\nlet a, b = split(x, axis=0, at=3)\nlet y = relu(a)\noutput y";
    let cols = "input x : 8 x 4\nlet a, b = split(x, axis=1, at=3)\nlet y = relu(a)\noutput y";
    let cost = |text: &str| {
        let g = graph::parse(&SourceFile::new("s.graph", text)).unwrap();
        graph::optimize(&g, &quick(TENSAT)).unwrap().original_cost
    };
    assert!(
        cost(cols) > cost(rows) + 1.0,
        "{} vs {}",
        cost(cols),
        cost(rows)
    );
}

#[cfg(not(feature = "ilp"))]
#[test]
fn the_ilp_extractor_needs_its_feature() {
    let out = risec(&["graph", "examples/graphs/bert.graph", "--extractor", "ilp"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--features ilp"), "{err}");
}

#[test]
fn a_graph_too_large_for_the_reference_is_optimised_but_not_checked() {
    // 2 x 3000³ multiply-adds: minutes of plain f64 loops. The optimisation still runs, the
    // check says why it was skipped, and --bench refuses with the reason.
    let path = temp_file(
        "big.graph",
        b"input x : 3000 x 3000\nweight w : 3000 x 3000\nweight v : 3000 x 3000\nlet a = matmul(x, w)\nlet b = matmul(x, v)\nlet y = add(a, b)\noutput y\n",
    );
    let out = crate::common::risec_within(
        &["graph", path.to_str().unwrap(), "--strategy", "tensat"],
        Duration::from_secs(120),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("not checked: the reference evaluation would take about"),
        "{err}"
    );
    assert!(stdout(&out).contains("matmul(x, "), "{}", stdout(&out));
    let out = risec(&[
        "graph",
        path.to_str().unwrap(),
        "--strategy",
        "tensat",
        "--bench",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bench a smaller instance"), "{err}");
}
