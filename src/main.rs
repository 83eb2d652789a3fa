//! The `risec` command line. See `risec --help` and README.md.
//!
//! Exit status: 0 on success, 1 on any error (usage errors included), and 2 when `risec prove`
//! did not find its goal.

use clap::{Parser, Subcommand};
use risec::prove::{parse_duration, parse_size, ProveOptions};
use risec::runner::Limits;
use std::process::ExitCode;
use std::time::Duration;

/// risec: a compiler for the Rise functional array language.
#[derive(Parser, Debug)]
#[command(name = "risec", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
    /// Run the reference interpreter on seeded random inputs; print inputs and result.
    Eval {
        /// The `.rise` file.
        file: String,
        /// Sizes for the entry point's size parameters, e.g. `m=4,n=3,k=2`.
        #[arg(long, default_value = "")]
        size: String,
        /// Seed of the random inputs.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The definition to use as entry point (default: the last one).
        #[arg(long)]
        entry: Option<String>,
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
        /// Timed rounds per thread count (kernels interleaved; the median is reported).
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
        #[arg(long)]
        no_baselines: bool,
    },
    /// List the rewrite rules: name with size parameters, description and shape.
    Rules,
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
        .spawn(move || run(cli.command));
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
        } => risec::cli::eval(&file, &size, seed, entry.as_deref()).map(ok),
        Command::Print { file, entry } => risec::cli::print(&file, entry.as_deref()).map(ok),
        Command::Rules => Ok(ok(risec::cli::rules())),
        Command::Bench {
            versions,
            size,
            threads,
            rounds,
            plot,
            csv,
            keep,
            no_baselines,
        } => risec::bench::cli::bench(&risec::bench::cli::BenchArgs {
            versions,
            size,
            threads,
            rounds,
            plot,
            csv,
            keep,
            baselines: !no_baselines,
        })
        .map(ok),
        Command::EmitC {
            file,
            output,
            size,
            entry,
        } => risec::driver::compile_file(&file, entry.as_deref()).and_then(|p| {
            risec::codegen::driver::compile_to_files(
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
