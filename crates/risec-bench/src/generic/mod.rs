//! `risec verify` and `risec bench` for any entry point whose C function takes scalars and
//! arrays of scalars ([`shape::Shape`]): the versions (the naive lowering of the program, one
//! per sketch file, low-level files of the same type), a user's own C functions of the same
//! signature, and OpenBLAS where the program is one of the BLAS operations it knows
//! ([`blas`]), all built into one driver ([`driver`]) with seeded inputs.
//!
//! * **Verification** ([`verify()`]): at small sizes, every kernel's result against the reference
//!   interpreter's on the same inputs (the driver writes both its inputs and the results), on
//!   three kinds of inputs, every array between guard zones, each call in a child process under
//!   a time limit ([`verify`](mod@verify) says what a kernel must not do);
//! * **benchmark** ([`bench()`]): at the benchmark sizes, every kernel against the naive lowering's
//!   C, then timed in interleaved rounds beside a `memcpy` moving the bytes one call reads and
//!   writes, so that a memory-bound kernel's GB/s reads against the copy bandwidth measured in
//!   the same run ([`report`]).

pub mod blas;
pub mod driver;
pub mod report;
pub mod shape;
pub mod verify;

pub use verify::{check_sizes, verify, Checked, Oracle, Verdict};

use super::harness::{compile_executable, parse_lines};
use super::{process, BenchError, Version};
use crate::backend_c::{emit_c, CodegenOptions};
use crate::core::TypedProgram;
use crate::ir::types::ScalarType;
use shape::Shape;
use std::path::{Path, PathBuf};

/// The largest relative error a kernel may have: against the interpreter, per element
/// ([`verify::rel_error`]'s measure); against the double-precision reference at the benchmark
/// sizes, `max |c - ref| / max |ref|`, or twice the naive lowering's own error when that is
/// larger.
pub const REL_ERROR_BOUND: f64 = 1e-4;

/// The name of the double-precision reference kernel (built from the naive lowering, not
/// timed).
pub const REFERENCE: &str = "reference (f64)";

/// A C function of the user's with the program's signature, timed beside the versions
/// (`--baseline NAME=FILE.c:FUNCTION`).
#[derive(Clone, Debug)]
pub struct UserBaseline {
    /// The name in the table.
    pub name: String,
    /// The C file that defines it.
    pub file: PathBuf,
    /// The function.
    pub function: String,
}

/// Everything the driver is built from.
pub struct Kernels<'a> {
    /// The program as written (the interpreter's reference and the naive lowering's source).
    pub program: &'a TypedProgram,
    /// The versions (sketch files, low-level files).
    pub versions: &'a [Version],
    /// The user's C functions.
    pub user: &'a [UserBaseline],
    /// Whether to add OpenBLAS where the program is a BLAS operation it knows.
    pub openblas: bool,
    /// Build everything with AddressSanitizer and UBSan (for verification, not timing).
    pub sanitize: bool,
    /// Libraries the user's C functions need (`-lNAME`).
    pub libs: &'a [String],
}

/// What a built driver runs, in order (the first is the naive lowering, the reference).
#[derive(Clone, Debug)]
pub struct Built {
    /// The executable.
    pub exe: PathBuf,
    /// The interface.
    pub shape: Shape,
    /// Each kernel's name and who wrote it.
    pub kernels: Vec<(String, super::Origin)>,
    /// The BLAS operation the program was recognised as, when OpenBLAS runs.
    pub blas: Option<&'static str>,
    /// The driver's index of the first kernel it reports (1 when kernel 0 is the
    /// double-precision reference).
    pub first: usize,
    /// Whether it was built with the sanitizers.
    pub sanitized: bool,
}

