//! The `risec bench` command line: versions from `--version NAME=FILE.rise`, then
//! `bench::run`, the table, and the optional CSV and plot.

use crate::support::output::{check_not_inputs, check_writable, write_atomically};
use risec_bench::harness::BASELINES;
use risec_bench::{BenchOptions, Version};
use std::path::{Path, PathBuf};

/// The arguments of `risec bench` (clap reads them from the command line).
#[derive(clap::Args, Clone, Debug)]
pub struct BenchArgs {
    /// The program the sketches optimise (e.g. `examples/matmul.rise`).
    pub program: Option<String>,
    /// A sketch file; the version it gives is named after the file (repeatable).
    #[arg(long = "sketch", value_name = "FILE.sk")]
    pub sketches: Vec<String>,
    /// A version: `NAME=FILE.rise`, a low-level `def matmul {m n k : nat} (a : m.k.f32)
    /// (b : k.n.f32) : m.n.f32`; repeatable. Its hand-written twin is the baseline NAME.
    #[arg(long = "version", value_name = "NAME=FILE.rise")]
    pub versions: Vec<String>,
    /// The sizes, e.g. `m=1024,n=1024,k=1024` [default for the matrix multiplication:
    /// m=1024,n=1024,k=1024; other programs must give theirs].
    #[arg(long)]
    pub size: Option<String>,
    /// For a program other than the matrix multiplication: sizes of the check against the
    /// reference interpreter before the benchmark, e.g. `n=13` [default: a small size the
    /// program's facts allow].
    #[arg(long, value_name = "SIZES")]
    pub check_size: Option<String>,
    /// A C function of the program's signature timed beside the versions:
    /// `NAME=FILE.c:FUNCTION` (repeatable; programs other than the matrix multiplication).
    #[arg(long = "baseline", value_name = "NAME=FILE.c:FUNCTION")]
    pub baseline: Vec<String>,
    /// Link this library for the `--baseline` functions (`-lLIB`; repeatable).
    #[arg(long = "link", value_name = "LIB")]
    pub link: Vec<String>,
    /// OpenMP thread counts, e.g. `1,2`.
    #[arg(long, default_value = "1", value_delimiter = ',')]
    pub threads: Vec<u32>,
    /// Timed rounds per thread count (kernels interleaved; the median is reported; a kernel
    /// slower than 2 s, the naive loop at large sizes, is timed once; the thread counts run in one
    /// process on one reference result).
    #[arg(long, default_value_t = 7, value_parser = super::args::parse_rounds::<u32>)]
    pub rounds: u32,
    /// Draw GFLOP/s bars to this SVG file.
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<String>,
    /// Write the results as CSV to this file.
    #[arg(long, value_name = "OUT.csv")]
    pub csv: Option<String>,
    /// Keep the generated C and the driver in this directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<String>,
    /// Leave out the hand-written TVM baselines and OpenBLAS (the naive one always runs).
    #[arg(long, conflicts_with = "baselines")]
    pub no_baselines: bool,
    /// Run only these baselines besides the naive one: names of the TVM baselines
    /// (`parallel`, `cache-blocks`, …) and `openblas`, comma-separated [default: all].
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
}

/// The baselines named on the command line, checked against the known ones (all when `None`).
fn baseline_selection(names: Option<&[String]>) -> Result<Vec<String>, String> {
    let known: Vec<&str> = BASELINES.iter().map(|b| b.0).chain(["openblas"]).collect();
    let Some(names) = names else {
        return Ok(known.iter().map(|s| s.to_string()).collect());
    };
    for name in names {
        if !known.contains(&name.as_str()) {
            return Err(format!(
                "error: unknown baseline `{name}` in --baselines (known: {})",
                known.join(", ")
            ));
        }
    }
    Ok(names.to_vec())
}

/// Parses `m=1024,n=512,k=256` (all three required, positive).
pub fn parse_mnk(text: &str) -> Result<[u64; 3], String> {
    let mut out = [0u64; 3];
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("error: `--size {item}`: expected NAME=VALUE"))?;
        let slot = match name.trim() {
            "m" => 0,
            "n" => 1,
            "k" => 2,
            other => {
                return Err(format!(
                    "error: `--size`: unknown size `{other}` (expected m, n and k)"
                ))
            }
        };
        out[slot] = value
            .trim()
            .parse()
            .ok()
            .filter(|v| *v > 0 && *v <= 1 << 15)
            .ok_or_else(|| {
                format!("error: `--size {item}`: expected a whole number from 1 to 32768")
            })?;
    }
    if out.contains(&0) {
        return Err(
            "error: `--size` must give m, n and k, as in `--size m=1024,n=1024,k=1024`".into(),
        );
    }
    Ok(out)
}

/// Loads a `NAME=FILE.rise` version.
pub fn load_version(item: &str) -> Result<Version, String> {
    let (name, file) = item
        .split_once('=')
        .ok_or_else(|| format!("error: `--version {item}`: expected NAME=FILE.rise"))?;
    let program = crate::frontend::load::compile_file(file, None).map_err(|e| e.to_string())?;
    Ok(Version {
        name: name.trim().to_string(),
        program,
        exact_sizes: false,
    })
}

