//! The `offset` family: programs whose sizes have offsets (`n+1`, `2*n+1`, a stencil's
//! `(n+2).(m+2)` input: the shipped jacobi, blur, unsharp and Harris programs, and generated
//! maps, reductions, zips and windows over such sizes) through generated sketch files whose
//! steps split by 2, 3, 7, 32, 64, 65536, 2²⁰ or 2³¹−1 (`split-join`, `-1m`, `-2m`,
//! `blocked-reduce`, `reduce-lanes`, `vec-after`, …), nested, with random schedulers, step
//! limits and now and then one token mutated. The result is checked against the original in
//! the interpreter at sizes up to 24, 70 or 130 (and its C, for a sample, under sanitizers).

use super::draws::{log_uniform, one_in, pick, scheduler, size_rule, split_size, time};
use super::shipped::OFFSET_PROGRAMS;
use super::{mutate, Case, Family, Input, Settings};
use crate::interp::random::Rng;

/// A program: its text, and its sizes as a sketch names them, outermost dimension first.
struct Program {
    origin: String,
    text: String,
    /// The sizes of the input's dimensions (`n+2`, `m+2`), as sketches write them.
    dims: Vec<String>,
}

/// An offset: mostly small, now and then 0 or large.
fn offset(rng: &mut Rng) -> u64 {
    *pick(rng, &[1, 1, 2, 2, 3, 7, 0, 31, 65535])
}

/// A size with an offset over size parameter `name`: `n+2`, `2*n+1`, `n*4+3`, `n`.
fn offset_size(rng: &mut Rng, name: &str) -> String {
    let c = offset(rng);
    match rng.below(6) {
        0 => format!("2*{name}+{}", c.max(1)),
        1 => format!("{name}*4+{c}"),
        2 => name.to_string(),
        _ => format!("{name}+{c}"),
    }
}

/// Draws a program: a shipped stencil or a generated one.
fn program(rng: &mut Rng) -> Program {
    if one_in(rng, 3) {
        let (path, text) = *pick(rng, OFFSET_PROGRAMS);
        let pad = if path.contains("harris") { 4 } else { 2 };
        let dims = if path.contains("jacobi1d") {
            vec![format!("n+{pad}")]
        } else {
            vec![format!("n+{pad}"), format!("m+{pad}")]
        };
        return Program {
            origin: path.to_string(),
            text: text.to_string(),
            dims,
        };
    }
    let a = offset_size(rng, "n");
    let b = offset_size(rng, "m");
    let c = offset_size(rng, "k");
    let w = 2 + rng.below(3);
    let (kind, text, dims) = match rng.below(8) {
        0 => (
            "map",
            format!("def f {{n : nat}} (xs : ({a}).f32) : ({a}).f32 = xs |> map (fun x => x * 2.0 + 1.0)"),
            vec![a],
        ),
        1 => (
            "map2d",
            format!(
                "def f {{n m : nat}} (xs : ({a}).({b}).f32) : ({a}).({b}).f32 =\n  xs |> map (map (fun x => x * 2.0))"
            ),
            vec![a, b],
        ),
        2 => (
            "reduce",
            format!("def f {{n : nat}} (xs : ({a}).f32) : f32 = xs |> reduce (+) 0.0"),
            vec![a],
        ),
        3 => (
            "zip",
            format!(
                "def f {{n : nat}} (xs : ({a}).f32) (ys : ({a}).f32) : ({a}).f32 =\n  zip xs ys |> map (fun p => fst p * snd p)"
            ),
            vec![a],
        ),
        4 => (
            "window",
            format!(
                "def f {{n : nat}} (xs : (n+{}).f32) : n.f32 =\n  xs |> slide {w} 1 |> map (fun v => v |> reduce (+) 0.0)",
                w - 1
            ),
            vec![format!("n+{}", w - 1)],
        ),
        5 => (
            "map3d",
            format!(
                "def f {{n m k : nat}} (xs : ({a}).({b}).({c}).f32) : ({a}).({b}).({c}).f32 =\n  xs |> map (map (map (fun x => x + 1.0)))"
            ),
            vec![a, b, c],
        ),
        6 => (
            "matvec",
            format!(
                "def f {{n m : nat}} (a : ({a}).({b}).f32) (x : ({b}).f32) : ({a}).f32 =\n  a |> map (fun row => zip row x |> map (fun p => fst p * snd p) |> reduce (+) 0.0)"
            ),
            vec![a, b],
        ),
        _ => (
            "rows",
            format!(
                "def f {{n m : nat}} (xs : ({a}).({b}).f32) : ({a}).f32 =\n  xs |> map (fun row => row |> reduce (+) 0.0)"
            ),
            vec![a, b],
        ),
    };
    Program {
        origin: format!("generated {kind}"),
        text: text + "\n",
        dims,
    }
}