/// Compiles the kernels and the driver into `dir`.
pub fn build(k: &Kernels, dir: &Path) -> Result<Built, BenchError> {
    let shape = Shape::of(k.program).map_err(|reason| BenchError::Generic { reason })?;
    std::fs::create_dir_all(dir).map_err(|source| BenchError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let naive =
        crate::optimize(k.program, &[], &Default::default()).map_err(|e| BenchError::Generic {
            reason: format!("the naive lowering of `{}`: {e}", k.program.name),
        })?;
    // With a floating-point result, the reference at the benchmark size is the naive lowering
    // computed in double (not timed): a reassociated sum is held to it, not to the order of
    // the naive float loop.
    let precise = matches!(shape.output.scalar, ScalarType::F32 | ScalarType::F64);
    let mut versions = Vec::new();
    if precise {
        versions.push((
            Version {
                name: REFERENCE.into(),
                program: naive.program.clone(),
                exact_sizes: false,
            },
            true,
        ));
    }
    versions.push((
        Version {
            name: "naive".into(),
            program: naive.program,
            exact_sizes: false,
        },
        false,
    ));
    versions.extend(k.versions.iter().cloned().map(|v| (v, false)));
    let mut sources = Vec::new();
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut kernels = Vec::new();
    for (v, wide) in &versions {
        if v.program.term.ty != k.program.term.ty {
            return Err(BenchError::Type {
                version: v.name.clone(),
                found: crate::core::print::program_type_to_source(&v.program),
            });
        }
        let function = super::kernel_function(&v.name);
        if entries.iter().any(|(_, f)| *f == function) {
            return Err(BenchError::DuplicateVersion {
                name: v.name.clone(),
            });
        }
        let options = CodegenOptions {
            sizes: None,
            header_name: format!("{function}.h"),
            function_name: Some(function.clone()),
            exact_sizes: v.exact_sizes,
            wide_scalars: *wide,
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
        let file = dir.join(format!("{function}.c"));
        super::write(&file, &c.source)?;
        super::write(&dir.join(format!("{function}.h")), &c.header)?;
        sources.push(file);
        entries.push((v.name.clone(), function));
        if !wide {
            kernels.push((v.name.clone(), super::Origin::Generated));
        }
    }
    for u in k.user {
        // Several functions may come from one file: it is compiled once.
        let known = sources
            .iter()
            .any(|s| crate::support::output::same_file(s, &u.file));
        if !known {
            sources.push(u.file.clone());
        }
        entries.push((u.name.clone(), u.function.clone()));
        kernels.push((u.name.clone(), super::Origin::Baseline));
    }
    let mut libs: Vec<&str> = k.libs.iter().map(String::as_str).collect();
    let mut threads_extra = String::new();
    let mut recognised = None;
    if k.openblas && super::harness::openblas_available() {
        if let Some(op) = blas::recognise(k.program, &shape) {
            let file = dir.join("blas_baseline.c");
            super::write(&file, &op.c_source(&shape))?;
            sources.push(file);
            entries.push(("OpenBLAS".into(), blas::FUNCTION.into()));
            kernels.push(("OpenBLAS".into(), super::Origin::OpenBlas));
            libs.push("openblas");
            threads_extra = " openblas_set_num_threads(t);".into();
            recognised = Some(op.name);
        }
    }
    let driver = dir.join("driver.c");
    super::write(
        &driver,
        &driver::source(
            &shape,
            &entries,
            precise,
            if recognised.is_some() {
                &threads_extra
            } else {
                ""
            },
            &program_constants(k.program),
        ),
    )?;
    sources.push(driver);
    let exe = dir.join("risec-bench");
    let flags: &[&str] = if k.sanitize { SANITIZE_FLAGS } else { &[] };
    compile_executable(&sources, &[dir.to_path_buf()], &exe, flags, &libs)?;
    Ok(Built {
        exe,
        shape,
        kernels,
        blas: recognised,
        first: usize::from(precise),
        sanitized: k.sanitize,
    })
}

/// The C compiler's flags of a sanitized build: AddressSanitizer and UBSan, every report fatal.
pub const SANITIZE_FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    // Pointer-overflow checks made gcc take a minute over one register-blocked kernel (62 s
    // against 3 s without them); ASan already reports any access outside an allocation.
    "-fno-sanitize=pointer-overflow",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-g",
];

/// The program's numeric literals, which the wide inputs are drawn near.
fn program_constants(program: &TypedProgram) -> Vec<f64> {
    use crate::core::Literal;
    program
        .term
        .literals()
        .into_iter()
        .filter_map(|l| match l {
            Literal::F32(bits) => Some(f64::from(f32::from_bits(bits))),
            Literal::F64(bits) => Some(f64::from_bits(bits)),
            Literal::I32(v) => Some(f64::from(v)),
            Literal::I64(v) => Some(v as f64),
            Literal::Bool(_) => None,
        })
        .collect()
}

/// The arguments every driver mode starts with: the sizes, then the element counts of the
/// output and the inputs.
fn size_args(shape: &Shape, sizes: &[u64]) -> Result<Vec<String>, BenchError> {
    let mut args: Vec<String> = sizes.iter().map(u64::to_string).collect();
    for o in std::iter::once(&shape.output).chain(&shape.inputs) {
        let len = o
            .len(sizes)
            .map_err(|reason| BenchError::Generic { reason })?;
        args.push(len.to_string());
    }
    Ok(args)
}

/// One timed row of the driver.
#[derive(Clone, Debug)]
pub struct Row {
    /// The kernel's name ([`driver::COPY`] for the copy).
    pub name: String,
    /// Who wrote it (`None` for the copy).
    pub origin: Option<super::Origin>,
    /// OpenMP threads.
    pub threads: u32,
    /// What the kernel returned.
    pub code: i32,
    /// Median, fastest and slowest round, in milliseconds.
    pub median_ms: f64,
    /// Fastest round.
    pub min_ms: f64,
    /// Slowest round.
    pub max_ms: f64,
    /// Relative error against the naive lowering.
    pub error: f64,
}

/// What [`bench()`] measured.
#[derive(Clone, Debug)]
pub struct GenericReport {
    /// The program's name and size parameters.
    pub shape: Shape,
    /// The sizes.
    pub sizes: Vec<u64>,
    /// The bytes one call reads and writes.
    pub bytes: u64,
    /// Every row at every thread count.
    pub rows: Vec<Row>,
    /// The BLAS operation OpenBLAS ran as.
    pub blas: Option<&'static str>,
}

/// Verifies every kernel against the naive lowering and times them at `sizes`.
pub fn bench(
    built: &Built,
    sizes: &[u64],
    threads: &[u32],
    rounds: u32,
) -> Result<GenericReport, BenchError> {
    let thread_list: Vec<String> = threads.iter().map(u32::to_string).collect();
    let mut args = vec!["bench".to_string()];
    args.extend(size_args(&built.shape, sizes)?);
    args.push(thread_list.join(","));
    args.push(rounds.to_string());
    let max_threads = threads.iter().max().copied().unwrap_or(1);
    let mut env = vec![("OMP_NUM_THREADS", max_threads.to_string())];
    if built.blas.is_some() {
        if let Some(core) = super::harness::openblas_coretype() {
            env.push(("OPENBLAS_CORETYPE", core.to_string()));
        }
    }
    let dir = built.exe.parent().unwrap_or(Path::new("."));
    let finished = process::run(&built.exe, &args, &env, dir, None, process::Stderr::Shown)
        .map_err(BenchError::DriverNotRun)?;
    if !finished.success() {
        let during = finished
            .running_kernel()
            .and_then(|k| k.checked_sub(built.first))
            .and_then(|k| built.kernels.get(k))
            .map(|(name, _)| format!("during a call of `{name}`, "))
            .unwrap_or_default();
        return Err(BenchError::DriverFailed {
            stdout: format!("{during}it {}", finished.ending_text()),
        });
    }
    let stdout = finished.stdout;
    let mut rows = Vec::new();
    for words in parse_lines(&stdout, "RESULT") {
        let split = words.len().saturating_sub(6);
        let name = words[..split].join(" ");
        let nums: Vec<f64> = words[split..]
            .iter()
            .map(|w| w.parse().unwrap_or(f64::NAN))
            .collect();
        if nums.len() != 6 {
            continue;
        }
        let origin = built
            .kernels
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, o)| *o);
        let row = Row {
            name,
            origin,
            threads: nums[0] as u32,
            code: nums[1] as i32,
            median_ms: nums[2],
            min_ms: nums[3],
            max_ms: nums[4],
            error: nums[5],
        };
        rows.push(row);
    }
    // Every kernel is at least as accurate as the naive lowering (within a factor of 2), or
    // within the bound.
    for row in &rows {
        if row.code != 0 || row.origin.is_none() {
            continue;
        }
        let naive = rows
            .iter()
            .find(|r| r.name == "naive" && r.threads == row.threads)
            .map_or(0.0, |r| r.error);
        let bound = REL_ERROR_BOUND.max(2.0 * naive);
        if row.error.is_nan() || row.error > bound {
            return Err(BenchError::WrongResult {
                kernel: row.name.clone(),
                error: row.error,
            });
        }
    }
    let bytes = built
        .shape
        .bytes(sizes)
        .map_err(|reason| BenchError::Generic { reason })?;
    Ok(GenericReport {
        shape: built.shape.clone(),
        sizes: sizes.to_vec(),
        bytes,
        rows,
        blas: built.blas,
    })
}
