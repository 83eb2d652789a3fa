//! `risec bench`: the versions of any program (sketch files, low-level files), the naive
//! lowering, C functions given as baselines, a preset's baselines (a matrix multiplication's
//! TVM steps) and OpenBLAS where it applies, checked against the interpreter and timed by the
//! one harness of [`risec_bench`]; the table, and the optional CSV and plot.

use crate::core::TypedProgram;
use crate::support::output::{check_not_inputs, check_writable, write_atomically};
use crate::versions::{
    check_lines, check_sizes, driver_bytes, load_version, run_sizes, sizes_text,
    sketch_version_with, tuned_params, tuned_sketch_version, user_baseline, work_dir,
};
use risec_bench::{presets, Kernels, Oracle, Version};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The arguments of `risec bench` (clap reads them from the command line).
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// The program the sketches optimise (e.g. `examples/matmul.rise`) [default with
    /// `--version` alone: the naive matrix multiplication].
    pub program: Option<String>,
    /// A sketch file; the version it gives is named after the file (repeatable).
    #[arg(long = "sketch", value_name = "FILE.sk")]
    pub sketches: Vec<String>,
    /// A version: `NAME=FILE.rise`, a low-level program of the program's type; repeatable.
    /// For a matrix multiplication, its hand-written twin is the TVM baseline `NAME (C)`.
    #[arg(long = "version", value_name = "NAME=FILE.rise")]
    pub versions: Vec<String>,
    /// The sizes, e.g. `m=1024,n=1024,k=1024` [default for a matrix multiplication:
    /// m=1024,n=1024,k=1024; other programs must give theirs].
    #[arg(long)]
    pub size: Option<String>,
    /// Sizes of the check against the reference interpreter before the benchmark, e.g.
    /// `n=13` [default: a small size the program's facts allow].
    #[arg(long, value_name = "SIZES")]
    pub check_size: Option<String>,
    /// A C function of the program's signature timed beside the versions:
    /// `NAME=FILE.c:FUNCTION` (repeatable). Headers beside FILE.c are found.
    #[arg(long = "baseline", value_name = "NAME=FILE.c:FUNCTION")]
    pub baseline: Vec<String>,
    /// Link this library for the `--baseline` functions (`-lLIB`; repeatable).
    #[arg(long = "link", value_name = "LIB")]
    pub link: Vec<String>,
    /// OpenMP thread counts, e.g. `1,2`.
    #[arg(long, default_value = "1", value_delimiter = ',')]
    pub threads: Vec<u32>,
    /// Timed rounds per thread count (kernels interleaved; the median is reported; a kernel
    /// slower than 2 s, the naive loop at large sizes, is timed by its check run alone; the
    /// thread counts run in one process on one reference result).
    #[arg(long, default_value_t = 7, value_parser = super::args::parse_rounds::<u32>)]
    pub rounds: u32,
    /// Draw bars to this SVG file: GFLOP/s where the program's floating-point operations are
    /// counted, GB/s otherwise.
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<String>,
    /// Write the results as CSV to this file.
    #[arg(long, value_name = "OUT.csv")]
    pub csv: Option<String>,
    /// Keep the generated C and the driver in this directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<String>,
    /// Leave out the preset baselines (a matrix multiplication's hand-written TVM steps) and
    /// OpenBLAS; the naive lowering and `--baseline` functions still run.
    #[arg(long, conflicts_with = "baselines")]
    pub no_baselines: bool,
    /// Run only these of the preset baselines: `openblas`, and for a matrix multiplication the
    /// TVM steps (`naive`, `parallel`, `cache-blocks`, …), comma-separated [default: all].
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    pub baselines: Option<Vec<String>>,
    /// Compile the sketches' versions as their kernels alone: sizes their tiles do not divide
    /// are refused (a row says so) instead of rounded up.
    #[arg(long)]
    pub exact_sizes: bool,
    /// Do not check the sketch files' user rule NAME against the reference interpreter when
    /// they are loaded (a warning says so). Repeatable.
    #[arg(long = "trust-rule", value_name = "NAME")]
    pub trust_rule: Vec<String>,
    /// A tuning file (`risec tune`): each sketch with a record for this program also runs with
    /// the parameters of the record that fits this machine, `--size` and the first `--threads`
    /// best, as `NAME (tuned)` beside its defaults.
    #[arg(long, value_name = "FILE.json")]
    pub tuning: Option<String>,
}

/// The preset baselines named in `--baselines`, checked against the ones the program has
/// (all of them without `--baselines`; none with `--no-baselines`).
fn baseline_selection(args: &BenchArgs, matmul: bool) -> Result<Vec<String>, String> {
    let known: Vec<&str> = if matmul {
        presets::baseline_names()
    } else {
        vec![presets::OPENBLAS]
    };
    if args.no_baselines {
        return Ok(Vec::new());
    }
    let Some(names) = &args.baselines else {
        return Ok(known.iter().map(|s| s.to_string()).collect());
    };
    for name in names {
        if !known.contains(&name.as_str()) {
            return Err(format!(
                "error: unknown baseline `{name}` in --baselines (known{}: {})",
                if matmul { "" } else { " for this program" },
                known.join(", ")
            ));
        }
    }
    Ok(names.clone())
}

