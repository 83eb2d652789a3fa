//! Tables of the search strategies (issue 22): each sketch searched with each scheduler, random
//! ones over several seeds, every run in its own process (peak memory is per process).
//!
//! ```text
//! cargo run --release --example strategy_table -- unguided   # blocking with only its final sketch
//! cargo run --release --example strategy_table -- tvm        # the seven TVM versions, final sketch only
//! cargo run --release --example strategy_table -- tiling     # the tiling goals of examples/goals
//! cargo run --release --example strategy_table -- guided     # the shipped guided sketches, default scheduler
//! ```
//!
//! Options after the table's name: `--time 60s` (each run's budget), `--seeds 5` (seeds of the
//! random schedulers), `--schedulers simple,backoff,sample(64),mcts(8,3)`. Each row gives how
//! many runs found the program, and the mean ± standard deviation over the runs of the search's
//! wall time (every step with its sketch checks and extraction, as `--stats` reports it), its
//! e-nodes at the end (of the last step), and the process's peak resident memory.

use risec::{Budget, Scheduler, SearchOptions, Strategy};
use risec_bench::presets::TVM_VERSIONS;
use std::process::Command;
use std::time::Duration;

/// One run's figures, as the child process prints them.
#[derive(serde::Serialize, serde::Deserialize, Clone)]
struct Run {
    found: bool,
    /// Why the last step stopped (`goal reached`, `time limit`, …).
    stop: String,
    time_s: f64,
    nodes: usize,
    peak_mib: f64,
}

const MATMUL: &str = "examples/matmul.rise";

/// (name, program, sketch) of every table.
fn cases(table: &str) -> Vec<(String, String, String)> {
    let m = |name: &str, sketch: &str| (name.to_string(), MATMUL.to_string(), sketch.to_string());
    match table {
        "unguided" => vec![m("blocking", "sketches/matmul/blocking-unguided.sk")],
        "tvm" => TVM_VERSIONS
            .iter()
            .map(|v| {
                let sketch = if *v == "blocking" {
                    "sketches/matmul/blocking-unguided.sk".to_string()
                } else {
                    format!("sketches/matmul/unguided/{v}.sk")
                };
                (v.to_string(), MATMUL.to_string(), sketch)
            })
            .collect(),
        "tiling" => ["2d", "3d", "4d"]
            .iter()
            .flat_map(|d| {
                let program = format!("examples/goals/tile-{d}.rise");
                [
                    (
                        format!("{d} guided"),
                        program.clone(),
                        format!("examples/goals/tile-{d}.sk"),
                    ),
                    (
                        format!("{d} final sketch only"),
                        program,
                        format!("examples/goals/tile-{d}-unguided.sk"),
                    ),
                ]
            })
            .collect(),
        "guided" => TVM_VERSIONS
            .iter()
            .chain(&["register-blocking", "register-blocking-avx512"])
            .map(|v| m(v, &format!("sketches/matmul/{v}.sk")))
            .collect(),
        other => {
            eprintln!("unknown table `{other}`: unguided, tvm, tiling or guided");
            std::process::exit(1)
        }
    }
}

/// The child: one search, its figures as one JSON line.
fn one(program: &str, sketch: &str, scheduler: &str, seed: u64, time: Duration) {
    let p = risec::load_program(program, None).unwrap_or_else(|e| panic!("{e}"));
    let steps = risec::load_sketch(sketch, &p).unwrap_or_else(|e| panic!("{e}"));
    let options = SearchOptions {
        budget: Budget::new(time, risec_core::support::memory::default_limit()),
        strategy: Strategy {
            scheduler: scheduler.parse().unwrap_or_else(|e| panic!("{e}")),
            seed,
        },
        ..SearchOptions::default()
    };
    let (found, stats) = match risec::optimize(&p, &steps, &options) {
        Ok(o) => (true, o.steps),
        Err(risec::Error::NotFound(nf)) => (false, nf.steps),
        Err(e) => panic!("{e}"),
    };
    let run = Run {
        found,
        stop: stats
            .last()
            .map_or_else(String::new, |s| s.summary.stop.to_string()),
        time_s: stats
            .iter()
            .map(|s| s.step_time.unwrap_or(s.summary.time).as_secs_f64())
            .sum(),
        nodes: stats.last().map_or(0, |s| s.summary.nodes),
        peak_mib: risec_core::support::memory::peak_memory().unwrap_or(0) as f64 / (1 << 20) as f64,
    };
    println!("{}", serde_json::to_string(&run).expect("serialises"));
}

fn mean_sd(xs: &[f64]) -> String {
    if xs.is_empty() {
        return "–".into();
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() == 1 {
        return format_num(mean);
    }
    let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    format!("{} ± {}", format_num(mean), format_num(sd))
}

fn format_num(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--one") {
        let time = humantime::parse_duration(&args[5]).expect("a duration");
        one(
            &args[1],
            &args[2],
            &args[3],
            args[4].parse().expect("a seed"),
            time,
        );
        return;
    }
    let table = args.first().cloned().unwrap_or_else(|| "unguided".into());
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let time = flag("--time").unwrap_or_else(|| "60s".into());
    let seeds: u64 = flag("--seeds").map_or(5, |s| s.parse().expect("a number of seeds"));
    let schedulers: Vec<String> = flag("--schedulers")
        .unwrap_or_else(|| "simple,backoff,sample(64),mcts(8,3)".into())
        .split(';')
        .flat_map(split_schedulers)
        .collect();
    if table == "guided" && flag("--schedulers").is_none() {
        return print_table(&table, &["simple".to_string()], 1, &time);
    }
    print_table(&table, &schedulers, seeds, &time);
}

/// Splits `simple,backoff,sample(64),mcts(8,3)` at the commas outside parentheses.
fn split_schedulers(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

fn print_table(table: &str, schedulers: &[String], seeds: u64, time: &str) {
    let me = std::env::current_exe().expect("the example's path");
    println!(
        "| {table} | scheduler | found | stopped by | time (s) | e-nodes | peak memory (MiB) |"
    );
    println!("|---|---|---:|---|---:|---:|---:|");
    for (name, program, sketch) in cases(table) {
        for scheduler in schedulers {
            let parsed: Scheduler = scheduler.parse().unwrap_or_else(|e| panic!("{e}"));
            let runs: Vec<Run> = (0..if parsed.is_random() { seeds } else { 1 })
                .filter_map(|seed| {
                    let out = Command::new(&me)
                        .args([
                            "--one",
                            &program,
                            &sketch,
                            scheduler,
                            &seed.to_string(),
                            time,
                        ])
                        .output()
                        .expect("the child runs");
                    let text = String::from_utf8_lossy(&out.stdout);
                    let parsed = serde_json::from_str::<Run>(text.trim());
                    if parsed.is_err() {
                        eprintln!(
                            "{name} {scheduler} seed {seed}: {}",
                            String::from_utf8_lossy(&out.stderr)
                        );
                    }
                    parsed.ok()
                })
                .collect();
            let col = |f: &dyn Fn(&Run) -> f64| mean_sd(&runs.iter().map(f).collect::<Vec<_>>());
            let mut stops: Vec<&str> = runs.iter().map(|r| r.stop.as_str()).collect();
            stops.sort_unstable();
            stops.dedup();
            println!(
                "| {name} | `{scheduler}` | {}/{} | {} | {} | {} | {} |",
                runs.iter().filter(|r| r.found).count(),
                runs.len(),
                stops.join(", "),
                col(&|r| r.time_s),
                col(&|r| r.nodes as f64),
                col(&|r| r.peak_mib),
            );
        }
    }
}