/// The version a sketch file gives: `program` optimised by the sketch's guide steps and lowered,
/// named after the file.
pub fn sketch_version(program: &str, sketch: &str) -> Result<Version, String> {
    sketch_version_with(program, sketch, &[], &mut Vec::new())
}

/// [`sketch_version`], with the user rules named in `trusted` not checked against the
/// interpreter (`--trust-rule`); the loading's warnings go to standard error. The files the
/// sketch reads (it and its imports) are added to `read`.
pub fn sketch_version_with(
    program: &str,
    sketch: &str,
    trusted: &[String],
    read: &mut Vec<std::path::PathBuf>,
) -> Result<Version, String> {
    let name = std::path::Path::new(sketch)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| sketch.to_string());
    eprintln!("searching {name} ({sketch})");
    let options = crate::SketchOptions {
        trusted_rules: trusted.to_vec(),
    };
    let optimized = crate::load_program(program, None).and_then(|p| {
        let loaded = crate::load_sketch_with(sketch, &p, &options)?;
        for w in &loaded.warnings {
            eprintln!("{w}");
        }
        read.extend(loaded.files);
        crate::optimize(&p, &loaded.steps, &Default::default())
    });
    match optimized {
        Ok(done) => Ok(Version {
            name,
            program: done.program,
            exact_sizes: false,
        }),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether the program at `path` is a matrix multiplication the matmul benchmark (with its
/// hand-written TVM baselines) takes; other programs get the generic one.
fn is_matmul(path: &str) -> Result<bool, String> {
    let p = crate::load_program(path, None).map_err(|e| e.to_string())?;
    Ok(p.size_params == ["m", "n", "k"]
        && crate::core::print::program_type_to_source(&p) == risec_bench::MATMUL_TYPE)
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
        .map(String::as_str)
        .chain(versions)
        .chain(baselines)
        .map(PathBuf::from)
        .chain(read.iter().cloned())
        .collect()
}

/// Checks that `--csv` and `--plot` can be written and overwrite no input (see [`inputs`]).
pub(super) fn check_report_outputs(args: &BenchArgs, read: &[PathBuf]) -> Result<(), String> {
    let outputs: Vec<&Path> = args.csv.iter().chain(&args.plot).map(Path::new).collect();
    for output in &outputs {
        check_writable(output).map_err(|e| e.to_string())?;
    }
    let inputs = inputs(args, read);
    let inputs: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
    check_not_inputs(&outputs, &inputs).map_err(|e| e.to_string())
}

/// Runs `risec bench`; returns the table (progress goes to standard error).
pub fn bench(args: &BenchArgs) -> Result<String, String> {
    if args.rounds == 0 {
        return Err(
            "error: `--rounds 0`: at least 1 timed round is needed (no round would give no time)"
                .into(),
        );
    }
    check_report_outputs(args, &[])?;
    if let Some(program) = &args.program {
        if !args.baseline.is_empty() || !is_matmul(program)? {
            if args.plot.is_some() {
                return Err("error: `--plot` draws GFLOP/s bars of matrix multiplications; for other programs, write the results with `--csv`".into());
            }
            return super::verify::bench_generic(args, program);
        }
    }
    if !args.baseline.is_empty() {
        return Err("error: `--baseline` needs the program: `risec bench PROGRAM.rise --sketch … --baseline NAME=FILE.c:FUNCTION`".into());
    }
    let sizes = parse_mnk(args.size.as_deref().unwrap_or("m=1024,n=1024,k=1024"))?;
    if args.threads.is_empty() || args.threads.contains(&0) {
        return Err("error: `--threads` must list positive thread counts, e.g. `1,2`".into());
    }
    let mut versions: Vec<Version> = Vec::new();
    let mut read = Vec::new();
    if !args.sketches.is_empty() {
        let program = args.program.as_deref().ok_or(
            "error: `--sketch` needs the program: `risec bench examples/matmul.rise --sketch …`",
        )?;
        for sketch in &args.sketches {
            versions.push(Version {
                exact_sizes: args.exact_sizes,
                ..sketch_version_with(program, sketch, &args.trust_rule, &mut read)?
            });
        }
    } else if args.program.is_some() {
        return Err(
            "error: a program without `--sketch`: name the sketch files of the versions \
                    (`--sketch sketches/matmul/parallel.sk`)"
                .into(),
        );
    }
    for v in &args.versions {
        versions.push(load_version(v)?);
    }
    check_report_outputs(args, &read)?;
    let options = BenchOptions {
        sizes,
        threads: args.threads.clone(),
        rounds: args.rounds,
        baselines: if args.no_baselines {
            Vec::new()
        } else {
            baseline_selection(args.baselines.as_deref())?
        },
        work_dir: args.keep.as_ref().map(std::path::PathBuf::from),
    };
    let report = risec_bench::run(&versions, &options, &mut |line| eprintln!("{line}"))
        .map_err(|e| e.to_string())?;
    let mut out = report.table();
    if let Some(path) = &args.csv {
        write_atomically(Path::new(path), &report.csv()).map_err(|e| e.to_string())?;
        out.push_str(&format!("wrote {path}\n"));
    }
    if let Some(path) = &args.plot {
        report
            .plot(std::path::Path::new(path))
            .map_err(|e| e.to_string())?;
        out.push_str(&format!("wrote {path}\n"));
    }
    Ok(out)
}
