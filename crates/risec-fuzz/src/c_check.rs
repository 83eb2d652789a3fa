//! Running generated C against the reference interpreter, under AddressSanitizer and
//! UndefinedBehaviorSanitizer: a `main` that passes random inputs at random sizes, prints the
//! output, and is compared element by element with the interpreter's result.

use crate::backend_c::CProgram;
use crate::core::TypedProgram;
use crate::interp::{self, random::Rng, Value};
use std::path::Path;
use std::process::Command;

/// The most values (inputs and output) the test's `main` holds.
const MAX_ELEMENTS_IN_MAIN: usize = 1 << 20;

/// What running a kernel gave.
#[derive(Clone, Debug, PartialEq)]
pub enum CRun {
    /// Its output matched the interpreter's at these sizes.
    Matched(Vec<u64>),
    /// It returned this non-zero code (the sizes violate a fact, or are too large): a refusal,
    /// with `out` untouched.
    Refused(i32),
    /// The program's values are not all `f32` arrays and scalars, or the interpreter could not
    /// find sizes or run it: nothing to compare.
    NotComparable(String),
}

/// A defect of generated C.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CDefect {
    /// The C compiler rejected it.
    #[error("the generated C does not compile:\n{0}")]
    DoesNotCompile(String),
    /// A sanitizer reported an error, or the kernel crashed.
    #[error(
        "the kernel is memory-unsafe or has undefined behaviour at sizes {sizes:?}:\n{report}"
    )]
    Unsafe {
        /// The sizes it ran at.
        sizes: Vec<u64>,
        /// The sanitizer's report (or the signal).
        report: String,
    },
    /// Its output differs from the interpreter's.
    #[error("the kernel's element {index} is {got}, the interpreter's {want}, at sizes {sizes:?}")]
    Wrong {
        /// The sizes it ran at.
        sizes: Vec<u64>,
        /// The first differing element.
        index: usize,
        /// The kernel's value.
        got: f32,
        /// The interpreter's value.
        want: f32,
    },
}

/// Flattens an `f32` value (scalar, array or vector of them) into `out`; false for other values.
pub(crate) fn flatten(v: &Value, out: &mut Vec<f32>) -> bool {
    match v {
        Value::F32(x) => {
            out.push(*x);
            true
        }
        Value::Array(xs) | Value::Vector(xs) => xs.iter().all(|x| flatten(x, out)),
        _ => false,
    }
}

/// Whether a computed `f32` is close enough to the expected one (reassociated sums round
/// differently).
pub(crate) fn close(got: f32, want: f32) -> bool {
    (got - want).abs() <= 1e-3 * want.abs().max(1.0) || (got.is_nan() && want.is_nan())
}

/// What a comparison with the interpreter needs: sizes, inputs and the expected output.
struct Prepared {
    sizes: Vec<u64>,
    args: Vec<Value>,
    want: Vec<f32>,
}

/// Draws sizes (up to `max_size`, satisfying `lowered`'s facts; for a function that rounds
/// sizes up, half the time any sizes, compared with the program it was derived from) and
/// inputs, and runs `reference` in the interpreter; `Err` with the reason when there is
/// nothing to compare.
fn prepare(
    rounds_up: bool,
    lowered: &TypedProgram,
    reference: &TypedProgram,
    max_size: u64,
    rng: &mut Rng,
) -> Result<Prepared, String> {
    let original;
    let (sized, reference) = match &lowered.derived_from {
        Some(term) if rounds_up && rng.coin() => {
            original = TypedProgram {
                term: (**term).clone(),
                facts: Vec::new(),
                derived_from: None,
                ..lowered.clone()
            };
            (&original, &original)
        }
        _ => (lowered, reference),
    };
    let sizes = interp::random::random_sizes(sized, max_size, rng).map_err(|e| e.to_string())?;
    let args = interp::random::random_args(reference, &sizes, rng).map_err(|e| e.to_string())?;
    let expected = interp::memory::with_limit(1 << 30, || {
        interp::run_program(reference, &sizes, args.clone())
    })
    .map_err(|e| e.to_string())?;
    let mut want = Vec::new();
    if !flatten(&expected, &mut want) {
        return Err("a result that is not f32".into());
    }
    Ok(Prepared { sizes, args, want })
}

/// The first difference between `got` and `want`, as a defect.
fn compare(got: &[f32], want: &[f32], sizes: &[u64]) -> Result<(), CDefect> {
    for (index, (g, w)) in got.iter().zip(want).enumerate() {
        if !close(*g, *w) {
            return Err(CDefect::Wrong {
                sizes: sizes.to_vec(),
                index,
                got: *g,
                want: *w,
            });
        }
    }
    if got.len() != want.len() {
        return Err(CDefect::Wrong {
            sizes: sizes.to_vec(),
            index: got.len().min(want.len()),
            got: f32::NAN,
            want: f32::NAN,
        });
    }
    Ok(())
}

/// Runs the optimised program `lowered` and the original `reference` in the interpreter on the
/// same random inputs, at sizes up to `max_size` that satisfy `lowered`'s facts: a cheap check
/// of the search's result without a C compiler.
pub fn interpret_against(
    lowered: &TypedProgram,
    reference: &TypedProgram,
    max_size: u64,
    seed: u64,
) -> Result<CRun, CDefect> {
    let mut rng = Rng::new(seed);
    let p = match prepare(false, lowered, reference, max_size, &mut rng) {
        Ok(p) => p,
        Err(e) => return Ok(CRun::NotComparable(e)),
    };
    let got = match interp::memory::with_limit(1 << 30, || {
        interp::run_program(lowered, &p.sizes, p.args.clone())
    }) {
        Ok(v) => v,
        Err(e) => return Ok(CRun::NotComparable(e.to_string())),
    };
    let mut values = Vec::new();
    if !flatten(&got, &mut values) {
        return Ok(CRun::NotComparable("a result that is not f32".into()));
    }
    compare(&values, &p.want, &p.sizes)?;
    Ok(CRun::Matched(p.sizes))
}

