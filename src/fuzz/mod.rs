//! Mutation fuzzing of the whole pipeline (issue 19): mutated programs and sketch files through
//! the main job, mutated low-level programs through C generation, and a sample of the generated
//! C run under sanitizers against the interpreter.
//!
//! A [`Case`] is drawn from a seed, so any finding can be replayed. [`run_case`] runs it in
//! process with a small budget and sorts what happened into an [`Outcome`] (an input refused
//! with an error, a search that found nothing, C that refuses the sizes, C that matches) or a
//! [`Defect`] (a panic, an error without a message, an internal name in a message, C that does
//! not compile, is memory-unsafe, or computes something else). `tests/fuzz.rs` runs a bounded
//! campaign in CI; `examples/fuzz_campaign.rs` runs long ones.

pub mod c_check;
pub mod mutate;

use crate::backend_c::{CProgram, CodegenOptions};
use crate::core::TypedProgram;
use crate::diagnostics::SourceFile;
use crate::interp::random::Rng;
use crate::sketch::guided::SearchOptions;
use crate::support::budget::Budget;
use crate::Error;
use c_check::{CDefect, CRun};
use std::path::{Path, PathBuf};
use std::time::Duration;

macro_rules! shipped {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/", $path)))),*]
    };
}

/// The high-level programs mutated, with the sketch directory whose files fit each.
const PROGRAMS: &[(&str, &str)] = shipped!(
    "examples/matmul.rise",
    "examples/matvec.rise",
    "examples/dot.rise",
    "examples/fuse-transpose.rise",
);

/// The low-level programs mutated (C generation without a search).
const LOW_LEVEL: &[(&str, &str)] = shipped!(
    "examples/lowlevel/naive.rise",
    "examples/lowlevel/dot.rise",
    "examples/lowlevel/fuse-transpose.rise",
    "examples/lowlevel/loop-perm.rise",
    "examples/lowlevel/blocking.rise",
    "examples/lowlevel/vectorization.rise",
    "examples/lowlevel/array-packing.rise",
    "examples/lowlevel/cache-blocks.rise",
    "examples/lowlevel/parallel.rise",
);

/// The sketch files mutated, with the program each is for.
const SKETCHES: &[(&str, &str)] = shipped!(
    "sketches/matmul/baseline.sk",
    "sketches/matmul/loop-perm.sk",
    "sketches/matmul/blocking.sk",
    "sketches/matmul/vectorization.sk",
    "sketches/matmul/array-packing.sk",
    "sketches/matmul/cache-blocks.sk",
    "sketches/matmul/parallel.sk",
    "sketches/matmul/blocking-64x64-k8.sk",
    "sketches/matmul/register-blocking.sk",
    "sketches/matmul/register-blocking-avx512.sk",
    "sketches/matmul/register-blocking-any.sk",
    "sketches/matvec/blocking.sk",
);

/// The library the matmul sketches import.
const MATMUL_LIB: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/sketches/matmul/lib.sk"
));

/// What a case feeds the pipeline.
#[derive(Clone, Debug)]
pub enum Input {
    /// A program and a sketch file (with the matmul library it may import) through the main job
    /// with C output.
    MainJob {
        /// The program's text.
        program: String,
        /// The sketch file's text.
        sketch: String,
        /// The text of `lib.sk` beside it.
        library: String,
    },
    /// A low-level program through C generation.
    EmitC {
        /// The program's text.
        program: String,
    },
}

/// One fuzzing case.
#[derive(Clone, Debug)]
pub struct Case {
    /// The seed it was drawn from.
    pub seed: u64,
    /// Which shipped files it mutates, and how (`sketch:blocking.sk ×2`).
    pub origin: String,
    /// Its input.
    pub input: Input,
}

