//! The generated C is never memory-unsafe, always compiles, and refuses sizes it cannot run:
//! facts from subtraction checked at run time (under AddressSanitizer where the C compiler has
//! it), overflow-proof size checks, bounded tiles and unrolling, only valid vector types, and a
//! syntax check of the C of odd programs.

use risec_backend::{emit_c, CProgram, CodegenOptions};
use risec_core::diagnostics::SourceFile;
use std::path::{Path, PathBuf};
use std::process::Command;

fn program(src: &str) -> risec_core::core::TypedProgram {
    risec_frontend::load::compile_source(&SourceFile::new("t.rise", src), None)
        .unwrap_or_else(|e| panic!("{}", e.render()))
}

fn c_of(src: &str) -> Result<CProgram, String> {
    emit_c(&program(src), &CodegenOptions::new("k.h")).map_err(|e| e.to_string())
}

fn work_dir(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("c-safety-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `k.c`, `k.h` and `main.c` into `dir` and builds them with `flags`; the error is the
/// compiler's output.
fn build(dir: &Path, c: &CProgram, main: &str, flags: &[&str]) -> Result<PathBuf, String> {
    std::fs::write(dir.join("k.c"), &c.source).unwrap();
    std::fs::write(dir.join("k.h"), &c.header).unwrap();
    std::fs::write(dir.join("main.c"), main).unwrap();
    let exe = dir.join("prog");
    let out = Command::new("cc")
        .args(["-g", "-O1", "-Wall", "-Wextra", "-Werror"])
        .args(flags)
        .arg(dir.join("k.c"))
        .arg(dir.join("main.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("cc runs");
    if out.status.success() {
        Ok(exe)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Whether `cc -fsanitize=address` builds and runs a program here.
fn asan_available() -> bool {
    let dir = work_dir("asan-probe");
    let c = dir.join("probe.c");
    std::fs::write(&c, "int main(void) { return 0; }\n").unwrap();
    let exe = dir.join("probe");
    let built = Command::new("cc")
        .args(["-fsanitize=address"])
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .status()
        .is_ok_and(|s| s.success());
    built && Command::new(&exe).status().is_ok_and(|s| s.success())
}

/// A driver that calls `f(n, out, x)` with an `n`×`n` input of its own size and prints the
/// return code.
const DROP_MAIN: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include "k.h"
int main(int argc, char **argv) {
    (void)argc;
    int n = atoi(argv[1]);
    float *x = malloc(sizeof(float) * (size_t)n * (size_t)n);
    float *out = malloc(sizeof(float) * (size_t)(n > 2 ? (n - 2) * (n - 2) : 1));
    for (int i = 0; i < n * n; i++) x[i] = (float)i;
    int rc = f(n, out, x);
    printf("%d\n", rc);
    free(x);
    free(out);
    return 0;
}
"#;

#[test]
fn a_fact_from_subtraction_is_checked_at_run_time_and_nothing_is_read_out_of_bounds() {
    // (n-2)*(n-2) elements read through `drop 2`: at n = 1 the count is 1, the loop runs, and
    // without the check it read past the one-element input.
    let src = "def f {n : nat} (x : n.n.f32) : ((n-2)*(n-2)).f32 = \
               x |> drop 2 |> map (drop 2) |> join |> mapSeq (fun v => v * 2.0)";
    let c = c_of(src).unwrap();
    assert!(
        c.source
            .contains("if ((long long)n - 2 < 0) return 1; /* assumes `n ≥ 2` */"),
        "{}",
        c.source
    );
    let dir = work_dir("drop");
    let asan = asan_available();
    let flags: &[&str] = if asan {
        &["-fsanitize=address", "-fno-omit-frame-pointer"]
    } else {
        eprintln!(
            "note: `cc -fsanitize=address` is not available here: the kernel runs without \
             AddressSanitizer (its return codes are still checked)"
        );
        &[]
    };
    let exe = build(&dir, &c, DROP_MAIN, flags).unwrap_or_else(|e| panic!("{e}\n{}", c.source));
    for (n, want) in [(1, "1"), (2, "0"), (3, "0"), (7, "0")] {
        let out = Command::new(&exe).arg(n.to_string()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "n = {n}: {stderr}");
        assert!(!stderr.contains("AddressSanitizer"), "n = {n}: {stderr}");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), want, "n = {n}");
    }
}

#[test]
fn the_count_check_of_three_sizes_multiplied_cannot_overflow() {
    // m*n*k at 2,097,152 each is 2^63: in long long it wrapped negative and passed the check.
    let src = "def f {m n k : nat} (x : m.n.k.f32) : m.n.k.f32 = \
               x |> mapSeq (mapSeq (mapSeq (fun v => v + 1.0)))";
    let c = c_of(src).unwrap();
    assert!(c.source.contains("rise_size_mul("), "{}", c.source);
    let main = r#"#include <stdio.h>
#include <stdlib.h>
#include "k.h"
int main(int argc, char **argv) {
    (void)argc;
    int m = atoi(argv[1]), n = atoi(argv[2]), k = atoi(argv[3]);
    static float x[64], out[64];
    for (int i = 0; i < 64; i++) x[i] = (float)i;
    int rc = f(m, n, k, out, x);
    printf("%d %g\n", rc, out[63]);
    return 0;
}
"#;
    let exe = build(&work_dir("three"), &c, main, &[]).unwrap_or_else(|e| panic!("{e}"));
    for (sizes, want) in [
        (["2097152", "2097152", "2097152"], "3 0"),
        (["2147483647", "2147483647", "2147483647"], "3 0"),
        (["65536", "65536", "1"], "3 0"),
        (["4", "4", "4"], "0 64"),
    ] {
        let out = Command::new(&exe).args(sizes).output().unwrap();
        assert!(out.status.success(), "{sizes:?}: {:?}", out.status);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            want,
            "{sizes:?}"
        );
    }
}

#[test]
fn tiles_and_unrolling_beyond_the_bounds_are_refused_quickly() {
    // A tile of 1,518,500,250² elements: its byte count wrapped negative, it was taken for a
    // register tile and the unrolled copies never ended.
    let tile = "def f {n : nat} (x : n.1518500250.1518500250.f32) : 1518500250.1518500250.f32 = \
        x |> reduceSeq (fun acc t => zip acc t |> mapSeq (fun p => zip (fst p) (snd p) \
        |> mapSeq (fun q => fst q + snd q))) (generate (fun i => generate (fun j => 0.0)))";
    let e = c_of(tile).unwrap_err();
    assert!(
        e.contains("more elements than the generated C's `int` indices reach"),
        "{e}"
    );
    // A size constant beyond int.
    let big = "def f {n : nat} (x : n.4294967295.f32) : n.f32 = \
               x |> mapSeq (reduceSeq (fun a v => a + v) 0.0)";
    let e = c_of(big).unwrap_err();
    assert!(e.contains("the size `4294967295` is too large"), "{e}");
    // Unrolling: 10^6 and 2^31 iterations, and nested loops that add up past the bound.
    for (extent, inner) in [("1000000", "4"), ("2147483647", "1"), ("200", "100")] {
        let src = format!(
            "def f {{n : nat}} (x : {extent}.{inner}.f32) : {extent}.f32 = \
             x |> mapSeqUnroll (reduceSeqUnroll (fun a v => a + v) 0.0)"
        );
        let e = c_of(&src).unwrap_err();
        assert!(
            e.contains("the generated C unrolls at most 16384 loop iterations in all"),
            "{extent}: {e}"
        );
    }
    // At the bound it is generated.
    let ok = "def f {n : nat} (x : 128.127.f32) : 128.f32 = \
              x |> mapSeqUnroll (reduceSeqUnroll (fun a v => a + v) 0.0)";
    assert!(c_of(ok).is_ok());
}

#[test]
fn vector_widths_gcc_cannot_compile_are_refused() {
    for w in ["1", "3", "12", "128"] {
        let src = format!(
            "def f {{n : nat}} (x : (n*{w}).f32) : (n*{w}).f32 = \
             x |> asVector {w} |> mapSeq (fun v => v + v) |> asScalar"
        );
        let e = c_of(&src).unwrap_err();
        assert!(
            e.contains("vectors of 2, 4, 8, 16, 32 or 64 lanes") && e.contains(&format!("not {w}")),
            "{w}: {e}"
        );
    }
}

/// Odd programs: every one is either compiled to C that `cc -fsyntax-only` accepts without
/// warnings, or refused by the backend with an error.
const ODD_PROGRAMS: &[&str] = &[
    "def f {n : nat} (x : n.n.f32) : ((n-2)*(n-2)).f32 = x |> drop 2 |> map (drop 2) |> join |> mapSeq (fun v => v * 2.0)",
    "def f {n : nat} (x : (n+2).f32) : (n+2).f32 = x |> slide 3 1 |> mapSeq (reduceSeqUnroll (fun a v => a + v) 0.0) |> pad 1 1 0.0",
    "def f {n : nat} (x : (n+5).f32) : n.f32 = x |> take (n+3) |> drop 3 |> mapSeq (fun v => v)",
    "def f {m n k : nat} (x : m.n.k.f32) : m.n.k.f32 = x |> mapSeq (mapSeq (mapSeq (fun v => v + 1.0)))",
    "def f {m n k : nat} (x : ((m/7)*7).n.(k*3).f32) : ((m/7)*7).n.(k*3).f32 = x |> mapPar (mapSeq (mapSeq (fun v => v * v)))",
    "def f {n : nat} (x : (n*2).f64) : (n*2).f64 = x |> asVector 2 |> mapSeq (fun v => v + v) |> asScalar",
    "def f {n : nat} (x : (n*64).f32) : (n*64).f32 = x |> asVector 64 |> mapSeq (fun v => v * v) |> asScalar",
    "def f {n : nat} (x : (n*1).f32) : (n*1).f32 = x |> asVector 1 |> mapSeq (fun v => v + v) |> asScalar",
    "def f {n : nat} (x : (n*3).f32) : (n*3).f32 = x |> asVector 3 |> mapSeq (fun v => v + v) |> asScalar",
    "def f {n : nat} (x : n.i32) (y : n.i64) : n.i32 = zip x y |> mapSeq (fun p => fst p)",
    "def f {n : nat} (x : n.16.f32) : n.f32 = x |> mapSeq (reduceSeqUnroll (fun a v => a + v) 0.0)",
    "def f {n : nat} (x : 1.f32) : 1.f32 = x |> mapSeq (fun v => v)",
    "def f {n : nat} (x : n.4294967295.f32) : n.f32 = x |> mapSeq (reduceSeq (fun a v => a + v) 0.0)",
    "def f {n : nat} (x : (n*1518500250).f32) : (n*1518500250).f32 = x |> split 1518500250 |> mapSeq (fun r => mapSeq (fun v => v + 1.0) r) |> join",
    "def f {n : nat} (x : n.f32) : n.f32 = x |> map (fun v => v + 1.0)",
    "def f (x : 8.f32) (s : f32) : 8.f32 = x |> toMem |> mapSeq (fun v => v * s)",
    "def f {n : nat} (x : n.(n*2).f32) : (n*2).n.f32 = x |> transpose |> mapSeq (mapSeq (fun v => v))",
];

#[test]
fn the_c_of_odd_programs_compiles_or_is_refused() {
    let dir = work_dir("syntax");
    let mut compiled = 0;
    for (i, src) in ODD_PROGRAMS.iter().enumerate() {
        let Ok(c) = c_of(src) else { continue };
        let name = format!("odd{i}");
        std::fs::write(dir.join(format!("{name}.c")), &c.source).unwrap();
        std::fs::write(dir.join("k.h"), &c.header).unwrap();
        let out = Command::new("cc")
            .args([
                "-fsyntax-only",
                "-fopenmp",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-I",
            ])
            .arg(&dir)
            .arg(dir.join(format!("{name}.c")))
            .output()
            .expect("cc runs");
        assert!(
            out.status.success(),
            "{src}\n{}\n{}",
            String::from_utf8_lossy(&out.stderr),
            c.source
        );
        compiled += 1;
    }
    // Most of them are compiled (the refusals are tested above).
    assert!(compiled >= 12, "only {compiled} compiled");
}

// ---- outputs never replace inputs ------------------------------------------------------------

fn risec_in(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_risec"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("risec runs")
}

/// A scratch folder with the matmul program and the blocking sketch with its import.
fn inputs_dir(tag: &str) -> PathBuf {
    let dir = work_dir(tag);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (from, to) in [
        ("examples/matmul.rise", "matmul.rise"),
        ("sketches/matmul/blocking.sk", "blocking.sk"),
        ("sketches/matmul/lib.sk", "lib.sk"),
        ("examples/lowlevel/naive.rise", "naive.rise"),
    ] {
        std::fs::copy(root.join(from), dir.join(to)).unwrap();
    }
    dir
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[test]
fn outputs_that_name_an_input_are_refused_and_nothing_is_written() {
    let dir = inputs_dir("inputs");
    #[cfg(unix)]
    {
        let _ = std::fs::remove_file(dir.join("link.c"));
        std::os::unix::fs::symlink("lib.sk", dir.join("link.c")).unwrap();
    }
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    // Inputs named like the header of a C output (`-o prog.c` writes `prog.h`), and a
    // baseline's C file.
    std::fs::copy(dir.join("naive.rise"), dir.join("prog.h")).unwrap();
    std::fs::copy(dir.join("matmul.rise"), dir.join("mm.h")).unwrap();
    std::fs::write(dir.join("k.c"), "void k(void) {}\n").unwrap();
    let before = snapshot(&dir);
    let main_job = |out: &[&str]| {
        let mut args = vec!["matmul.rise", "--sketch", "blocking.sk", "-q"];
        args.extend_from_slice(out);
        risec_in(&dir, &args)
    };
    let mut runs = vec![
        (
            "emit-c onto its program",
            risec_in(&dir, &["emit-c", "naive.rise", "-o", "naive.rise"]),
        ),
        (
            "the main job onto the program",
            main_job(&["-o", "matmul.rise"]),
        ),
        (
            "the main job onto the sketch",
            main_job(&["-o", "./blocking.sk"]),
        ),
        (
            "the main job onto an imported file",
            main_job(&["-o", "lib.sk"]),
        ),
        (
            "--stats onto the program",
            main_job(&["--stats", "matmul.rise"]),
        ),
    ];
    runs.push((
        "emit-c's header onto its program",
        risec_in(&dir, &["emit-c", "prog.h", "-o", "prog.c"]),
    ));
    runs.push((
        "the main job's header onto the program",
        risec_in(
            &dir,
            &["mm.h", "--sketch", "blocking.sk", "-q", "-o", "mm.c"],
        ),
    ));
    runs.push((
        "prove --stats onto the goal",
        risec_in(
            &dir,
            &[
                "prove",
                "naive.rise",
                "matmul.rise",
                "--rules",
                "eta",
                "--stats",
                "matmul.rise",
            ],
        ),
    ));
    runs.push((
        "bench --csv onto a baseline's C file",
        risec_in(
            &dir,
            &[
                "bench",
                "naive.rise",
                "--version",
                "v=naive.rise",
                "--baseline",
                "b=k.c:k",
                "--csv",
                "k.c",
            ],
        ),
    ));
    runs.push((
        "bench --plot onto a version's file",
        risec_in(
            &dir,
            &["bench", "--version", "v=naive.rise", "--plot", "naive.rise"],
        ),
    ));
    runs.push((
        "emit-c through a folder",
        risec_in(&dir, &["emit-c", "naive.rise", "-o", "sub/../naive.rise"]),
    ));
    #[cfg(unix)]
    runs.push((
        "the main job through a symbolic link",
        main_job(&["-o", "link.c"]),
    ));
    for (what, out) in runs {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
        assert!(
            stderr.contains("would overwrite the input"),
            "{what}: {stderr}"
        );
    }
    assert_eq!(snapshot(&dir), before, "an input was changed");
}

#[test]
fn emit_c_errors_point_at_the_primitive_in_the_source() {
    let dir = work_dir("located");
    std::fs::write(
        dir.join("u.rise"),
        "def f {n : nat} (x : n.1000000.f32) : n.f32 =\n  x |> mapSeq (reduceSeqUnroll (fun a v => a + v) 0.0)\n",
    )
    .unwrap();
    let out = risec_in(&dir, &["emit-c", "u.rise"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("┌─ u.rise:2:16"), "{stderr}");
    assert!(stderr.contains("`reduceSeqUnroll` here"), "{stderr}");
}

/// `-o` onto a FIFO writes into it (a reader gets the C), and the FIFO stays one: risec never
/// renames a new file over a device or a FIFO (`-o /dev/null` once replaced the machine's
/// `/dev/null`; that case is checked on the file's type only, in `support::output`). A C file
/// that is a FIFO whose header would be a new file beside it is refused.
#[cfg(unix)]
#[test]
fn outputs_that_are_fifos_are_written_into_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = work_dir("fifo");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("examples/lowlevel/naive.rise"),
        dir.join("naive.rise"),
    )
    .unwrap();
    for name in ["pipe.c", "pipe.h", "lone.c", "lone.h"] {
        let _ = std::fs::remove_file(dir.join(name));
    }
    let fifo = |name: &str| {
        let made = Command::new("mkfifo").arg(dir.join(name)).status().unwrap();
        assert!(made.success());
    };
    fifo("pipe.c");
    fifo("pipe.h");
    // Readers as processes: a test that fails leaves no thread blocked on a FIFO.
    let reader = |name: &str| {
        Command::new("cat")
            .arg(dir.join(name))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (mut c, mut h) = (reader("pipe.c"), reader("pipe.h"));
    let out = risec_in(&dir, &["emit-c", "naive.rise", "-o", "pipe.c"]);
    if !out.status.success() {
        let _ = (c.kill(), h.kill());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let text = |child: std::process::Child| {
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    let (source, header) = (text(c), text(h));
    assert!(source.contains("#include \"pipe.h\""), "{source}");
    assert!(header.contains("int matmul("), "{header}");
    for name in ["pipe.c", "pipe.h"] {
        let kind = std::fs::metadata(dir.join(name)).unwrap().file_type();
        assert!(kind.is_fifo(), "{name} is still a FIFO");
    }
    fifo("lone.c");
    let out = risec_in(&dir, &["emit-c", "naive.rise", "-o", "lone.c"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("would be made as a new file beside it"),
        "{stderr}"
    );
    assert!(!dir.join("lone.h").exists());
    let left = std::fs::read_dir(&dir).unwrap().flatten();
    let temporary = left.filter(|e| e.file_name().to_string_lossy().starts_with(".risec-"));
    assert_eq!(temporary.count(), 0);
}

#[test]
fn a_value_bound_by_let_and_never_read_is_not_computed() {
    let dir = work_dir("dead-let");
    for body in [
        "let t = toMem (mapSeq (fun x => x * 2.0) xs) in mapSeq (fun x => x + 1.0) xs",
        "xs |> mapSeq (fun x => let t = toMem (x * 2.0) in x + 1.0)",
        "xs |> mapSeq (fun x => let t = x * 2.0 in x + 1.0)",
    ] {
        let c = c_of(&format!(
            "def f {{n : nat}} (xs : n.f32) : n.f32 =\n  {body}\n"
        ))
        .unwrap();
        // No temporary, and nothing gcc calls unused.
        assert!(!c.source.contains("rise_temp_get"), "{body}:\n{}", c.source);
        assert!(!c.source.contains("* 2.0f"), "{body}:\n{}", c.source);
        std::fs::write(dir.join("k.c"), &c.source).unwrap();
        std::fs::write(dir.join("k.h"), &c.header).unwrap();
        let out = Command::new("cc")
            .args(["-O2", "-Wall", "-Wextra", "-Werror", "-fopenmp", "-c"])
            .arg(dir.join("k.c"))
            .arg("-o")
            .arg(dir.join("k.o"))
            .output()
            .expect("cc runs");
        assert!(
            out.status.success(),
            "{body}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
