//! The `risec` command line: its arguments (`args`), the main job (`compile`), and one file
//! per subcommand: options, usage errors, progress lines and exit statuses live here (the stages
//! format their own reports, such as a failed step's message); the subcommands are also functions
//! returning their output text (errors fully rendered), public so that tests can run them
//! without spawning processes.
//!
//! Exit status: 0 on success, 1 on any error (usage errors included), 2 when a sketch or
//! `risec prove`'s goal was not reached, and 128 + the signal's number (130, 143) when SIGINT,
//! SIGTERM or SIGHUP stopped risec (its temporary files removed, `support::cleanup`).

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec::pipeline;
#[allow(unused_imports)]
use risec::*;
#[allow(unused_imports)]
use risec_backend::{self as backend_c, lowlevel};
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_eqsat as eqsat;
#[allow(unused_imports)]
use risec_frontend as frontend;
#[allow(unused_imports)]
use risec_sketch as sketch;

mod args;
pub mod bench;
mod check;
mod compile;
mod emit_c;
mod eval;
pub mod graph;
pub mod la;
mod la_python;
mod print;
mod prove;
mod rules;
pub mod tune;
pub mod verify;
pub mod versions;

pub use self::{
    bench::{bench, BenchArgs},
    check::check,
    emit_c::emit_c,
    eval::{eval, EvalOptions, OutputFormat},
    print::print,
    prove::{prove, ProveOutput},
    rules::{costs, rules},
    tune::{tune, TuneArgs},
    verify::{verify, VerifyArgs},
};

use crate::eqsat::limits::Limits;
use crate::eqsat::prove::ProveOptions;
use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;

/// The `risec` binary: parses the arguments and runs the main job or a subcommand on a worker
/// thread with a large stack; returns the exit status.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors are errors (status 1,
            // so that 2 keeps meaning "goal not found").
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    // A signal removes the temporary files and folders of the run before risec exits.
    crate::support::cleanup::install();
    // Compiler passes recurse over terms; run them on a thread with a generous stack so that
    // deep (but accepted) programs never overflow the main thread's default stack.
    let worker = std::thread::Builder::new()
        .name("risec".into())
        .stack_size(256 << 20)
        .spawn(move || match cli.command {
            Some(command) => run(command),
            None => compile::main_job(cli.main),
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: internal compiler error (the worker thread failed)");
            ExitCode::from(101)
        }
    }
}

/// Runs a subcommand: its output on standard output, its error on standard error.
fn run(command: Command) -> ExitCode {
    let ok = |out: String| (out, ExitCode::SUCCESS);
    let result = match command {
        Command::Check { file, entry } => check(&file, entry.as_deref()).map(ok),
        Command::Eval {
            file,
            size,
            seed,
            entry,
            inputs,
            output,
            memory,
        } => {
            let options = EvalOptions {
                sizes: size,
                seed,
                entry,
                inputs,
                output,
                memory: memory.unwrap_or_else(crate::support::memory::default_limit),
            };
            eval(&file, &options).map(ok)
        }
        Command::Print { file, entry } => print(&file, entry.as_deref()).map(ok),
        Command::Rules => Ok(ok(rules())),
        Command::Costs => Ok(ok(costs())),
        Command::Bench(args) => bench(&args).map(ok),
        Command::Verify(args) => verify(&args).map(ok),
        Command::Tune(args) => tune(&args).map(ok),
        Command::Graph(args) => graph::run(&args).map(|out| {
            eprint!("{}", out.stderr);
            (out.stdout, ExitCode::SUCCESS)
        }),
        Command::La(args) => la::la(&args).map(|out| {
            eprint!("{}", out.stderr);
            (out.stdout, ExitCode::from(out.code))
        }),
        Command::EmitC {
            file,
            output,
            size,
            entry,
            exact_sizes,
        } => emit_c(
            &file,
            output.as_deref(),
            size.as_deref(),
            entry.as_deref(),
            exact_sizes,
        )
        .map(ok),
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
            scheduler,
            seed,
            explain,
        } => {
            let options = ProveOptions {
                rules,
                normalize: !no_normalize,
                limits: Limits {
                    time,
                    nodes,
                    iterations,
                    memory: memory.unwrap_or_else(crate::support::memory::default_limit),
                    ..Limits::default()
                },
                entry,
                goal_entry,
                assume: !no_assume,
                strategy: crate::eqsat::schedule::Strategy { scheduler, seed },
                explain,
            };
            prove(&start, &goal, &options, stats.as_deref()).map(|out| {
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

/// Prints the C backend's warnings about slow code to standard error, `warning: …` each.
fn print_codegen_warnings(warnings: &[String]) {
    for w in warnings {
        eprint!(
            "{}",
            crate::diagnostics::render_unplaced(crate::diagnostics::Severity::Warning, w, &[])
        );
    }
}
