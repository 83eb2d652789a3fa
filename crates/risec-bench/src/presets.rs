//! Presets: programs the harness knows more about than their type. The matrix multiplication
//! (`def matmul {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32`) comes with a default
//! size and the hand-written C of the naive loop and of TVM's seven schedule steps
//! (`codegen/baselines/`), which run as baselines named `NAME (C)`: each the twin of the
//! version `NAME`, its ratio the `x twin` column of the report. Everything else about a matrix
//! multiplication's benchmark is the one harness every program gets.

use crate::core::TypedProgram;
use crate::diagnostics::SourceFile;
use crate::kernels::UserBaseline;
use crate::BenchError;
use std::path::{Path, PathBuf};

/// The matrix-multiplication type the preset applies to, as source text.
pub const MATMUL_TYPE: &str =
    "(m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 -> k.n.f32 -> m.n.f32";

/// The naive matrix multiplication, the program of `risec bench --version …` given without
/// one (the same as `examples/matmul.rise`).
pub const MATMUL_SOURCE: &str = "def matmul {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32 =
  a |> map (fun arow =>
    transpose b |> map (fun bcol =>
      zip arow bcol |> map (fun p => fst p * snd p) |> reduce (+) 0.0))
";

/// The matrix multiplication's size when none is given.
pub const MATMUL_DEFAULT_SIZE: &str = "m=1024,n=1024,k=1024";

/// The name of the OpenBLAS baseline in `--baselines` lists.
pub const OPENBLAS: &str = "openblas";

/// The directory of the hand-written baselines: `codegen/baselines` of the repository this
/// crate was built in (two levels above the crate's own folder, `crates/risec-bench`).
pub fn baselines_dir() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = crate_dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(crate_dir);
    root.join("codegen/baselines")
}

/// The seven versions of the TVM GEMM schedule, in order: the sketch files
/// `sketches/matmul/VERSION.sk` (for the crate's tests, benches and examples).
pub const TVM_VERSIONS: [&str; 7] = [
    "baseline",
    "blocking",
    "vectorization",
    "loop-perm",
    "array-packing",
    "cache-blocks",
    "parallel",
];

/// The hand-written baselines: (display name, C function, source file).
pub const BASELINES: [(&str, &str, &str); 7] = [
    ("naive", "baseline_naive", "naive.c"),
    ("blocking", "baseline_blocking", "blocking.c"),
    ("vectorization", "baseline_vectorization", "vectorization.c"),
    ("loop-perm", "baseline_loop_perm", "loop_perm.c"),
    ("array-packing", "baseline_array_packing", "array_packing.c"),
    ("cache-blocks", "baseline_cache_blocks", "cache_blocks.c"),
    ("parallel", "baseline_parallel", "parallel.c"),
];

/// Whether `program` is a matrix multiplication the preset applies to.
pub fn is_matmul(program: &TypedProgram) -> bool {
    program.size_params == ["m", "n", "k"]
        && crate::core::print::program_type_to_source(program) == MATMUL_TYPE
}

/// [`MATMUL_SOURCE`], typed.
pub fn matmul_program() -> Result<TypedProgram, BenchError> {
    let file = SourceFile::new("matmul.rise", MATMUL_SOURCE);
    crate::frontend::load::compile_source(&file, None).map_err(|e| BenchError::Generic {
        reason: format!("the built-in matrix multiplication: {}", e.render()),
    })
}

/// The names `--baselines` takes for a matrix multiplication: the TVM steps' and OpenBLAS.
pub fn baseline_names() -> Vec<&'static str> {
    BASELINES.iter().map(|b| b.0).chain([OPENBLAS]).collect()
}

/// The hand-written baselines named in `names` (names of [`BASELINES`]), as C functions the
/// harness links beside the versions, each named `NAME (C)`.
pub fn tvm_baselines(names: &[String]) -> Vec<UserBaseline> {
    let dir = baselines_dir();
    BASELINES
        .iter()
        .filter(|(name, _, _)| names.iter().any(|n| n == name))
        .map(|(name, function, file)| UserBaseline {
            name: format!("{name} (C)"),
            file: dir.join(file),
            function: function.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_program_is_a_matrix_multiplication() {
        let p = matmul_program().unwrap();
        assert!(is_matmul(&p));
    }

    #[test]
    fn every_baseline_file_exists() {
        let all: Vec<String> = BASELINES.iter().map(|b| b.0.to_string()).collect();
        let found = tvm_baselines(&all);
        assert_eq!(found.len(), BASELINES.len());
        for b in found {
            assert!(b.file.is_file(), "{}", b.file.display());
            assert!(b.name.ends_with(" (C)"));
        }
    }
}
