//! The command line's arguments (clap): the main job's options and one variant per
//! subcommand, with the help texts users read.

use super::eval::OutputFormat;
use crate::eqsat::limits::Limits;
use crate::eqsat::schedule::Scheduler;
use crate::support::units::{parse_duration, parse_size};
use clap::{Parser, Subcommand};
use std::time::Duration;

/// The value of `--rounds` (`risec bench`, `risec la --bench`): a whole number of at least 1
/// (no timed round would give no time, and no speed-up).
pub(super) fn parse_rounds<T: std::str::FromStr + From<u8> + PartialEq>(
    text: &str,
) -> Result<T, String> {
    match text.trim().parse::<T>() {
        Ok(n) if n != T::from(0) => Ok(n),
        Ok(_) => Err("at least 1 timed round is needed (no round would give no time)".into()),
        Err(_) => Err(format!("`{text}` is not a whole number of rounds")),
    }
}

/// A `--param NAME=VALUE` of a sketch parameter (`param NAME = … in [ … ]` in the file).
pub(super) fn parse_param(text: &str) -> Result<(String, u64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("`{text}`: expected NAME=VALUE, as in `MR=8`"))?;
    let value = value
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("`{text}`: the value of a parameter is a whole number"))?;
    Ok((name.trim().to_string(), value))
}

/// What the main job writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Emit {
    /// The optimised program as low-level Rise source.
    Rise,
    /// C with OpenMP and vector extensions, and its header.
    C,
}

/// What `risec --help` says after the commands: what works today, where the language is
/// described, and the exit statuses.
const AFTER_HELP: &str = "\
The main job, `risec PROGRAM.rise --sketch FILE.sk`, finds a program equivalent to PROGRAM of \
the shape the sketch describes (sketch-guided equality saturation) and prints it as low-level \
Rise, or as C with OpenMP and vectors (`-o OUT.c` or `--emit c`, with a header). The commands \
type-check programs (check, print), run them in the reference interpreter (eval), search for \
equivalent programs (rules, costs, prove), compile low-level programs to C (emit-c), check the C \
of any program's versions against the interpreter (verify) and time it beside the naive \
lowering, a memcpy of the same bytes, OpenBLAS and your C (bench), \
choose a sketch's parameters for the machine and shape by measurement (tune), and optimise \
linear-algebra expressions (la) and tensor graphs of neural networks (graph).

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
pub(super) struct Cli {
    #[command(subcommand)]
    pub(super) command: Option<Command>,
    #[command(flatten)]
    pub(super) main: MainJob,
}

/// The arguments of the main job (no subcommand).
#[derive(clap::Args, Debug)]
pub(super) struct MainJob {
    /// The program (`.rise`).
    pub(super) program: Option<String>,
    /// The sketch file (`.sk`) whose guide steps to run.
    #[arg(long, value_name = "FILE.sk")]
    pub(super) sketch: Option<String>,
    /// What to produce: the optimised program as Rise source, or C.
    #[arg(long, value_enum, default_value_t = Emit::Rise)]
    pub(super) emit: Emit,
    /// Write the output here instead of standard output (nothing is written on failure).
    #[arg(short, long, value_name = "FILE")]
    pub(super) output: Option<String>,
    /// Write per-step statistics as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub(super) stats: Option<String>,
    /// No progress lines or summary on standard error.
    #[arg(short, long)]
    pub(super) quiet: bool,
    /// Time budget of the whole run (loading the sketch, every step, lowering, C), e.g. `60s`.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    pub(super) time: Duration,
    /// Limit on the process's resident memory for the whole run, e.g. `2GiB` [default: 4 GiB,
    /// or less where the process may not allocate that much (`ulimit -v`, cgroup)].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub(super) memory: Option<u64>,
    /// Limit on every step's e-nodes (a step's own `limits` may set a lower one).
    #[arg(long, value_name = "N")]
    pub(super) nodes: Option<usize>,
    /// The rule scheduler of the steps that do not name one (`scheduler = …` in the step):
    /// `simple` (every match, every iteration), `backoff`, `backoff(LIMIT, BAN)`, `sample(K)`
    /// (at most K matches per rule and iteration) or `mcts(BUDGET, DEPTH)` (Monte Carlo tree
    /// search); see docs/sketches.md.
    #[arg(long, value_name = "SCHEDULER", default_value = "simple")]
    pub(super) scheduler: Scheduler,
    /// Seed of the random choices of `sample` and `mcts`: the same seed gives the same result.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(super) seed: u64,
    /// Write, per step, the rewrites from its start to its result (the rule and the subterm
    /// it rewrote, as Rise) to this file.
    #[arg(long, value_name = "FILE")]
    pub(super) explain: Option<String>,
    /// The definition to use as entry point (default: the last one).
    #[arg(long)]
    pub(super) entry: Option<String>,
    /// With `--emit c`: compile these sizes in, e.g. `m=1024,n=1024,k=1024`.
    #[arg(long)]
    pub(super) size: Option<String>,
    /// With `--emit c`: the kernel alone, which returns 1 for sizes its tiles do not divide
    /// (by default such sizes are rounded up: the inputs are copied, zero-padded).
    #[arg(long)]
    pub(super) exact_sizes: bool,
    /// Do not check the sketch file's user rule NAME against the reference interpreter when
    /// the file is loaded (for a rule the interpreter cannot run quickly; a warning says so).
    /// Repeatable.
    #[arg(long = "trust-rule", value_name = "NAME")]
    pub(super) trust_rule: Vec<String>,
    /// Set the sketch's tunable parameter NAME (`param NAME = … in [ … ]`) to VALUE, e.g.
    /// `--param MR=8,NR=32` (repeatable; the others keep their defaults).
    #[arg(long = "param", value_name = "NAME=VALUE", value_delimiter = ',', value_parser = parse_param)]
    pub(super) param: Vec<(String, u64)>,
    /// Use the parameters of the best record in this tuning file (`risec tune`) for this
    /// machine, program, sketch and `--size` (the nearest shape where none matches; `--param`
    /// still overrides).
    #[arg(long, value_name = "FILE.json")]
    pub(super) tuning: Option<String>,
}

