//! Building a benchmark: the versions compiled to C (the naive lowering first, in double
//! precision as well where the result is floating-point: the reference at the benchmark
//! sizes), C functions of the program's signature (the user's, a preset's), OpenBLAS where the
//! program is a BLAS operation it knows ([`crate::blas`]), and the driver ([`crate::driver`]),
//! compiled into one executable.

use crate::backend_c::{emit_c, CodegenOptions};
use crate::blas;
use crate::compile::compile_executable;
use crate::core::TypedProgram;
use crate::driver;
use crate::ir::types::ScalarType;
use crate::shape::Shape;
use crate::{BenchError, Version};
use std::path::{Path, PathBuf};

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
    /// Further flags of the C compiler (tests add `-Wall -Wextra -Werror`).
    pub extra_flags: &'a [&'a str],
    /// A low-level version of the program to use instead of its naive lowering as the
    /// `naive` row and the double-precision reference at the benchmark sizes (`risec tune`
    /// gives the sketch's defaults, verified beside it: the naive lowering of a large GEMM
    /// takes seconds a call). `None`: the naive lowering.
    pub reference: Option<&'a TypedProgram>,
}

/// What a built driver runs, in order (the first is the naive lowering, the reference).
#[derive(Clone, Debug)]
pub struct Built {
    /// The executable.
    pub exe: PathBuf,
    /// The interface.
    pub shape: Shape,
    /// Each kernel's name and who wrote it.
    pub kernels: Vec<(String, crate::Origin)>,
    /// The BLAS operation the program was recognised as, when OpenBLAS runs.
    pub blas: Option<&'static str>,
    /// The driver's index of the first kernel it reports (1 when kernel 0 is the
    /// double-precision reference).
    pub first: usize,
    /// Whether it was built with the sanitizers.
    pub sanitized: bool,
    /// The program as written.
    pub program: TypedProgram,
}

impl Built {
    /// The floating-point operations one call of the program as written performs at `sizes`,
    /// where they are counted (the report's GFLOP/s; see [`crate::core::flops::flop_count`]).
    pub fn flops(&self, sizes: &[u64]) -> Option<u64> {
        crate::core::flops::flop_count(&self.program, sizes)
    }
}

