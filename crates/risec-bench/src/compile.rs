//! The C compiler: generated kernels, baselines and a driver compiled side by side and linked
//! into one executable with the compiler the `cc` crate finds, OpenBLAS found where it is
//! installed, and the driver's output read back one tagged line at a time ([`parse_lines`]).

use super::BenchError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether OpenBLAS's CBLAS header is installed (`libopenblas-dev`).
pub fn openblas_available() -> bool {
    [
        "/usr/include/x86_64-linux-gnu/cblas.h",
        "/usr/include/aarch64-linux-gnu/cblas.h",
        "/usr/include/cblas.h",
        "/usr/include/openblas/cblas.h",
    ]
    .iter()
    .any(|p| Path::new(p).exists())
}

/// The OpenBLAS kernel family to force when OpenBLAS's runtime detection is not told
/// (`OPENBLAS_CORETYPE` unset): on virtual machines whose CPU model is generic it falls back to
/// its slowest kernels ("Prescott"). Chosen from the CPU features (x86-64 only):
/// `SkylakeX` with AVX-512, `Haswell` with AVX2 and FMA.
pub fn openblas_coretype() -> Option<&'static str> {
    if std::env::var_os("OPENBLAS_CORETYPE").is_some() {
        return None;
    }
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
        {
            return Some("SkylakeX");
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            return Some("Haswell");
        }
    }
    None
}

/// Compiles C files into an executable with the C compiler `cc` finds, at `-O3
/// -march=native -fopenmp`, plus `extra_flags` (tests add `-Wall -Wextra -Werror`). Several
/// files are compiled side by side, one per core, then linked.
pub fn compile_executable(
    sources: &[PathBuf],
    include_dirs: &[PathBuf],
    output: &Path,
    extra_flags: &[&str],
    libs: &[&str],
) -> Result<(), BenchError> {
    let target = env!("RISEC_TARGET");
    let compiler = cc::Build::new()
        .target(target)
        .host(target)
        .opt_level(3)
        .debug(false)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false)
        .try_get_compiler()
        .map_err(BenchError::NoCompiler)?;
    let command = |args: &[&std::ffi::OsStr]| -> Command {
        let mut cmd: Command = compiler.to_command();
        cmd.args(["-march=native", "-fopenmp"]);
        cmd.args(extra_flags);
        for dir in include_dirs {
            cmd.arg("-I").arg(dir);
        }
        cmd.args(args);
        cmd
    };
    // Each source into an object file beside the executable, side by side.
    let objects: Vec<PathBuf> = sources
        .iter()
        .enumerate()
        .map(|(i, _)| output.with_extension(format!("{i}.o")))
        .collect();
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, sources.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failure: std::sync::Mutex<Option<BenchError>> = std::sync::Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= sources.len() || failure.lock().map_or(true, |f| f.is_some()) {
                    break;
                }
                let mut cmd = command(&[
                    "-c".as_ref(),
                    sources[i].as_os_str(),
                    "-o".as_ref(),
                    objects[i].as_os_str(),
                ]);
                if let Err(e) = run_compiler(&mut cmd) {
                    if let Ok(mut f) = failure.lock() {
                        f.get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    let mut link: Vec<&std::ffi::OsStr> = objects.iter().map(|o| o.as_os_str()).collect();
    link.extend(["-o".as_ref(), output.as_os_str(), "-lm".as_ref()]);
    let lib_args: Vec<String> = libs.iter().map(|l| format!("-l{l}")).collect();
    link.extend(lib_args.iter().map(std::ffi::OsStr::new));
    let linked = run_compiler(&mut command(&link));
    for o in &objects {
        let _ = std::fs::remove_file(o);
    }
    linked
}

/// Runs a compiler command; its standard error is the error's when it fails.
fn run_compiler(cmd: &mut Command) -> Result<(), BenchError> {
    let result = cmd.output().map_err(BenchError::CompilerNotRun)?;
    if result.status.success() {
        return Ok(());
    }
    Err(BenchError::CompilerFailed {
        command: format!(
            "{} {}",
            cmd.get_program().to_string_lossy(),
            cmd.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        stderr: String::from_utf8_lossy(&result.stderr).into_owned(),
    })
}

/// A line of the driver's output, split into words after its tag.
pub fn parse_lines<'s>(stdout: &'s str, tag: &str) -> Vec<Vec<&'s str>> {
    stdout
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some(tag)).then(|| words.collect())
        })
        .collect()
}
