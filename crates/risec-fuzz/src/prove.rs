//! The `prove` family: `risec prove START GOAL --rules …` on the shipped start/goal pairs
//! (examples/goals/), on the offset programs against themselves, and on generated split goals
//! (`map f` against `join (map (map f) (split K xs))` over `K*n` or `n+c` elements), now and
//! then with a token of the start or the goal mutated; with their rules, random rules added
//! (size-taking ones with arguments up to 2⁶⁴−1), now and then a list that does not parse;
//! random schedulers, seeds and small `--time`, `--nodes`, `--iterations` and `--memory`.
//!
//! A goal reported found is checked: start and goal are evaluated in the interpreter on the
//! same random inputs, at sizes where the divisibility facts the rules assumed hold.

use super::draws::{log_uniform, one_in, pick, rule, scheduler, size_rule, split_size, time};
use super::shipped::{GOALS, OFFSET_PROGRAMS};
use super::{mutate, Case, Family, Input, Settings};
use crate::core::TypedProgram;
use crate::diagnostics::SourceFile;
use crate::interp::{self, random::Rng};

/// Rule lists that must be refused with an error.
const BAD_RULES: &[&str] = &[
    "",
    ",",
    "split-join",
    "split-join(x)",
    "split-join(2, 3)",
    "split-join(",
    "no-such-rule",
    "map-fusion,,beta",
    "split-join(99999999999999999999999)",
];

/// Draws case `seed` of the family.
pub fn draw(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let (origin, mut start, mut goal, mut rules, mut normalize) = match rng.below(4) {
        0 | 1 => {
            let (s, g, rules, normalize) = *pick(&mut rng, GOALS);
            (
                s.0.to_string(),
                s.1.to_string(),
                g.1.to_string(),
                rules.to_string(),
                normalize,
            )
        }
        2 => {
            let (path, text) = *pick(&mut rng, OFFSET_PROGRAMS);
            let rules: Vec<String> = (0..1 + rng.below(3)).map(|_| size_rule(&mut rng)).collect();
            (
                format!("{path} against itself"),
                text.to_string(),
                text.to_string(),
                rules.join(","),
                true,
            )
        }
        _ => {
            let k = split_size(&mut rng);
            let size = match rng.below(3) {
                0 => format!("{k}*n"),
                1 => format!("n+{}", 1 + rng.below(3)),
                _ => format!("{k}*n+{}", rng.below(3)),
            };
            let signature = format!("def f {{n : nat}} (xs : ({size}).f32) : ({size}).f32 =");
            let inner = if rng.coin() {
                k.clone()
            } else {
                split_size(&mut rng)
            };
            (
                format!("generated split-join({k}) goal over {size}"),
                format!("{signature} xs |> map (fun x => x * 2.0)\n"),
                format!("{signature} xs |> split {k} |> map (map (fun x => x * 2.0)) |> join\n"),
                format!("split-join({inner}),map-fusion,eta,beta"),
                true,
            )
        }
    };
    let mut origin = origin;
    if one_in(&mut rng, 4) {
        let vocabulary = super::sketch::vocabulary();
        if rng.coin() {
            start = mutate::mutate(&start, 1, &vocabulary, &mut rng);
            origin.push_str(", start ×1");
        } else {
            goal = mutate::mutate(&goal, 1, &vocabulary, &mut rng);
            origin.push_str(", goal ×1");
        }
    }
    if one_in(&mut rng, 2) {
        for _ in 0..1 + rng.below(3) {
            rules.push(',');
            rules.push_str(&rule(&mut rng));
        }
    }
    if one_in(&mut rng, 3) {
        rules.push(',');
        rules.push_str(&size_rule(&mut rng));
    }
    if one_in(&mut rng, 12) {
        rules = pick(&mut rng, BAD_RULES).to_string();
    }
    if one_in(&mut rng, 8) {
        normalize = !normalize;
    }
    let settings = Settings {
        time: Some(time(&mut rng, 50, 500)),
        nodes: one_in(&mut rng, 3).then(|| log_uniform(&mut rng, 10, 1_000_000) as usize),
        iterations: one_in(&mut rng, 3).then(|| log_uniform(&mut rng, 1, 100) as usize),
        memory: one_in(&mut rng, 6).then(|| log_uniform(&mut rng, 32, 1024) << 20),
        scheduler: if rng.coin() {
            scheduler(&mut rng)
        } else {
            Default::default()
        },
        seed: rng.below(1000),
        check_sizes: 24,
        address_space: None,
    };
    Case {
        family: Family::Prove,
        seed,
        origin,
        input: Input::Prove {
            start,
            goal,
            rules,
            normalize,
        },
        settings,
    }
}

/// Whether start and goal agree in the interpreter on random inputs, at sizes up to
/// `max_size` where the `assumed` facts (`n/64`, `(n+2)/7`: whole numbers) hold: `Ok(true)`
/// when they agree, `Ok(false)` when they could not be compared (no such sizes, values that are
/// not `f32`, too large), `Err` with the difference.
pub fn check_goal(
    start: &str,
    goal: &str,
    assumed: &[String],
    max_size: u64,
    seed: u64,
) -> Result<bool, String> {
    let parse = |text: &str| crate::parse_program(&SourceFile::new("fuzz.rise", text), None);
    let (Ok(start), Ok(goal)) = (parse(start), parse(goal)) else {
        return Ok(false);
    };
    if start.size_params.len() != goal.size_params.len() {
        return Ok(false);
    }
    let mut rng = Rng::new(seed);
    let Some(sizes) = sizes_where(&start, &goal, assumed, max_size, &mut rng) else {
        return Ok(false);
    };
    let Ok(args) = interp::random::random_args(&start, &sizes, &mut rng) else {
        return Ok(false);
    };
    let run = |p: &TypedProgram| {
        interp::memory::with_limit(1 << 29, || interp::run_program(p, &sizes, args.clone()))
    };
    let (Ok(a), Ok(b)) = (run(&start), run(&goal)) else {
        return Ok(false);
    };
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    if !super::c_check::flatten(&a, &mut xs) || !super::c_check::flatten(&b, &mut ys) {
        return Ok(false);
    }
    if xs.len() != ys.len() {
        return Err(format!(
            "start and goal give {} and {} values at sizes {sizes:?}",
            xs.len(),
            ys.len()
        ));
    }
    for (i, (x, y)) in xs.iter().zip(&ys).enumerate() {
        if !super::c_check::close(*x, *y) {
            return Err(format!(
                "start and goal differ at sizes {sizes:?}: element {i} is {x} and {y}"
            ));
        }
    }
    Ok(true)
}

