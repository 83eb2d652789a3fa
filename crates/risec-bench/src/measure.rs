//! Timing: every kernel of a built driver checked against the reference at the benchmark
//! sizes, then timed in interleaved rounds at each thread count beside a `memcpy` of the same
//! bytes ([`bench()`]); and the same check without the timing ([`check_against_reference()`]), which tests use at
//! sizes the interpreter would take too long for.

use crate::compile::parse_lines;
use crate::kernels::{size_args, Built};
use crate::shape::Shape;
use crate::{process, BenchError, REL_ERROR_BOUND};
use std::path::Path;

/// One timed row of the driver.
#[derive(Clone, Debug)]
pub struct Row {
    /// The kernel's name ([`crate::driver::COPY`] for the copy).
    pub name: String,
    /// Who wrote it (`None` for the copy).
    pub origin: Option<crate::Origin>,
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
pub struct Report {
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
    /// The floating-point operations of one call of the program as written, where they are
    /// counted: the GFLOP/s column.
    pub flops: Option<u64>,
}

/// Verifies every kernel against the naive lowering and times them at `sizes`; the driver's
/// progress lines go to standard error.
pub fn bench(
    built: &Built,
    sizes: &[u64],
    threads: &[u32],
    rounds: u32,
) -> Result<Report, BenchError> {
    bench_with(built, sizes, threads, rounds, process::Stderr::Shown)
}

/// [`bench()`], with the driver's progress lines shown or captured (`risec tune` keeps its
/// own progress display).
pub fn bench_with(
    built: &Built,
    sizes: &[u64],
    threads: &[u32],
    rounds: u32,
    stderr: process::Stderr,
) -> Result<Report, BenchError> {
    let thread_list: Vec<String> = threads.iter().map(u32::to_string).collect();
    let mut args = vec!["bench".to_string()];
    args.extend(size_args(&built.shape, sizes)?);
    args.push(thread_list.join(","));
    args.push(rounds.to_string());
    let max_threads = threads.iter().max().copied().unwrap_or(1);
    let mut env = vec![("OMP_NUM_THREADS", max_threads.to_string())];
    if built.blas.is_some() {
        if let Some(core) = crate::compile::openblas_coretype() {
            env.push(("OPENBLAS_CORETYPE", core.to_string()));
        }
    }
    let dir = built.exe.parent().unwrap_or(Path::new("."));
    let finished = process::run(&built.exe, &args, &env, dir, None, stderr)
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
    Ok(Report {
        shape: built.shape.clone(),
        sizes: sizes.to_vec(),
        bytes,
        rows,
        blas: built.blas,
        flops: built.flops(sizes),
    })
}

/// One kernel's run in [`check_against_reference`].
#[derive(Clone, Debug, PartialEq)]
pub struct CheckRow {
    /// The kernel's name.
    pub name: String,
    /// What it returned.
    pub code: i32,
    /// Whether `out` held what it held before the call (a kernel that refuses the sizes must
    /// leave it so).
    pub untouched: bool,
    /// Its relative error against the reference (`max |c - ref| / max |ref|`; infinite for a
    /// refusal).
    pub error: f64,
}

/// Which kernels [`check_against_reference`] runs, and against what.
#[derive(Clone, Debug, Default)]
pub struct CheckSelection<'a> {
    /// The kernel whose result is the reference [default: the naive lowering, in double
    /// precision for a floating-point result]. A fast baseline serves at sizes where the naive
    /// loop takes seconds.
    pub reference: Option<&'a str>,
    /// The kernels to run [default: all].
    pub only: Option<&'a [&'a str]>,
}

/// Runs the kernels of `built` once at `sizes` with `threads` threads against a reference, as
/// `selection` says, without timing.
pub fn check_against_reference(
    built: &Built,
    sizes: &[u64],
    threads: u32,
    selection: &CheckSelection,
) -> Result<Vec<CheckRow>, BenchError> {
    let index = |name: &str| -> Result<usize, BenchError> {
        built
            .kernels
            .iter()
            .position(|(n, _)| n == name)
            .map(|i| i + built.first)
            .ok_or_else(|| BenchError::Generic {
                reason: format!("no kernel `{name}` in this driver"),
            })
    };
    let reference = selection.reference.map(index).transpose()?.unwrap_or(0);
    let which = match selection.only {
        Some(names) => names
            .iter()
            .map(|n| index(n).map(|i| i.to_string()))
            .collect::<Result<Vec<_>, _>>()?
            .join(","),
        None => "all".to_string(),
    };
    let mut args = vec!["check".to_string()];
    args.extend(size_args(&built.shape, sizes)?);
    args.extend([threads.to_string(), reference.to_string(), which]);
    let env = vec![("OMP_NUM_THREADS", threads.to_string())];
    let dir = built.exe.parent().unwrap_or(Path::new("."));
    let finished = process::run(&built.exe, &args, &env, dir, None, process::Stderr::Shown)
        .map_err(BenchError::DriverNotRun)?;
    if !finished.success() {
        return Err(BenchError::DriverFailed {
            stdout: format!("it {}\n{}", finished.ending_text(), finished.stdout),
        });
    }
    Ok(parse_lines(&finished.stdout, "CHECK")
        .into_iter()
        .filter_map(|words| {
            let split = words.len().checked_sub(3)?;
            Some(CheckRow {
                name: words[..split].join(" "),
                code: words[split].parse().ok()?,
                untouched: words[split + 1] == "1",
                error: words[split + 2].parse().ok()?,
            })
        })
        .collect())
}
