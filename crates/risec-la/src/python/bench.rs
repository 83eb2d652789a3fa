//! `risec la --bench --target numpy|dask`: the plan and the outputs as written, both as Python
//! modules for the target, timed by a driver (`driver.py`) run by the Python the user names,
//! checked against the plan run by NumPy at the declared sizes and, where the inputs are
//! small enough, against risec's own dense evaluator (`crate::eval`) on float64 inputs it
//! writes as `.npy` files.

use super::{module, python_names, Header, Target};
use crate::check::LaProgram;
use crate::optimize::LaPlan;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How to run the benchmark.
#[derive(Clone, Debug)]
pub struct PythonBench {
    /// NumPy or Dask.
    pub target: Target,
    /// The Python interpreter (with numpy and scipy; dask and distributed for Dask).
    pub python: PathBuf,
    /// Calls timed per function (after one warm-up call).
    pub rounds: usize,
    /// Seed of the random inputs.
    pub seed: u64,
    /// Dask: the address of a running scheduler; `None` starts a `LocalCluster`.
    pub scheduler: Option<String>,
    /// Dask: workers of the `LocalCluster`.
    pub workers: usize,
    /// Dask: each `LocalCluster` worker's memory limit in bytes (`None`: Dask's default).
    pub worker_memory: Option<u64>,
    /// Whether to leave the outputs as written out (when they are known to be too slow).
    pub skip_original: bool,
    /// A folder of inputs (`NAME.npy`, or `NAME.npz` as `scipy.sparse.save_npz` writes them)
    /// instead of random ones.
    pub inputs: Option<PathBuf>,
    /// Dask: how long the outputs as written may run before the cluster is restarted.
    pub original_timeout: std::time::Duration,
}

/// What the benchmark measured.
#[derive(Clone, Debug)]
pub struct PythonTiming {
    /// The packages and the scheduler, in words (`numpy 2.4.6, scipy 1.17.1`).
    pub versions: String,
    /// The outputs as written: median milliseconds and largest relative difference from the
    /// reference; or why they did not complete (`None` when skipped).
    pub original: Option<Result<(f64, f64), String>>,
    /// The plan: median milliseconds.
    pub plan_ms: f64,
    /// The plan's largest relative difference from the reference.
    pub plan_error: f64,
    /// The plan's largest relative difference from risec's evaluator on float64 inputs, when
    /// the inputs were small enough to evaluate.
    pub evaluator_error: Option<f64>,
    /// Calls timed per function.
    pub rounds: usize,
}

