//! The `budget` family: every shipped program with each of its shipped sketch files (the
//! kernels of sketches/ and the tiling goals, guided and unguided) under random budgets:
//! `--time` from 50 ms to 2 s, `--memory` from 32 MiB to 1 GiB, `--nodes`, a scheduler, and
//! step `limits = {…}` written into the sketch (zero, tiny and huge ones too); now and then the
//! process runs under an address-space limit (`ulimit -v`, 384 MiB to 2 GiB) and no
//! `--memory`, so that risec's default budget must respect it.

use super::draws::{log_uniform, one_in, pick, scheduler, time};
use super::shipped::{KERNELS, LIBRARIES};
use super::{Case, Family, Input, Settings};
use crate::interp::random::Rng;

/// A step's `limits = { … }`: a random subset of its keys, with ordinary, tiny and huge
/// values.
fn limits(rng: &mut Rng) -> String {
    let mut keys = Vec::new();
    if rng.coin() {
        keys.push(format!(
            "time = {}",
            pick(
                rng,
                &["0s", "1ms", "50ms", "300ms", "2s", "60s", "1000000s"]
            )
        ));
    }
    if rng.coin() {
        keys.push(format!(
            "nodes = {}",
            pick(
                rng,
                &["0", "1", "100", "10000", "1000000", "18446744073709551615"]
            )
        ));
    }
    if rng.coin() {
        keys.push(format!(
            "iterations = {}",
            pick(rng, &["0", "1", "3", "40", "1000000"])
        ));
    }
    if rng.coin() {
        keys.push(format!(
            "memory = {}",
            pick(rng, &["0B", "1KiB", "32MiB", "256MiB", "4GiB", "16EiB"])
        ));
    }
    format!("  limits = {{ {} }}\n", keys.join(", "))
}

/// The sketch text with each step's `limits` line dropped and, in a random subset of its
/// steps, a drawn one written after the opening line.
fn with_limits(sketch: &str, rng: &mut Rng) -> String {
    let mut out = String::new();
    for line in sketch.lines() {
        if line.trim_start().starts_with("limits") {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line.trim_start().starts_with("step ") && line.trim_end().ends_with('{') && rng.coin() {
            out.push_str(&limits(rng));
        }
    }
    out
}

/// Draws case `seed` of the family.
pub fn draw(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let ((program_path, program), (sketch_path, sketch)) = *pick(&mut rng, KERNELS);
    let sketch = if rng.coin() {
        with_limits(sketch, &mut rng)
    } else {
        sketch.to_string()
    };
    let address_space = one_in(&mut rng, 5).then(|| log_uniform(&mut rng, 384, 2048) << 20);
    let settings = Settings {
        time: Some(time(&mut rng, 50, 2000)),
        memory: if address_space.is_some() || one_in(&mut rng, 3) {
            None
        } else {
            Some(log_uniform(&mut rng, 32, 1024) << 20)
        },
        nodes: one_in(&mut rng, 3).then(|| log_uniform(&mut rng, 10, 10_000_000) as usize),
        scheduler: if one_in(&mut rng, 3) {
            scheduler(&mut rng)
        } else {
            Default::default()
        },
        seed: rng.below(1000),
        check_sizes: 24,
        address_space,
        iterations: None,
    };
    let files = LIBRARIES
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    Case {
        family: Family::Budget,
        seed,
        origin: format!("{program_path} with {sketch_path}"),
        input: Input::MainJob {
            program: program.to_string(),
            sketch: (sketch_path.to_string(), sketch),
            files,
        },
        settings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_go_inside_steps() {
        let sketch = "step a {\n  sketch = ?\n  limits = { time = 60s }\n}\n";
        let mut seen = false;
        for seed in 0..20 {
            let out = with_limits(sketch, &mut Rng::new(seed));
            assert!(!out.contains("60s"), "{out}");
            seen |= out.contains("limits");
        }
        assert!(seen);
    }
}