/// The program: the file given, or the naive matrix multiplication when only `--version`
/// files are.
fn program(args: &BenchArgs) -> Result<TypedProgram, String> {
    match &args.program {
        Some(path) => crate::load_program(path, None).map_err(|e| e.to_string()),
        None if !args.versions.is_empty() => {
            presets::matmul_program().map_err(|e| e.to_string())
        }
        None => Err("error: `risec bench` needs the program and its versions: `risec bench examples/matmul.rise --sketch sketches/matmul/parallel.sk`".into()),
    }
}

/// The benchmark sizes: `--size`, or a matrix multiplication's default.
fn bench_sizes(args: &BenchArgs, program: &TypedProgram) -> Result<Vec<u64>, String> {
    let text = match (&args.size, presets::is_matmul(program)) {
        (Some(text), _) => text.as_str(),
        (None, true) => presets::MATMUL_DEFAULT_SIZE,
        (None, false) => {
            return Err(format!(
                "error: `{}` is not a matrix multiplication: give its sizes, as in `--size {}`",
                program.name,
                program
                    .size_params
                    .iter()
                    .map(|n| format!("{n}=…"))
                    .collect::<Vec<_>>()
                    .join(",")
            ))
        }
    };
    run_sizes(program, text)
}

/// Runs `risec bench`: every kernel checked against the interpreter at small sizes, then
/// timed at the benchmark sizes; returns the table (progress goes to standard error).
pub fn bench(args: &BenchArgs) -> Result<String, String> {
    if args.rounds == 0 {
        return Err(
            "error: `--rounds 0`: at least 1 timed round is needed (no round would give no time)"
                .into(),
        );
    }
    if args.threads.is_empty() || args.threads.contains(&0) {
        return Err("error: `--threads` must list positive thread counts, e.g. `1,2`".into());
    }
    check_report_outputs(args, &[])?;
    if !args.sketches.is_empty() && args.program.is_none() {
        return Err(
            "error: `--sketch` needs the program: `risec bench examples/matmul.rise --sketch …`"
                .into(),
        );
    }
    let program = program(args)?;
    let matmul = presets::is_matmul(&program);
    let sizes = bench_sizes(args, &program)?;
    let selection = baseline_selection(args, matmul)?;
    let mut user = if matmul {
        presets::tvm_baselines(&selection)
    } else {
        Vec::new()
    };
    for b in &args.baseline {
        user.push(user_baseline(b)?);
    }
    let mut read = Vec::new();
    let mut versions = Vec::new();
    for sketch in &args.sketches {
        // `program(args)` loaded it: it is there.
        let path = args.program.as_deref().unwrap_or_default();
        versions.push(Version {
            exact_sizes: args.exact_sizes,
            ..sketch_version_with(path, sketch, &args.trust_rule, &mut read)?
        });
    }
    if let Some(file) = &args.tuning {
        let path = args.program.as_deref().unwrap_or_default();
        let size = sizes_text(&program, &sizes);
        for sketch in &args.sketches {
            let params = tuned_params(
                file,
                &program,
                sketch,
                Some(&size),
                args.threads.first().copied(),
                false,
            )?;
            if !params.is_empty() {
                versions.push(Version {
                    exact_sizes: args.exact_sizes,
                    ..tuned_sketch_version(path, sketch, &args.trust_rule, params)?
                });
            }
        }
    }
    for v in &args.versions {
        versions.push(load_version(v)?);
    }
    check_report_outputs(args, &read)?;
    let (dir, _guard) = work_dir(args.keep.as_deref())?;
    if selection.iter().any(|s| s == presets::OPENBLAS)
        && !risec_bench::compile::openblas_available()
    {
        eprintln!(
            "note: OpenBLAS is not installed (apt-get install libopenblas-dev): no OpenBLAS row"
        );
    }
    eprintln!(
        "compiling {} version(s), the naive lowering and {} baseline(s) with cc...",
        versions.len(),
        user.len()
    );
    let built = risec_bench::build(
        &Kernels {
            program: &program,
            versions: &versions,
            user: &user,
            openblas: selection.iter().any(|s| s == presets::OPENBLAS),
            sanitize: false,
            libs: &args.link,
            extra_flags: &[],
            reference: None,
        },
        &dir,
    )
    .map_err(|e| e.to_string())?;
    let small = check_sizes(&program, args.check_size.as_deref())?;
    let threads = args.threads.first().copied().unwrap_or(1);
    let checked = risec_bench::verify(&built, &program, &small, &Oracle::new(threads), &dir)
        .map_err(|e| e.to_string())?;
    let mut check = format!(
        "checked against the reference interpreter at {}:\n",
        sizes_text(&program, &small)
    );
    // A kernel that refuses the small sizes (a tiled baseline or low-level version, one compiled
    // for exact sizes) is checked at the benchmark sizes only, against the reference.
    if !check_lines(&checked, &|_| true, &mut check) {
        return Err(format!(
            "{check}error: a kernel failed verification (a wrong result, an access outside its arrays, a crash, or sizes it refused)"
        ));
    }
    eprint!("{check}");
    if built.blas.is_some() {
        if let Some(core) = risec_bench::compile::openblas_coretype() {
            eprintln!("OpenBLAS: using its {core} kernels (OPENBLAS_CORETYPE={core}; set OPENBLAS_CORETYPE to choose others)");
        }
    }
    let array_bytes = driver_bytes(&program, &sizes)?;
    if let Some(warning) = naive_warning(built.flops(&sizes)) {
        eprint!("{warning}");
    }
    let arrays = array_bytes
        .map(|b| format!(" ({} of arrays)", crate::support::units::format_bytes(b)))
        .unwrap_or_default();
    eprintln!(
        "running {}{arrays} with {} thread(s), {} rounds each...",
        sizes_text(&program, &sizes),
        args.threads
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        args.rounds
    );
    let report = risec_bench::bench(&built, &sizes, &args.threads, args.rounds)
        .map_err(|e| e.to_string())?;
    let mut out = report.table();
    if let Some(path) = &args.csv {
        write_atomically(Path::new(path), &report.csv()).map_err(|e| e.to_string())?;
        let _ = writeln!(out, "wrote {path}");
    }
    if let Some(path) = &args.plot {
        report.plot(Path::new(path)).map_err(|e| e.to_string())?;
        let _ = writeln!(out, "wrote {path}");
    }
    Ok(out)
}