/// Why the benchmark did not run to the end.
#[derive(Debug, thiserror::Error)]
pub enum PythonBenchError {
    /// A file of the benchmark could not be written or read.
    #[error("error: {what}: {source}")]
    Io {
        /// Which file, and what was done to it.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// The interpreter could not be started.
    #[error("error: cannot run `{python}`: {source} (give a Python with numpy and scipy with --python, or set RISEC_PYTHON)")]
    Spawn {
        /// The interpreter.
        python: String,
        /// Why.
        source: std::io::Error,
    },
    /// The interpreter lacks a package the target needs.
    #[error("error: {0}; install the packages with `python3 -m venv .venv && .venv/bin/pip install -r python/requirements.txt` and pass `--python .venv/bin/python`")]
    Packages(String),
    /// `--inputs`: a file is missing or has the wrong shape.
    #[error("error: --inputs: {0}")]
    Inputs(String),
    /// The driver failed (its output is the message).
    #[error("error: the Python benchmark failed:\n{0}")]
    Failed(String),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> PythonBenchError {
    let what = what.into();
    move |source| PythonBenchError::Io { what, source }
}

/// Writes a matrix as a float64 `.npy` file.
fn write_npy(path: &Path, m: &crate::eval::Matrix) -> Result<(), PythonBenchError> {
    use npyz::WriterBuilder;
    let what = format!("cannot write {}", path.display());
    let file = std::fs::File::create(path).map_err(io(what.clone()))?;
    let mut writer = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&[m.shape.rows, m.shape.cols])
        .writer(std::io::BufWriter::new(file))
        .begin_nd()
        .map_err(io(what.clone()))?;
    writer
        .extend(m.data.iter().copied())
        .map_err(io(what.clone()))?;
    writer.finish().map_err(io(what))
}

/// Reads a float64 `.npy` file as a matrix.
fn read_npy(path: &Path) -> Result<crate::eval::Matrix, PythonBenchError> {
    let what = format!("cannot read {}", path.display());
    let bytes = std::fs::read(path).map_err(io(what.clone()))?;
    let file = npyz::NpyFile::new(&bytes[..]).map_err(io(what.clone()))?;
    let shape = file.shape().to_vec();
    let data: Vec<f64> = file.into_vec().map_err(io(what))?;
    let (rows, cols) = match shape[..] {
        [r, c] => (r, c),
        [n] => (n, 1),
        _ => (1, 1),
    };
    Ok(crate::eval::Matrix {
        shape: crate::check::Shape { rows, cols },
        data,
    })
}

/// Runs the benchmark in `dir`; `progress` is called with each step the driver reports.
pub fn run(
    program: &LaProgram,
    plan: &LaPlan,
    options: &PythonBench,
    dir: &Path,
    mut progress: impl FnMut(&str),
) -> Result<PythonTiming, PythonBenchError> {
    let (expr, roots) = crate::codegen::written(program);
    let files = [
        (
            "plan.py",
            module(
                program,
                &plan.expr,
                &plan.roots,
                options.target,
                &Header::plan(plan),
            ),
        ),
        (
            "original.py",
            module(program, &expr, &roots, options.target, &Header::original()),
        ),
        (
            "reference.py",
            module(
                program,
                &plan.expr,
                &plan.roots,
                Target::Numpy,
                &Header::plan(plan),
            ),
        ),
        ("driver.py", include_str!("driver.py").to_string()),
    ];
    for (name, text) in &files {
        std::fs::write(dir.join(name), text).map_err(io(format!("cannot write {name}")))?;
    }
    let (input_names, output_names) = python_names(program, &plan.roots);
    // Small enough for the dense evaluator: float64 inputs for the plan, outputs compared.
    let check = crate::optimize::evaluable(program, crate::support::memory::default_limit());
    let check_dir = dir.join("check");
    let inputs = if check {
        std::fs::create_dir_all(&check_dir).map_err(io("cannot make a directory"))?;
        let inputs = crate::eval::random_inputs(&program.inputs, options.seed);
        for (m, name) in inputs.iter().zip(&input_names) {
            write_npy(&check_dir.join(format!("{name}.npy")), m)?;
        }
        Some(inputs)
    } else {
        None
    };
    let mut cmd = Command::new(&options.python);
    cmd.current_dir(dir)
        .args([
            "driver.py",
            "--plan",
            "plan.py",
            "--original",
            "original.py",
        ])
        .args([
            "--reference",
            "reference.py",
            "--target",
            options.target.name(),
        ])
        .args(["--rounds", &options.rounds.to_string()])
        .args(["--seed", &options.seed.to_string()])
        .args(["--workers", &options.workers.to_string()]);
    if check {
        cmd.arg("--check-inputs").arg(&check_dir);
    }
    if let Some(s) = &options.scheduler {
        cmd.args(["--scheduler", s]);
    }
    if let Some(m) = options.worker_memory {
        cmd.args(["--worker-memory", &m.to_string()]);
    }
    if options.skip_original {
        cmd.arg("--skip-original");
    }
    if let Some(dir) = &options.inputs {
        cmd.arg("--inputs").arg(dir);
    }
    cmd.args([
        "--original-timeout",
        &options.original_timeout.as_secs_f64().to_string(),
    ]);
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| PythonBenchError::Spawn {
            python: options.python.display().to_string(),
            source,
        })?;
    let mut lines = Vec::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines() {
            let line = line.map_err(io("cannot read the driver's output"))?;
            if let Some(step) = line.strip_prefix("PROGRESS ") {
                progress(step);
            }
            lines.push(line);
        }
    }
    let output = child
        .wait_with_output()
        .map_err(io("cannot wait for the driver"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let field = |tag: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(tag).map(|v| v.trim().to_string()))
    };
    if let Some(why) = field("FAIL python") {
        return Err(PythonBenchError::Packages(why));
    }
    if let Some(why) = field("FAIL inputs") {
        return Err(PythonBenchError::Inputs(why));
    }
    let number = |tag: &str| field(tag).and_then(|v| v.parse::<f64>().ok());
    let (Some(plan_ms), Some(plan_error)) = (number("TIME plan"), number("ERROR plan")) else {
        let tail: Vec<&str> = stderr.lines().rev().take(25).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(PythonBenchError::Failed(format!(
            "{}\n{}",
            lines.join("\n"),
            tail.join("\n")
        )));
    };
    let original = if options.skip_original {
        None
    } else if let Some(why) = field("FAIL original") {
        Some(Err(why))
    } else {
        match (number("TIME original"), number("ERROR original")) {
            (Some(t), Some(e)) => Some(Ok((t, e))),
            _ => Some(Err("no result".into())),
        }
    };
    let evaluator_error = match inputs {
        Some(inputs) if field("CHECKED").is_some() => {
            let mut worst = 0.0f64;
            for ((_, term), name) in program.outputs.iter().zip(&output_names) {
                let (expected, scale) = crate::eval::term_with_scale(term, &inputs);
                let got = read_npy(&check_dir.join(format!("out_{name}.npy")))?;
                let e =
                    crate::eval::relative_error_at(&expected, &got, scale).unwrap_or(f64::INFINITY);
                worst = worst.max(e);
            }
            Some(worst)
        }
        _ => None,
    };
    Ok(PythonTiming {
        versions: field("VERSION").unwrap_or_default(),
        original,
        plan_ms,
        plan_error,
        evaluator_error,
        rounds: options.rounds,
    })
}
