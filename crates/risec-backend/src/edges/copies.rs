//! Rounding up on copies: the public function copies the inputs into zero-filled buffers of
//! the rounded-up sizes, runs the kernel there, and copies the in-range corner of the result
//! to `out`. When only one size is not a multiple and rows along it are independent
//! ([`crate::core::padding::rows_independent`]), the rows the tiles divide are computed in
//! place and only the last ones on zero-padded copies of those rows. The copies cost one pass
//! over the inputs and the output, and the kernel computes on the rounded sizes: `(1000/32)`
//! rounds to 32 blocks, 2.4 % more work per padded size.

use super::{dims, divisible, sizes_named, Kernel, Names};
use crate::c_ast::scalar_c_name;
use crate::guards;
use crate::ir::types::{Type, TypeNode};
use crate::ix::Ix;
use crate::translate::Translator;
use crate::CodegenError;
use std::fmt::Write;

/// One array the wrapper copies: its dimensions as given and rounded, and the names of the
/// caller's buffer and of the padded copy.
struct PaddedArray {
    given: Vec<Ix>,
    rounded: Vec<Ix>,
    caller: String,
    padded: String,
    scalar: &'static str,
}

impl PaddedArray {
    /// Loops copying rows between the caller's buffer and the padded one (`into_padded`: in
    /// that direction), innermost rows with `memcpy`.
    fn loops(&self, into_padded: bool, indent: &str, names: &Names) -> String {
        let r = self.given.len();
        let mut s = String::new();
        let mut vars = Vec::new();
        for (depth, d) in self.given[..r - 1].iter().enumerate() {
            let v = names.local(&format!("i{depth}"));
            let _ = writeln!(
                s,
                "{indent}{}for (int {v} = 0; {v} < {}; {v}++)",
                "    ".repeat(depth),
                d.to_c()
            );
            vars.push(v);
        }
        // The row's first element: ((i0*d1 + i1)*d2 + …)*d_{r-1}, in size_t.
        let offset = |ds: &[Ix]| {
            let Some(first) = vars.first() else {
                return "0".to_string();
            };
            let mut o = format!("(size_t){first}");
            for (v, d) in vars.iter().zip(ds).skip(1) {
                o = format!("({o} * {} + (size_t){v})", size_t(d));
            }
            format!("{o} * {}", size_t(&ds[r - 1]))
        };
        let (src, dst) = if into_padded {
            (&self.caller, &self.padded)
        } else {
            (&self.padded, &self.caller)
        };
        let (src_off, dst_off) = if into_padded {
            (offset(&self.given), offset(&self.rounded))
        } else {
            (offset(&self.rounded), offset(&self.given))
        };
        let _ = writeln!(
            s,
            "{indent}{}memcpy({dst} + {dst_off}, {src} + {src_off}, {} * sizeof({}));",
            "    ".repeat(vars.len()),
            size_t(&self.given[r - 1]),
            self.scalar
        );
        s
    }
}