/// Compiles the kernels and the driver into `dir`.
pub fn build(k: &Kernels, dir: &Path) -> Result<Built, BenchError> {
    let shape = Shape::of(k.program).map_err(|reason| BenchError::Generic { reason })?;
    if let Some(v) = k
        .versions
        .iter()
        .find(|v| v.name == "naive" || v.name == REFERENCE)
    {
        return Err(BenchError::ReservedName {
            name: v.name.clone(),
        });
    }
    // A baseline named as a version, another baseline or the naive lowering (versions among
    // themselves: `DuplicateVersion`).
    let mut names: Vec<&str> = vec!["naive", REFERENCE];
    names.extend(k.versions.iter().map(|v| v.name.as_str()));
    for name in k.user.iter().map(|u| u.name.as_str()) {
        if names.contains(&name) {
            return Err(BenchError::DuplicateName {
                name: name.to_string(),
            });
        }
        names.push(name);
    }
    std::fs::create_dir_all(dir).map_err(|source| BenchError::CreateDir {
        path: dir.to_path_buf(),
        source,
    })?;
    let naive = match k.reference {
        Some(p) => p.clone(),
        None => {
            crate::optimize(k.program, &[], &Default::default())
                .map_err(|e| BenchError::Generic {
                    reason: format!("the naive lowering of `{}`: {e}", k.program.name),
                })?
                .program
        }
    };
    // With a floating-point result, the reference at the benchmark size is the naive lowering
    // computed in double (not timed): a reassociated sum is held to it, not to the order of
    // the naive float loop.
    let precise = matches!(shape.output.scalar, ScalarType::F32 | ScalarType::F64);
    let mut versions = Vec::new();
    if precise {
        versions.push((
            Version {
                name: REFERENCE.into(),
                program: naive.clone(),
                exact_sizes: false,
            },
            true,
        ));
    }
    versions.push((
        Version {
            name: "naive".into(),
            program: naive,
            exact_sizes: false,
        },
        false,
    ));
    versions.extend(k.versions.iter().cloned().map(|v| (v, false)));
    let mut sources = Vec::new();
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut kernels = Vec::new();
    for (v, wide) in &versions {
        let function = crate::kernel_function(&v.name);
        if entries.iter().any(|(_, f)| *f == function) {
            return Err(BenchError::DuplicateVersion {
                name: v.name.clone(),
            });
        }
        sources.push(emit_version(v, *wide, k.program, &function, dir)?);
        entries.push((v.name.clone(), function));
        if !wide {
            kernels.push((v.name.clone(), crate::Origin::Generated));
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
        kernels.push((u.name.clone(), crate::Origin::Baseline));
    }
    let mut libs: Vec<&str> = k.libs.iter().map(String::as_str).collect();
    let mut threads_extra = String::new();
    let mut recognised = None;
    if k.openblas && crate::compile::openblas_available() {
        if let Some(op) = blas::recognise(k.program, &shape) {
            let file = dir.join("blas_baseline.c");
            crate::write(&file, &op.c_source(&shape))?;
            sources.push(file);
            entries.push(("OpenBLAS".into(), blas::FUNCTION.into()));
            kernels.push(("OpenBLAS".into(), crate::Origin::OpenBlas));
            libs.push("openblas");
            threads_extra = " openblas_set_num_threads(t);".into();
            recognised = Some(op.name);
        }
    }
    let driver = dir.join("driver.c");
    crate::write(
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
    let mut flags: Vec<&str> = if k.sanitize {
        SANITIZE_FLAGS.to_vec()
    } else {
        Vec::new()
    };
    flags.extend(k.extra_flags.iter().copied());
    compile_executable(&sources, &include_dirs(k.user, dir), &exe, &flags, &libs)?;
    Ok(Built {
        exe,
        shape,
        kernels,
        blas: recognised,
        first: usize::from(precise),
        sanitized: k.sanitize,
        program: k.program.clone(),
    })
}

/// Writes version `v`'s C (function `function`; `wide`: computed in double precision) into
/// `dir`; returns the C file. Its type must be `program`'s.
fn emit_version(
    v: &Version,
    wide: bool,
    program: &TypedProgram,
    function: &str,
    dir: &Path,
) -> Result<PathBuf, BenchError> {
    if v.program.term.ty != program.term.ty {
        return Err(BenchError::Type {
            version: v.name.clone(),
            found: crate::core::print::program_type_to_source(&v.program),
            expected: crate::core::print::program_type_to_source(program),
        });
    }
    let options = CodegenOptions {
        sizes: None,
        header_name: format!("{function}.h"),
        function_name: Some(function.to_string()),
        exact_sizes: v.exact_sizes,
        wide_scalars: wide,
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
    crate::write(&file, &c.source)?;
    crate::write(&dir.join(format!("{function}.h")), &c.header)?;
    Ok(file)
}

/// The C compiler's include folders: `dir` (the generated headers), then the folder of each
/// baseline's file (its own headers sit beside it: the TVM steps include `baselines.h`).
fn include_dirs(user: &[UserBaseline], dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![dir.to_path_buf()];
    for u in user {
        if let Some(parent) = u.file.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !dirs.iter().any(|d| d == parent) {
                dirs.push(parent.to_path_buf());
            }
        }
    }
    dirs
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
pub(crate) fn size_args(shape: &Shape, sizes: &[u64]) -> Result<Vec<String>, BenchError> {
    let mut args: Vec<String> = sizes.iter().map(u64::to_string).collect();
    for o in std::iter::once(&shape.output).chain(&shape.inputs) {
        let len = o
            .len(sizes)
            .map_err(|reason| BenchError::Generic { reason })?;
        args.push(len.to_string());
    }
    Ok(args)
}
