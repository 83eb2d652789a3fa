//! `risec bench`: matrix-multiplication versions compiled to C, built with the C compiler `cc`
//! finds, verified against the naive C baseline and timed next to the hand-written baselines
//! (the naive loop, the seven TVM schedule steps, OpenBLAS when installed).
//!
//! A version is just a name and a [`TypedProgram`] of the shape
//! `def NAME {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32`: read from a low-level file
//! (`risec bench --version NAME=FILE.rise`) or produced by the pipeline from a sketch file
//! (`--sketch FILE.sk`).

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec::{optimize, Error};
#[allow(unused_imports)]
use risec_backend::{self as backend_c, lowlevel};
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_frontend as frontend;

pub mod generic;
pub mod harness;
pub mod process;
pub mod report;

use crate::backend_c::{emit_c, CodegenError, CodegenOptions};
use crate::core::TypedProgram;
use crate::support::output::WriteError;
use harness::{Kernel, BASELINES, REL_ERROR_BOUND};
use std::path::{Path, PathBuf};

/// The matrix-multiplication type every version must have, as source text.
pub const MATMUL_TYPE: &str =
    "(m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 -> k.n.f32 -> m.n.f32";

/// Why a benchmark could not be built, run or drawn. `Display` gives the message `risec bench`
/// prints.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A version's parameters are not those of a matrix multiplication.
    #[error(
        "error: version `{version}`: benchmarks need `def {program} {{m n k : nat}} (a : m.k.f32) \
         (b : k.n.f32) : m.n.f32`, found size parameters ({}) and {value_params} value parameters",
        size_params.join(", ")
    )]
    Parameters {
        /// The version's name.
        version: String,
        /// Its program's entry point.
        program: String,
        /// The program's size parameters.
        size_params: Vec<String>,
        /// How many value parameters it has.
        value_params: usize,
    },
    /// A version's type is not [`MATMUL_TYPE`].
    #[error("error: version `{version}` has type {found}; benchmarks need {MATMUL_TYPE}")]
    Type {
        /// The version's name.
        version: String,
        /// Its type, as source text.
        found: String,
    },
    /// Two versions have the same kernel function.
    #[error("error: two versions are named `{name}`")]
    DuplicateVersion {
        /// The second version's name.
        name: String,
    },
    /// The C backend cannot compile a version.
    #[error("error: version `{version}`: {source}")]
    Codegen {
        /// The version's name.
        version: String,
        /// Why.
        source: CodegenError,
    },
    /// The work directory could not be created.
    #[error("error: cannot create `{}`: {source}", path.display())]
    CreateDir {
        /// The directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// No temporary work directory could be made.
    #[error("error: no temporary directory: {0}")]
    TempDir(#[source] std::io::Error),
    /// A generated file could not be written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// `cc` found no C compiler.
    #[error("error: no C compiler found: {0}")]
    NoCompiler(#[source] cc::Error),
    /// The C compiler could not be started.
    #[error("error: cannot run the C compiler: {0}")]
    CompilerNotRun(#[source] std::io::Error),
    /// The C compiler failed.
    #[error("error: the C compiler failed ({command}):\n{stderr}")]
    CompilerFailed {
        /// The command line.
        command: String,
        /// What the compiler wrote on standard error.
        stderr: String,
    },
    /// The benchmark executable could not be started.
    #[error("error: cannot run the benchmark: {0}")]
    DriverNotRun(#[source] std::io::Error),
    /// The benchmark executable failed.
    #[error("error: the benchmark driver failed: {stdout}")]
    DriverFailed {
        /// What it wrote on standard output.
        stdout: String,
    },
    /// A kernel's result is not the naive baseline's.
    #[error(
        "error: `{kernel}` computes a wrong result: relative error {error:.3e} against the naive \
         C baseline exceeds {REL_ERROR_BOUND:e}"
    )]
    WrongResult {
        /// The kernel's name.
        kernel: String,
        /// Its relative error (NaN when its result is not a number).
        error: f64,
    },
    /// The generic benchmark cannot run the program (its interface, its inputs, the
    /// interpreter's reference), for the reason given.
    #[error("error: {reason}")]
    Generic {
        /// Why.
        reason: String,
    },
    /// The plot could not be drawn or written.
    #[error("error: cannot draw `{}`: {reason}", path.display())]
    Plot {
        /// The SVG file.
        path: PathBuf,
        /// What the plotting library said.
        reason: String,
    },
}

/// The speed-up of a kernel over a baseline, `baseline_ms / kernel_ms`, when both times are
/// positive: a time of zero (below the clock's resolution) gives none rather than an infinite
/// or meaningless ratio.
pub fn speed_up(baseline_ms: f64, kernel_ms: f64) -> Option<f64> {
    let ratio = baseline_ms / kernel_ms;
    (baseline_ms > 0.0 && kernel_ms > 0.0 && ratio.is_finite()).then_some(ratio)
}

/// A version to benchmark: its name and its low-level program.
#[derive(Clone, Debug)]
pub struct Version {
    /// The name in the table (its hand-written twin is the baseline of the same name).
    pub name: String,
    /// The low-level program.
    pub program: TypedProgram,
    /// Compiled with [`CodegenOptions::exact_sizes`]: sizes that violate a divisibility fact
    /// are refused rather than rounded up.
    pub exact_sizes: bool,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// `m`, `n`, `k`.
    pub sizes: [u64; 3],
    /// Thread counts, each a separate run.
    pub threads: Vec<u32>,
    /// Timed rounds (all kernels, interleaved) per thread count.
    pub rounds: u32,
    /// The baselines to run besides the naive one (always run, the reference): names of
    /// [`BASELINES`] and `openblas`.
    pub baselines: Vec<String>,
    /// A directory for the generated C and the executable (a fresh temporary one if `None`).
    pub work_dir: Option<PathBuf>,
}

/// Who wrote a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Generated by risec from a version.
    Generated,
    /// Hand-written C in `codegen/baselines/`.
    Baseline,
    /// OpenBLAS `cblas_sgemm`.
    OpenBlas,
}

/// One row of the results.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// The kernel's name (the version's or the baseline's).
    pub name: String,
    /// Who wrote it.
    pub origin: Origin,
    /// OpenMP threads.
    pub threads: u32,
    /// Median, minimum and maximum time in milliseconds.
    pub median_ms: f64,
    /// Fastest round.
    pub min_ms: f64,
    /// Slowest round.
    pub max_ms: f64,
    /// Relative error against the naive baseline (`max |c - ref| / max |ref|`).
    pub error: f64,
}

