//! `risec verify`, and `risec bench` for a program that is not the matmul example: versions of
//! any entry point checked against the reference interpreter at small sizes and against the
//! naive lowering at the benchmark sizes, then timed ([`risec_bench::generic`]).

use super::bench::{load_version, sketch_version_with, BenchArgs};
use crate::core::TypedProgram;
use crate::support::cleanup::WorkDir;
use risec_bench::generic::driver::ValueClass;
use risec_bench::generic::verify::ERROR_FLOOR;
use risec_bench::generic::{
    self, Checked, Kernels, Oracle, UserBaseline, Verdict, REL_ERROR_BOUND,
};
use risec_bench::Version;
use std::fmt::Write as _;
use std::path::PathBuf;

/// The arguments of `risec verify`.
#[derive(clap::Args, Clone, Debug)]
pub struct VerifyArgs {
    /// The program (`.rise`).
    pub program: String,
    /// A sketch file; the version it gives is named after the file (repeatable).
    #[arg(long = "sketch", value_name = "FILE.sk")]
    pub sketches: Vec<String>,
    /// A low-level version of the program: `NAME=FILE.rise` (repeatable).
    #[arg(long = "version", value_name = "NAME=FILE.rise")]
    pub versions: Vec<String>,
    /// A C function of the program's signature: `NAME=FILE.c:FUNCTION` (repeatable).
    #[arg(long = "baseline", value_name = "NAME=FILE.c:FUNCTION")]
    pub baselines: Vec<String>,
    /// Sizes of the check against the interpreter, e.g. `n=13` [default: the same small size
    /// for every size parameter, 13 or the first of 17, 24, 32, … the program's facts allow].
    #[arg(long, value_name = "SIZES")]
    pub check_size: Option<String>,
    /// Also check every kernel against the naive lowering at these sizes, e.g. `n=4096`.
    #[arg(long, value_name = "SIZES")]
    pub size: Option<String>,
    /// OpenMP thread counts to check with, e.g. `1,2`.
    #[arg(long, default_value = "1,2", value_delimiter = ',')]
    pub threads: Vec<u32>,
    /// Keep the generated C and the driver in this directory.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<String>,
    /// Do not check the sketch files' user rule NAME against the interpreter (repeatable).
    #[arg(long = "trust-rule", value_name = "NAME")]
    pub trust_rule: Vec<String>,
    /// Build the kernels and the driver with AddressSanitizer and UBSan: any access outside
    /// the arrays or undefined behaviour fails the kernel, with the sanitizer's report.
    #[arg(long)]
    pub sanitize: bool,
    /// Link this library for the `--baseline` functions (`-lLIB`; repeatable).
    #[arg(long = "link", value_name = "LIB")]
    pub link: Vec<String>,
    /// Each run of the kernels at the check sizes stops after this long, and the kernel that
    /// was running fails.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = crate::support::units::parse_duration)]
    pub run_limit: std::time::Duration,
}

/// `NAME=FILE.c:FUNCTION`.
fn user_baseline(item: &str) -> Result<UserBaseline, String> {
    let usage = || format!("error: `--baseline {item}`: expected NAME=FILE.c:FUNCTION");
    let (name, rest) = item.split_once('=').ok_or_else(usage)?;
    let (file, function) = rest.rsplit_once(':').ok_or_else(usage)?;
    if name.trim().is_empty() || function.trim().is_empty() {
        return Err(usage());
    }
    let file = PathBuf::from(file);
    if !file.is_file() {
        return Err(format!(
            "error: `--baseline {item}`: no file `{}`",
            file.display()
        ));
    }
    Ok(UserBaseline {
        name: name.trim().to_string(),
        file,
        function: function.trim().to_string(),
    })
}

/// The versions of the sketch files and low-level files given; the files the sketches import
/// are added to `read`.
fn versions(
    program: &str,
    sketches: &[String],
    files: &[String],
    trusted: &[String],
    read: &mut Vec<PathBuf>,
) -> Result<Vec<Version>, String> {
    let mut out = Vec::new();
    for s in sketches {
        out.push(sketch_version_with(program, s, trusted, read)?);
    }
    for v in files {
        out.push(load_version(v)?);
    }
    Ok(out)
}

