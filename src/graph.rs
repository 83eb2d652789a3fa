//! `risec graph FILE.graph`: optimise a tensor graph by equality saturation, the e-graph built
//! in TENSAT's order or by MCTS (see docs/graphs.md).

use risec_graph::{self as graph, construct::Built, Limits, Options, Strategy};
use std::fmt::Write;
use std::time::Duration;

/// The options of `risec graph`.
#[derive(clap::Args, Clone, Debug)]
pub struct GraphArgs {
    /// The `.graph` file.
    #[arg(required_unless_present = "rules")]
    pub file: Option<String>,
    /// How the e-graph is built: `mcts` (Monte Carlo tree search over rule applications) or
    /// `tensat` (multi-pattern rules first, then every single-pattern rule, in a fixed order).
    #[arg(long, value_name = "WHICH", default_value = "mcts", value_parser = ["mcts", "tensat"])]
    pub strategy: String,
    /// MCTS: simulations before each applied rule.
    #[arg(long, value_name = "N", default_value_t = 128)]
    pub budget: usize,
    /// MCTS: rules applied per simulation (rollout).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub depth: usize,
    /// MCTS: UCB1's exploration constant.
    #[arg(long, value_name = "C", default_value_t = 0.5)]
    pub exploration: f64,
    /// TENSAT's order: iterations in which the multi-pattern rules are applied.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub multi_iterations: usize,
    /// E-node limit: no rule is applied past it.
    #[arg(long, value_name = "N", default_value_t = Limits::default().nodes)]
    pub nodes: usize,
    /// Iterations of TENSAT's order; rules applied by MCTS.
    #[arg(long, value_name = "N", default_value_t = Limits::default().iterations)]
    pub iterations: usize,
    /// Merges per application of a multi-pattern rule.
    #[arg(long, value_name = "N", default_value_t = Limits::default().merges)]
    pub merges: usize,
    /// Time limit of the construction, e.g. `60s`.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::support::units::parse_duration)]
    pub time: Duration,
    /// Seed of MCTS and of the check's random inputs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Compare the strategies instead of printing a graph: TENSAT's order once and MCTS with
    /// seeds 0 … N−1, a table of estimated cost, e-nodes, rules applied and time (with
    /// `--bench`, each graph's C timed too).
    #[arg(long, value_name = "N")]
    pub compare: Option<u64>,
    /// Do not check the optimised graph against the graph as written (the reference
    /// evaluation on random inputs).
    #[arg(long)]
    pub no_check: bool,
    /// Write the optimised graph to this file instead of standard output: as `.graph` text, or
    /// as C when the name ends in `.c` (with its header beside it, `.h`: the functions
    /// `NAME_prepare`, `NAME` and `NAME_release`, NAME the file's stem).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<String>,
    /// Compile the graph as written and the optimised graph to C, check both against the
    /// reference evaluation on random inputs and time them.
    #[arg(long)]
    pub bench: bool,
    /// With `--bench`: calls timed per graph (the median is reported).
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub rounds: usize,
    /// With `--bench`: OpenMP threads.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// The folder of shipped sketches whose files compile the operators (the GEMM, the
    /// convolutions, softmax, layer normalisation); without it, every operator is the naive
    /// lowering of its Rise program.
    #[arg(long, value_name = "DIR", default_value = "sketches")]
    pub sketches: String,
    /// How the graph is extracted: `greedy` (the greedy DAG extractor, shared values paid once)
    /// or `ilp` (TENSAT's integer linear program, seeded with the greedy graph; needs a risec
    /// built with `--features ilp`).
    #[arg(long, value_name = "WHICH", default_value = "greedy", value_parser = ["greedy", "ilp"])]
    pub extractor: String,
    /// Time limit of the ILP extractor.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::support::units::parse_duration)]
    pub ilp_time: Duration,
    /// The cost model of the extraction: `analytic` (operators' arithmetic and traffic at this
    /// project's machine's rates) or `measured` (every operator of the final e-graph timed
    /// once per shape from its own C, then the graph extracted again; MCTS's rewards use the
    /// analytic model and the times already measured).
    #[arg(long, value_name = "MODEL", default_value = "analytic", value_parser = ["analytic", "measured"])]
    pub cost: String,
    /// With `--cost measured`: a JSON file of measured times, read at the start and written
    /// back with the new ones (a shape is measured once across runs).
    #[arg(long, value_name = "FILE.json", requires = "cost")]
    pub cost_cache: Option<String>,
    /// With `--bench`: build and run the C under AddressSanitizer and UndefinedBehaviorSanitizer.
    #[arg(long, requires = "bench")]
    pub sanitize: bool,
    /// List the rules, each checked on its example against the reference evaluation.
    #[arg(long)]
    pub rules: bool,
}