#[derive(Subcommand, Debug)]
pub(super) enum Command {
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
        #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
        output: OutputFormat,
        /// Memory budget of the interpreter, e.g. `4GiB`, `512MiB` [default: 4 GiB, or less
        /// where the process may not allocate that much (`ulimit -v`, cgroup)].
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        memory: Option<u64>,
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
        /// Return 1 for sizes that violate a divisibility fact of the program instead of
        /// rounding them up (where the program allows it: zero-padded copies of the inputs).
        #[arg(long)]
        exact_sizes: bool,
    },
    /// Benchmark versions of a program: compile (cc), verify, time, print a table.
    ///
    /// Every version checked against the reference interpreter at a small size, then against
    /// the naive lowering and timed at `--size`, beside a memcpy of the same bytes (GFLOP/s
    /// where the program has floating-point arithmetic, GB/s), OpenBLAS where the program is a
    /// BLAS operation, and `--baseline` C functions. A matrix multiplication (`def matmul
    /// {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32`, the default program with
    /// `--version` alone) also runs the hand-written C of TVM's schedule steps, at 1024³ unless
    /// `--size` says otherwise.
    Bench(super::bench::BenchArgs),
    /// Check versions of a program against the reference interpreter (and the naive lowering).
    ///
    /// Every version (the naive lowering, one per sketch file, low-level files, `--baseline` C
    /// functions) runs as C on seeded inputs at a small size and its result is compared with
    /// the interpreter's; with `--size`, also with the naive lowering's C at that size. Exits
    /// with 1 when a result differs.
    Verify(super::verify::VerifyArgs),
    /// Choose a sketch's parameters for this machine and shape by measurement.
    ///
    /// The sketch's tunable parameters (`param NAME = DEFAULT in [C, …]`) are searched: batches
    /// of choices within its constraints and budgets, each compiled with the best so far,
    /// checked against the reference interpreter at a small size and against the defaults' C
    /// at the tuned size, and timed; then the best and the defaults once more side by side.
    /// The result is added to a tuning file (`--record`), which the main job and `risec bench`
    /// take with `--tuning FILE`. Several `--sketch` variants with the same parameters are
    /// searched together, each getting its record.
    Tune(super::tune::TuneArgs),
    /// Optimise linear-algebra expressions (`.la`, R/DML style) by relational equality
    /// saturation (SPORES) and prove `assert A == B` lines.
    ///
    /// Prints the optimised plan as `.la` text and `estimated cost: ORIGINAL -> PLAN` (the cost
    /// model's figures), then one line per assertion. Exits with 0 when every assertion is
    /// proven, 2 when one is not, 1 on errors. See docs/la.md.
    La(super::la::LaArgs),
    /// Optimise a tensor computation graph (`.graph`: inputs, weights, operators, outputs) by
    /// equality saturation with TASO-style substitutions, the e-graph built by Monte Carlo tree
    /// search or in TENSAT's order.
    ///
    /// Prints the optimised graph as `.graph` text, and on standard error the rules applied,
    /// the e-graph's size, `estimated cost: ORIGINAL -> OPTIMISED` (the cost model's
    /// microseconds) and the check against the graph as written. `--compare N` prints a table
    /// of both strategies instead. See docs/graphs.md.
    Graph(super::graph::GraphArgs),
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
        /// Limit on the process's resident memory, e.g. `4GiB`, `512MiB` [default: 4 GiB, or
        /// less where the process may not allocate that much (`ulimit -v`, cgroup)].
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        memory: Option<u64>,
        /// Do not let rules assume divisibility facts (`32 divides n`) they cannot prove.
        #[arg(long)]
        no_assume: bool,
        /// The rule scheduler: `simple`, `backoff`, `backoff(LIMIT, BAN)`, `sample(K)` or
        /// `mcts(BUDGET, DEPTH)`; see docs/sketches.md.
        #[arg(long, value_name = "SCHEDULER", default_value = "simple")]
        scheduler: Scheduler,
        /// Seed of the random choices of `sample` and `mcts`.
        #[arg(long, value_name = "N", default_value_t = 0)]
        seed: u64,
        /// Print the rewrites from the start to the goal (the rule and the subterm it rewrote,
        /// as Rise) when the goal is found.
        #[arg(long)]
        explain: bool,
        /// The start file's entry point (default: its last definition).
        #[arg(long)]
        entry: Option<String>,
        /// The goal file's entry point (default: its last definition).
        #[arg(long)]
        goal_entry: Option<String>,
    },
}