/// The public function: calls the kernel directly when the sizes are multiples, or on
/// zero-padded copies of the inputs rounded up to them.
pub fn wrapper(k: &Kernel, doc: &str) -> Result<String, CodegenError> {
    let mut names = Names {
        taken: k
            .size_names
            .iter()
            .chain(k.params.iter().map(|p| &p.0))
            .cloned()
            .chain([k.name.to_string(), k.kernel.to_string(), "out".into()])
            .collect(),
    };
    let rounded_names: Vec<String> = k
        .size_names
        .iter()
        .zip(&k.plan.multiples)
        .map(|(n, m)| match m {
            Some(_) => names.fresh(&format!("{n}_up")),
            None => n.clone(),
        })
        .collect();
    let given = sizes_named(k.size_names, &k.program.facts);
    let rounded = sizes_named(&rounded_names, &k.program.facts);

    let mut s = String::new();
    let _ = writeln!(s, "{doc}{} {{", k.signature);
    let positive: Vec<String> = k.size_names.iter().map(|n| format!("{n} <= 0")).collect();
    let _ = writeln!(s, "    if ({}) return 1;", positive.join(" || "));
    let divisible = divisible(k, None);
    let mut call_args: Vec<String> = k.size_names.to_vec();
    call_args.push("out".into());
    call_args.extend(k.params.iter().map(|p| p.0.clone()));
    let _ = writeln!(
        s,
        "    if ({}) return {}({});",
        divisible.join(" && "),
        k.kernel,
        call_args.join(", ")
    );
    if let Some(r) = k.plan.rows {
        s.push_str(&rows_in_place(k, r, &given, &call_args, &names)?);
    }
    // Rounded sizes, refusing those past INT_MAX.
    let too_large: Vec<String> = k
        .size_names
        .iter()
        .zip(&k.plan.multiples)
        .filter_map(|(n, m)| m.map(|m| format!("{n} > INT_MAX - {}", m - 1)))
        .collect();
    let _ = writeln!(s, "    if ({}) return 3;", too_large.join(" || "));
    for ((n, up), m) in k
        .size_names
        .iter()
        .zip(&rounded_names)
        .zip(&k.plan.multiples)
    {
        if let Some(m) = m {
            let _ = writeln!(s, "    const int {up} = ({n} + {}) / {m} * {m};", m - 1);
        }
    }
    // The arrays to copy: inputs and output with a rounded-up dimension.
    let mut copies: Vec<(PaddedArray, bool)> = Vec::new();
    let mut arrays: Vec<(&str, &Type, bool)> = k
        .params
        .iter()
        .map(|(n, t)| (n.as_str(), t, true))
        .collect();
    arrays.push(("out", k.result, false));
    let mut counts: Vec<Ix> = Vec::new();
    for (name, ty, is_input) in arrays {
        if !matches!(ty.get(), TypeNode::Array(..)) {
            continue;
        }
        let g = dims(ty, &given)?;
        let r = dims(ty, &rounded)?;
        if g == r {
            continue;
        }
        let scalar = scalar_c_name(Translator::base_scalar(ty)?);
        let padded = names.fresh(&format!("{name}_up"));
        counts.push(rounded.scalars(ty)?);
        copies.push((
            PaddedArray {
                given: g,
                rounded: r,
                caller: name.to_string(),
                padded,
                scalar,
            },
            is_input,
        ));
    }
    let overflow: Vec<String> = counts
        .iter()
        .filter_map(|c| guards::count_condition(c).map(|(cond, _)| cond))
        .collect();
    if !overflow.is_empty() {
        let _ = writeln!(s, "    if ({}) return 3;", overflow.join(" || "));
    }
    let buffers: Vec<Buffer> = copies
        .iter()
        .map(|(c, is_input)| Buffer {
            name: c.padded.clone(),
            scalar: c.scalar,
            count: rounded_count(c),
            zeroed: *is_input,
        })
        .collect();
    let frees = allocate(&buffers, "    ", &mut s);
    for (c, is_input) in &copies {
        if *is_input {
            s.push_str(&c.loops(true, "    ", &names));
        }
    }
    let rc = names.fresh("rc");
    let mut args: Vec<String> = rounded_names.clone();
    let renamed = |n: &str| {
        copies
            .iter()
            .find(|(c, _)| c.caller == n)
            .map_or(n.to_string(), |(c, _)| c.padded.clone())
    };
    args.push(renamed("out"));
    args.extend(k.params.iter().map(|p| renamed(&p.0)));
    let _ = writeln!(s, "    int {rc} = {}({});", k.kernel, args.join(", "));
    let out_copy: Vec<&PaddedArray> = copies
        .iter()
        .filter(|(_, input)| !input)
        .map(|(c, _)| c)
        .collect();
    if let Some(c) = out_copy.first() {
        let _ = writeln!(s, "    if ({rc} == 0) {{");
        s.push_str(&c.loops(false, "        ", &names));
        let _ = writeln!(s, "    }}");
    }
    if !frees.is_empty() {
        let _ = writeln!(s, "    {}", frees);
    }
    let _ = writeln!(s, "    return {rc};\n}}");
    Ok(s)
}

