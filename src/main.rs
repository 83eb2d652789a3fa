//! The `risec` command line. See `risec --help` and README.md.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
    let result = match command {
        Command::Check { file, entry } => risec::cli::check(&file, entry.as_deref()),
        Command::Eval {
            file,
            size,
            seed,
            entry,
        } => risec::cli::eval(&file, &size, seed, entry.as_deref()),
        Command::Print { file, entry } => risec::cli::print(&file, entry.as_deref()),
    };
    match result {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprint!("{}", err.trim_end_matches('\n'));
            eprintln!();
            ExitCode::from(1)
        }
    }
}
