//! `risec la FILE.la`: optimise linear-algebra outputs and prove assertions (see docs/la.md).

use crate::eqsat::schedule::Scheduler;
use risec_la::{self as la, Check, LaOptions};
use std::fmt::Write;
use std::time::Duration;

/// The options of `risec la`.
#[derive(clap::Args, Clone, Debug)]
pub struct LaArgs {
    /// The `.la` file.
    pub file: String,
    /// What to print for the outputs: `la`, the optimised plan as `.la` text; `python`, the
    /// plan as a Python module for `--target numpy` (the default) or `dask` (on standard
    /// output, or written to `-o FILE.py`; the plan's `.la` text then goes to standard error).
    #[arg(long, value_name = "WHAT", default_value = "la", value_parser = ["la", "python"])]
    pub emit: String,
    /// What `--emit python` and `--bench` target: `c` (`--bench`'s default: risec's C),
    /// `numpy` (NumPy and scipy.sparse; `--emit python`'s default) or `dask` (dask.array, with
    /// scipy.sparse chunks).
    #[arg(long, value_name = "TARGET", value_parser = ["c", "numpy", "dask"])]
    pub target: Option<String>,
    /// The Python interpreter of `--bench --target numpy|dask` (numpy and scipy; dask and
    /// distributed for Dask) [default: $RISEC_PYTHON, else `python3`].
    #[arg(long, value_name = "PATH")]
    pub python: Option<String>,
    /// `--bench --target dask`: the address of a running Dask scheduler (`tcp://host:8786`)
    /// [default: a `LocalCluster` started for the benchmark].
    #[arg(long, value_name = "ADDRESS")]
    pub dask_scheduler: Option<String>,
    /// `--bench --target dask`: workers of the `LocalCluster` (one thread each).
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub workers: usize,
    /// `--bench --target dask`: each `LocalCluster` worker's memory limit, e.g. `1GiB` (the
    /// plan's chunks are sized to an eighth of it) [default: Dask's, the machine's memory
    /// shared among the workers].
    #[arg(long, value_name = "SIZE", value_parser = crate::support::units::parse_size)]
    pub worker_memory: Option<u64>,
    /// `--bench --target dask`: how long the outputs as written may run on the cluster before
    /// it is restarted and they are reported as not finished.
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = crate::support::units::parse_duration)]
    pub original_time: Duration,
    /// `--bench --target numpy|dask`: read the inputs from this folder (`NAME.npy` for a dense
    /// input, `NAME.npz` as `scipy.sparse.save_npz` writes it for a sparse one) instead of
    /// making random ones.
    #[arg(long, value_name = "DIR")]
    pub inputs: Option<String>,
    /// `--bench` with a Python target: time the plan only, not the outputs as written (which
    /// may take minutes at the declared sizes).
    #[arg(long)]
    pub plan_only: bool,
    /// Time limit of the outputs' optimisation (saturation, at most 3/4 of it, and extraction)
    /// and of each assertion's proof, e.g. `1s`, `500ms`.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = crate::support::units::parse_duration)]
    pub time: Duration,
    /// Limit on the process's resident memory, e.g. `2GiB`, `300MiB` (the outputs' saturation
    /// stops at 3/4 of it, leaving the rest to extraction) [default: 4 GiB, or less where the
    /// process may not allocate that much (`ulimit -v`, cgroup)].
    #[arg(long, value_name = "SIZE", value_parser = crate::support::units::parse_size)]
    pub memory: Option<u64>,
    /// Limit on e-nodes of each saturation.
    #[arg(long, value_name = "N", default_value_t = LaOptions::default().nodes)]
    pub nodes: usize,
    /// Limit on iterations of each saturation.
    #[arg(long, value_name = "N", default_value_t = LaOptions::default().iterations)]
    pub iterations: usize,
    /// The rule scheduler: `simple` (every match), `sample(K)` (SPORES' sampling: at most K
    /// matches per rule and iteration, for expressions whose saturation explodes) or
    /// `backoff`.
    #[arg(long, value_name = "SCHEDULER", default_value = "simple")]
    pub scheduler: Scheduler,
    /// Seed of `sample` and of the random inputs of the numerical check.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Write the plan as C to this file (and its header beside it, `.h`): dense operations
    /// compiled from Rise, sparse inputs in CSR; with `--emit python`, the Python module.
    #[arg(short = 'o', long = "output", value_name = "FILE.c")]
    pub output: Option<String>,
    /// With `-o` or `--emit python`: the outputs as written instead of the plan (for
    /// comparisons).
    #[arg(long)]
    pub original: bool,
    /// Compile the outputs as written and the plan as C, check that they agree on random
    /// inputs (sparse ones with their declared non-zeros) and time both.
    #[arg(long)]
    pub bench: bool,
    /// A matmul sketch file (`sketches/matmul/*.sk`) for the matrix products of the C (`-o`,
    /// `--bench`): SPORES decides what to compute, the sketch how to compute a product.
    #[arg(long, value_name = "FILE.sk")]
    pub matmul_sketch: Option<String>,
    /// Calls timed per function with `--bench` (the median is reported; at least 1).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = super::args::parse_rounds::<usize>)]
    pub rounds: usize,
    /// How the plan is extracted: `greedy` (CSE-aware, fast) or `ilp` (SPORES' integer linear
    /// program, seeded with the greedy plan; needs a risec built with `--features ilp`).
    #[arg(long, value_name = "WHICH", default_value = "greedy", value_parser = ["greedy", "ilp"])]
    pub extractor: String,
    /// Time limit of the ILP extractor.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = crate::support::units::parse_duration)]
    pub ilp_time: Duration,
    /// Print what each saturation did (iterations, e-nodes, why it stopped, time) on standard
    /// error.
    #[arg(long)]
    pub stats: bool,
}

