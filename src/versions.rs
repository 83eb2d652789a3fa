//! What `risec bench` and `risec verify` share: the versions they compile (sketch files,
//! low-level files), the C functions given as baselines, the sizes they run at, a work
//! directory, and how a verification's verdicts are printed.

use crate::core::TypedProgram;
use crate::support::cleanup::WorkDir;
use risec_bench::{Checked, UserBaseline, Verdict, Version};
use risec_sketch::params::Assignment;
use std::fmt::Write as _;
use std::path::PathBuf;

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

/// [`sketch_version_with`] with the sketch's parameters set to `params`, named `NAME (tuned)`.
pub fn tuned_sketch_version(
    program: &str,
    sketch: &str,
    trusted: &[String],
    params: Vec<(String, u64)>,
) -> Result<Version, String> {
    let options = crate::SketchOptions {
        trusted_rules: trusted.to_vec(),
        params,
        ..Default::default()
    };
    let v = version_with_options(program, sketch, &options, &mut Vec::new())?;
    Ok(Version {
        name: format!("{} (tuned)", v.name),
        ..v
    })
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
    let options = crate::SketchOptions {
        trusted_rules: trusted.to_vec(),
        ..Default::default()
    };
    version_with_options(program, sketch, &options, read)
}

/// The version of a sketch file loaded with `options`.
fn version_with_options(
    program: &str,
    sketch: &str,
    options: &crate::SketchOptions,
    read: &mut Vec<std::path::PathBuf>,
) -> Result<Version, String> {
    let name = std::path::Path::new(sketch)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| sketch.to_string());
    eprintln!("searching {name} ({sketch})");
    let optimized = crate::load_program(program, None).and_then(|p| {
        let loaded = crate::load_sketch_with(sketch, &p, options)?;
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

/// The parameters of the record in tuning file `file` that fits `program`, the sketch file
/// `sketch`, the sizes `size` (`m=…,n=…`) and `threads` best on this machine, announced on standard error
/// unless `quiet`; none (with a warning) when the file has no record for them.
pub fn tuned_params(
    file: &str,
    program: &crate::core::TypedProgram,
    sketch: &str,
    size: Option<&str>,
    threads: Option<u32>,
    quiet: bool,
) -> Result<Vec<(String, u64)>, String> {
    let records = risec_bench::tuning::TuningFile::read(std::path::Path::new(file))
        .map_err(|e| e.to_string())?;
    let sizes = match size {
        Some(text) => {
            let values = crate::core::sizes::parse_sizes(program, text)
                .map_err(|e| format!("error: --size: {e}"))?;
            Some(program.size_params.iter().cloned().zip(values).collect())
        }
        None => None,
    };
    let machine = crate::support::machine::Machine::host();
    let name = crate::tune::file_name(sketch);
    match records.best(&machine, &program.name, &name, sizes.as_ref(), threads) {
        Some(choice) => {
            if !quiet {
                eprintln!("{}", choice.describe());
            }
            // A parameter the sketch no longer has (the file was edited since) is left out,
            // with a warning, rather than refused as a `--param` would be.
            let space = crate::sketch::resolve::parameter_space(
                std::path::Path::new(sketch),
                program,
                &Default::default(),
            )
            .map_err(|e| e.to_string())?;
            let tunable = space.tunable();
            let (kept, dropped): (Assignment, Assignment) = choice
                .record
                .params
                .clone()
                .into_iter()
                .partition(|(n, _)| tunable.contains(&n.as_str()));
            for (n, _) in &dropped {
                eprint!(
                    "{}",
                    crate::diagnostics::render_unplaced(
                        crate::diagnostics::Severity::Warning,
                        &format!("the tuning record sets `{n}`, which `{sketch}` does not declare as tunable: ignored"),
                        &[]
                    )
                );
            }
            Ok(kept)
        }
        None => {
            eprint!(
                "{}",
                crate::diagnostics::render_unplaced(
                    crate::diagnostics::Severity::Warning,
                    &format!(
                        "`{file}` has no record for `{}` with `{name}`: the sketch's defaults are used",
                        program.name
                    ),
                    &[]
                )
            );
            Ok(Vec::new())
        }
    }
}

/// `NAME=FILE.c:FUNCTION`.
pub fn user_baseline(item: &str) -> Result<UserBaseline, String> {
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
pub fn versions(
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
pub fn work_dir(keep: Option<&str>) -> Result<(PathBuf, Option<WorkDir>), String> {
    match keep {
        Some(d) => Ok((PathBuf::from(d), None)),
        None => {
            let t = WorkDir::new().map_err(|e| format!("error: no temporary directory: {e}"))?;
            Ok((t.path().to_path_buf(), Some(t)))
        }
    }
}

/// The check sizes: given, or chosen ([`risec_bench::check_sizes`]).
pub fn check_sizes(p: &TypedProgram, text: Option<&str>) -> Result<Vec<u64>, String> {
    match text {
        Some(t) => run_sizes(p, t),
        None => risec_bench::check_sizes(p).map_err(|e| e.to_string()),
    }
}

/// Sizes given on the command line for running the generated C, which takes positive sizes
/// only (it returns 1 for a zero): a zero is an error here rather than a run that checks nothing.
pub fn run_sizes(p: &TypedProgram, text: &str) -> Result<Vec<u64>, String> {
    let sizes = crate::core::sizes::parse_sizes(p, text).map_err(|e| e.to_string())?;
    if let Some((name, _)) = p.size_params.iter().zip(&sizes).find(|(_, v)| **v == 0) {
        return Err(format!(
            "error: size `{name}` is 0 in `{text}`: the generated C runs on positive sizes only"
        ));
    }
    Ok(sizes)
}

/// What a benchmark driver allocates at `sizes`: the arrays of one call, the reference's output
/// and a copy of the same bytes (`None` when the interface cannot say); an error, before
/// anything is built, where the machine does not have that much memory.
pub fn driver_bytes(p: &TypedProgram, sizes: &[u64]) -> Result<Option<u64>, String> {
    let need = risec_bench::shape::Shape::of(p)
        .ok()
        .and_then(|shape| shape.bytes(sizes).ok())
        .map(|b| b.saturating_mul(2));
    if let (Some(need), Some(have)) = (need, crate::support::memory::machine_memory()) {
        if need > have {
            return Err(format!(
                "error: the arrays at {} need {}, more than this machine's {} of memory: give a smaller `--size`",
                sizes_text(p, sizes),
                crate::support::units::format_bytes(need),
                crate::support::units::format_bytes(have)
            ));
        }
    }
    Ok(need)
}

/// The sizes as `m=…,n=…`, in the order of the program's size parameters.
pub fn sizes_text(p: &TypedProgram, sizes: &[u64]) -> String {
    p.size_params
        .iter()
        .zip(sizes)
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The lines of a verification; whether every kernel passed. A kernel for which `may_refuse`
/// holds passes when it refuses the sizes and leaves `out` alone (`risec bench` checks it at
/// the benchmark sizes instead).
pub fn check_lines(
    checked: &[Checked],
    may_refuse: &dyn Fn(&str) -> bool,
    out: &mut String,
) -> bool {
    let width = checked.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut all = true;
    for c in checked {
        let excused = matches!(c.verdict, Verdict::Refused(_)) && may_refuse(&c.name);
        all &= c.verdict.passed() || excused;
        let mut text = c
            .verdict
            .text()
            .replace('\n', &format!("\n  {:width$}    ", ""));
        if excused {
            text = format!(
                "{}: not checked at these sizes",
                text.replacen("REFUSED the sizes", "refused these sizes", 1)
            );
        }
        let _ = writeln!(out, "  {:<width$}  {text}", c.name);
    }
    all
}
