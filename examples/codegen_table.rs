//! How lowering and C generation time grow with program size (issue 19): for each generated
//! shape and size, the seconds spent in the front end, in lowering (`lowlevel::lower`), in
//! printing the lowered program as Rise (what the main job prints), and in C generation.
//!
//! ```sh
//! cargo run --release --example codegen_table                  # every shape, 1,000 to 100,000
//! cargo run --release --example codegen_table -- map-body 8000  # one shape, chosen sizes
//! ```

#[path = "../benches/common/scaling.rs"]
mod scaling;

use risec_backend::lowlevel::lower;
use risec_backend::{emit_c, CodegenOptions};
use risec_core::core::print::program_to_source;
use risec_core::diagnostics::SourceFile;
use risec_frontend::load::compile_source;
use std::time::Instant;

fn row(shape: &str, generate: scaling::Generator, n: usize) {
    let file = SourceFile::new("scaling.rise", generate(n));
    let start = Instant::now();
    let program = compile_source(&file, None).expect("the generated program checks");
    let front = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let lowered = lower(&program);
    let lowering = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let _text = program_to_source(&lowered);
    let printing = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let c = emit_c(&lowered, &CodegenOptions::new("scaling.h")).expect("C is generated");
    let codegen = start.elapsed().as_secs_f64();
    println!(
        "{shape:<12} {n:>8} {front:>9.3} {lowering:>9.3} {printing:>9.3} {codegen:>9.3} {:>10}",
        c.source.len()
    );
}

fn run() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes: Vec<usize> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    println!(
        "{:<12} {:>8} {:>9} {:>9} {:>9} {:>9} {:>10}",
        "shape", "terms", "front s", "lower s", "print s", "C s", "C bytes"
    );
    for (shape, generate) in scaling::SHAPES {
        if args.first().is_some_and(|a| a != shape) {
            continue;
        }
        let default: &[usize] = if shape == "map-chain" {
            &[250, 500, 1000, 2000]
        } else {
            &[1000, 8000, 20_000, 100_000]
        };
        for &n in if sizes.is_empty() { default } else { &sizes } {
            row(shape, generate, n);
        }
    }
}

fn main() {
    // The passes recurse over the term: the stack the `risec` binary gives its compiler thread.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(run)
        .expect("a thread")
        .join()
        .expect("the table is printed");
}