/// The speed assumed of a naive lowering, in floating-point operations per second (measured on
/// the 2-core development machine: the naive matrix multiplication at 0.7 GFLOP/s at 1024³ and
/// 2.3 at 1664³).
const NAIVE_FLOPS_PER_SECOND: f64 = 1e9;

/// The warning printed before the timing when the naive lowering, which every benchmark runs
/// (and computes once more in double precision as the reference), would take more than 10 s a
/// call at [`NAIVE_FLOPS_PER_SECOND`]: such a kernel is called once per thread count, not per
/// round.
fn naive_warning(flops: Option<u64>) -> Option<String> {
    let flops = flops?;
    let seconds = flops as f64 / NAIVE_FLOPS_PER_SECOND;
    (seconds > 10.0).then(|| {
        crate::diagnostics::render_unplaced(
            crate::diagnostics::Severity::Warning,
            &format!(
                "the program does {:.1} GFLOP a call: its naive lowering may take about {:.0} s a call (at 1 GFLOP/s); it runs once per thread count (its check run is its time) and once more in double precision as the reference (a smaller `--size` takes less)",
                flops as f64 / 1e9,
                seconds
            ),
            &[],
        )
    })
}

/// The files `risec bench` reads: the program, the sketch files and `read` (the files the
/// sketches imported, once loaded), the versions' files and the baselines' C files.
fn inputs(args: &BenchArgs, read: &[PathBuf]) -> Vec<PathBuf> {
    let versions = args
        .versions
        .iter()
        .filter_map(|v| v.split_once('='))
        .map(|(_, f)| f);
    let baselines = args
        .baseline
        .iter()
        .filter_map(|b| b.split_once('=')?.1.rsplit_once(':'))
        .map(|(f, _)| f);
    args.program
        .iter()
        .chain(&args.sketches)
        .chain(&args.tuning)
        .map(String::as_str)
        .chain(versions)
        .chain(baselines)
        .map(PathBuf::from)
        .chain(read.iter().cloned())
        .collect()
}

/// Checks that `--csv` and `--plot` can be written and overwrite no input (see [`inputs`]).
fn check_report_outputs(args: &BenchArgs, read: &[PathBuf]) -> Result<(), String> {
    let outputs: Vec<&Path> = args.csv.iter().chain(&args.plot).map(Path::new).collect();
    for output in &outputs {
        check_writable(output).map_err(|e| e.to_string())?;
    }
    let inputs = inputs(args, read);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    check_not_inputs(&outputs, &inputs).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::naive_warning;

    #[test]
    fn a_slow_naive_lowering_is_announced() {
        // 1024³ (2.1 GFLOP) is quiet; 2048³ (17.2 GFLOP, about 17 s) is not.
        assert_eq!(naive_warning(Some(2 * 1024 * 1024 * 1024)), None);
        assert_eq!(naive_warning(None), None);
        let w = naive_warning(Some(2 * 2048 * 2048 * 2048)).unwrap();
        assert!(
            w.contains("warning: the program does 17.2 GFLOP a call"),
            "{w}"
        );
        assert!(w.contains("about 17 s a call"), "{w}");
    }
}