/// Random sizes that satisfy both programs' facts and the assumed ones, if 300 draws find some.
fn sizes_where(
    start: &TypedProgram,
    goal: &TypedProgram,
    assumed: &[String],
    max_size: u64,
    rng: &mut Rng,
) -> Option<Vec<u64>> {
    for attempt in 0..300u64 {
        // Wider sizes as draws fail: facts such as `(n+2)/64` need n = 62.
        let max = max_size.max(24) << (attempt / 100);
        let sizes = interp::random::random_sizes(start, max, rng).ok()?;
        let names: Vec<(&str, u64)> = start
            .size_params
            .iter()
            .map(String::as_str)
            .zip(sizes.iter().copied())
            .collect();
        let goal_ok = goal.facts.is_empty() || {
            let goal_names: Vec<(&str, u64)> = goal
                .size_params
                .iter()
                .map(String::as_str)
                .zip(sizes.iter().copied())
                .collect();
            goal.facts.iter().all(|f| {
                whole(
                    &crate::core::print::program_nat_to_source(goal, f),
                    &goal_names,
                )
            })
        };
        if goal_ok && assumed.iter().all(|f| whole(f, &names)) {
            return Some(sizes);
        }
    }
    None
}

/// Whether the size expression `text` (`n/64`, `(n+2)*m/7`) is a whole number with these sizes:
/// every division exact, every name known.
pub fn whole(text: &str, sizes: &[(&str, u64)]) -> bool {
    let mut p = NatParser {
        text: text.as_bytes(),
        at: 0,
        sizes,
    };
    p.sum().is_some() && p.at == p.text.len()
}

/// A recursive-descent reader of size expressions (`+ - * /`, `^`, parentheses, names,
/// numbers), evaluating exactly: `None` for an inexact division, an unknown name or overflow.
struct NatParser<'a> {
    text: &'a [u8],
    at: usize,
    sizes: &'a [(&'a str, u64)],
}

impl NatParser<'_> {
    fn skip(&mut self) {
        while self.at < self.text.len() && self.text[self.at] == b' ' {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip();
        if self.text.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn sum(&mut self) -> Option<i128> {
        let mut v = self.product()?;
        loop {
            if self.eat(b'+') {
                v = v.checked_add(self.product()?)?;
            } else if self.eat(b'-') {
                v = v.checked_sub(self.product()?)?;
            } else {
                return Some(v);
            }
        }
    }

    fn product(&mut self) -> Option<i128> {
        let mut v = self.power()?;
        loop {
            if self.eat(b'*') {
                v = v.checked_mul(self.power()?)?;
            } else if self.eat(b'/') {
                let d = self.power()?;
                if d == 0 || v % d != 0 {
                    return None;
                }
                v /= d;
            } else {
                return Some(v);
            }
        }
    }

    fn power(&mut self) -> Option<i128> {
        let base = self.atom()?;
        if self.eat(b'^') {
            let e = u32::try_from(self.atom()?).ok()?;
            return base.checked_pow(e);
        }
        Some(base)
    }

    fn atom(&mut self) -> Option<i128> {
        self.skip();
        if self.eat(b'(') {
            let v = self.sum()?;
            return self.eat(b')').then_some(v);
        }
        let start = self.at;
        while self.at < self.text.len()
            && (self.text[self.at].is_ascii_alphanumeric() || self.text[self.at] == b'_')
        {
            self.at += 1;
        }
        let word = std::str::from_utf8(&self.text[start..self.at]).ok()?;
        if word.is_empty() {
            return None;
        }
        if let Ok(n) = word.parse::<i128>() {
            return Some(n);
        }
        let (_, v) = self.sizes.iter().find(|(name, _)| *name == word)?;
        Some(*v as i128)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_need_exact_divisions() {
        let sizes = [("n", 62), ("m", 7)];
        assert!(whole("(n+2)/64", &sizes));
        assert!(!whole("n/64", &sizes));
        assert!(whole("7*n/2", &sizes));
        assert!(whole("m*n/31", &sizes));
        assert!(!whole("k/2", &sizes));
        assert!(whole("2^3*m/56", &sizes));
        assert!(!whole("n/0", &sizes));
    }

    #[test]
    fn a_found_goal_is_checked_numerically() {
        let start = "def f {n : nat} (xs : (4*n).f32) : (4*n).f32 = xs |> map (fun x => x * 2.0)";
        let goal = "def f {n : nat} (xs : (4*n).f32) : (4*n).f32 = xs |> split 4 |> map (map (fun x => x * 2.0)) |> join";
        assert_eq!(check_goal(start, goal, &[], 24, 1), Ok(true));
        let wrong = "def f {n : nat} (xs : (4*n).f32) : (4*n).f32 = xs |> map (fun x => x * 3.0)";
        assert!(check_goal(start, wrong, &[], 24, 1).is_err());
    }
}
