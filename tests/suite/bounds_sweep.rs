//! No kernel touches memory it does not own, at any size: every shipped sketch of
//! `sketches/KERNEL/` (with `examples/KERNEL.rise`) compiled with AddressSanitizer and UBSan and
//! verified against the reference interpreter (`risec verify --sanitize`'s oracle: guard
//! zones, every input left as it was) at a sweep of sizes: 1, small primes, one below, at and
//! above every multiple the C rounds sizes up to and every vector width, with 1 and 3 threads.
//!
//! One size parameter varies at a time (the others at a small base size), then all together
//! along a diagonal of small sizes. The sketches named `*-unguided.sk` are left out: they are
//! searches to compare schedulers with, which the default scheduler does not finish. Tiled
//! stencils of `tests/sketches/` join them (inputs with a border, sizes rounded up). The
//! sketches of [`FACT_BOUND`] rely on a divisibility fact that their C cannot round sizes up
//! to (a maximum over zero-padded rows would change): each is swept on its own, at the sizes
//! its facts allow (multiples of 16 added to the sweep).

use risec_backend::edges::SizeHandling;
use risec_backend::{emit_c, CodegenOptions};
use risec_bench::driver::ValueClass;
use risec_bench::Version;
use risec_bench::{Kernels, Oracle};
use risec_core::core::TypedProgram;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The sizes every size parameter is tried at: 1, small primes, and one on either side of the
/// vector widths the shipped sketches use (4, 8, 16, 32).
const BASE_SWEEP: [u64; 12] = [1, 2, 3, 5, 7, 9, 13, 15, 17, 31, 33, 65];

/// Shipped sketches (`KERNEL/SKETCH`) whose C takes only the sizes their divisibility facts
/// allow (the row length a multiple of 16); they return 1 at other sizes, which `risec
/// verify` reports as a refusal.
const FACT_BOUND: &[&str] = &["softmax/lanes", "layernorm/lanes"];

/// The sizes added to the sweep of a kernel whose versions rely on divisibility facts.
const MULTIPLES: [u64; 6] = [16, 32, 48, 64, 80, 112];

/// The shipped kernels: (name, program, sketch files).
fn kernels() -> Vec<(String, PathBuf, Vec<PathBuf>)> {
    let mut found = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join("sketches"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let program = Path::new(ROOT).join(format!("examples/{name}.rise"));
        if !program.is_file() {
            continue;
        }
        let mut sketches: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                let file = p.file_name().unwrap().to_string_lossy();
                file.ends_with(".sk") && file != "lib.sk" && !file.ends_with("-unguided.sk")
            })
            .collect();
        sketches.sort();
        let (bound, free): (Vec<PathBuf>, Vec<PathBuf>) = sketches.into_iter().partition(|s| {
            let stem = s.file_stem().unwrap().to_string_lossy();
            FACT_BOUND.contains(&format!("{name}/{stem}").as_str())
        });
        for sketch in bound {
            let stem = sketch.file_stem().unwrap().to_string_lossy().into_owned();
            found.push((format!("{name}-{stem}"), program.clone(), vec![sketch]));
        }
        found.push((name, program, free));
    }
    // Tiled stencils, whose inputs have a border: sizes with an offset rounded up.
    for (name, program, sketch) in [
        ("jacobi1d-tiled", "jacobi1d", "jacobi1d-tiled"),
        ("jacobi2d-tiled", "jacobi2d", "jacobi2d-tiled"),
    ] {
        found.push((
            name.to_string(),
            Path::new(ROOT).join(format!("examples/{program}.rise")),
            vec![Path::new(ROOT).join(format!("tests/sketches/{sketch}.sk"))],
        ));
    }
    found
}

/// The sizes to try each size parameter at: the base sweep and one below, at and above every
/// multiple the versions' C rounds that parameter up to.
fn sweeps(program: &TypedProgram, versions: &[Version]) -> Vec<Vec<u64>> {
    let mut sweeps: Vec<Vec<u64>> = vec![BASE_SWEEP.to_vec(); program.size_params.len()];
    for v in versions {
        let c = emit_c(&v.program, &CodegenOptions::new("k.h")).unwrap();
        // No shipped sketch gathers vector lanes from strided memory, but the dense layer's
        // epilogue (sketches/mmbr/README.md says what it costs).
        if program.name != "mmbr" {
            assert!(c.warnings.is_empty(), "{}: {:?}", v.name, c.warnings);
        }
        match &c.sizes {
            SizeHandling::RoundedUp(multiples, _) => {
                for (name, m) in multiples {
                    let p = program.size_params.iter().position(|n| n == name).unwrap();
                    sweeps[p].extend([m - 1, *m, m + 1]);
                }
            }
            // Swept at the sizes its facts allow (`combinations` keeps only those).
            SizeHandling::Exact(_) if !v.program.facts.is_empty() => {
                for sweep in &mut sweeps {
                    sweep.extend(MULTIPLES);
                }
            }
            SizeHandling::Exact(why) => panic!(
                "`{}` refuses sizes its tiles do not divide: {why:?}",
                v.name
            ),
            SizeHandling::Any => {}
        }
    }
    for s in &mut sweeps {
        s.retain(|v| *v > 0);
        s.sort();
        s.dedup();
    }
    sweeps
}