/// A map over `extent` applied to `body` (`?` for any extent).
fn map_of(extent: &str, body: &str) -> String {
    format!("(map : ? -> {extent}.? -> ?) {body}")
}

/// One guide step: its rules and sketch.
fn step(rng: &mut Rng, dims: &[String], index: usize) -> String {
    let k = split_size(rng);
    // Mostly the outermost dimension, which `split-join` splits; the others need `-1m`, `-2m`.
    let dim = if rng.coin() {
        dims[0].clone()
    } else {
        pick(rng, dims).clone()
    };
    let (rules, sketch): (Vec<String>, String) = match rng.below(7) {
        0 | 1 => (
            vec![format!("split-join({k})")],
            format!("contains({})", map_of(&format!("(({dim})/{k}).{k}"), "?")),
        ),
        2 => {
            let k2 = split_size(rng);
            (
                vec![
                    format!("split-join({k})"),
                    format!("split-join-1m({k2})"),
                    format!("split-join({k2})"),
                    "split-before-map".into(),
                ],
                format!(
                    "contains({})",
                    map_of(
                        &format!("?.{k}"),
                        &format!("contains({})", map_of(&format!("?.{k2}"), "?"))
                    )
                ),
            )
        }
        3 => (
            vec![
                format!("blocked-reduce({k})"),
                format!("reduce-lanes({k})"),
                "reduce-seq".into(),
            ],
            format!("contains((reduceSeq : ? -> ? -> ?.{k}.? -> ?) ?)"),
        ),
        4 => (
            vec![format!("vec-after({k})"), format!("vec-before-map({k})")],
            format!("contains((map : ? -> ?.<{k}>f32 -> ?) ?)"),
        ),
        5 => (
            vec!["map-par".into(), "reduce-seq".into()],
            "contains(mapPar)".into(),
        ),
        _ => (
            (0..1 + rng.below(4)).map(|_| size_rule(rng)).collect(),
            if rng.coin() {
                "?".into()
            } else {
                format!("contains({})", map_of("?", "?"))
            },
        ),
    };
    let mut rules = rules;
    if one_in(rng, 3) {
        rules.push(size_rule(rng));
    }
    let mut text = format!(
        "step s{index} {{\n  rules = [{}]\n  sketch = {sketch}\n",
        rules.join(", ")
    );
    if one_in(rng, 4) {
        text.push_str(&format!(
            "  limits = {{ time = {}ms, nodes = {} }}\n",
            log_uniform(rng, 10, 500),
            log_uniform(rng, 10, 1_000_000)
        ));
    }
    if one_in(rng, 5) {
        text.push_str(&format!("  scheduler = {}\n", scheduler(rng)));
    }
    text.push_str("}\n");
    text
}

/// Draws case `seed` of the family.
pub fn draw(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let program = program(&mut rng);
    // One step half the time: later steps ask for shapes the earlier ones may have ruled out.
    let steps = *pick(&mut rng, &[1, 1, 1, 1, 2, 2, 2, 3]);
    let mut sketch: String = (0..steps)
        .map(|i| step(&mut rng, &program.dims, i))
        .collect();
    let mut text = program.text;
    let mut origin = format!("{}, {steps} step(s)", program.origin);
    if one_in(&mut rng, 5) {
        let vocabulary = super::sketch::vocabulary();
        if rng.coin() {
            sketch = mutate::mutate(&sketch, 1, &vocabulary, &mut rng);
            origin.push_str(", sketch ×1");
        } else {
            text = mutate::mutate(&text, 1, &vocabulary, &mut rng);
            origin.push_str(", program ×1");
        }
    }
    let settings = Settings {
        time: Some(time(&mut rng, 100, 400)),
        scheduler: if one_in(&mut rng, 3) {
            scheduler(&mut rng)
        } else {
            Default::default()
        },
        seed: rng.below(1000),
        nodes: one_in(&mut rng, 4).then(|| log_uniform(&mut rng, 100, 1_000_000) as usize),
        check_sizes: *pick(&mut rng, &[24, 70, 130]),
        ..Settings::default()
    };
    let settings = Settings {
        // A 3D array of 130³ elements takes the interpreter too long.
        check_sizes: if program.dims.len() > 2 {
            24
        } else {
            settings.check_sizes
        },
        ..settings
    };
    Case {
        family: Family::Offset,
        seed,
        origin,
        input: Input::MainJob {
            program: text,
            sketch: ("fuzz/offset.sk".into(), sketch),
            files: Vec::new(),
        },
        settings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_sketches_name_the_programs_sizes() {
        for seed in 0..40 {
            let case = draw(seed);
            let Input::MainJob { sketch, .. } = &case.input else {
                panic!("a main job")
            };
            assert!(sketch.1.contains("step s0"), "{}", sketch.1);
        }
    }
}