/// A work directory: `keep`, or a temporary one held by the returned guard (and removed on a
/// signal, see [`crate::support::cleanup`]).
fn work_dir(keep: Option<&str>) -> Result<(PathBuf, Option<WorkDir>), String> {
    match keep {
        Some(d) => Ok((PathBuf::from(d), None)),
        None => {
            let t = WorkDir::new().map_err(|e| format!("error: no temporary directory: {e}"))?;
            Ok((t.path().to_path_buf(), Some(t)))
        }
    }
}

/// The check sizes: given, or chosen ([`generic::check_sizes`]).
fn check_sizes(p: &TypedProgram, text: Option<&str>) -> Result<Vec<u64>, String> {
    match text {
        Some(t) => run_sizes(p, t),
        None => generic::check_sizes(p).map_err(|e| e.to_string()),
    }
}

/// Sizes given on the command line for running the generated C, which takes positive sizes
/// only (it returns 1 for a zero): a zero is an error here rather than a run that checks nothing.
fn run_sizes(p: &TypedProgram, text: &str) -> Result<Vec<u64>, String> {
    let sizes = crate::core::sizes::parse_sizes(p, text).map_err(|e| e.to_string())?;
    if let Some((name, _)) = p.size_params.iter().zip(&sizes).find(|(_, v)| **v == 0) {
        return Err(format!(
            "error: size `{name}` is 0 in `{text}`: the generated C runs on positive sizes only"
        ));
    }
    Ok(sizes)
}

