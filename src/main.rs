//! The `risec` binary; see `risec --help`, README.md and [`risec::cli`].

fn main() -> std::process::ExitCode {
    risec::cli::main()
}
