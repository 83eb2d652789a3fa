//! Verification as an oracle: every kernel of a built driver run on several kinds of inputs
//! ([`ValueClass`]) in arrays with guard zones ([`Layout`]), each run under a time limit, and
//! its result compared with the reference interpreter's on the same inputs.
//!
//! A kernel passes only when, for every kind of input, it returned 0, left every guard zone
//! and every input as it found them, and agreed with the interpreter within
//! [`REL_ERROR_BOUND`]. Anything else is a [`Verdict`] that says what happened: the sizes
//! refused, a wrong result (with the inputs that show it), memory written outside the arrays,
//! a crash (the signal), a sanitizer's report, an exit during the call, or the time limit.

use super::driver::{Layout, ValueClass};
use crate::core::TypedProgram;
use crate::kernels::{size_args, Built};
use crate::process::{self, Ending, Finished};
use crate::BenchError;
use crate::{shape, REL_ERROR_BOUND};
use std::path::Path;
use std::time::Duration;

/// How the kernels are verified.
#[derive(Clone, Debug)]
pub struct Oracle {
    /// OpenMP threads.
    pub threads: u32,
    /// The kinds of inputs, each a run of every kernel.
    pub classes: Vec<ValueClass>,
    /// Each run's time limit (the kernels after one that ran past it still run).
    pub limit: Option<Duration>,
}

impl Oracle {
    /// Every kind of input, with `threads` threads and a limit of 60 s per run.
    pub fn new(threads: u32) -> Oracle {
        Oracle {
            threads,
            classes: ValueClass::ALL.to_vec(),
            limit: Some(Duration::from_secs(60)),
        }
    }
}

/// What one kernel's verification found.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// It agreed with the interpreter on every kind of input; the largest relative error.
    Agrees(f64),
    /// It returned non-zero for the sizes (1: sizes it does not take; 2: memory; 3: `int`
    /// range).
    Refused(i32),
    /// Its result differs from the interpreter's on this kind of input.
    Wrong {
        /// The relative error (NaN when a value is not a number where the reference's is).
        error: f64,
        /// The inputs.
        class: ValueClass,
    },
    /// It wrote outside its output or changed an input (what the driver found, e.g.
    /// `wrote-after-out,changed-in0`).
    Damaged {
        /// The damage.
        what: String,
        /// The inputs.
        class: ValueClass,
    },
    /// Its call did not return: the driver crashed, exited, ran past the limit, or a
    /// sanitizer stopped it.
    Failed {
        /// How the run ended, in words, with a sanitizer's report when there is one.
        how: String,
        /// The inputs.
        class: ValueClass,
    },
}

impl Verdict {
    /// Whether the kernel passed.
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Agrees(_))
    }

    /// The verdict in words, for reports.
    pub fn text(&self) -> String {
        match self {
            Verdict::Agrees(e) => format!("ok (relative error {e:.1e})"),
            Verdict::Refused(code) => format!(
                "REFUSED the sizes (returned {code}{})",
                match code {
                    1 => ": sizes it does not take",
                    2 => ": a temporary could not be allocated",
                    3 => ": an array too large for int indices",
                    _ => "",
                }
            ),
            Verdict::Wrong { error, class } => format!(
                "WRONG: relative error {error:.3e} on inputs {}",
                class.describe()
            ),
            Verdict::Damaged { what, class } => format!(
                "OUT OF BOUNDS: {} (inputs {})",
                damage_text(what),
                class.describe()
            ),
            Verdict::Failed { how, class } => {
                format!("FAILED: its call {how} (inputs {})", class.describe())
            }
        }
    }
}