impl Measurement {
    /// GFLOP/s at these sizes (2mnk floating-point operations).
    pub fn gflops(&self, sizes: [u64; 3]) -> f64 {
        2.0 * sizes.iter().map(|s| *s as f64).product::<f64>() / (self.median_ms * 1e6)
    }
}

/// The results of a benchmark run.
#[derive(Clone, Debug)]
pub struct BenchReport {
    /// `m`, `n`, `k`.
    pub sizes: [u64; 3],
    /// Every kernel at every thread count.
    pub rows: Vec<Measurement>,
    /// The kernels that refused the sizes (returned non-zero), at each thread count.
    pub refused: Vec<Refusal>,
    /// Whether OpenBLAS was available.
    pub openblas: bool,
}

/// A kernel that returned non-zero for the sizes: it has a row saying so, and no time.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    /// The kernel's name.
    pub name: String,
    /// Who wrote it.
    pub origin: Origin,
    /// OpenMP threads.
    pub threads: u32,
    /// What it returned (1: sizes it does not support, 3: too large for int indices, 2: out
    /// of memory).
    pub code: i32,
}

/// Checks that a version has the matrix-multiplication signature the driver calls.
pub fn check_shape(v: &Version) -> Result<(), BenchError> {
    let p = &v.program;
    if p.size_params != ["m", "n", "k"] || p.value_params.len() != 2 {
        return Err(BenchError::Parameters {
            version: v.name.clone(),
            program: p.name.clone(),
            size_params: p.size_params.clone(),
            value_params: p.value_params.len(),
        });
    }
    let ty = crate::core::print::program_type_to_source(p);
    if ty != MATMUL_TYPE {
        return Err(BenchError::Type {
            version: v.name.clone(),
            found: ty,
        });
    }
    Ok(())
}

/// A C identifier for a version's kernel.
pub fn kernel_function(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("rise_{s}")
}

