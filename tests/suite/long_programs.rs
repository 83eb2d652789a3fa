//! Long programs through C generation (issue 19): `risec emit-c` on a 100,000-term sum, and the
//! main job on a `map` whose body has 8,000 terms and on a chain of 1,000 maps, give C that gcc
//! compiles without warnings and that computes the program's values. How the time grows with
//! the size is measured by `benches/codegen.rs`, not here.

use crate::common::{risec, stderr, temp_file};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles `kernel.c` (with its header beside it) and a `main` (`driver`) at -O0 (a C compiler's
/// optimiser recurses over a 100,000-long chain of additions), runs it and returns its output.
fn compile_and_run(kernel: &Path, driver: &str) -> String {
    let dir = kernel.parent().unwrap().to_path_buf();
    let main = dir.join("main.c");
    std::fs::write(&main, driver).unwrap();
    let exe = dir.join("prog");
    risec_bench::compile::compile_executable(
        &[kernel.to_path_buf(), main],
        std::slice::from_ref(&dir),
        &exe,
        &["-O0", "-Wall", "-Wextra", "-Werror"],
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(&exe).output().unwrap();
    assert!(out.status.success(), "exit {:?}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

/// A fresh directory in the target directory for one test's files.
fn work_dir(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("long-programs-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_100000_term_sum_compiles_to_c_that_computes_it() {
    let sum = format!("def sum (x : f32) : f32 = x{}\n", " + x".repeat(99_999));
    let program = temp_file("long-sum100k.rise", sum.as_bytes());
    let c = work_dir("sum").join("sum.c");
    let out = risec(&[
        "emit-c",
        program.to_str().unwrap(),
        "-o",
        c.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let source = std::fs::read_to_string(&c).unwrap();
    // No statement nests deeper than the backend's bound: the sum is computed in parts.
    assert!(source.contains("float part = "), "no parts");
    assert!(!source.contains(&"(".repeat(200)));
    let printed = compile_and_run(
        &c,
        "#include <stdio.h>\n#include \"sum.h\"\n\
         int main(void) { float out; if (sum(&out, 0.5f)) return 9; printf(\"%.1f\\n\", out); return 0; }\n",
    );
    // Sums of halves are exact in f32 up to 2^23.
    assert_eq!(printed.trim(), "50000.0");
}

/// Runs the main job on `text` with a sketch that asks for the program's own `map`, writing C
/// into a directory of the target directory; returns the path of the `.c` file.
fn main_job_to_c(tag: &str, text: &str) -> PathBuf {
    let program = temp_file(&format!("long-{tag}.rise"), text.as_bytes());
    let sketch = temp_file(
        &format!("long-{tag}.sk"),
        b"step s {\n  sketch = contains(map ?)\n}\n",
    );
    let c = work_dir(tag).join("f.c");
    let out = risec(&[
        program.to_str().unwrap(),
        "--sketch",
        sketch.to_str().unwrap(),
        "-q",
        "-o",
        c.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    c
}

/// A `main` that calls `f(3, out, {0.5, 1, 2})` and prints the three results.
const MAP_DRIVER: &str = "#include <stdio.h>\n#include \"f.h\"\n\
    int main(void) { const float xs[3] = {0.5f, 1.0f, 2.0f}; float out[3];\n\
    if (f(3, out, xs)) return 9;\n\
    for (int i = 0; i < 3; i++) printf(\"%.1f\\n\", out[i]);\n\
    return 0; }\n";

#[test]
fn a_map_body_of_8000_terms_goes_through_the_main_job_to_c() {
    let text = format!(
        "def f {{n : nat}} (xs : n.f32) : n.f32 = xs |> map (fun x => x{})\n",
        " + x".repeat(7999)
    );
    let printed = compile_and_run(&main_job_to_c("map8000", &text), MAP_DRIVER);
    assert_eq!(printed, "4000.0\n8000.0\n16000.0\n");
}

#[test]
fn a_chain_of_1000_maps_goes_through_the_main_job_to_c() {
    let text = format!(
        "def f {{n : nat}} (xs : n.f32) : n.f32 = xs{}\n",
        " |> map (fun a => a + 1.0)".repeat(1000)
    );
    let c = main_job_to_c("chain1000", &text);
    // The maps are fused into one loop.
    assert_eq!(
        std::fs::read_to_string(&c)
            .unwrap()
            .matches("for (")
            .count(),
        1
    );
    let printed = compile_and_run(&c, MAP_DRIVER);
    assert_eq!(printed, "1000.5\n1001.0\n1002.0\n");
}
