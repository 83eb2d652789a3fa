//! `risec bench` and `risec verify`: versions of a program compiled to C, built with the C
//! compiler `cc` finds into one driver with the hand-written baselines and OpenBLAS, verified
//! against the reference interpreter and the naive lowering, and timed.
//!
//! One harness serves every program whose C function takes scalars and arrays of scalars
//! ([`shape::Shape`]):
//! * [`kernels::build`]: the versions (the naive lowering, one per sketch file, low-level files
//!   of the same type), C functions of the same signature (the user's, or a preset's such as
//!   the matrix multiplication's TVM steps, [`presets`]), and OpenBLAS where the program is a
//!   BLAS operation it knows ([`blas`]), linked with one driver ([`driver`], on the C prelude
//!   every generated driver shares, [`prelude`]);
//! * [`verify()`]: at small sizes, every kernel against the interpreter on three kinds of
//!   inputs between guard zones, each call in a child process under a time limit;
//! * [`measure::bench`]: at the benchmark sizes, every kernel against the naive lowering in
//!   double precision, then timed in interleaved rounds beside a `memcpy` of the same bytes;
//! * [`tuning`]: the records `risec tune` writes, and the choice of the one that fits a
//!   compilation;
//! * [`report`]: the table, CSV and SVG plot, with GFLOP/s where the program's floating-point
//!   operations are counted and GB/s for every program.

// The stages below this crate, under the names the code uses (`crate::ir::…`).
#[allow(unused_imports)]
use risec::{optimize, Error};
#[allow(unused_imports)]
use risec_backend::{self as backend_c, lowlevel};
#[allow(unused_imports)]
use risec_core::{core, diagnostics, interp, ir, support};
#[allow(unused_imports)]
use risec_frontend as frontend;

pub mod blas;
pub mod compile;
pub mod driver;
pub mod kernels;
pub mod measure;
pub mod prelude;
pub mod presets;
pub mod process;
pub mod report;
pub mod shape;
pub mod tuning;
pub mod verify;

pub use kernels::{build, Built, Kernels, UserBaseline};
pub use measure::{bench, Report, Row};
pub use verify::{check_sizes, verify, Checked, Oracle, Verdict};

use crate::backend_c::CodegenError;
use crate::core::TypedProgram;
use crate::support::output::WriteError;
use std::path::{Path, PathBuf};

/// The largest relative error a kernel may have: against the interpreter, per element
/// ([`verify::rel_error`]'s measure); against the double-precision reference at the benchmark
/// sizes, `max |c - ref| / max |ref|`, or twice the naive lowering's own error when that is
/// larger.
pub const REL_ERROR_BOUND: f64 = 1e-4;

/// Why a benchmark could not be built, run or drawn. `Display` gives the message `risec bench`
/// prints.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A version's type is not the program's.
    #[error("error: version `{version}` has type {found}; the program has type {expected}")]
    Type {
        /// The version's name.
        version: String,
        /// Its type, as source text.
        found: String,
        /// The program's type, as source text.
        expected: String,
    },
    /// Two versions have the same kernel function.
    #[error("error: two versions are named `{name}`")]
    DuplicateVersion {
        /// The second version's name.
        name: String,
    },
    /// A version has the name of a kernel the harness always builds.
    #[error(
        "error: a version is named `{name}`, the name of the program's naive lowering, which \
         always runs: name it otherwise (`--version NAME=FILE.rise`)"
    )]
    ReservedName {
        /// The name.
        name: String,
    },
    /// A baseline has the name of a version, of another baseline or of the naive lowering:
    /// their rows could not be told apart.
    #[error(
        "error: two kernels are named `{name}` (a sketch's version is named after its file, a \
         `--baseline` and a `--version` by their `NAME=`): rename one"
    )]
    DuplicateName {
        /// The name.
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
    /// A kernel's result is not the reference's at the benchmark sizes.
    #[error(
        "error: `{kernel}` computes a wrong result: relative error {error:.3e} against the \
         reference (the naive lowering) exceeds {REL_ERROR_BOUND:e}"
    )]
    WrongResult {
        /// The kernel's name.
        kernel: String,
        /// Its relative error (NaN when its result is not a number).
        error: f64,
    },
    /// The benchmark cannot run the program (its interface, its inputs, the
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
    /// The name in the table (its hand-written twin, when there is one, is the baseline `NAME (C)`).
    pub name: String,
    /// The low-level program.
    pub program: TypedProgram,
    /// Compiled with [`crate::backend_c::CodegenOptions::exact_sizes`]: sizes that violate a divisibility fact
    /// are refused rather than rounded up.
    pub exact_sizes: bool,
}

/// Who wrote a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Generated by risec from a version.
    Generated,
    /// Hand-written C: the user's (`--baseline`) or a preset's (the matmul's TVM steps).
    Baseline,
    /// OpenBLAS, where the program is a BLAS operation it knows.
    OpenBlas,
}

/// A C identifier for a version's kernel.
pub fn kernel_function(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("rise_{s}")
}

/// Writes a generated file.
fn write(path: &Path, text: &str) -> Result<(), WriteError> {
    std::fs::write(path, text).map_err(|e| WriteError {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn errors_print_as_messages() {
        let e = BenchError::WrongResult {
            kernel: "tiled".into(),
            error: 0.5,
        };
        assert_eq!(
            e.to_string(),
            "error: `tiled` computes a wrong result: relative error 5.000e-1 against the \
             reference (the naive lowering) exceeds 1e-4"
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