/// What `risec la` prints on standard output and standard error, and its exit status.
#[derive(Clone, Debug)]
pub struct LaOutput {
    /// Standard output: the plan and its cost line, then one line per assertion.
    pub stdout: String,
    /// Standard error: the numerical check and, with `--stats`, the saturations.
    pub stderr: String,
    /// 0, or 2 when an assertion was not proven.
    pub code: u8,
}

/// A cost as a short number (`1.2e9`, `350`).
fn cost(c: f64) -> String {
    if c < 1e4 {
        la::number(c.round())
    } else {
        format!("{c:.2e}")
    }
}

/// The search's options as the command line gives them.
fn options(args: &LaArgs) -> LaOptions {
    LaOptions {
        time: args.time,
        memory: args
            .memory
            .unwrap_or_else(crate::support::memory::default_limit),
        nodes: args.nodes,
        iterations: args.iterations,
        scheduler: args.scheduler,
        seed: args.seed,
        extractor: if args.extractor == "ilp" {
            la::Extractor::Ilp(args.ilp_time)
        } else {
            la::Extractor::Greedy
        },
    }
}

/// Runs `risec la`; errors (unreadable or invalid files, an unavailable scheduler, a plan that
/// fails its check) are rendered messages.
pub fn la(args: &LaArgs) -> Result<LaOutput, String> {
    let program = la::load(std::path::Path::new(&args.file)).map_err(|e| e.to_string())?;
    let options = options(args);
    let mut out = LaOutput {
        stdout: String::new(),
        stderr: String::new(),
        code: 0,
    };
    if program.outputs.is_empty() && (args.output.is_some() || args.bench) {
        return Err(format!(
            "error: `{}` has no `output` to compile (only assertions)",
            args.file
        ));
    }
    if args.rounds == 0 {
        return Err(
            "error: `--rounds 0`: at least 1 timed round is needed (no round would give no time)"
                .into(),
        );
    }
    let sketch = args.matmul_sketch.as_deref().map(std::path::Path::new);
    let python = crate::la_python::PythonRequest::from_args(args)?;
    if args.original && args.output.is_none() && python.emit.is_none() {
        return Err("error: `--original` needs `-o FILE` or `--emit python`".into());
    }
    if program.outputs.is_empty() && python.emit.is_some() {
        return Err(format!(
            "error: `{}` has no `output` to emit (only assertions)",
            args.file
        ));
    }
    match (&args.output, python.emit) {
        (Some(path), None) => check_c_output(std::path::Path::new(path), &args.file, sketch)?,
        (Some(path), Some(_)) => crate::la_python::check_output(path, &args.file)?,
        _ => {}
    }
    if !program.outputs.is_empty() {
        plan_outputs(args, &program, &options, sketch, &python, &mut out)?;
    }
    prove_assertions(args, &program, &options, &mut out)?;
    Ok(out)
}

