//! The `sketch` family (issue 19): the shipped matmul and matvec sketch files, their programs
//! and the matmul library, and the shipped low-level programs, each mutated token by token.

use super::shipped::{LOW_LEVEL, MATMUL_LIB, PROGRAMS, SKETCHES};
use super::{mutate, Case, Family, Input, Settings};
use crate::interp::random::Rng;

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
                MATMUL_LIB.1.to_string(),
            );
            let what = if rng.below(3) == 0 {
                program = mutate::mutate(&program, mutations, &vocabulary, &mut rng);
                program_path
            } else if rng.below(4) == 0 {
                library = mutate::mutate(&library, mutations, &vocabulary, &mut rng);
                MATMUL_LIB.0
            } else {
                sketch = mutate::mutate(&sketch, mutations, &vocabulary, &mut rng);
                sk_path
            };
            (
                format!("{what} ×{mutations} (with {sk_path})"),
                Input::MainJob {
                    program,
                    sketch: (sk_path.to_string(), sketch),
                    files: vec![(MATMUL_LIB.0.to_string(), library)],
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
        family: Family::Sketch,
        seed,
        origin,
        input,
        settings: Settings::default(),
    }
}

/// Primitive and rule names, which mutations insert.
pub fn vocabulary() -> Vec<String> {
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