fn sizes_text(p: &TypedProgram, sizes: &[u64]) -> String {
    p.size_params
        .iter()
        .zip(sizes)
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The lines of a verification; whether every kernel passed.
fn check_lines(checked: &[Checked], out: &mut String) -> bool {
    let width = checked.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut all = true;
    for c in checked {
        all &= c.verdict.passed();
        let text = c
            .verdict
            .text()
            .replace('\n', &format!("\n  {:width$}    ", ""));
        let _ = writeln!(out, "  {:<width$}  {text}", c.name);
    }
    all
}

/// The verdict of a row of the check against the naive lowering at the benchmark sizes.
fn bench_verdict(code: i32, error: f64) -> Verdict {
    if code != 0 {
        Verdict::Refused(code)
    } else if error <= REL_ERROR_BOUND {
        Verdict::Agrees(error)
    } else {
        Verdict::Wrong {
            error,
            class: ValueClass::Uniform,
        }
    }
}

/// Runs `risec verify`; the report, or an error when a kernel is wrong.
pub fn verify(args: &VerifyArgs) -> Result<String, String> {
    let program = crate::load_program(&args.program, None).map_err(|e| e.to_string())?;
    let user = args
        .baselines
        .iter()
        .map(|b| user_baseline(b))
        .collect::<Result<Vec<_>, _>>()?;
    let versions = versions(
        &args.program,
        &args.sketches,
        &args.versions,
        &args.trust_rule,
        &mut Vec::new(),
    )?;
    let small = check_sizes(&program, args.check_size.as_deref())?;
    let big = args
        .size
        .as_deref()
        .map(|t| run_sizes(&program, t))
        .transpose()?;
    if args.threads.is_empty() || args.threads.contains(&0) {
        return Err("error: `--threads` must list positive thread counts, e.g. `1,2`".into());
    }
    let (dir, _guard) = work_dir(args.keep.as_deref())?;
    let built = generic::build(
        &Kernels {
            program: &program,
            versions: &versions,
            user: &user,
            openblas: false,
            sanitize: args.sanitize,
            libs: &args.link,
        },
        &dir,
    )
    .map_err(|e| e.to_string())?;
    let mut out = String::new();
    let mut ok = true;
    for &threads in &args.threads {
        let _ = writeln!(
            out,
            "{}, {threads} thread(s): every kernel against the reference interpreter at {} (|c - ref| <= {REL_ERROR_BOUND:e} max(|ref|, {ERROR_FLOOR:e} max |ref|) per element), on {} kinds of inputs, every array between guard zones{}",
            program.name,
            sizes_text(&program, &small),
            ValueClass::ALL.len(),
            if args.sanitize { ", under AddressSanitizer and UBSan" } else { "" }
        );
        let oracle = Oracle {
            limit: Some(args.run_limit),
            ..Oracle::new(threads)
        };
        let checked =
            generic::verify(&built, &program, &small, &oracle, &dir).map_err(|e| e.to_string())?;
        ok &= check_lines(&checked, &mut out);
        if let Some(big) = &big {
            let report = generic::bench(&built, big, &[threads], 1).map_err(|e| e.to_string())?;
            let _ = writeln!(
                out,
                "{}, {threads} thread(s): against the naive lowering at {}:",
                program.name,
                sizes_text(&program, big)
            );
            let rows: Vec<Checked> = report
                .rows
                .iter()
                .filter(|r| r.origin.is_some())
                .map(|r| Checked {
                    name: r.name.clone(),
                    verdict: bench_verdict(r.code, r.error),
                })
                .collect();
            ok &= check_lines(&rows, &mut out);
        }
    }
    if ok {
        Ok(out)
    } else {
        Err(format!(
            "{out}error: a kernel failed verification (a wrong result, an access outside its arrays, a crash, or sizes it refused)"
        ))
    }
}

/// `risec bench` for a program other than the matrix multiplication: checks every kernel
/// against the interpreter, then benchmarks them at `--size`.
pub(super) fn bench_generic(args: &BenchArgs, program_path: &str) -> Result<String, String> {
    let program = crate::load_program(program_path, None).map_err(|e| e.to_string())?;
    let size = args.size.as_deref().ok_or_else(|| {
        format!(
            "error: `{}` is not a matrix multiplication: give its sizes, as in `--size {}`",
            program.name,
            program
                .size_params
                .iter()
                .map(|n| format!("{n}=…"))
                .collect::<Vec<_>>()
                .join(",")
        )
    })?;
    let sizes = run_sizes(&program, size)?;
    let user = args
        .baseline
        .iter()
        .map(|b| user_baseline(b))
        .collect::<Result<Vec<_>, _>>()?;
    let mut read = Vec::new();
    let versions = versions(
        program_path,
        &args.sketches,
        &args.versions,
        &args.trust_rule,
        &mut read,
    )?;
    super::bench::check_report_outputs(args, &read)?;
    let (dir, _guard) = work_dir(args.keep.as_deref())?;
    eprintln!(
        "compiling {} version(s), the naive lowering and the baselines with cc...",
        versions.len()
    );
    let built = generic::build(
        &Kernels {
            program: &program,
            versions: &versions,
            user: &user,
            openblas: !args.no_baselines,
            sanitize: false,
            libs: &args.link,
        },
        &dir,
    )
    .map_err(|e| e.to_string())?;
    let small = check_sizes(&program, args.check_size.as_deref())?;
    let threads = args.threads.first().copied().unwrap_or(1);
    let checked = generic::verify(&built, &program, &small, &Oracle::new(threads), &dir)
        .map_err(|e| e.to_string())?;
    let mut check = format!(
        "checked against the reference interpreter at {}:\n",
        sizes_text(&program, &small)
    );
    if !check_lines(&checked, &mut check) {
        return Err(format!(
            "{check}error: a kernel failed verification (a wrong result, an access outside its arrays, a crash, or sizes it refused)"
        ));
    }
    eprint!("{check}");
    eprintln!(
        "running {} with {} thread(s), {} rounds each...",
        sizes_text(&program, &sizes),
        args.threads
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        args.rounds
    );
    let report =
        generic::bench(&built, &sizes, &args.threads, args.rounds).map_err(|e| e.to_string())?;
    let mut out = report.table();
    if let Some(path) = &args.csv {
        crate::support::output::write_atomically(std::path::Path::new(path), &report.csv())
            .map_err(|e| e.to_string())?;
        let _ = writeln!(out, "wrote {path}");
    }
    if args.plot.is_some() {
        out.push_str("note: --plot draws matrix multiplications only; no plot was written\n");
    }
    Ok(out)
}
