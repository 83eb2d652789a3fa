//! Generated C, compiled with gcc (`-O3 -march=native -fopenmp -Wall -Wextra -Werror`) and run:
//! the seven hand-lowered matmul versions of `examples/lowlevel/` against the naive lowering (in
//! double precision) at several sizes with 1 and 2 OpenMP threads, the size-check path, and
//! other programs against the reference interpreter.
//!
//! 1024³ is checked against the hand-written parallel baseline (itself checked against the
//! naive lowering at the smaller sizes), because the naive loops take seconds there on CI's 2
//! cores.

use risec_backend::{emit_c, CodegenOptions};
use risec_bench::Version;
use risec_core::diagnostics::SourceFile;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

const STRICT: &[&str] = &["-Wall", "-Wextra", "-Werror"];
/// The low-level files of `examples/lowlevel/`, each the twin of the hand-written baseline of
/// the same name.
const VERSIONS: [&str; 7] = [
    "naive",
    "blocking",
    "vectorization",
    "loop-perm",
    "array-packing",
    "cache-blocks",
    "parallel",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The low-level file `examples/lowlevel/NAME.rise`, as the version `NAME-lowlevel` (`naive`
/// is the naive lowering's name).
fn version(name: &str) -> Version {
    let path = root().join(format!("examples/lowlevel/{name}.rise"));
    Version {
        name: format!("{name}-lowlevel"),
        program: risec_frontend::load::compile_file(path.to_str().unwrap(), None).unwrap(),
        exact_sizes: false,
    }
}

fn work_dir(tag: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("codegen-c-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// All seven versions and all seven baselines, built once.
fn all_kernels() -> &'static risec_bench::Built {
    static EXE: OnceLock<risec_bench::Built> = OnceLock::new();
    EXE.get_or_init(|| {
        let versions: Vec<Version> = VERSIONS.iter().map(|v| version(v)).collect();
        crate::common::build_matmul_kernels(versions, &VERSIONS, "codegen-c-all")
    })
}

/// The tiled versions and the parallel baseline (the reference at 1024³).
fn tiled_kernels() -> &'static risec_bench::Built {
    static EXE: OnceLock<risec_bench::Built> = OnceLock::new();
    EXE.get_or_init(|| {
        let versions: Vec<Version> = VERSIONS[1..].iter().map(|v| version(v)).collect();
        crate::common::build_matmul_kernels(versions, &["parallel"], "codegen-c-tiled")
    })
}

/// Runs every kernel at these sizes and checks it against `reference` (the naive lowering in
/// double precision when `None`); returns how many ran.
fn verify(
    built: &risec_bench::Built,
    sizes: (u32, u32, u32),
    reference: Option<&str>,
    threads: u32,
) -> usize {
    crate::common::verify_kernels(built, sizes, reference, threads).len()
}

#[test]
fn all_versions_match_naive_at_non_square_sizes_with_one_and_two_threads() {
    let exe = all_kernels();
    for sizes in [(64, 96, 128), (256, 32, 512), (32, 32, 4)] {
        for threads in [1, 2] {
            // The naive lowering, the seven versions, the seven baselines.
            assert_eq!(verify(exe, sizes, None, threads), 15);
        }
    }
}

#[test]
fn tiled_versions_match_the_parallel_baseline_at_1024() {
    // The naive loops take seconds at 1024³: the tiled versions and the baseline only.
    let mut names: Vec<String> = VERSIONS[1..]
        .iter()
        .map(|v| format!("{v}-lowlevel"))
        .collect();
    names.push("parallel (C)".into());
    let only: Vec<&str> = names.iter().map(String::as_str).collect();
    let selection = risec_bench::measure::CheckSelection {
        reference: Some("parallel (C)"),
        only: Some(&only),
    };
    for threads in [1, 2] {
        let rows = risec_bench::measure::check_against_reference(
            tiled_kernels(),
            &[1024; 3],
            threads,
            &selection,
        )
        .unwrap();
        assert_eq!(rows.len(), 7, "{rows:?}");
        for row in rows {
            assert_eq!(row.code, 0, "{}", row.name);
            assert!(row.error <= risec_bench::REL_ERROR_BOUND, "{row:?}");
        }
    }
}

#[test]
fn sizes_violating_a_fact_return_nonzero_and_leave_out_untouched() {
    for (m, n, k) in [(48, 64, 64), (64, 40, 64), (64, 64, 6)] {
        let kernels = crate::common::check_kernels(all_kernels(), (m, n, k), None, 1);
        assert_eq!(kernels.len(), 15);
        for row in kernels {
            let (name, rc) = (&row.name, row.code);
            if name.starts_with("naive") {
                assert_eq!(rc, 0, "{name} supports any size");
            } else {
                assert_ne!(rc, 0, "{name} accepted m={m}, n={n}, k={k}");
                assert!(row.untouched, "{name} wrote to out although it failed");
            }
        }
    }
}

#[test]
fn compiled_in_sizes_drop_the_size_parameters_and_compile_cleanly() {
    let v = version("parallel");
    let options = CodegenOptions {
        sizes: Some(vec![1024, 1024, 1024]),
        header_name: "mm.h".into(),
        function_name: None,
        exact_sizes: false,
        wide_scalars: false,
    };
    let c = emit_c(&v.program, &options).unwrap();
    assert_eq!(
        c.signature,
        "int matmul(float *restrict out, const float *restrict a, const float *restrict b)"
    );
    assert!(!c.source.contains("m <= 0"));
    let dir = work_dir("fixed");
    std::fs::write(dir.join("mm.c"), &c.source).unwrap();
    std::fs::write(dir.join("mm.h"), &c.header).unwrap();
    crate::common::compile_object(&dir.join("mm.c"), &dir.join("mm.o"));
    let bad = CodegenOptions {
        sizes: Some(vec![48, 64, 64]),
        ..options
    };
    let e = emit_c(&v.program, &bad).unwrap_err();
    assert!(e.message.contains("m/32"), "{e}");
}

// ---- other programs, against the interpreter --------------------------------------------------

/// Compiles `source` (a low-level program) to C, runs it on the interpreter's random inputs at
/// `sizes` and compares with the interpreter's result for `reference` (the same program before
/// lowering, or `source` itself).
fn check_against_interpreter(name: &str, source: &str, reference: &str, sizes: &[u64]) {
    let lowered = risec_frontend::load::compile_source(&SourceFile::new("low.rise", source), None)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let options = CodegenOptions::new(&format!("{name}.h"));
    check_c_against_interpreter(name, &lowered, &options, reference, sizes);
}

/// [`check_against_interpreter`] for a program already compiled, with these options; returns
/// the generated C.
fn check_c_against_interpreter(
    name: &str,
    lowered: &risec_core::core::TypedProgram,
    options: &CodegenOptions,
    reference: &str,
    sizes: &[u64],
) -> risec_backend::CProgram {
    use risec_core::interp::{self, random::Rng, Value};
    let high = risec_frontend::load::compile_source(&SourceFile::new("high.rise", reference), None)
        .unwrap_or_else(|e| panic!("{}", e.render()));
    let (param_types, _) = interp::program_signature(&high).unwrap();
    let env: Vec<u64> = sizes.iter().rev().copied().collect();
    let mut rng = Rng::new(7);
    let args: Vec<Value> = param_types
        .iter()
        .map(|t| interp::random::random_value(t, &env, &mut rng).unwrap())
        .collect();
    let expected = interp::run_program(&high, sizes, args.clone()).unwrap();
    let c = emit_c(lowered, options).unwrap();

    fn flatten(v: &Value, out: &mut Vec<f32>) {
        match v {
            Value::F32(x) => out.push(*x),
            Value::Array(xs) | Value::Vector(xs) => xs.iter().for_each(|x| flatten(x, out)),
            other => panic!("unsupported value in a C test: {other}"),
        }
    }
    let mut main = format!("#include <stdio.h>\n#include \"{name}.h\"\n");
    let mut call: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
    call.push("out".into());
    for (i, a) in args.iter().enumerate() {
        let mut xs = Vec::new();
        flatten(a, &mut xs);
        let init: Vec<String> = xs.iter().map(|x| format!("{:e}f", x)).collect();
        main.push_str(&format!(
            "static const float in{i}[] = {{{}}};\n",
            init.join(", ")
        ));
        call.push(match a {
            Value::F32(_) => format!("in{i}[0]"),
            _ => format!("in{i}"),
        });
    }
    let mut want = Vec::new();
    flatten(&expected, &mut want);
    main.push_str(&format!(
        "static float out[{}];\nint main(void) {{\n    int rc = {}({});\n    if (rc) return 10 + rc;\n    for (int i = 0; i < {}; i++) printf(\"%.9e\\n\", out[i]);\n    return 0;\n}}\n",
        want.len(),
        c.function_name,
        call.join(", "),
        want.len()
    ));
    let dir = work_dir(name);
    std::fs::write(dir.join(format!("{name}.c")), &c.source).unwrap();
    std::fs::write(dir.join(format!("{name}.h")), &c.header).unwrap();
    std::fs::write(dir.join("main.c"), main).unwrap();
    let exe = dir.join("prog");
    risec_bench::compile::compile_executable(
        &[dir.join(format!("{name}.c")), dir.join("main.c")],
        std::slice::from_ref(&dir),
        &exe,
        STRICT,
        &[],
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", c.source));
    let out = Command::new(&exe).output().unwrap();
    assert!(
        out.status.success(),
        "{name}: exit {:?}\n{}",
        out.status,
        c.source
    );
    let got: Vec<f32> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-4 * w.abs().max(1.0),
            "{name}: element {i}: C {g}, interpreter {w}\n{}",
            c.source
        );
    }
    c
}

fn example(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

#[test]
fn dot_lowered_by_hand_matches_the_interpreter() {
    check_against_interpreter(
        "dot",
        &example("examples/lowlevel/dot.rise"),
        &example("examples/dot.rise"),
        &[37],
    );
}

#[test]
fn fuse_transpose_lowered_by_hand_matches_the_interpreter() {
    check_against_interpreter(
        "fuse_transpose",
        &example("examples/lowlevel/fuse-transpose.rise"),
        &example("examples/fuse-transpose.rise"),
        &[5, 7],
    );
}

#[test]
fn naive_matmul_lowered_by_hand_matches_the_interpreter() {
    check_against_interpreter(
        "matmul",
        &example("examples/lowlevel/naive.rise"),
        &example("examples/matmul.rise"),
        &[3, 5, 4],
    );
}

#[test]
fn vectors_temporaries_and_windows_match_the_interpreter() {
    // Write-side asScalar with vector arithmetic and a broadcast.
    let vec = "def f {n : nat} (x : (n*8).f32) : (n*8).f32 = x |> asVector 8 |> mapSeq (fun v => v * vectorFromScalar 2.0 + v) |> asScalar";
    check_against_interpreter("vec", vec, vec, &[3]);
    // A computed array read twice (materialised by toMem), zipped with a view.
    let tm = "def g {n : nat} (x : n.f32) (y : n.f32) : n.f32 = let t = toMem (mapSeq (fun v => v * v) x) in zip t (zip y t) |> mapSeq (fun p => fst p + fst (snd p) * snd (snd p))";
    check_against_interpreter("tomem", tm, tm, &[9]);
    // Windows summed by an unrolled reduction, padded with zeros (a forced temporary).
    let sl = "def h {n : nat} (x : (n+2).f32) : (n+2).f32 = x |> slide 3 1 |> mapSeq (reduceSeqUnroll (fun a v => a + v) 0.0) |> pad 1 1 0.0";
    check_against_interpreter("slide", sl, sl, &[6]);
    // Split and join on both sides, a parallel outer loop, generate and idx.
    let sj = "def s {n : nat} (x : (n*4).f32) : (n*4).f32 = x |> split 4 |> mapPar (fun r => generate (fun i => idx i r) |> mapSeq (fun v => v - 1.0)) |> join";
    check_against_interpreter("splitjoin", sj, sj, &[5]);
    // A reduction with an array accumulator whose body reads another element (not in place).
    let rev = "def r {n : nat} (x : n.2.f32) : 2.f32 = x |> reduceSeq (fun acc row => zip (transpose (split 1 acc) |> join |> drop 1 |> pad 0 1 0.0) row |> mapSeq (fun p => fst p + snd p)) (generate (fun i => 1.0))";
    check_against_interpreter("accshift", rev, rev, &[4]);
}

/// Reductions whose accumulator is the output reached through layouts (too large for a local
/// block: the sizes are symbolic) accumulate there and read it back where they wrote it.
#[test]
fn accumulators_in_the_output_through_layouts_match_the_interpreter() {
    // Blocks of columns (transpose and join), the inner loop parallel.
    let cols = "def c {n m k : nat} (x : k.n.(m*4).f32) : n.(m*4).f32 = \
        x |> map (map (split 4)) |> map transpose |> transpose \
          |> mapSeq (fun blk => blk |> reduceSeq (fun acc row => zip acc row \
               |> mapPar (fun p => zip (fst p) (snd p) |> mapSeq (fun q => fst q + snd q))) \
             (generate (fun i => generate (fun j => 1.0)))) \
          |> transpose |> map join";
    check_against_interpreter("acc_columns", cols, cols, &[3, 2, 5]);
    // Vectors written through asScalar: read back lane by lane.
    let vec = "def v {k n : nat} (x : k.(n*8).f32) : (n*8).f32 = \
        x |> map (asVector 8) \
          |> reduceSeq (fun acc row => zip acc row |> mapSeq (fun p => fst p + snd p)) \
             (generate (fun i => vectorFromScalar 0.5)) \
          |> asScalar";
    check_against_interpreter("acc_vectors", vec, vec, &[4, 3]);
    let rows = "def w {k m n : nat} (x : k.m.(n*8).f32) : m.(n*8).f32 = \
        x |> map (map (asVector 8)) \
          |> reduceSeq (fun acc blk => zip acc blk \
               |> mapSeq (fun p => zip (fst p) (snd p) |> mapSeq (fun q => fst q + snd q))) \
             (generate (fun i => generate (fun j => vectorFromScalar 0.0))) \
          |> map asScalar";
    check_against_interpreter("acc_vector_rows", rows, rows, &[3, 2, 2]);
}

#[test]
fn a_sketch_shaped_tile_reduction_matches_the_interpreter() {
    // The shape equality saturation produces for blocking: the tile accumulator is a generated
    // zero tile, each step adds an outer product read through views, the output is written
    // through transpose and join.
    let low = "def matmul {m n k : nat} (a : ((m/32)*32).k.f32) (b : k.((n/32)*32).f32) : m.n.f32 =
  join (mapSeq (fun arows => transpose (join (mapSeq (fun bcols => transpose (
    reduceSeq (fun acc p => mapSeq (fun z => mapSeq (fun w => fst w + snd w) (zip (fst z) (snd z))) (zip acc p))
      (generate (fun i => generate (fun j => 0.0)))
      (map (fun kk => map (fun x => map (fun y => x * y) (snd kk)) (fst kk)) (zip (transpose arows) (transpose bcols)))))
    (split 32 (transpose b))))) (split 32 a))";
    check_against_interpreter(
        "tile_reduction",
        low,
        &example("examples/matmul.rise"),
        &[64, 32, 5],
    );
}

#[test]
fn other_element_types_and_unused_parameters_compile_without_warnings() {
    let src = "def r {n : nat} (x : (n*4).f64) (y : n.i32) : (n*4).f64 = x |> asVector 4 |> mapPar (fun v => v * vectorFromScalar 0.5f64) |> asScalar";
    let p = risec_frontend::load::compile_source(&SourceFile::new("r.rise", src), None).unwrap();
    let c = emit_c(&p, &CodegenOptions::new("r.h")).unwrap();
    assert!(c.source.contains("(void)y;"), "{}", c.source);
    assert!(c.header.contains("#include <stdint.h>"));
    let dir = work_dir("types");
    std::fs::write(dir.join("r.c"), &c.source).unwrap();
    std::fs::write(dir.join("r.h"), &c.header).unwrap();
    crate::common::compile_object(&dir.join("r.c"), &dir.join("r.o"));
}

#[test]
fn parameters_named_like_c_keywords_macros_typedefs_and_the_backends_names_compile_and_compute() {
    // The C names are given to the compiled program (the interpreter does not use them):
    // keywords, standard macros and typedefs, header functions, reserved spellings, names the
    // backend generates (the vector macros' locals `l_` and `v_` among them), and a name its
    // own renaming produces.
    let scalars = [
        "int",
        "for",
        "restrict",
        "INT_MAX",
        "NULL",
        "EOF",
        "M_PI",
        "size_t",
        "int32_t",
        "FILE",
        "out",
        "rise_kept",
        "memcpy",
        "f32x8",
        "f32x8_load",
        "linux",
        "free",
        "_Bool",
        "__x",
        "main",
        "p_int",
        "p_free_temps",
        "x'",
        "9lives",
    ];
    let params: Vec<String> = (0..scalars.len())
        .map(|i| format!("(s{i} : f32)"))
        .collect();
    let sum: Vec<String> = (0..scalars.len()).map(|i| format!("s{i}")).collect();
    let src = format!(
        "def f {{n : nat}} (xs : (n*8).f32) (ys : (n*8).f32) {} : (n*8).f32 = \
         zip (asVector 8 xs) (asVector 8 ys) \
         |> mapPar (fun p => fst p * snd p + vectorFromScalar ({})) |> asScalar",
        params.join(" "),
        sum.join(" + ")
    );
    let mut program =
        risec_frontend::load::compile_source(&SourceFile::new("names.rise", &src), None)
            .unwrap_or_else(|e| panic!("{}", e.render()));
    program.size_params = vec!["unix".into()];
    program.value_params = ["l_", "v_"]
        .iter()
        .chain(&scalars)
        .map(|s| s.to_string())
        .collect();
    let options = CodegenOptions {
        function_name: Some("free".into()),
        ..CodegenOptions::new("names.h")
    };
    let c = check_c_against_interpreter("names", &program, &options, &src, &[3]);
    assert_eq!(c.function_name, "p_free");
    assert!(
        c.signature.starts_with(
            "int p_free(int p_unix, float *restrict out, const float *restrict p_l_, \
             const float *restrict p_v_, float p_int, float p_for, float p_restrict, \
             float p_INT_MAX, float p_NULL, float p_EOF, float p_M_PI, float p_size_t_, "
        ),
        "{}",
        c.signature
    );
    assert!(c
        .signature
        .ends_with("float p_int_, float p_free_temps_, float x_, float p_9lives)"));
}

/// The math functions in C (`rise_expf`, `__builtin_logf`, the `RISE_…` helpers), on scalars and lane by
/// lane on vectors, nested, as reduction operators and with `natToFloat`, compiled with the
/// strict flags and run against the interpreter.
#[test]
fn math_functions_match_the_interpreter() {
    let scalar = "def f {n : nat} (x : n.f32) (y : n.f32) : n.f32 = zip x y |> mapSeq (fun p => \
        max (exp (fst p)) (min (log (abs (snd p) + 1.0)) (sqrt (abs (fst p)))) + abs (snd p))";
    check_against_interpreter("math_scalar", scalar, scalar, &[37]);
    let vector = "def v {n : nat} (x : (n*8).f32) (y : (n*8).f32) : (n*8).f32 = \
        zip (asVector 8 x) (asVector 8 y) |> mapSeq (fun p => \
        max (exp (fst p)) (min (log (abs (snd p) + vectorFromScalar 1.0)) (sqrt (abs (fst p)))) \
        + abs (snd p)) |> asScalar";
    let c = check_c_against_interpreter(
        "math_vector",
        &risec_frontend::load::compile_source(&SourceFile::new("v.rise", vector), None).unwrap(),
        &CodegenOptions::new("math_vector.h"),
        vector,
        &[5],
    );
    for helper in ["RISE_VMAX", "RISE_VMIN", "RISE_LANEWISE(rise_expf"] {
        assert!(c.source.contains(helper), "{helper}\n{}", c.source);
    }
    let range = "def r {n : nat} (x : n.f32) : f32 = \
        (x |> reduceSeq (fun a v => max a v) (-1.0 / 0.0)) \
        - (x |> reduceSeq (fun a v => min a v) (1.0 / 0.0))";
    check_against_interpreter("math_range", range, range, &[41]);
    let mean = "def m {n : nat} (x : n.f32) : n.f32 = \
        x |> mapSeq (fun v => v / natToFloat n + natToFloat (n * 2 + 1))";
    let c = check_c_against_interpreter(
        "math_nat",
        &risec_frontend::load::compile_source(&SourceFile::new("m.rise", mean), None).unwrap(),
        &CodegenOptions::new("math_nat.h"),
        mean,
        &[9],
    );
    assert!(c.source.contains("((float)"), "{}", c.source);
}

/// `rise_expf`, the generated C's `exp` on floats, against `exp` in double precision over
/// every 61st float (70 million of them, all exponents and signs), built with UBSan: at most
/// 2 ulp from the rounded result where that is a normal float, within one subnormal step
/// below, infinity above, NaN for NaN.
#[test]
fn the_generated_float_exp_is_within_two_ulp_everywhere() {
    let dir = work_dir("rise_expf");
    let program = format!(
        "{}\n{}",
        risec_backend::c_math::MathHelper::ExpF32.definition(),
        r#"#include <math.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    double worst = 0.0;
    long bad = 0;
    for (unsigned long long u = 0; u <= 0xFFFFFFFFull; u += 61) {
        unsigned bits = (unsigned)u;
        float x;
        memcpy(&x, &bits, sizeof x);
        float y = rise_expf(x);
        double r = exp((double)x);
        if (isnan(x)) { bad += !isnan(y); continue; }
        if (r > 3.4028234663852886e38) { bad += !(isinf(y) || y == 3.4028234663852886e38f); continue; }
        if (r < 1.1754943508222875e-38) { bad += fabs(y - r) > 1.5e-45; continue; }
        double ulp = ldexp(1.0, ilogb((float)r) - 23);
        double e = fabs(y - r) / ulp;
        if (e > worst) worst = e;
    }
    float specials[4] = { rise_expf(INFINITY), rise_expf(-INFINITY), rise_expf(0.0f), rise_expf(1.0f) };
    bad += !(isinf(specials[0]) && specials[0] > 0) + (specials[1] != 0.0f) + (specials[2] != 1.0f)
        + (fabs(specials[3] - 2.718281828) > 3e-7);
    printf("%.3f %ld\n", worst, bad);
    return 0;
}
"#
    );
    std::fs::write(dir.join("expf.c"), program).unwrap();
    let exe = dir.join("expf");
    crate::common::succeeds(
        std::process::Command::new("gcc")
            .args(["-O2", "-march=native", "-Wall", "-Wextra", "-Werror"])
            .args(["-fsanitize=undefined", "-fno-sanitize-recover=all"])
            .arg(dir.join("expf.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-lm"),
        "gcc",
    );
    let run = crate::common::succeeds(&mut std::process::Command::new(&exe), "the check");
    let out = String::from_utf8_lossy(&run.stdout).to_string();
    let mut fields = out.split_whitespace();
    let worst: f64 = fields.next().unwrap().parse().unwrap();
    let bad: u64 = fields.next().unwrap().parse().unwrap();
    assert_eq!(bad, 0, "{out}");
    assert!(worst <= 2.0, "{out}");
}

/// Programs without math functions have none of their helpers (their C is unchanged), and the
/// math functions on `double`s compile with the strict flags.
#[test]
fn math_helpers_appear_only_where_used_and_doubles_compile() {
    let plain = "def p {n : nat} (x : n.f32) : n.f32 = x |> mapSeq (fun v => v * 2.0)";
    let p = risec_frontend::load::compile_source(&SourceFile::new("p.rise", plain), None).unwrap();
    let c = emit_c(&p, &CodegenOptions::new("p.h")).unwrap();
    assert!(!c.source.contains("RISE_"), "{}", c.source);
    assert!(!c.source.contains("__builtin_exp"), "{}", c.source);
    assert!(!c.source.contains("rise_expf"), "{}", c.source);
    let src = "def d {n : nat} (x : (n*4).f64) : (n*4).f64 = x |> asVector 4 \
        |> mapSeq (fun v => max (exp v) (sqrt (abs v))) |> asScalar \
        |> mapSeq (fun s => min (log (abs s + 1.0)) (s / natToFloat n))";
    let p = risec_frontend::load::compile_source(&SourceFile::new("d.rise", src), None).unwrap();
    let c = emit_c(&p, &CodegenOptions::new("d.h")).unwrap();
    for needed in [
        "RISE_LANEWISE(__builtin_exp,",
        "RISE_VMAX(",
        "__builtin_log(",
        "RISE_MIN(",
        "((double)",
    ] {
        assert!(c.source.contains(needed), "{needed}\n{}", c.source);
    }
    let dir = work_dir("math_doubles");
    std::fs::write(dir.join("d.c"), &c.source).unwrap();
    std::fs::write(dir.join("d.h"), &c.header).unwrap();
    let status = Command::new("gcc")
        .args(["-O3", "-march=native", "-fopenmp"])
        .args(STRICT)
        .arg("-c")
        .arg(dir.join("d.c"))
        .arg("-o")
        .arg(dir.join("d.o"))
        .status()
        .unwrap();
    assert!(status.success());
}