/// Writes the generated versions and the driver and builds the executable in `dir`, with the
/// hand-written baselines named in `baselines` (names of [`BASELINES`]) and OpenBLAS when
/// `openblas` is set and it is installed; returns the executable and the kernels it runs.
pub fn build(
    versions: &[Version],
    baselines: &[&str],
    openblas: bool,
    dir: &Path,
    extra_flags: &[&str],
) -> Result<(PathBuf, Vec<(Kernel, Origin)>), BenchError> {
    std::fs::create_dir_all(dir).map_err(|source| BenchError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut kernels: Vec<(Kernel, Origin)> = Vec::new();
    let mut sources: Vec<PathBuf> = Vec::new();
    for v in versions {
        check_shape(v)?;
        let function = kernel_function(&v.name);
        if kernels.iter().any(|(k, _)| k.function == function) {
            return Err(BenchError::DuplicateVersion {
                name: v.name.clone(),
            });
        }
        let file = format!("{function}.c");
        let options = CodegenOptions {
            sizes: None,
            header_name: format!("{function}.h"),
            function_name: Some(function.clone()),
            exact_sizes: v.exact_sizes,
            wide_scalars: false,
        };
        let c = emit_c(&v.program, &options).map_err(|source| BenchError::Codegen {
            version: v.name.clone(),
            source,
        })?;
        for w in &c.warnings {
            eprint!(
                "{}",
                crate::diagnostics::render_unplaced(
                    crate::diagnostics::Severity::Warning,
                    &format!("version `{}`: {w}", v.name),
                    &[]
                )
            );
        }
        write(&dir.join(&file), &c.source)?;
        write(&dir.join(format!("{function}.h")), &c.header)?;
        sources.push(dir.join(file));
        kernels.push((
            Kernel {
                name: v.name.clone(),
                function,
            },
            Origin::Generated,
        ));
    }
    let base = harness::baselines_dir();
    for (name, function, file) in BASELINES {
        if baselines.contains(&name) {
            sources.push(base.join(file));
            kernels.push((
                Kernel {
                    name: format!("{name} (C)"),
                    function: function.to_string(),
                },
                Origin::Baseline,
            ));
        }
    }
    let openblas = openblas && harness::openblas_available();
    let mut libs = Vec::new();
    if openblas {
        sources.push(base.join("openblas.c"));
        libs.push("openblas");
        kernels.push((
            Kernel {
                name: "OpenBLAS".into(),
                function: "baseline_openblas".into(),
            },
            Origin::OpenBlas,
        ));
    }
    let just_kernels: Vec<Kernel> = kernels.iter().map(|(k, _)| k.clone()).collect();
    let driver = dir.join("driver.c");
    write(&driver, &harness::driver_source(&just_kernels, openblas))?;
    sources.push(driver);
    let exe = dir.join("risec-bench");
    harness::compile_executable(
        &sources,
        &[base, dir.to_path_buf()],
        &exe,
        extra_flags,
        &libs,
    )?;
    Ok((exe, kernels))
}

fn write(path: &Path, text: &str) -> Result<(), WriteError> {
    std::fs::write(path, text).map_err(|e| WriteError {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Builds and runs the benchmark; `progress` receives a line before each step.
pub fn run(
    versions: &[Version],
    options: &BenchOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<BenchReport, BenchError> {
    let temp;
    let dir = match &options.work_dir {
        Some(d) => d.clone(),
        None => {
            temp = crate::support::cleanup::WorkDir::new().map_err(BenchError::TempDir)?;
            temp.path().to_path_buf()
        }
    };
    progress(&format!(
        "compiling {} version(s) and the baselines with cc...",
        versions.len()
    ));
    let names: Vec<&str> = BASELINES
        .iter()
        .map(|b| b.0)
        .filter(|n| *n == "naive" || options.baselines.iter().any(|b| b == n))
        .collect();
    let want_openblas = options.baselines.iter().any(|b| b == "openblas");
    let (exe, kernels) = build(versions, &names, want_openblas, &dir, &[])?;
    let openblas = kernels.iter().any(|(_, o)| *o == Origin::OpenBlas);
    if want_openblas && !openblas {
        progress(
            "OpenBLAS is not installed (apt-get install libopenblas-dev): its column is left out",
        );
    }
    let coretype = if openblas {
        harness::openblas_coretype()
    } else {
        None
    };
    if let Some(core) = coretype {
        progress(&format!(
            "OpenBLAS: using its {core} kernels (OPENBLAS_CORETYPE={core}; set OPENBLAS_CORETYPE to choose others)"
        ));
    }
    let [m, n, k] = options.sizes;
    let mut rows = Vec::new();
    let mut refused = Vec::new();
    let thread_list: Vec<String> = options.threads.iter().map(|t| t.to_string()).collect();
    progress(&format!(
        "running {m}x{n}x{k} with {} thread(s), {} rounds each (verifying against the naive C baseline first)...",
        thread_list.join(", "),
        options.rounds
    ));
    let mut cmd = std::process::Command::new(&exe);
    if let Some(core) = coretype {
        cmd.env("OPENBLAS_CORETYPE", core);
    }
    let max_threads = options.threads.iter().max().copied().unwrap_or(1);
    let out = cmd
        .args([
            "bench".to_string(),
            m.to_string(),
            n.to_string(),
            k.to_string(),
            thread_list.join(","),
            options.rounds.to_string(),
            "naive (C)".to_string(),
        ])
        // The driver sets each thread count itself; this sizes the thread pools.
        .env("OMP_NUM_THREADS", max_threads.to_string())
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(BenchError::DriverNotRun)?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(BenchError::DriverFailed { stdout });
    }
    for words in harness::parse_lines(&stdout, "RESULT") {
        // The name may contain spaces: the last six words are the numbers.
        let split = words.len().saturating_sub(6);
        let name = words[..split].join(" ");
        let nums: Vec<f64> = words[split..]
            .iter()
            .map(|w| w.parse().unwrap_or(f64::NAN))
            .collect();
        let origin = kernels
            .iter()
            .find(|(kk, _)| kk.name == name)
            .map(|(_, o)| *o)
            .unwrap_or(Origin::Baseline);
        if nums.len() != 6 {
            continue;
        }
        if nums[1] != 0.0 {
            // Sizes the kernel does not take (a divisibility fact of `--exact-sizes` C, or a
            // hand-written kernel's own limits): a row that says so, and the others go on.
            refused.push(Refusal {
                name,
                origin,
                threads: nums[0] as u32,
                code: nums[1] as i32,
            });
            continue;
        }
        if nums[5].is_nan() || nums[5] > REL_ERROR_BOUND {
            return Err(BenchError::WrongResult {
                kernel: name,
                error: nums[5],
            });
        }
        rows.push(Measurement {
            name,
            origin,
            threads: nums[0] as u32,
            median_ms: nums[2],
            min_ms: nums[3],
            max_ms: nums[4],
            error: nums[5],
        });
    }
    Ok(BenchReport {
        sizes: options.sizes,
        rows,
        refused,
        openblas,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;
    use crate::frontend::load::compile_source;

    fn version(text: &str) -> Version {
        Version {
            name: "v".into(),
            program: compile_source(&SourceFile::new("v.rise", text), None).unwrap(),
            exact_sizes: false,
        }
    }

    #[test]
    fn speed_ups_need_two_positive_times() {
        assert_eq!(speed_up(3.0, 1.5), Some(2.0));
        assert_eq!(speed_up(0.0, 0.0), None);
        assert_eq!(speed_up(1.0, 0.0), None);
        assert_eq!(speed_up(0.0, 1.0), None);
        assert_eq!(speed_up(f64::NAN, 1.0), None);
        assert_eq!(speed_up(f64::MAX, f64::MIN_POSITIVE), None);
    }

    #[test]
    fn shape_errors_are_typed() {
        let e = check_shape(&version("def f {n : nat} (x : n.f32) : n.f32 = x")).unwrap_err();
        assert!(matches!(
            &e,
            BenchError::Parameters {
                value_params: 1,
                ..
            }
        ));
        assert_eq!(
            e.to_string(),
            "error: version `v`: benchmarks need `def f {m n k : nat} (a : m.k.f32) (b : k.n.f32) \
             : m.n.f32`, found size parameters (n) and 1 value parameters"
        );
        let e = check_shape(&version(
            "def f {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.k.f32 = a",
        ))
        .unwrap_err();
        assert!(matches!(&e, BenchError::Type { found, .. } if found.ends_with("-> m.k.f32")));
        assert_eq!(
            e.to_string(),
            "error: version `v` has type (m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 -> \
             k.n.f32 -> m.k.f32; benchmarks need (m : nat) -> (n : nat) -> (k : nat) -> m.k.f32 \
             -> k.n.f32 -> m.n.f32"
        );
    }

    #[test]
    fn run_errors_print_as_before() {
        let e = BenchError::WrongResult {
            kernel: "tiled".into(),
            error: 0.5,
        };
        assert_eq!(
            e.to_string(),
            "error: `tiled` computes a wrong result: relative error 5.000e-1 against the naive C \
             baseline exceeds 1e-4"
        );
        let e = BenchError::CompilerFailed {
            command: "cc -O3".into(),
            stderr: "boom".into(),
        };
        assert_eq!(
            e.to_string(),
            "error: the C compiler failed (cc -O3):\nboom"
        );
    }
}