fn options(args: &GraphArgs, strategy: &str, seed: u64) -> Options {
    let strategy = if strategy == "tensat" {
        Strategy::Tensat {
            multi_iterations: args.multi_iterations,
        }
    } else {
        Strategy::Mcts {
            budget: args.budget,
            depth: args.depth,
            exploration: args.exploration,
        }
    };
    let extractor = if args.extractor == "ilp" {
        graph::Extractor::Ilp(args.ilp_time)
    } else {
        graph::Extractor::Greedy
    };
    Options {
        strategy,
        extractor,
        limits: Limits {
            nodes: args.nodes,
            iterations: args.iterations,
            time: args.time,
            merges: args.merges,
        },
        seed,
    }
}

fn stop_word(built: &Built) -> &'static str {
    match built.stop {
        graph::Stop::Saturated => "saturated",
        graph::Stop::Nodes => "node limit",
        graph::Stop::Iterations => "iteration limit",
        graph::Stop::Time => "time limit",
    }
}

/// What `risec graph` prints: standard output and standard error.
#[derive(Clone, Debug, Default)]
pub struct GraphOutput {
    /// The optimised graph (unless `-o`), the rules list or the comparison table.
    pub stdout: String,
    /// What the optimisation did.
    pub stderr: String,
}

/// Runs `risec graph`; errors are rendered messages.
pub fn run(args: &GraphArgs) -> Result<GraphOutput, String> {
    let mut out = GraphOutput::default();
    if args.rules {
        for rule in graph::rules::all() {
            let verdict = match graph::validate::check_rule(&rule, &[1, 2, 3]) {
                Ok(_) => "ok".to_string(),
                Err(e) => format!("FAILED: {e}"),
            };
            let kind = if rule.is_multi() { "multi" } else { "single" };
            let _ = writeln!(
                out.stdout,
                "{:<22} {kind:<6} {verdict:<4} {}",
                rule.name, rule.doc
            );
        }
        return Ok(out);
    }
    let file = args
        .file
        .as_deref()
        .expect("clap requires the file without --rules");
    let g = graph::load(std::path::Path::new(file)).map_err(|e| e.to_string())?;
    if let Some(seeds) = args.compare {
        out.stdout = compare(args, &g, seeds)?;
        return Ok(out);
    }
    let opt = optimise(args, &g, &args.strategy, args.seed)?;
    let _ = writeln!(
        out.stderr,
        "{}: {} rules applied ({}), stopped: {}; {} e-nodes, {} e-classes; {:.2} s",
        args.strategy,
        opt.built.applied.len(),
        summary(&opt.built.applied),
        stop_word(&opt.built),
        opt.enodes,
        opt.eclasses,
        opt.time.as_secs_f64()
    );
    if opt.extraction != "greedy" {
        let _ = writeln!(out.stderr, "extraction: {}", opt.extraction);
    }
    let _ = writeln!(
        out.stderr,
        "estimated cost: {:.1} µs as written -> {:.1} µs optimised ({:.2}x)",
        opt.original_cost,
        opt.cost,
        opt.original_cost / opt.cost.max(1e-9)
    );
    let work = graph::reference_work(&g);
    if !args.no_check && work > graph::REFERENCE_LIMIT {
        let _ = writeln!(
            out.stderr,
            "not checked: the reference evaluation would take about {work:.1e} operations (more than {:.0e}); the rules are checked on their own examples",
            graph::REFERENCE_LIMIT
        );
    } else if !args.no_check {
        let d = graph::check(&g, &opt.expr, args.seed);
        if d.is_nan() || d > 1e-4 {
            return Err(format!(
                "error: the optimised graph's outputs differ from the graph as written by {d:e} (relative) on random inputs (seed {}); this is a bug of a rule",
                args.seed
            ));
        }
        let _ = writeln!(out.stderr, "check: the outputs agree with the graph as written within {d:.1e} (random inputs, seed {})", args.seed);
    }
    let sketches = std::path::Path::new(&args.sketches);
    let sketches = sketches.is_dir().then_some(sketches);
    if args.bench {
        let t = bench_graph(args, &g, &opt.expr, sketches)?;
        let _ = writeln!(
            out.stdout,
            "| graph | estimated µs | measured ms (median of {}, {} thread{}) | prepare ms | error vs reference |\n| --- | ---: | ---: | ---: | ---: |\n| as written | {:.1} | {:.3} | {:.3} | {:.1e} |\n| optimised | {:.1} | {:.3} | {:.3} | {:.1e} |\nspeed-up: {:.2}x measured, {:.2}x estimated",
            t.rounds,
            args.threads.max(1),
            if args.threads > 1 { "s" } else { "" },
            opt.original_cost,
            t.original_ms,
            t.prepare_ms.0,
            t.errors.0,
            opt.cost,
            t.optimised_ms,
            t.prepare_ms.1,
            t.errors.1,
            t.original_ms / t.optimised_ms.max(1e-9),
            opt.original_cost / opt.cost.max(1e-9)
        );
        let naive: Vec<&str> = t
            .kernels
            .iter()
            .filter(|k| k.1.is_none())
            .map(|k| k.0.as_str())
            .collect();
        let _ = writeln!(
            out.stderr,
            "kernels: {} ({} by a shipped sketch; naive lowering: {})",
            t.kernels.len(),
            t.kernels.len() - naive.len(),
            if naive.is_empty() {
                "none".to_string()
            } else {
                naive.join(", ")
            }
        );
        return Ok(out);
    }
    match &args.output {
        Some(path) if path.ends_with(".c") => {
            let p = std::path::Path::new(path);
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("graph");
            let function: String = stem
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            let function = if function.starts_with(|c: char| c.is_ascii_digit()) {
                format!("g_{function}")
            } else {
                function
            };
            let header_path = p.with_extension("h");
            let header_name = header_path
                .file_name()
                .and_then(|s| s.to_str())
                .unwrap_or("graph.h")
                .to_string();
            let c = graph::codegen::c_file(&function, &header_name, &g, &opt.expr, sketches)
                .map_err(|e| format!("error: {e}"))?;
            crate::support::output::write_all_atomically(&[
                (p, c.source.as_str()),
                (header_path.as_path(), c.header.as_str()),
            ])
            .map_err(|e| format!("error: cannot write `{path}`: {e}"))?;
            let _ = writeln!(
                out.stderr,
                "wrote {path} and {}: {function}_prepare, {function}, {function}_release",
                header_path.display()
            );
        }
        Some(path) => {
            let text = graph::print(&g, &opt.expr);
            crate::support::output::write_atomically(std::path::Path::new(path), &text)
                .map_err(|e| format!("error: cannot write `{path}`: {e}"))?;
            let _ = writeln!(out.stderr, "wrote {path}");
        }
        None => out.stdout = graph::print(&g, &opt.expr),
    }
    Ok(out)
}