/// Draws case `seed`: a third mutate a sketch file (or its library), a third a high-level
/// program (with its sketch as shipped), a third a low-level program.
pub fn draw(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let vocabulary = vocabulary();
    let mutations = 1 + rng.below(3) as usize;
    let pick = |rng: &mut Rng, n: usize| rng.below(n as u64) as usize;
    let (origin, input) = match rng.below(3) {
        0 | 1 => {
            let (sk_path, sk_text) = SKETCHES[pick(&mut rng, SKETCHES.len())];
            let program_path = if sk_path.contains("matvec") {
                "examples/matvec.rise"
            } else {
                "examples/matmul.rise"
            };
            let program = PROGRAMS.iter().find(|(p, _)| *p == program_path).unwrap().1;
            let (mut program, mut sketch, mut library) = (
                program.to_string(),
                sk_text.to_string(),
                MATMUL_LIB.to_string(),
            );
            let what = if rng.below(3) == 0 {
                program = mutate::mutate(&program, mutations, &vocabulary, &mut rng);
                program_path
            } else if rng.below(4) == 0 {
                library = mutate::mutate(&library, mutations, &vocabulary, &mut rng);
                "sketches/matmul/lib.sk"
            } else {
                sketch = mutate::mutate(&sketch, mutations, &vocabulary, &mut rng);
                sk_path
            };
            (
                format!("{what} ×{mutations} (with {sk_path})"),
                Input::MainJob {
                    program,
                    sketch,
                    library,
                },
            )
        }
        _ => {
            let (path, text) = LOW_LEVEL[pick(&mut rng, LOW_LEVEL.len())];
            (
                format!("{path} ×{mutations}"),
                Input::EmitC {
                    program: mutate::mutate(text, mutations, &vocabulary, &mut rng),
                },
            )
        }
    };
    Case {
        seed,
        origin,
        input,
    }
}

/// Primitive and rule names, which mutations insert.
fn vocabulary() -> Vec<String> {
    let mut words: Vec<String> = crate::ir::primitive::Primitive::ALL
        .iter()
        .map(|p| p.name().to_string())
        .collect();
    words.extend(
        crate::eqsat::rules::catalogue()
            .iter()
            .map(|r| r.name.to_string()),
    );
    words
}

/// What a case did, when it did nothing wrong.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The program was refused with diagnostics.
    ProgramRefused,
    /// The sketch file was refused with diagnostics.
    SketchRefused,
    /// A step found no program within its limits.
    NotFound,
    /// The run's budget ran out outside the searches.
    OutOfBudget,
    /// The back end refused the program with an error.
    CRefused,
    /// C was generated (and not run).
    Generated,
    /// C was generated and run: its result.
    Ran(CRun),
}

/// Something a case must never do.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Defect {
    /// risec panicked.
    #[error("panic: {0}")]
    Panic(String),
    /// An error whose message says nothing, or names internal things.
    #[error("a bad error message: {0:?}")]
    BadMessage(String),
    /// The optimised program failed the type check before output (a rule made it ill-typed).
    #[error("an ill-typed result: {0}")]
    IllTyped(String),
    /// An internal compiler error.
    #[error("internal error: {0}")]
    Internal(String),
    /// Generated C that is wrong.
    #[error(transparent)]
    C(#[from] CDefect),
}

/// How a case runs.
#[derive(Clone, Debug)]
pub struct CaseOptions {
    /// The whole run's time budget.
    pub time: Duration,
    /// Whether to compile and run the C (under sanitizers) when some is generated.
    pub run_c: bool,
    /// Where to write files (sketches for loading, C for running).
    pub dir: PathBuf,
}

/// An error message a user may see: must say something, and nothing internal.
fn check_message(text: &str) -> Result<(), Defect> {
    let internal = text.contains("#0") || text.contains("#1") || text.contains("internal");
    if text.trim().is_empty() || internal {
        return Err(Defect::BadMessage(text.to_string()));
    }
    Ok(())
}

/// Runs `case`, catching panics.
pub fn run_case(case: &Case, options: &CaseOptions) -> Result<Outcome, Defect> {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(case, options)));
    match result {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(Defect::Panic(msg))
        }
    }
}

fn run(case: &Case, options: &CaseOptions) -> Result<Outcome, Defect> {
    let parse = |text: &str| crate::parse_program(&SourceFile::new("fuzz.rise", text), None);
    match &case.input {
        Input::EmitC { program } => {
            let program = match parse(program) {
                Ok(p) => p,
                Err(e) => return refused(e, Outcome::ProgramRefused),
            };
            emit(&program, &program, options, case.seed)
        }
        Input::MainJob {
            program,
            sketch,
            library,
        } => {
            let program = match parse(program) {
                Ok(p) => p,
                Err(e) => return refused(e, Outcome::ProgramRefused),
            };
            let dir = options.dir.join("sketches");
            std::fs::create_dir_all(&dir).map_err(|e| Defect::Internal(e.to_string()))?;
            let write = |name: &str, text: &str| {
                std::fs::write(dir.join(name), text).map_err(|e| Defect::Internal(e.to_string()))
            };
            write("lib.sk", library)?;
            write("fuzz.sk", &sketch.replace("../matmul/lib.sk", "lib.sk"))?;
            let steps = match crate::load_sketch(dir.join("fuzz.sk"), &program) {
                Ok(s) => s,
                Err(e) => return refused(e, Outcome::SketchRefused),
            };
            let search = SearchOptions {
                budget: Budget::new(options.time, 2 << 30),
                ..SearchOptions::default()
            };
            let optimized = match crate::optimize(&program, &steps, &search) {
                Ok(o) => o,
                Err(Error::NotFound(_)) => return Ok(Outcome::NotFound),
                Err(Error::Budget(_)) => return Ok(Outcome::OutOfBudget),
                Err(e @ Error::IllTypedResult(_)) => return Err(Defect::IllTyped(e.to_string())),
                Err(e) => return refused(e, Outcome::CRefused),
            };
            emit(&optimized.program, &program, options, case.seed)
        }
    }
}