/// The branch for sizes where only size `r` (along which rows are independent) needs rounding
/// up: the last rows, fewer than its multiple, are computed first on zero-padded copies of
/// those rows; then the rows the tiles divide in place, with no copy; then the last rows are
/// copied to `out` (so that `out` is untouched when either call fails).
fn rows_in_place(
    k: &Kernel,
    r: usize,
    given: &Translator,
    call_args: &[String],
    names: &Names,
) -> Result<String, CodegenError> {
    let size = &k.size_names[r];
    let mult = k.plan.multiples[r].expect("a rounded-up size");
    let mut s = String::new();
    let others = divisible(k, Some(r));
    let indent = if others.is_empty() {
        let _ = writeln!(s, "    {{");
        "        "
    } else {
        let _ = writeln!(s, "    if ({}) {{", others.join(" && "));
        "        "
    };
    // Names local to the block (they may repeat the other branch's).
    let main = names.local(&format!("{size}_main"));
    let rest = names.local(&format!("{size}_rest"));
    let _ = writeln!(
        s,
        "{indent}/* Only `{size}` is not a multiple of {mult}: its last rows on padded copies, the others in place. */"
    );
    let _ = writeln!(
        s,
        "{indent}const int {main} = {size} / {mult} * {mult}, {rest} = {size} - {main};"
    );
    // Each array with rows along the size: its row length, and the copy of its last rows.
    struct Rows {
        caller: String,
        copy: String,
        row: String,
        scalar: &'static str,
    }
    let mut arrays: Vec<(&str, &Type)> = k.params.iter().map(|(n, t)| (n.as_str(), t)).collect();
    arrays.push(("out", k.result));
    let mut copies: Vec<Rows> = Vec::new();
    for (name, ty) in arrays {
        let TypeNode::Array(n, _) = ty.get() else {
            continue;
        };
        if given.nat(n)? != Ix::size(size) {
            continue;
        }
        let ds = dims(ty, given)?;
        let row = if ds.len() == 1 {
            "(size_t)1".to_string()
        } else {
            ds[1..].iter().map(size_t).collect::<Vec<_>>().join(" * ")
        };
        copies.push(Rows {
            caller: name.to_string(),
            copy: names.local(&format!("{name}_rest")),
            row,
            scalar: scalar_c_name(Translator::base_scalar(ty)?),
        });
    }
    let buffers: Vec<Buffer> = copies
        .iter()
        .map(|c| Buffer {
            name: c.copy.clone(),
            scalar: c.scalar,
            count: format!("(size_t){mult} * {}", c.row),
            zeroed: c.caller != "out",
        })
        .collect();
    let frees = allocate(&buffers, indent, &mut s);
    for c in copies.iter().filter(|c| c.caller != "out") {
        let _ = writeln!(
            s,
            "{indent}memcpy({}, {} + (size_t){main} * {row}, (size_t){rest} * {row} * sizeof({}));",
            c.copy,
            c.caller,
            c.scalar,
            row = c.row
        );
    }
    let swap = |arg: &str| -> String {
        if arg == size {
            mult.to_string()
        } else {
            copies
                .iter()
                .find(|c| c.caller == arg)
                .map_or(arg.to_string(), |c| c.copy.clone())
        }
    };
    let rc = names.local("rc");
    let rest_args: Vec<String> = call_args.iter().map(|a| swap(a)).collect();
    let _ = writeln!(
        s,
        "{indent}int {rc} = {}({});",
        k.kernel,
        rest_args.join(", ")
    );
    let main_args: Vec<String> = call_args
        .iter()
        .map(|a| if a == size { main.clone() } else { a.clone() })
        .collect();
    let _ = writeln!(
        s,
        "{indent}if ({rc} == 0 && {main} > 0) {rc} = {}({});",
        k.kernel,
        main_args.join(", ")
    );
    if let Some(c) = copies.iter().find(|c| c.caller == "out") {
        let _ = writeln!(
            s,
            "{indent}if ({rc} == 0) memcpy(out + (size_t){main} * {row}, {}, (size_t){rest} * {row} * sizeof({}));",
            c.copy,
            c.scalar,
            row = c.row
        );
    }
    let _ = writeln!(s, "{indent}{}", frees);
    let _ = writeln!(s, "{indent}return {rc};\n    }}");
    Ok(s)
}