/// Optimises `g` with `strategy` under the chosen cost model (`--cost`).
fn optimise(
    args: &GraphArgs,
    g: &graph::Graph,
    strategy: &str,
    seed: u64,
) -> Result<graph::Optimized, String> {
    let options = options(args, strategy, seed);
    if args.cost != "measured" {
        return graph::optimize(g, &options).map_err(|e| e.to_string());
    }
    let mut table: graph::codegen::measure::CostTable = match &args.cost_cache {
        Some(path) if std::path::Path::new(path).exists() => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("error: cannot read `{path}`: {e}"))?;
            serde_json::from_str(&text).map_err(|e| format!("error: `{path}` is not a cost cache (a JSON object of operator keys to microseconds): {e}"))?
        }
        _ => Default::default(),
    };
    let dir = crate::support::cleanup::WorkDir::new()
        .map_err(|e| format!("error: cannot make a directory: {e}"))?;
    let sketches = std::path::Path::new(&args.sketches);
    let measure = graph::codegen::measure::MeasureOptions {
        rounds: args.rounds.max(1),
        threads: args.threads.max(1),
        sketches: sketches.is_dir().then_some(sketches),
    };
    let known = table.len();
    let opt = graph::optimize_measured(g, &options, &measure, &mut table, dir.path())
        .map_err(|e| format!("error: {e}"))?;
    eprintln!(
        "measured cost model: {} operator shapes timed, {known} taken from the cache",
        table.len() - known
    );
    if let Some(path) = &args.cost_cache {
        let mut entries: Vec<(&String, &f64)> = table.iter().collect();
        entries.sort_by(|a, b| a.0.cmp(b.0));
        let map: serde_json::Map<String, serde_json::Value> = entries
            .into_iter()
            .map(|(k, v)| (k.clone(), serde_json::json!(v)))
            .collect();
        let text = serde_json::to_string_pretty(&map).map_err(|e| e.to_string())?;
        crate::support::output::write_atomically(std::path::Path::new(path), &text)
            .map_err(|e| format!("error: cannot write `{path}`: {e}"))?;
    }
    Ok(opt)
}

