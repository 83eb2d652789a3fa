//! `codegen/generated/` holds the C that the main job generates for the seven TVM matmul versions
//! and the register-blocked one (`risec examples/matmul.rise --sketch sketches/matmul/X.sk`; the
//! naive kernel is the baseline sketch's), the kernels of `cargo bench --bench matmul`. This test fails when they are stale;
//! run it with `RISEC_REGENERATE=1` to rewrite them.

use risec_backend::{emit_c, CodegenOptions};
use risec_bench::kernel_function;
use std::path::PathBuf;

const VERSIONS: [&str; 8] = [
    "naive",
    "blocking",
    "vectorization",
    "loop-perm",
    "array-packing",
    "cache-blocks",
    "parallel",
    "register-blocking",
];

#[test]
fn generated_kernels_are_up_to_date() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let regenerate = std::env::var_os("RISEC_REGENERATE").is_some();
    let mut stale = Vec::new();
    for v in VERSIONS {
        let sketch = if v == "naive" { "baseline" } else { v };
        let sketch = root.join(format!("sketches/matmul/{sketch}.sk"));
        let program = root.join("examples/matmul.rise");
        let program = risec_cli::versions::sketch_version(
            program.to_str().unwrap(),
            sketch.to_str().unwrap(),
        )
        .unwrap()
        .program;
        let function = kernel_function(v);
        let options = CodegenOptions {
            sizes: None,
            header_name: format!("{function}.h"),
            function_name: Some(function.clone()),
            exact_sizes: false,
            wide_scalars: false,
        };
        let c = emit_c(&program, &options).unwrap();
        for (ext, text) in [("c", &c.source), ("h", &c.header)] {
            let path = root.join(format!("codegen/generated/{function}.{ext}"));
            if regenerate {
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, text).unwrap();
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                stale.push(path.display().to_string());
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated kernels (regenerate with `RISEC_REGENERATE=1 cargo test --release --test suite generated::`):\n{}",
        stale.join("\n")
    );
}