/// The size combinations: one parameter along its sweep with the others at `base`, then the
/// diagonal of small sizes; only those the program's facts allow, and those of the versions in
/// `fact_bound` (a [`FACT_BOUND`] kernel's: its C takes no other sizes; the other versions'
/// C rounds sizes up to what their facts need).
fn combinations(
    program: &TypedProgram,
    fact_bound: &[&TypedProgram],
    sweeps: &[Vec<u64>],
) -> Vec<Vec<u64>> {
    let count = program.size_params.len();
    let allowed = |sizes: &[u64]| {
        program.violated_fact(sizes).is_none()
            && fact_bound.iter().all(|v| v.violated_fact(sizes).is_none())
    };
    let base = [7u64, 13, 17, 33, 16, 48]
        .into_iter()
        .find(|b| allowed(&vec![*b; count]))
        .expect("a small base size");
    let mut combos = Vec::new();
    for (p, sweep) in sweeps.iter().enumerate() {
        for v in sweep {
            let mut sizes = vec![base; count];
            sizes[p] = *v;
            combos.push(sizes);
        }
    }
    for v in [1u64, 2, 3, 5, 17, 33] {
        combos.push(vec![v; count]);
    }
    combos.retain(|s| allowed(s));
    combos.sort();
    combos.dedup();
    combos
}

/// Verifies one kernel's versions over its sweep; the failures, as text.
fn sweep_kernel(name: &str, program_path: &Path, sketches: &[PathBuf]) -> Vec<String> {
    let started = std::time::Instant::now();
    let program = risec::load_program(program_path, None).unwrap();
    let versions: Vec<Version> = sketches
        .iter()
        .map(|s| {
            let steps = risec::load_sketch(s, &program).unwrap();
            let done = risec::optimize(&program, &steps, &Default::default())
                .unwrap_or_else(|e| panic!("{}: {e}", s.display()));
            Version {
                name: s.file_stem().unwrap().to_string_lossy().into_owned(),
                program: done.program,
                exact_sizes: false,
            }
        })
        .collect();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("bounds-sweep-{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    let built = risec_bench::build(
        &Kernels {
            program: &program,
            versions: &versions,
            user: &[],
            openblas: false,
            sanitize: true,
            libs: &[],
            extra_flags: &[],
            reference: None,
        },
        &dir,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let built_at = started.elapsed();
    let sweeps = sweeps(&program, &versions);
    let fact_bound: Vec<&TypedProgram> = if FACT_BOUND.iter().any(|k| k.replace('/', "-") == name) {
        versions.iter().map(|v| &v.program).collect()
    } else {
        Vec::new()
    };
    let combos = combinations(&program, &fact_bound, &sweeps);
    let mut failures = Vec::new();
    for (i, sizes) in combos.iter().enumerate() {
        for threads in [1, 3] {
            // Every kind of input at the first sizes, the uniform ones elsewhere.
            let classes = if i == 0 {
                ValueClass::ALL.to_vec()
            } else {
                vec![ValueClass::Uniform]
            };
            let oracle = Oracle {
                classes,
                ..Oracle::new(threads)
            };
            let checked = risec_bench::verify(&built, &program, sizes, &oracle, &dir)
                .unwrap_or_else(|e| panic!("{name} at {sizes:?}: {e}"));
            for c in checked.iter().filter(|c| !c.verdict.passed()) {
                failures.push(format!(
                    "{name}/{} at {:?}, {threads} thread(s): {}",
                    c.name,
                    program.size_params.iter().zip(sizes).collect::<Vec<_>>(),
                    c.verdict.text()
                ));
            }
        }
    }
    eprintln!(
        "{name}: {} version(s) at {} size combinations, 1 and 3 threads (built in {built_at:.1?}, {:.1?} in all)",
        versions.len() + 1,
        combos.len(),
        started.elapsed()
    );
    failures
}

/// Whether `cc -fsanitize=address,undefined` builds and runs a program here.
fn sanitizers_available() -> bool {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bounds-sweep-probe");
    std::fs::create_dir_all(&dir).unwrap();
    let c = dir.join("probe.c");
    std::fs::write(&c, "int main(void) { return 0; }\n").unwrap();
    let exe = dir.join("probe");
    let built = std::process::Command::new("cc")
        .args(["-fsanitize=address,undefined", "-fopenmp"])
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .status()
        .is_ok_and(|s| s.success());
    built
        && std::process::Command::new(&exe)
            .status()
            .is_ok_and(|s| s.success())
}

#[test]
fn every_shipped_sketch_stays_inside_its_arrays_at_every_size() {
    assert!(
        sanitizers_available(),
        "this test needs `cc -fsanitize=address,undefined` (gcc with libasan and libubsan)"
    );
    // The kernels with the most versions first, so that the longest builds overlap.
    let mut todo = kernels();
    todo.sort_by_key(|(_, _, sketches)| sketches.len());
    let work = Mutex::new(todo);
    let failures = Mutex::new(Vec::new());
    // The kernels in two workers: the machine's two cores.
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let Some((name, program, sketches)) = work.lock().unwrap().pop() else {
                    break;
                };
                let found = sweep_kernel(&name, &program, &sketches);
                failures.lock().unwrap().extend(found);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