/// A buffer the wrapper allocates: zero-filled for an input's padded copy, left as it is for
/// the output's.
struct Buffer {
    name: String,
    scalar: &'static str,
    /// Its element count, as a `size_t` expression.
    count: String,
    zeroed: bool,
}

/// Writes the allocation of `buffers` (each freed again, and 2 returned, when one fails) and
/// returns the statement that frees them all (empty when there are none).
fn allocate(buffers: &[Buffer], indent: &str, s: &mut String) -> String {
    for b in buffers {
        let alloc = if b.zeroed {
            format!("calloc({}, sizeof({}))", b.count, b.scalar)
        } else {
            format!("malloc({} * sizeof({}))", b.count, b.scalar)
        };
        let _ = writeln!(s, "{indent}{} *{} = {alloc};", b.scalar, b.name);
    }
    let frees: String = buffers
        .iter()
        .rev()
        .map(|b| format!("free({}); ", b.name))
        .collect();
    let missing: Vec<String> = buffers.iter().map(|b| format!("!{}", b.name)).collect();
    if !missing.is_empty() {
        let _ = writeln!(
            s,
            "{indent}if ({}) {{ {frees}return 2; }}",
            missing.join(" || ")
        );
    }
    frees.trim_end().to_string()
}

/// A dimension as a `size_t` factor: `(size_t)m`, or `((size_t)m + 2)` for a sum.
fn size_t(d: &Ix) -> String {
    let c = d.to_c_cast("size_t");
    if d.terms().len() > 1 {
        format!("({c})")
    } else {
        c
    }
}

/// The element count of a padded buffer, as a `size_t` product of its rounded dimensions.
fn rounded_count(c: &PaddedArray) -> String {
    c.rounded.iter().map(size_t).collect::<Vec<_>>().join(" * ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of a three-dimensional array starts at `(i0 * d1 + i1) * d2`, each index scaled by
    /// the extent of the dimension after it (the middle extent was once taken from the last
    /// dimension, which is right only for square planes: a 3×3 convolution's `ci × (h+2) ×
    /// (w+2)` input copied with w ≠ h wrote outside the padded copy).
    #[test]
    fn rows_of_a_three_dimensional_array_are_found_by_each_dimension_s_extent() {
        let plus_two = |n: &str| Ix::size(n).add(&Ix::constant(2));
        let array = PaddedArray {
            given: vec![Ix::size("ci"), plus_two("h"), plus_two("w")],
            rounded: vec![Ix::size("ci"), plus_two("h"), plus_two("w_up")],
            caller: "input".into(),
            padded: "input_up".into(),
            scalar: "float",
        };
        let names = Names { taken: Vec::new() };
        let text = array.loops(true, "", &names);
        let h = size_t(&plus_two("h"));
        let (w, w_up) = (size_t(&plus_two("w")), size_t(&plus_two("w_up")));
        let into = format!("input_up + ((size_t)i0 * {h} + (size_t)i1) * {w_up}");
        let from = format!("input + ((size_t)i0 * {h} + (size_t)i1) * {w}");
        assert!(text.contains(&into) && text.contains(&from), "{text}");
    }
}