/// Compiles the graph as written and `expr` to C, checks both against the reference evaluation
/// and times them (`--bench`).
fn bench_graph(
    args: &GraphArgs,
    g: &graph::Graph,
    expr: &graph::RecExpr<graph::lang::TensorLang>,
    sketches: Option<&std::path::Path>,
) -> Result<graph::codegen::bench::Timing, String> {
    let work = graph::reference_work(g);
    if work > graph::REFERENCE_LIMIT {
        return Err(format!(
            "error: --bench checks both graphs' C against the reference evaluation, which would take about {work:.1e} operations here (more than {:.0e}): bench a smaller instance of the graph",
            graph::REFERENCE_LIMIT
        ));
    }
    let dir = crate::support::cleanup::WorkDir::new()
        .map_err(|e| format!("error: cannot make a directory: {e}"))?;
    let options = graph::codegen::bench::BenchOptions {
        rounds: args.rounds.max(1),
        threads: args.threads.max(1),
        seed: args.seed,
        sketches,
        sanitize: args.sanitize,
    };
    let t = graph::codegen::bench::run(g, expr, &options, dir.path()).map_err(|e| {
        if e.starts_with("error") {
            e
        } else {
            format!("error: {e}")
        }
    })?;
    for (which, e) in [("as written", t.errors.0), ("optimised", t.errors.1)] {
        if e.is_nan() || e > graph::codegen::bench::TOLERANCE {
            return Err(format!(
                "error: the C of the graph {which} differs from the reference evaluation by {e:e} (relative)"
            ));
        }
    }
    Ok(t)
}

/// Rules applied, each with its count, in order of first use.
fn summary(applied: &[&'static str]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in applied {
        match counts.iter_mut().find(|(n, _)| n == r) {
            Some(c) => c.1 += 1,
            None => counts.push((r, 1)),
        }
    }
    counts
        .iter()
        .map(|(n, c)| {
            if *c > 1 {
                format!("{n} ×{c}")
            } else {
                n.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn compare(args: &GraphArgs, g: &graph::Graph, seeds: u64) -> Result<String, String> {
    let mut rows = Vec::new();
    let mut rows_ms: Vec<f64> = Vec::new();
    let mut t = String::new();
    let sketches = std::path::Path::new(&args.sketches);
    let sketches = sketches.is_dir().then_some(sketches);
    let measured_head = if args.bench {
        " measured ms | measured × as written |"
    } else {
        ""
    };
    let measured_rule = if args.bench { " ---: | ---: |" } else { "" };
    let _ = writeln!(t, "| strategy | seed | estimated µs | × as written | e-nodes | rules applied | stop | time s |{measured_head}");
    let _ = writeln!(
        t,
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |{measured_rule}"
    );
    let runs = std::iter::once(("tensat", 0)).chain((0..seeds).map(|s| ("mcts", s)));
    for (strategy, seed) in runs {
        let opt = optimise(args, g, strategy, seed)?;
        let d = if graph::reference_work(g) > graph::REFERENCE_LIMIT {
            0.0
        } else {
            graph::check(g, &opt.expr, seed)
        };
        if d.is_nan() || d > 1e-4 {
            return Err(format!(
                "error: {strategy} (seed {seed}) gave a graph whose outputs differ by {d:e}"
            ));
        }
        let measured = if args.bench {
            let m = bench_graph(args, g, &opt.expr, sketches)?;
            rows_ms.push(m.optimised_ms);
            format!(
                " {:.3} | {:.3} |",
                m.optimised_ms,
                m.original_ms / m.optimised_ms.max(1e-9)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "| {strategy} | {} | {:.1} | {:.3} | {} | {} | {} | {:.2} |{measured}",
            if strategy == "tensat" {
                "–".to_string()
            } else {
                seed.to_string()
            },
            opt.cost,
            opt.original_cost / opt.cost.max(1e-9),
            opt.enodes,
            opt.built.applied.len(),
            stop_word(&opt.built),
            opt.time.as_secs_f64()
        );
        if strategy == "mcts" {
            rows.push((opt.cost, opt.time.as_secs_f64()));
        }
    }
    if !rows.is_empty() {
        let n = rows.len() as f64;
        let mean = rows.iter().map(|r| r.0).sum::<f64>() / n;
        let sd = (rows.iter().map(|r| (r.0 - mean).powi(2)).sum::<f64>() / n).sqrt();
        let time = rows.iter().map(|r| r.1).sum::<f64>() / n;
        let _ = writeln!(
            t,
            "\nmcts over {} seeds: estimated {mean:.1} ± {sd:.1} µs, {time:.2} s on average",
            rows.len()
        );
        if rows_ms.len() > 1 {
            // The first measured row is TENSAT's order.
            let m = &rows_ms[1..];
            let k = m.len() as f64;
            let mean = m.iter().sum::<f64>() / k;
            let sd = (m.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / k).sqrt();
            let _ = writeln!(t, "mcts measured: {mean:.3} ± {sd:.3} ms (each row's graph timed beside the graph as written, in its own run)");
        }
    }
    Ok(t)
}
