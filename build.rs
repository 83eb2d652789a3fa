//! Compiles the kernels of the criterion benchmark `benches/matmul.rs`: the generated versions in
//! `codegen/generated/` and the hand-written baselines in `codegen/baselines/`.

fn main() {
    compile_bench_kernels();
}

/// Builds `librisec_bench_kernels.a` for `benches/matmul.rs` (only the bench links its symbols).
fn compile_bench_kernels() {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["codegen/generated", "codegen/baselines"] {
        println!("cargo:rerun-if-changed={dir}");
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            println!("cargo:rerun-if-changed={}", p.display());
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".c") && name != "openblas.c" {
                files.push(p);
            }
        }
    }
    if files.is_empty() {
        return;
    }
    files.sort();
    cc::Build::new()
        .files(&files)
        .include("codegen/baselines")
        .include("codegen/generated")
        .opt_level(3)
        .flag("-march=native")
        .flag("-fopenmp")
        .warnings(false)
        .compile("risec_bench_kernels");
    println!("cargo:rustc-link-lib=gomp");
}
