//! Compiles naive matrix multiplication with a sketch file through the library API and writes
//! the C: what `risec examples/matmul.rise --sketch sketches/matmul/blocking.sk -o mm.c` does.
//!
//! ```sh
//! cargo run --release --example compile_matmul -- sketches/matmul/parallel.sk mm.c
//! ```
//! Both arguments are optional (default: `sketches/matmul/blocking.sk`, and the C printed on
//! standard output).

use risec::{emit_c, load_program, load_sketch, optimize, CProgram, CodegenOptions, SearchOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let sketch = args
        .next()
        .unwrap_or_else(|| "sketches/matmul/blocking.sk".to_string());
    let output = args.next().map(PathBuf::from);
    let header = output
        .as_ref()
        .map_or("matmul.h".into(), |o| header_name(o));
    let c = match compile(&sketch, &header) {
        Ok(c) => c,
        Err(e) => {
            // `Display` is the message risec prints; a caller can also match on the variant.
            eprintln!("{e}");
            let not_found = matches!(e, risec::Error::NotFound(_));
            return ExitCode::from(if not_found { 2 } else { 1 });
        }
    };
    match output {
        None => print!("{}", c.source),
        Some(path) => {
            let written = std::fs::write(&path, &c.source)
                .and_then(|()| std::fs::write(path.with_extension("h"), &c.header));
            if let Err(e) = written {
                eprintln!("error: cannot write `{}`: {e}", path.display());
                return ExitCode::from(1);
            }
            eprintln!("wrote {} and its header: {};", path.display(), c.signature);
        }
    }
    ExitCode::SUCCESS
}

/// Loads the program and the sketch, runs the guide steps, lowers, and generates C.
fn compile(sketch: &str, header: &str) -> Result<CProgram, risec::Error> {
    let program = load_program("examples/matmul.rise", None)?;
    let steps = load_sketch(sketch, &program)?;
    let optimized = optimize(&program, &steps, &SearchOptions::default())?;
    eprintln!("the result relies on: {}", optimized.facts.join(", "));
    emit_c(&optimized.program, &CodegenOptions::new(header))
}

/// `dir/mm.c` → `mm.h`, the name the source `#include`s.
fn header_name(output: &Path) -> String {
    output
        .with_extension("h")
        .file_name()
        .map_or("matmul.h".into(), |n| n.to_string_lossy().into_owned())
}