/// `wrote-after-out,changed-in0` in words.
fn damage_text(what: &str) -> String {
    what.split(',')
        .map(|part| {
            if let Some(a) = part.strip_prefix("wrote-before-") {
                format!("wrote before the start of `{a}`")
            } else if let Some(a) = part.strip_prefix("wrote-after-") {
                format!("wrote past the end of `{a}`")
            } else if let Some(a) = part.strip_prefix("changed-") {
                format!("changed its input `{a}`")
            } else if part == "wrote-out-on-refusal" {
                "wrote `out` although it returned non-zero".to_string()
            } else {
                part.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One kernel's verification.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The kernel's name.
    pub name: String,
    /// What was found.
    pub verdict: Verdict,
}

/// Verifies every kernel of `built` at `sizes` as `oracle` says, against the reference
/// interpreter on the driver's own inputs; `dir` holds the files exchanged.
pub fn verify(
    built: &Built,
    program: &TypedProgram,
    sizes: &[u64],
    oracle: &Oracle,
    dir: &Path,
) -> Result<Vec<Checked>, BenchError> {
    let dump = dir.join("dump");
    std::fs::create_dir_all(&dump).map_err(|source| BenchError::CreateDir {
        path: dump.clone(),
        source,
    })?;
    let names: Vec<String> = built.kernels.iter().map(|(n, _)| n.clone()).collect();
    let mut verdicts: Vec<Verdict> = vec![Verdict::Agrees(0.0); names.len()];
    for (i, &class) in oracle.classes.iter().enumerate() {
        // Alternate the layouts, so that accesses past either end fault in some run.
        let layout = if built.sanitized {
            Layout::Heap
        } else if i % 2 == 0 {
            Layout::End
        } else {
            Layout::Start
        };
        let args = dump_args(built, sizes, &dump, "inputs", class, layout)?;
        let inputs_run = run(built, &args, oracle, dir)?;
        if !inputs_run.success() {
            return Err(BenchError::DriverFailed {
                stdout: format!(
                    "writing the inputs, it {}\n{}",
                    inputs_run.ending_text(),
                    inputs_run.stderr
                ),
            });
        }
        let expected = reference(built, program, sizes, &dump)?;
        // The kernels that have not failed yet, in one process as long as none fails.
        let mut pending: Vec<usize> = (0..names.len())
            .filter(|&k| verdicts[k].passed())
            .map(|k| k + built.first)
            .collect();
        while !pending.is_empty() {
            let which: Vec<String> = pending.iter().map(usize::to_string).collect();
            let args = dump_args(built, sizes, &dump, &which.join(","), class, layout)?;
            let finished = run(built, &args, oracle, dir)?;
            let dumped = crate::compile::parse_lines(&finished.stdout, "DUMP");
            for (&k, words) in pending.iter().zip(&dumped) {
                let [.., code, guards] = words.as_slice() else {
                    continue;
                };
                let code: i32 = code.parse().unwrap_or(-1);
                let verdict = if *guards != "ok" {
                    Verdict::Damaged {
                        what: input_names(guards, &built.shape),
                        class,
                    }
                } else if code != 0 {
                    Verdict::Refused(code)
                } else {
                    let got = read_doubles(&dump.join(format!("k{k}.bin")))?;
                    let error = rel_error(&got, &expected);
                    if error <= REL_ERROR_BOUND {
                        Verdict::Agrees(error)
                    } else {
                        Verdict::Wrong { error, class }
                    }
                };
                merge(&mut verdicts[k - built.first], verdict);
            }
            let done = dumped.len().min(pending.len());
            if finished.success() && finished.running_kernel().is_none() && done == pending.len() {
                break;
            }
            // The run ended during a kernel's call (or before any): that kernel failed, the
            // ones after it run in a fresh process.
            let k = match finished.running_kernel() {
                Some(k) if pending[done..].first() == Some(&k) => k,
                _ => {
                    return Err(BenchError::DriverFailed {
                        stdout: format!("it {}\n{}", finished.ending_text(), finished.stderr),
                    })
                }
            };
            merge(
                &mut verdicts[k - built.first],
                Verdict::Failed {
                    how: failure_text(&finished),
                    class,
                },
            );
            pending.drain(..=done);
        }
    }
    Ok(names
        .into_iter()
        .zip(verdicts)
        .map(|(name, verdict)| Checked { name, verdict })
        .collect())
}

/// The driver's damage report with the inputs named as the program names them (`changed-in0`
/// → `changed-xs`).
fn input_names(report: &str, shape: &super::shape::Shape) -> String {
    report
        .split(',')
        .map(|part| {
            let (head, operand) = part.rsplit_once('-').unwrap_or(("", part));
            let named = operand
                .strip_prefix("in")
                .and_then(|i| i.parse::<usize>().ok())
                .and_then(|i| shape.inputs.get(i))
                .map(|o| format!("{head}-{}", o.name));
            named.unwrap_or_else(|| part.to_string())
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// Keeps the first failure; among agreements, the largest error.
fn merge(slot: &mut Verdict, new: Verdict) {
    match (&*slot, &new) {
        (Verdict::Agrees(a), Verdict::Agrees(b)) => *slot = Verdict::Agrees(a.max(*b)),
        (Verdict::Agrees(_), _) => *slot = new,
        _ => {}
    }
}

/// How a run that stopped during a call ended, with a sanitizer's report.
fn failure_text(f: &Finished) -> String {
    if let Some(report) = f.sanitizer_report() {
        return format!("was stopped by a sanitizer:\n{report}");
    }
    match &f.ending {
        Ending::Exited(0) => "exited (status 0) instead of returning".to_string(),
        _ => f.ending_text(),
    }
}

/// `dump SIZES… LENGTHS… DIR WHICH CLASS LAYOUT`.
fn dump_args(
    built: &Built,
    sizes: &[u64],
    dump: &Path,
    which: &str,
    class: ValueClass,
    layout: Layout,
) -> Result<Vec<String>, BenchError> {
    let mut args = vec!["dump".to_string()];
    args.extend(size_args(&built.shape, sizes)?);
    args.push(dump.to_string_lossy().into_owned());
    args.push(which.to_string());
    args.push((class as i32).to_string());
    args.push((layout as i32).to_string());
    Ok(args)
}

/// Runs the driver with the oracle's threads and limit (and the sanitizers' settings).
fn run(
    built: &Built,
    args: &[String],
    oracle: &Oracle,
    dir: &Path,
) -> Result<Finished, BenchError> {
    let mut env = vec![("OMP_NUM_THREADS", oracle.threads.to_string())];
    if built.sanitized {
        env.push((
            "ASAN_OPTIONS",
            "detect_leaks=0:abort_on_error=0:exitcode=86".to_string(),
        ));
        env.push((
            "UBSAN_OPTIONS",
            "print_stacktrace=1:halt_on_error=1:exitcode=86".into(),
        ));
    }
    process::run(
        &built.exe,
        args,
        &env,
        dir,
        oracle.limit,
        process::Stderr::Captured,
    )
    .map_err(BenchError::DriverNotRun)
}

/// The interpreter's result on the inputs the driver wrote into `dump`.
fn reference(
    built: &Built,
    program: &TypedProgram,
    sizes: &[u64],
    dump: &Path,
) -> Result<Vec<f64>, BenchError> {
    let generic = |reason: String| BenchError::Generic { reason };
    let mut inputs = Vec::new();
    for (i, o) in built.shape.inputs.iter().enumerate() {
        let flat = read_doubles(&dump.join(format!("in{i}.bin")))?;
        inputs.push(shape::to_value(o, sizes, &flat).map_err(generic)?);
    }
    let expected = crate::interp::run_program(program, sizes, inputs)
        .map_err(|e| generic(format!("the reference interpreter: {e}")))?;
    Ok(shape::flatten(&expected))
}

/// The share of the largest reference value below which an element's error is measured
/// against that share rather than against the element itself (a sum that cancels to nearly
/// zero keeps the rounding of its terms).
pub const ERROR_FLOOR: f64 = 1e-2;

/// The largest relative error over the elements: `|c - r| / max(|r|, ERROR_FLOOR · max |r|)`
/// (the absolute error where every `r` is zero), where a NaN in both agrees and an infinity
/// must be the same infinity; NaN when a value is NaN alone or an infinity differs, and when
/// the lengths differ. Measured per element, a wrong value among large ones shows: measured
/// against the largest value alone, an error of 1 beside a value of 2²⁰ would not.
pub fn rel_error(c: &[f64], r: &[f64]) -> f64 {
    if c.len() != r.len() {
        return f64::NAN;
    }
    let largest = r
        .iter()
        .filter(|b| b.is_finite())
        .fold(0.0f64, |m, b| m.max(b.abs()));
    let floor = ERROR_FLOOR * largest;
    let mut worst: f64 = 0.0;
    for (a, b) in c.iter().zip(r) {
        if a.is_nan() && b.is_nan() {
            continue;
        }
        if a.is_infinite() || b.is_infinite() {
            if a == b {
                continue;
            }
            return f64::NAN;
        }
        let d = (a - b).abs();
        if d.is_nan() {
            return f64::NAN;
        }
        let scale = b.abs().max(floor);
        worst = worst.max(if scale > 0.0 { d / scale } else { d });
    }
    worst
}

fn read_doubles(path: &Path) -> Result<Vec<f64>, BenchError> {
    let bytes = std::fs::read(path).map_err(|e| BenchError::Generic {
        reason: format!("cannot read `{}`: {e}", path.display()),
    })?;
    Ok(bytes
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect())
}

/// Sizes for the check against the interpreter: the same small value for every size
/// parameter, the first of a few (odd ones first, so that tiles do not divide them) for which
/// the program's facts hold.
pub fn check_sizes(program: &TypedProgram) -> Result<Vec<u64>, BenchError> {
    for v in [13u64, 17, 24, 32, 48, 64, 96, 128] {
        let sizes = vec![v; program.size_params.len()];
        if program.violated_fact(&sizes).is_none() {
            return Ok(sizes);
        }
    }
    Err(BenchError::Generic {
        reason: format!(
            "no small sizes satisfy the facts of `{}`: give them with --check-size",
            program.name
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_in_both_agrees_and_a_lone_nan_or_another_infinity_does_not() {
        assert_eq!(rel_error(&[f64::NAN, 1.0], &[f64::NAN, 1.0]), 0.0);
        assert!(rel_error(&[f64::NAN, 1.0], &[0.0, 1.0]).is_nan());
        assert!(rel_error(&[f64::INFINITY], &[f64::NEG_INFINITY]).is_nan());
        assert_eq!(rel_error(&[f64::INFINITY, 2.0], &[f64::INFINITY, 2.0]), 0.0);
        assert_eq!(rel_error(&[1.5, 2.0], &[1.0, 2.0]), 0.5);
    }

    #[test]
    fn an_error_beside_a_large_value_shows() {
        // Against the largest value alone this would be 1e-5, within the bound.
        let e = rel_error(&[10010.0, 1e6], &[10000.0, 1e6]);
        assert!((e - 1e-3).abs() < 1e-9, "{e}");
        // A value that cancels to nearly zero is measured against 1e-2 of the largest.
        let e = rel_error(&[1e-9, 1e6], &[0.0, 1e6]);
        assert!(e < 1e-11, "{e}");
    }
}
