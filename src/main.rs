//! The `risec` binary; see `risec --help`, README.md and [`risec_cli`].

fn main() -> std::process::ExitCode {
    risec_cli::main()
}
