//! Helpers shared by the end-to-end tests that drive the `risec` binary.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the `risec` binary in the crate root with `args`.
pub fn risec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_risec"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("risec runs")
}

/// Runs `risec ARGS` in the crate root, as [`risec`] does, but fails the test (and kills the
/// process) when it has not stopped after `watchdog`: a generous bound that only turns a hang
/// into a failure, never a timing assertion.
pub fn risec_within(args: &[&str], watchdog: std::time::Duration) -> Output {
    risec_command_within(
        Command::new(env!("CARGO_BIN_EXE_risec")).args(args),
        watchdog,
    )
}

/// Runs `command` (with piped output) and fails the test, killing it, when it has not stopped
/// after `watchdog`.
pub fn risec_command_within(command: &mut Command, watchdog: std::time::Duration) -> Output {
    use std::process::Stdio;
    let mut child = command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("risec runs");
    // Read the pipes on their own threads, so that a full pipe never blocks the child.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let read_out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).ok();
        v
    });
    let read_err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).ok();
        v
    });
    let began = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if began.elapsed() > watchdog {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not stop within {watchdog:?} (killed)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    Output {
        status,
        stdout: read_out.join().unwrap(),
        stderr: read_err.join().unwrap(),
    }
}

/// What a run printed on standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What a run printed on standard error.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `text` to a file in the target directory and returns its path.
pub fn temp_file(name: &str, text: &[u8]) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Runs the main job (`examples/matmul.rise`) with `sketches/matmul/SKETCH.sk`, writing `mm.c`
/// and `mm.h` into the target directory's `dir`; returns the path of `mm.c`.
pub fn compile_matmul_sketch(sketch: &str, dir: &str) -> PathBuf {
    compile_example_sketch("matmul", sketch, dir)
}

/// Compiles `examples/KERNEL.rise` with `sketches/KERNEL/SKETCH.sk` to C, writing `mm.c` and
/// `mm.h` into the target directory's `dir`; returns the path of `mm.c`.
pub fn compile_example_sketch(kernel: &str, sketch: &str, dir: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("mm.c");
    let program = format!("examples/{kernel}.rise");
    let sketch = format!("sketches/{kernel}/{sketch}.sk");
    let o = risec(&[
        &program,
        "--sketch",
        &sketch,
        "-o",
        c.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    c
}

/// Runs `command` (a C compiler, a compiled test program) and checks it exits 0; on failure
/// the message has `context`, its standard error and its standard output.
pub fn succeeds(command: &mut Command, context: &str) -> Output {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{context}: {}{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    out
}

/// Compiles the generated C file `c` to the object `o` with gcc at `-O3 -march=native
/// -fopenmp` and the strict warnings as errors.
pub fn compile_object(c: &std::path::Path, o: &std::path::Path) {
    succeeds(
        Command::new("gcc")
            .args([
                "-O3",
                "-march=native",
                "-fopenmp",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-c",
            ])
            .arg(c)
            .arg("-o")
            .arg(o),
        "gcc",
    );
}

/// Runs a `risec bench` driver with `args` and `threads` OpenMP threads; checks it exits 0 and
/// returns its standard output.
pub fn run_driver(exe: &std::path::Path, args: &[&str], threads: u32) -> String {
    let out = succeeds(
        Command::new(exe)
            .args(args)
            .env("OMP_NUM_THREADS", threads.to_string()),
        "the driver",
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs the kernels of `built` once at `m×n×k` with `threads` OpenMP threads against the
/// kernel named `reference` (the naive lowering in double precision when `None`); returns each
/// kernel's name, return code, whether `out` was left untouched, and relative error.
pub fn check_kernels(
    built: &risec_bench::Built,
    (m, n, k): (u32, u32, u32),
    reference: Option<&str>,
    threads: u32,
) -> Vec<risec_bench::measure::CheckRow> {
    let selection = risec_bench::measure::CheckSelection {
        reference,
        only: None,
    };
    let sizes = [m, n, k].map(u64::from);
    risec_bench::measure::check_against_reference(built, &sizes, threads, &selection).unwrap()
}

/// [`check_kernels`], asserting that every kernel ran and agreed with the reference within the
/// bound; returns the names of the kernels checked.
pub fn verify_kernels(
    built: &risec_bench::Built,
    (m, n, k): (u32, u32, u32),
    reference: Option<&str>,
    threads: u32,
) -> Vec<String> {
    use risec_bench::REL_ERROR_BOUND;
    let mut names = Vec::new();
    for row in check_kernels(built, (m, n, k), reference, threads) {
        assert_eq!(
            row.code, 0,
            "{} returned {} at {m}x{n}x{k}",
            row.name, row.code
        );
        assert!(
            row.error <= REL_ERROR_BOUND,
            "{} at {m}x{n}x{k}, {threads} thread(s): relative error {:e}",
            row.name,
            row.error
        );
        names.push(row.name);
    }
    names
}

/// The naive matrix multiplication with `versions` (low-level programs of its type), the
/// hand-written baselines named in `baselines` (`naive`, `parallel`, …) and the driver, built
/// with gcc's `-Wall -Wextra -Werror` in the target directory's `dir`.
pub fn build_matmul_kernels(
    versions: Vec<risec_bench::Version>,
    baselines: &[&str],
    dir: &str,
) -> risec_bench::Built {
    let program = risec_bench::presets::matmul_program().unwrap();
    let names: Vec<String> = baselines.iter().map(|b| b.to_string()).collect();
    let user = risec_bench::presets::tvm_baselines(&names);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    risec_bench::build(
        &risec_bench::Kernels {
            program: &program,
            versions: &versions,
            user: &user,
            openblas: false,
            sanitize: false,
            libs: &[],
            extra_flags: &["-Wall", "-Wextra", "-Werror"],
            reference: None,
        },
        &dir,
    )
    .unwrap()
}

/// Finds each named version of `examples/matmul.rise` with its sketch
/// (`sketches/matmul/NAME.sk`) and builds them with the naive and parallel baselines
/// ([`build_matmul_kernels`]).
pub fn build_sketch_kernels(versions: &[&str], dir: &str) -> risec_bench::Built {
    let specs: Vec<(&str, bool)> = versions.iter().map(|v| (*v, false)).collect();
    build_sketch_kernels_with(&specs, dir)
}

/// Like [`build_sketch_kernels`], each version `(NAME, exact_sizes)`: with `exact_sizes` the
/// kernel alone (sizes its tiles do not divide are refused), named `NAME exact`.
pub fn build_sketch_kernels_with(versions: &[(&str, bool)], dir: &str) -> risec_bench::Built {
    use risec_cli::versions::sketch_version;
    let versions: Vec<risec_bench::Version> = versions
        .iter()
        .map(|(v, exact)| {
            let found =
                sketch_version("examples/matmul.rise", &format!("sketches/matmul/{v}.sk")).unwrap();
            risec_bench::Version {
                name: if *exact {
                    format!("{v} exact")
                } else {
                    v.to_string()
                },
                exact_sizes: *exact,
                ..found
            }
        })
        .collect();
    build_matmul_kernels(versions, &["naive", "parallel"], dir)
}