/// The outputs' plan: found, checked against the outputs as written, printed, and written as C
/// or benchmarked as the arguments say.
fn plan_outputs(
    args: &LaArgs,
    program: &la::LaProgram,
    options: &LaOptions,
    sketch: Option<&std::path::Path>,
    python: &crate::la_python::PythonRequest,
    out: &mut LaOutput,
) -> Result<(), String> {
    let plan = la::optimize(program, options).map_err(|e| e.to_string())?;
    if args.stats {
        let s = &plan.stats;
        let _ = writeln!(
            out.stderr,
            "outputs: {} iterations, {} e-nodes, {} e-classes, stopped: {}, saturation {}, extraction {} ({})",
            s.iterations,
            s.enodes,
            s.eclasses,
            s.stop,
            humantime::format_duration(round_ms(s.time)),
            humantime::format_duration(round_ms(plan.extraction)),
            plan.extractor,
        );
    }
    if let Some(cut) = &plan.cut {
        let _ = writeln!(out.stderr, "note: {cut}");
    }
    let checked = check_line(la::check_plan_within(
        program,
        &plan,
        args.seed,
        options.memory,
    ))?;
    let _ = writeln!(out.stderr, "{checked}");
    let cost_line = format!(
        "estimated cost: {} -> {}",
        cost(plan.original_cost),
        cost(plan.plan_cost)
    );
    if let (Some(target), None) = (python.emit, &args.output) {
        // The module is standard output; what would be printed goes to standard error.
        let _ = writeln!(out.stderr, "{}{cost_line}", plan.text);
        out.stdout.push_str(&crate::la_python::module(
            program,
            &plan,
            target,
            args.original,
        ));
    } else {
        let _ = writeln!(out.stdout, "{}{cost_line}", plan.text);
    }
    match (&args.output, python.emit) {
        (Some(path), Some(target)) => {
            crate::la_python::write_module(path, program, &plan, target, args.original)?
        }
        (Some(path), None) => write_c(path, program, &plan, args.original, sketch)?,
        _ => {}
    }
    if args.bench {
        let line = match &python.bench {
            Some(bench) => crate::la_python::bench_line(program, &plan, bench)?,
            None => bench_line(program, &plan, args.rounds, sketch)?,
        };
        let _ = writeln!(out.stdout, "{line}");
    }
    Ok(())
}

/// What the check of the plan against the outputs as written found, as the line printed; an
/// error where they differ.
fn check_line(check: Check) -> Result<String, String> {
    match check {
        Check::Agrees(e) => Ok(format!(
            "checked: the plan agrees with the outputs as written on random inputs (largest relative difference {e:.1e})"
        )),
        Check::TooLarge(work) => Ok(format!(
            "not checked: evaluating the outputs as written would take about {} operations",
            cost(work)
        )),
        Check::OverMemory(bytes) => Ok(format!(
            "not checked: evaluating the outputs as written would take about {} of memory, past what the memory limit leaves",
            crate::support::units::format_bytes(bytes)
        )),
        Check::Differs(name, e) => Err(format!(
            "error: internal compiler error: the plan of output `{name}` differs from the output as written (relative difference {e:.1e}); nothing was printed"
        )),
    }
}

/// `--bench`: the plan's C timed against the outputs' as written; the line printed.
fn bench_line(
    program: &la::LaProgram,
    plan: &la::LaPlan,
    rounds: usize,
    sketch: Option<&std::path::Path>,
) -> Result<String, String> {
    let dir = crate::support::cleanup::WorkDir::new()
        .map_err(|e| format!("error: cannot make a directory: {e}"))?;
    let t = la::codegen::bench::run(program, plan, rounds, dir.path(), sketch).map_err(|e| {
        if e.starts_with("error") {
            e
        } else {
            format!("error: {e}")
        }
    })?;
    if t.error.is_nan() || t.error > 1e-3 {
        return Err(format!(
            "error: internal compiler error: the plan's C differs from the outputs' (relative difference {:.1e})",
            t.error
        ));
    }
    Ok(format!(
        "benchmark (risec C, median of {} calls): as written {:.3} ms, plan {:.3} ms, {} (outputs agree within {:.1e})",
        t.rounds,
        t.original_ms,
        t.plan_ms,
        speed_up(t.original_ms, t.plan_ms),
        t.error
    ))
}

