//! `risec verify`: versions of any entry point checked against the reference interpreter at
//! small sizes and, with `--size`, against the naive lowering at larger ones
//! ([`risec_bench::verify()`], [`risec_bench::measure::check_against_reference`]).

use crate::versions::{
    check_lines, check_sizes, run_sizes, sizes_text, user_baseline, versions, work_dir,
};
use risec_bench::driver::ValueClass;
use risec_bench::measure::CheckRow;
use risec_bench::verify::ERROR_FLOOR;
use risec_bench::{Checked, Kernels, Oracle, Verdict, REL_ERROR_BOUND};
use std::fmt::Write as _;

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

/// The verdict of a kernel's check against the naive lowering at the benchmark sizes.
fn bench_verdict(row: &CheckRow) -> Verdict {
    let (code, error) = (row.code, row.error);
    if code != 0 && !row.untouched {
        Verdict::Damaged {
            what: "wrote-out-on-refusal".into(),
            class: ValueClass::Uniform,
        }
    } else if code != 0 {
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
    let built = risec_bench::build(
        &Kernels {
            program: &program,
            versions: &versions,
            user: &user,
            openblas: false,
            sanitize: args.sanitize,
            libs: &args.link,
            extra_flags: &[],
            reference: None,
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
        let checked = risec_bench::verify(&built, &program, &small, &oracle, &dir)
            .map_err(|e| e.to_string())?;
        ok &= check_lines(&checked, &|_| false, &mut out);
        if let Some(big) = &big {
            let rows = risec_bench::measure::check_against_reference(
                &built,
                big,
                threads,
                &Default::default(),
            )
            .map_err(|e| e.to_string())?;
            let _ = writeln!(
                out,
                "{}, {threads} thread(s): against the naive lowering at {}:",
                program.name,
                sizes_text(&program, big)
            );
            let rows: Vec<Checked> = rows
                .iter()
                .map(|r| Checked {
                    name: r.name.clone(),
                    verdict: bench_verdict(r),
                })
                .collect();
            ok &= check_lines(&rows, &|_| false, &mut out);
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