/// An error that is a proper refusal, checked for its message.
fn refused(e: Error, outcome: Outcome) -> Result<Outcome, Defect> {
    if let Error::Internal(m) = &e {
        return Err(Defect::Internal(m.clone()));
    }
    let text = match &e {
        Error::Program(crate::LoadError::Invalid(f)) => f.render(),
        Error::Sketch(s) => s.render(),
        other => other.to_string(),
    };
    check_message(&text)?;
    Ok(outcome)
}

/// Generates C for `lowered` and, if asked, runs it against `reference`.
fn emit(
    lowered: &TypedProgram,
    reference: &TypedProgram,
    options: &CaseOptions,
    seed: u64,
) -> Result<Outcome, Defect> {
    let c: CProgram = match crate::emit_c(lowered, &CodegenOptions::default()) {
        Ok(c) => c,
        Err(e) => return refused(e, Outcome::CRefused),
    };
    if !options.run_c {
        return Ok(Outcome::Generated);
    }
    let dir: &Path = &options.dir.join("c");
    Ok(Outcome::Ran(c_check::run_against_interpreter(
        &c, lowered, reference, 24, seed, dir,
    )?))
}

/// Counts of a campaign's outcomes and its defects (with the cases that showed them).
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Cases run.
    pub cases: usize,
    /// Programs refused.
    pub program_refused: usize,
    /// Sketch files refused.
    pub sketch_refused: usize,
    /// Searches that found nothing.
    pub not_found: usize,
    /// Budgets that ran out.
    pub out_of_budget: usize,
    /// Programs the back end refused.
    pub c_refused: usize,
    /// C generated and not run.
    pub generated: usize,
    /// C run and matching the interpreter.
    pub matched: usize,
    /// C run and refusing the sizes with a non-zero return.
    pub refused_at_run_time: usize,
    /// C generated but not comparable with the interpreter.
    pub not_comparable: usize,
    /// The defects, with their case's seed and origin.
    pub defects: Vec<(u64, String, String)>,
}

impl Tally {
    /// Counts one case's result.
    pub fn add(&mut self, case: &Case, result: &Result<Outcome, Defect>) {
        self.cases += 1;
        match result {
            Ok(Outcome::ProgramRefused) => self.program_refused += 1,
            Ok(Outcome::SketchRefused) => self.sketch_refused += 1,
            Ok(Outcome::NotFound) => self.not_found += 1,
            Ok(Outcome::OutOfBudget) => self.out_of_budget += 1,
            Ok(Outcome::CRefused) => self.c_refused += 1,
            Ok(Outcome::Generated) => self.generated += 1,
            Ok(Outcome::Ran(CRun::Matched(_))) => self.matched += 1,
            Ok(Outcome::Ran(CRun::Refused(_))) => self.refused_at_run_time += 1,
            Ok(Outcome::Ran(CRun::NotComparable(_))) => self.not_comparable += 1,
            Err(d) => self
                .defects
                .push((case.seed, case.origin.clone(), d.to_string())),
        }
    }

    /// The counts as a table, one line each.
    pub fn table(&self) -> String {
        let rows = [
            ("cases", self.cases),
            ("program refused with diagnostics", self.program_refused),
            ("sketch file refused with diagnostics", self.sketch_refused),
            ("search found nothing within its limits", self.not_found),
            ("run budget ran out", self.out_of_budget),
            ("back end refused with an error", self.c_refused),
            ("C generated (not run)", self.generated),
            ("C run: matches the interpreter", self.matched),
            (
                "C run: refused the sizes (non-zero return)",
                self.refused_at_run_time,
            ),
            (
                "C run: not comparable (non-f32 values)",
                self.not_comparable,
            ),
            ("defects", self.defects.len()),
        ];
        rows.iter()
            .map(|(what, n)| format!("{n:>9}  {what}\n"))
            .collect()
    }
}