/// Proves the `assert` lines; exit status 2 where one is not proven.
fn prove_assertions(
    args: &LaArgs,
    program: &la::LaProgram,
    options: &LaOptions,
    out: &mut LaOutput,
) -> Result<(), String> {
    for assertion in &program.assertions {
        let proof = la::prove(program, assertion, options).map_err(|e| e.to_string())?;
        let s = &proof.stats;
        let verdict = if proof.proven { "proven" } else { "not proven" };
        let _ = writeln!(
            out.stdout,
            "{verdict}: {}:{}: {}",
            program.file.name, assertion.line, assertion.text
        );
        if !proof.proven {
            out.code = 2;
            let _ = writeln!(
                out.stdout,
                "  (saturation stopped: {}, after {} iterations and {} e-nodes)",
                s.stop, s.iterations, s.enodes
            );
        }
        if args.stats {
            let _ = writeln!(
                out.stderr,
                "line {}: {} iterations, {} e-nodes, stopped: {}, {}",
                assertion.line,
                s.iterations,
                s.enodes,
                s.stop,
                humantime::format_duration(round_ms(s.time))
            );
        }
    }
    Ok(())
}

/// `speed-up 2.5x`, or why there is none: a time of zero (below the clock's resolution) or not
/// a number gives no ratio.
pub fn speed_up(original_ms: f64, plan_ms: f64) -> String {
    match risec_bench::speed_up(original_ms, plan_ms) {
        Some(ratio) => format!("speed-up {ratio:.1}x"),
        None => "no speed-up measured (a time below the clock's resolution)".to_string(),
    }
}

fn round_ms(d: Duration) -> Duration {
    Duration::from_millis(d.as_millis() as u64)
}

/// Checks, before any work, that the C file `path` and its header can be written and overwrite
/// no input: the `.la` file, the matmul sketch or a file it imports.
fn check_c_output(
    path: &std::path::Path,
    la_file: &str,
    sketch: Option<&std::path::Path>,
) -> Result<(), String> {
    if path.extension().is_some_and(|e| e == "h") {
        return Err(format!(
            "error: `{}` would be both the C file and its header; name the C file `.c`",
            path.display()
        ));
    }
    let mut inputs = vec![std::path::PathBuf::from(la_file)];
    if let Some(sketch) = sketch {
        inputs.push(sketch.to_path_buf());
        inputs.extend(la::codegen::kernels::matmul_sketch_files(sketch)?);
    }
    let inputs: Vec<&std::path::Path> = inputs.iter().map(|p| p.as_path()).collect();
    let header = path.with_extension("h");
    crate::support::output::check_not_inputs(&[path, &header], &inputs)
        .map_err(|e| e.to_string())?;
    crate::support::output::check_writable_pair(path, &header).map_err(|e| e.to_string())
}

/// Writes the plan (or the outputs as written) as `path` and its header.
fn write_c(
    path: &str,
    program: &la::LaProgram,
    plan: &la::LaPlan,
    original: bool,
    sketch: Option<&std::path::Path>,
) -> Result<(), String> {
    let path = std::path::Path::new(path);
    let header_path = path.with_extension("h");
    let header_name = header_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plan.h".into());
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Prefixed, so that no file name makes a C keyword or a runtime function's name.
    let function: String = std::iter::once("la_plan_".to_string())
        .chain(
            stem.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }.to_string()),
        )
        .collect();
    let file = if original {
        let (expr, roots) = la::codegen::written(program);
        la::codegen::c_file(&function, &header_name, &expr, &roots, program, sketch)
    } else {
        la::codegen::c_file(
            &function,
            &header_name,
            &plan.expr,
            &plan.roots,
            program,
            sketch,
        )
    }
    .map_err(|e| {
        if e.starts_with("error") {
            e
        } else {
            format!("error: internal compiler error: {e}")
        }
    })?;
    crate::support::output::write_all_atomically(&[
        (path, &file.source),
        (&header_path, &file.header),
    ])
    .map_err(|e| e.to_string())
}
