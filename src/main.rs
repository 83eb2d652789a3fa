//! The `risec` command line. See `risec --help` and README.md.
//!
//! Exit status: 0 on success, 1 on any error (usage errors included), and 2 when `risec prove`
//! did not find its goal.

use clap::{Parser, Subcommand};
use risec::eqsat::prove::ProveOptions;
use risec::eqsat::runner::Limits;
use risec::support::units::{parse_duration, parse_size};
use std::process::ExitCode;
use std::time::Duration;

/// What `risec --help` says after the commands: what works today, where the language is
/// described, and the exit statuses.
const AFTER_HELP: &str = "\
The main job, `risec PROGRAM.rise --sketch FILE.sk`, finds a program equivalent to PROGRAM of \
the shape the sketch describes (sketch-guided equality saturation) and prints it as low-level \
Rise, or as C with OpenMP and vectors (`-o OUT.c` or `--emit c`, with a header). The commands \
type-check programs (check, print), run them in the reference interpreter (eval), search for \
equivalent programs (rules, costs, prove), compile low-level programs to C (emit-c) and measure \
matmul kernels against hand-written C and OpenBLAS (bench).

The language: docs/language.md. Sketches: docs/sketches.md. Examples: examples/*.rise.
Exit status: 0 on success, 1 on errors, 2 when a sketch or `prove`'s goal is not reached.";

/// risec: a compiler for the Rise functional array language.
///
/// The main job: `risec PROGRAM.rise --sketch FILE.sk [-o OUT]` finds a program equivalent to
/// PROGRAM of the shape the sketch file describes (sketch-guided equality saturation) and prints
/// it, lowered to low-level Rise. Exit status: 0 on success, 1 on errors, 2 when a step's sketch
/// is not satisfied within its limits.
#[derive(Parser, Debug)]
#[command(
    name = "risec",
    version,
    about = "A compiler for the Rise functional array language",
    long_about = None,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    main: MainJob,
}

/// The arguments of the main job (no subcommand).
#[derive(clap::Args, Debug)]
struct MainJob {
    /// The program (`.rise`).
    program: Option<String>,
    /// The sketch file (`.sk`) whose guide steps to run.
    #[arg(long, value_name = "FILE.sk")]
    sketch: Option<String>,
    /// What to produce: the optimised program as Rise source, or C.
    #[arg(long, value_name = "rise|c", default_value = "rise")]
    emit: String,
    /// Write the output here instead of standard output (nothing is written on failure).
    #[arg(short, long, value_name = "FILE")]
    output: Option<String>,
    /// Write per-step statistics as JSON to this file.
    #[arg(long, value_name = "FILE")]
    stats: Option<String>,
    /// No progress lines or summary on standard error.
    #[arg(short, long)]
    quiet: bool,
    /// Time budget of all steps together, e.g. `60s`.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    time: Duration,
    /// The definition to use as entry point (default: the last one).
    #[arg(long)]
    entry: Option<String>,
    /// With `--emit c`: compile these sizes in, e.g. `m=1024,n=1024,k=1024`.
    #[arg(long)]
    size: Option<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse and type-check a program; print the entry point's name and type.
    Check {
        /// The `.rise` file.
        file: String,
        /// The definition to use as entry point (default: the last one).
        #[arg(long)]
        entry: Option<String>,
    },
    /// Run the reference interpreter; print its inputs and result.
    ///
    /// Inputs come from `--inputs FILE` (JSON: `{"xs": [1.0, 2.0], …}`, nested lists for
    /// arrays) or are generated from `--seed`. Sizes not given with `--size` are read off the
    /// input lists.
    Eval {
        /// The `.rise` file.
        file: String,
        /// Sizes for the entry point's size parameters, e.g. `m=4,n=3,k=2`.
        #[arg(long, default_value = "")]
        size: String,
        /// Seed of the generated inputs.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The definition to use as entry point (default: the last one).
        #[arg(long)]
        entry: Option<String>,
        /// A JSON file with inputs by parameter name (or `--output json` of an earlier run).
        #[arg(long, value_name = "FILE")]
        inputs: Option<String>,
        /// `text`, or `json`: one object with the sizes, inputs and result.
        #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
        output: String,
        /// Memory budget of the interpreter, e.g. `4GiB`, `512MiB`.
        #[arg(long, value_name = "SIZE", default_value = "4GiB", value_parser = parse_size)]
        memory: u64,
    },
    /// Pretty-print the elaborated core term as Rise source.
    Print {
        /// The `.rise` file.
        file: String,
        /// The definition to use as entry point (default: the last one).
        #[arg(long)]
        entry: Option<String>,
    },
    /// Compile a low-level `.rise` file to C: writes FILE.c and its header FILE.h with `-o`.
    EmitC {
        /// The `.rise` file (already low-level: mapSeq, mapPar, reduceSeq, toMem, …).
        file: String,
        /// The output `.c` file; the header is written beside it with the extension `.h`.
        #[arg(short = 'o', long = "output", value_name = "OUT.c")]
        output: Option<String>,
        /// Compile these sizes in, e.g. `m=1024,n=1024,k=1024` (the size parameters disappear).
        #[arg(long)]
        size: Option<String>,
        /// The definition to use as entry point (default: the last one).
        #[arg(long)]
        entry: Option<String>,
    },
    /// Benchmark matrix-multiplication versions against the hand-written C baselines and
    /// OpenBLAS: compile (cc), verify against the naive C baseline, time, print a table.
    Bench {
        /// The program the sketches optimise (e.g. `examples/matmul.rise`).
        program: Option<String>,
        /// A sketch file; the version it gives is named after the file (repeatable).
        #[arg(long = "sketch", value_name = "FILE.sk")]
        sketches: Vec<String>,
        /// A version: `NAME=FILE.rise`, a low-level `def matmul {m n k : nat} (a : m.k.f32)
        /// (b : k.n.f32) : m.n.f32`; repeatable. Its hand-written twin is the baseline NAME.
        #[arg(long = "version", value_name = "NAME=FILE.rise")]
        versions: Vec<String>,
        /// The sizes, e.g. `m=1024,n=1024,k=1024`.
        #[arg(long, default_value = "m=1024,n=1024,k=1024")]
        size: String,
        /// OpenMP thread counts, e.g. `1,2`.
        #[arg(long, default_value = "1", value_delimiter = ',')]
        threads: Vec<u32>,
        /// Timed rounds per thread count (kernels interleaved; the median is reported; a kernel
        /// slower than 2 s, the naive loop at large sizes, is timed once; the thread counts run in one
        /// process on one reference result).
        #[arg(long, default_value_t = 7)]
        rounds: u32,
        /// Draw GFLOP/s bars to this SVG file.
        #[arg(long, value_name = "OUT.svg")]
        plot: Option<String>,
        /// Write the results as CSV to this file.
        #[arg(long, value_name = "OUT.csv")]
        csv: Option<String>,
        /// Keep the generated C and the driver in this directory.
        #[arg(long, value_name = "DIR")]
        keep: Option<String>,
        /// Leave out the hand-written TVM baselines and OpenBLAS (the naive one always runs).
        #[arg(long, conflicts_with = "baselines")]
        no_baselines: bool,
        /// Run only these baselines besides the naive one: names of the TVM baselines
        /// (`parallel`, `cache-blocks`, …) and `openblas`, comma-separated [default: all].
        #[arg(long, value_delimiter = ',', value_name = "NAMES")]
        baselines: Option<Vec<String>>,
    },
    /// List the rewrite rules: name with size parameters, description and shape.
    Rules,
    /// List the cost models a sketch step may name (`cost = …`).
    Costs,
    /// Search for GOAL from START by equality saturation with the given rules.
    ///
    /// Exits with 0 when the goal is found, 2 when it is not (the e-graph saturated, or a limit
    /// stopped the search), 1 on errors.
    Prove {
        /// The start program (`.rise`).
        start: String,
        /// The goal program (`.rise`); its entry point must have the start's type.
        goal: String,
        /// The rules, comma-separated, e.g. `map-fusion,map-fission,eta,beta` or
        /// `split-join(32)`; `risec rules` lists them.
        #[arg(long, value_name = "RULES")]
        rules: String,
        /// Write per-iteration statistics and the summary to this JSON file.
        #[arg(long, value_name = "FILE")]
        stats: Option<String>,
        /// Search from the terms as written, not their beta-eta normal forms.
        #[arg(long)]
        no_normalize: bool,
        /// Time limit, e.g. `10s`, `500ms`, `2m`.
        #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
        time: Duration,
        /// Limit on e-nodes.
        #[arg(long, value_name = "N", default_value_t = Limits::default().nodes)]
        nodes: usize,
        /// Limit on iterations.
        #[arg(long, value_name = "N", default_value_t = Limits::default().iterations)]
        iterations: usize,
        /// Limit on the process's resident memory, e.g. `4GiB`, `512MiB`.
        #[arg(long, value_name = "SIZE", default_value = "4GiB", value_parser = parse_size)]
        memory: u64,
        /// Do not let rules assume divisibility facts (`32 divides n`) they cannot prove.
        #[arg(long)]
        no_assume: bool,
        /// The start file's entry point (default: its last definition).
        #[arg(long)]
        entry: Option<String>,
        /// The goal file's entry point (default: its last definition).
        #[arg(long)]
        goal_entry: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors are errors (status 1,
            // so that 2 keeps meaning "goal not found").
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    // Compiler passes recurse over terms; run them on a thread with a generous stack so that
    // deep (but accepted) programs never overflow the main thread's default stack.
    let worker = std::thread::Builder::new()
        .name("risec".into())
        .stack_size(256 << 20)
        .spawn(move || match cli.command {
            Some(command) => run(command),
            None => run_main_job(cli.main),
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: internal compiler error (the worker thread failed)");
            ExitCode::from(101)
        }
    }
}

fn run(command: Command) -> ExitCode {
    let ok = |out: String| (out, ExitCode::SUCCESS);
    let result = match command {
        Command::Check { file, entry } => risec::cli::check(&file, entry.as_deref()).map(ok),
        Command::Eval {
            file,
            size,
            seed,
            entry,
            inputs,
            output,
            memory,
        } => {
            let options = risec::cli::EvalOptions {
                sizes: size,
                seed,
                entry,
                inputs,
                output: if output == "json" {
                    risec::cli::OutputFormat::Json
                } else {
                    risec::cli::OutputFormat::Text
                },
                memory,
            };
            risec::cli::eval(&file, &options).map(ok)
        }
        Command::Print { file, entry } => risec::cli::print(&file, entry.as_deref()).map(ok),
        Command::Rules => Ok(ok(risec::cli::rules())),
        Command::Costs => Ok(ok(risec::sketch::cost::COST_MODELS
            .iter()
            .map(|(name, _, doc)| format!("{name:<18} {doc}\n"))
            .collect())),
        Command::Bench {
            program,
            sketches,
            versions,
            size,
            threads,
            rounds,
            plot,
            csv,
            keep,
            no_baselines,
            baselines,
        } => risec::cli::bench::bench(&risec::cli::bench::BenchArgs {
            program,
            sketches,
            versions,
            size,
            threads,
            rounds,
            plot,
            csv,
            keep,
            baselines: if no_baselines {
                Some(Vec::new())
            } else {
                baselines
            },
        })
        .map(ok),
        Command::EmitC {
            file,
            output,
            size,
            entry,
        } => risec::frontend::load::compile_file(&file, entry.as_deref())
            .map_err(|e| e.to_string())
            .and_then(|p| {
                risec::backend_c::files::compile_to_files(
                    &p,
                    output.as_deref().map(std::path::Path::new),
                    size.as_deref(),
                )
                .map(|(_, text)| ok(text))
            }),
        Command::Prove {
            start,
            goal,
            rules,
            stats,
            no_normalize,
            time,
            nodes,
            iterations,
            memory,
            no_assume,
            entry,
            goal_entry,
        } => {
            let options = ProveOptions {
                rules,
                normalize: !no_normalize,
                limits: Limits {
                    time,
                    nodes,
                    iterations,
                    memory,
                    ..Limits::default()
                },
                entry,
                goal_entry,
                assume: !no_assume,
            };
            risec::cli::prove(&start, &goal, &options, stats.as_deref()).map(|out| {
                let code = if out.found { 0 } else { 2 };
                (out.text, ExitCode::from(code))
            })
        }
    };
    match result {
        Ok((out, code)) => {
            print!("{out}");
            code
        }
        Err(err) => {
            eprint!("{}", err.trim_end_matches('\n'));
            eprintln!();
            ExitCode::from(1)
        }
    }
}

/// `risec PROGRAM.rise --sketch FILE.sk …`.
fn run_main_job(job: MainJob) -> ExitCode {
    use risec::eqsat::stats::{RunInput, RunStats, SearchStats};
    use risec::pipeline::{optimize, OptimizeError};
    let fail = |msg: &str| {
        eprintln!("{}", msg.trim_end_matches('\n'));
        ExitCode::from(1)
    };
    let Some(program) = job.program.as_deref() else {
        return fail("error: no program given\n  usage: risec PROGRAM.rise --sketch FILE.sk [-o OUT]   (see `risec --help`)");
    };
    let Some(sketch) = job.sketch.as_deref() else {
        return fail(&format!(
            "error: no sketch given: `risec {program} --sketch FILE.sk` (the sketches of sketches/ are examples)"
        ));
    };
    if job.emit != "rise" && job.emit != "c" {
        return fail(&format!(
            "error: `--emit {}`: expected `rise` or `c`",
            job.emit
        ));
    }
    let emit_c = job.emit == "c" || job.output.as_deref().is_some_and(|o| o.ends_with(".c"));
    if job.size.is_some() && !emit_c {
        return fail("error: `--size` compiles sizes into C: use it with `--emit c` or `-o OUT.c`");
    }
    let started = std::time::Instant::now();
    let options = risec::sketch::guided::SearchOptions {
        total_time: job.time,
    };
    let quiet = job.quiet;
    let mut progress = |p: &risec::sketch::guided::Progress| {
        if !quiet {
            eprintln!(
                "[{}/{}] step {}: iteration {}, {} e-nodes, {:.1} ms",
                p.index.0,
                p.index.1,
                p.step,
                p.iteration.iteration,
                p.iteration.nodes,
                p.elapsed.as_secs_f64() * 1e3
            );
        }
    };
    let result = optimize(
        program,
        sketch,
        job.entry.as_deref(),
        &options,
        &mut progress,
    );
    let total = started.elapsed();
    let total_ms = total.as_secs_f64() * 1e3;
    let write_stats = |steps: &[SearchStats], facts: &[String]| {
        if let Some(path) = &job.stats {
            let input = RunInput::Sketch {
                program: program.to_string(),
                sketch: sketch.to_string(),
            };
            let stats = RunStats::new(input, steps.to_vec(), facts.to_vec(), total);
            let text = risec::eqsat::stats::to_json(&stats);
            if let Err(e) = risec::eqsat::stats::write_atomically(std::path::Path::new(path), &text)
            {
                eprintln!("{e}");
                return false;
            }
        }
        true
    };
    match result {
        Ok(done) => {
            if !quiet {
                for s in &done.steps {
                    eprintln!("{}", s.step_line());
                }
                eprintln!(
                    "total {:.1} ms; the result relies on: {}",
                    total_ms,
                    if done.facts.is_empty() {
                        "no divisibility facts".to_string()
                    } else {
                        done.facts.join(", ")
                    }
                );
            }
            if !write_stats(&done.steps, &done.facts) {
                return ExitCode::from(1);
            }
            if emit_c {
                let out = job.output.as_deref().map(std::path::Path::new);
                let size = job.size.as_deref();
                return match risec::backend_c::files::compile_to_files(&done.program, out, size) {
                    Ok((_, text)) => {
                        if out.is_none() {
                            print!("{text}");
                        } else if !quiet {
                            eprint!("{text}");
                        }
                        ExitCode::SUCCESS
                    }
                    Err(e) => fail(&e),
                };
            }
            match &job.output {
                Some(path) => {
                    match risec::eqsat::stats::write_atomically(
                        std::path::Path::new(path),
                        &done.source,
                    ) {
                        Ok(()) => ExitCode::SUCCESS,
                        Err(e) => fail(&e),
                    }
                }
                None => {
                    print!("{}", done.source);
                    ExitCode::SUCCESS
                }
            }
        }
        Err(OptimizeError::NotFound(nf)) => {
            write_stats(&nf.steps, &[]);
            eprint!("{}", nf.message());
            ExitCode::from(2)
        }
        Err(e) => fail(&e.to_string()),
    }
}