/// Compiles `c` (generated from `lowered`, whose size parameters it keeps symbolic) with a
/// `main` in `dir`, runs it at random sizes up to `max_size` that satisfy `lowered`'s facts,
/// and compares with the interpreter's result for `reference` (the program before lowering, or
/// `lowered` itself).
pub fn run_against_interpreter(
    c: &CProgram,
    lowered: &TypedProgram,
    reference: &TypedProgram,
    max_size: u64,
    seed: u64,
    dir: &Path,
) -> Result<CRun, CDefect> {
    let mut rng = Rng::new(seed);
    // A function that rounds sizes up takes any: half the runs draw sizes that need not satisfy
    // the kernel's facts, compared with the program it was derived from.
    let rounds_up = matches!(
        c.sizes,
        crate::backend_c::edges::SizeHandling::RoundedUp(..)
    );
    let Prepared { sizes, args, want } =
        match prepare(rounds_up, lowered, reference, max_size, &mut rng) {
            Ok(p) => p,
            Err(e) => return Ok(CRun::NotComparable(e)),
        };
    // The inputs are compiled into `main` as initialisers: millions of them take the C
    // compiler minutes and gigabytes.
    let elements = |v: &Value| {
        let mut xs = Vec::new();
        flatten(v, &mut xs);
        xs.len()
    };
    if args.iter().map(elements).sum::<usize>() + want.len() > MAX_ELEMENTS_IN_MAIN {
        return Ok(CRun::NotComparable(format!(
            "inputs too large to compile into the test's main at sizes {sizes:?}"
        )));
    }
    let mut main = format!("#include <stdio.h>\n#include \"{}.h\"\n", c.function_name);
    let mut call: Vec<String> = sizes.iter().map(|s| s.to_string()).collect();
    call.push("out".into());
    for (i, a) in args.iter().enumerate() {
        let mut xs = Vec::new();
        if !flatten(a, &mut xs) {
            return Ok(CRun::NotComparable("an input that is not f32".into()));
        }
        let init: Vec<String> = xs.iter().map(|x| format!("{x:e}f")).collect();
        main.push_str(&format!(
            "static const float in{i}[{}] = {{{}}};\n",
            xs.len().max(1),
            init.join(", ")
        ));
        call.push(match a {
            Value::F32(_) => format!("in{i}[0]"),
            _ => format!("in{i}"),
        });
    }
    main.push_str(&format!(
        "static float out[{len}];\nint main(void) {{\n    int rc = {}({});\n    if (rc) return 10 + rc;\n    \
         for (int i = 0; i < {len}; i++) printf(\"%.9e\\n\", out[i]);\n    return 0;\n}}\n",
        c.function_name,
        call.join(", "),
        len = want.len().max(1),
    ));
    std::fs::create_dir_all(dir).map_err(|e| CDefect::DoesNotCompile(e.to_string()))?;
    let source = dir.join(format!("{}.c", c.function_name));
    std::fs::write(&source, &c.source).map_err(|e| CDefect::DoesNotCompile(e.to_string()))?;
    std::fs::write(dir.join(format!("{}.h", c.function_name)), &c.header)
        .map_err(|e| CDefect::DoesNotCompile(e.to_string()))?;
    std::fs::write(dir.join("main.c"), main).map_err(|e| CDefect::DoesNotCompile(e.to_string()))?;
    let exe = dir.join("kernel");
    crate::bench::compile::compile_executable(
        &[source, dir.join("main.c")],
        &[dir.to_path_buf()],
        &exe,
        &[
            "-O1",
            "-g",
            "-w",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ],
        &[],
    )
    .map_err(|e| CDefect::DoesNotCompile(e.to_string()))?;
    // A campaign's child process runs under a soft address-space limit (`ulimit -S -v`), which
    // AddressSanitizer's shadow memory would exceed: the kernel lifts it.
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -S -v unlimited 2>/dev/null; exec \"$0\"")
        .arg(&exe)
        .env("OMP_NUM_THREADS", "2")
        // A kernel may ask for a padded buffer larger than memory and handle the failure
        // (it returns 2): ASan returns null there instead of aborting.
        .env("ASAN_OPTIONS", "detect_leaks=0:allocator_may_return_null=1")
        .output()
        .map_err(|e| CDefect::DoesNotCompile(e.to_string()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    // ASan's warning for an allocation it returned null for (the kernel then returns 2).
    let quiet = stderr
        .lines()
        .all(|l| l.contains("WARNING: AddressSanitizer failed to allocate"));
    match out.status.code() {
        Some(0) => {}
        Some(rc) if (11..=20).contains(&rc) && quiet => return Ok(CRun::Refused(rc - 10)),
        _ => {
            return Err(CDefect::Unsafe {
                sizes,
                report: format!("exit {:?}\n{stderr}", out.status),
            })
        }
    }
    let got: Vec<f32> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    compare(&got, &want, &sizes)?;
    Ok(CRun::Matched(sizes))
}
