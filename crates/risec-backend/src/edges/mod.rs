//! Sizes that do not divide the tiles: the entry point rounds them up.
//!
//! A tiled kernel relies on divisibility facts (`m/32`). When every fact is a multiple of one
//! size parameter (`32` divides `m`) and the program the kernel was derived from tolerates
//! zero-padding along those sizes ([`crate::core::padding`]), the public C function accepts
//! every positive size. Sizes that satisfy the facts call the kernel directly (no check, no
//! copy: the code is the kernel's alone). Other sizes are rounded up to the multiples, one of
//! two ways:
//!
//! * **inside the kernel** ([`kernel`]): a second translation of the program at the rounded
//!   sizes reads the caller's arrays where they are in range and zero elsewhere, stores only
//!   in range, and skips the loop iterations that only write past the real sizes
//!   ([`trim`]): no copy, and a partial block of rows costs its real panels only;
//! * **on copies** ([`copies`]), where the kernel reads an input inside a reduction loop (a
//!   check on every iteration would cost more than a copy) or the program's reads of its own
//!   output do not stay on one element ([`positionwise`]): the inputs are copied into
//!   zero-filled buffers of the rounded sizes, the kernel runs on those, and the in-range
//!   corner of its result is copied to `out` (when only one size is not a multiple and rows
//!   along it are independent, only its last rows are copied).
//!
//! Where rounding cannot be used, the function keeps returning 1 for such sizes, and
//! [`super::CProgram::sizes`] says why.

pub mod copies;
pub mod extents;
pub mod kernel;
pub mod noop;
pub mod positionwise;
pub mod trim;
pub mod unswitch;

use super::ix::Ix;
use super::names::c_identifier;
use super::translate::{SizeBinding, Translator};
use super::CodegenError;
use crate::core::TypedProgram;
use crate::ir::types::{Type, TypeNode};
use std::fmt::Write;

/// How the generated function treats sizes that do not satisfy the kernel's facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeHandling {
    /// The kernel relies on no divisibility fact: every positive size runs it.
    Any,
    /// Sizes are rounded up to these multiples (size parameter name, multiple) when they are
    /// not multiples already, in one of two ways.
    RoundedUp(Vec<(String, u64)>, Rounding),
    /// Sizes that violate a fact are refused (the function returns 1): asked for
    /// (`exact_sizes`), or rounding up is not possible, for the reason given.
    Exact(Option<String>),
}

impl SizeHandling {
    /// `m to a multiple of 32, k to a multiple of 4` for [`SizeHandling::RoundedUp`]; empty
    /// otherwise.
    pub fn multiples_text(&self) -> String {
        match self {
            SizeHandling::RoundedUp(multiples, _) => multiples
                .iter()
                .map(|(n, m)| format!("{n} to a multiple of {m}"))
                .collect::<Vec<_>>()
                .join(", "),
            _ => String::new(),
        }
    }
}

/// Where sizes the tiles do not divide are rounded up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// Inside the kernel ([`kernel`]): no copies, work past the real sizes skipped where a
    /// store decides it.
    InKernel,
    /// On zero-padded copies of the inputs ([`copies`]), for the reason given.
    Copies(String),
}

/// How the wrapper treats sizes the tiles do not divide.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The multiple each size parameter must be rounded up to (`None`: left as it is).
    pub multiples: Vec<Option<u64>>,
    /// A rounded-up size along which rows are independent
    /// ([`crate::core::padding::rows_independent`]): when it is the only size to round up, the
    /// rows the tiles divide are computed in place and only the last ones on padded copies.
    pub rows: Option<usize>,
}

/// The plan, when every fact is a multiple of one size parameter and the program tolerates
/// padding along them; otherwise why not.
pub fn plan(
    program: &TypedProgram,
    size_names: &[String],
    facts: &[(Ix, i64, String)],
) -> Result<Plan, String> {
    let mut multiples: Vec<Option<u64>> = vec![None; size_names.len()];
    for (numerator, denominator, text) in facts {
        if *denominator == 1 {
            continue;
        }
        let Some(p) = size_names.iter().position(|n| *numerator == Ix::size(n)) else {
            return Err(format!(
                "the kernel assumes {text}, which is not a multiple of one size"
            ));
        };
        let d = *denominator as u64;
        multiples[p] = Some(match multiples[p] {
            Some(m) => num_integer::Integer::lcm(&m, &d),
            None => d,
        });
    }
    let padded: Vec<bool> = multiples.iter().map(Option::is_some).collect();
    let origin = program.derived_from.as_deref().unwrap_or(&program.term);
    if padded.iter().any(|p| *p) {
        crate::core::padding::check_paddable(origin, &padded, size_names)
            .map_err(|e| format!("zero-padding the inputs could change the result ({e})"))?;
    }
    let rows = (0..padded.len())
        .find(|&p| padded[p] && crate::core::padding::rows_independent(origin, padded.len(), p));
    Ok(Plan { multiples, rows })
}

/// The names the wrapper uses, none equal to a size, a parameter or the functions' names.
pub(super) struct Names {
    pub(super) taken: Vec<String>,
}

impl Names {
    /// A name for a loop variable: free, but not reserved (loops do not overlap).
    pub(super) fn local(&self, hint: &str) -> String {
        c_identifier(hint, &|n| self.taken.iter().any(|t| t == n))
    }

    pub(super) fn fresh(&mut self, hint: &str) -> String {
        let n = c_identifier(hint, &|n| self.taken.iter().any(|t| t == n));
        self.taken.push(n.clone());
        n
    }
}

/// An array's dimensions, outermost first, as C under the given size bindings.
pub(super) fn dims(ty: &Type, low: &Translator) -> Result<Vec<Ix>, CodegenError> {
    let mut out = Vec::new();
    let mut t = ty;
    while let TypeNode::Array(n, e) = t.get() {
        out.push(low.nat(n)?);
        t = e;
    }
    Ok(out)
}

/// What the wrapper needs to know about the kernel.
pub struct Kernel<'a> {
    /// The program.
    pub program: &'a TypedProgram,
    /// The public function's name and signature.
    pub name: &'a str,
    /// The public signature.
    pub signature: &'a str,
    /// The kernel's (static) name.
    pub kernel: &'a str,
    /// The edges kernel's (static) name, when there is one ([`kernel`]).
    pub edges: Option<&'a str>,
    /// The size parameters' C names.
    pub size_names: &'a [String],
    /// The value parameters' C names and types.
    pub params: &'a [(String, Type)],
    /// The result's type.
    pub result: &'a Type,
    /// What [`plan`] decided.
    pub plan: &'a Plan,
}

/// The public function: calls the kernel directly when the sizes are multiples; else the
/// edges kernel when there is one, or the kernel on zero-padded copies.
pub fn wrapper(k: &Kernel, doc: &str) -> Result<String, CodegenError> {
    let Some(edges) = k.edges else {
        return copies::wrapper(k, doc);
    };
    let mut args: Vec<String> = k.size_names.to_vec();
    args.push("out".into());
    args.extend(k.params.iter().map(|p| p.0.clone()));
    let args = args.join(", ");
    let positive: Vec<String> = k.size_names.iter().map(|n| format!("{n} <= 0")).collect();
    let mut s = String::new();
    let _ = writeln!(s, "{doc}{} {{", k.signature);
    let _ = writeln!(s, "    if ({}) return 1;", positive.join(" || "));
    let _ = writeln!(
        s,
        "    if ({}) return {}({args});",
        divisible(k, None).join(" && "),
        k.kernel
    );
    let _ = writeln!(s, "    return {edges}({args});\n}}");
    Ok(s)
}

/// `SIZE % MULTIPLE == 0` for each size that has a multiple, but `except`.
pub(super) fn divisible(k: &Kernel, except: Option<usize>) -> Vec<String> {
    k.size_names
        .iter()
        .zip(&k.plan.multiples)
        .enumerate()
        .filter(|(p, _)| Some(*p) != except)
        .filter_map(|(_, (n, m))| m.map(|m| format!("{n} % {m} == 0")))
        .collect()
}

/// A translator that names the size parameters `names` (for sizes as C), knowing `facts`.
pub(super) fn sizes_named(names: &[String], facts: &[crate::ir::nat::Nat]) -> Translator {
    let mut t = Translator::new(names.iter().cloned().map(SizeBinding::Named).collect(), &[]);
    t.facts = facts.to_vec();
    t
}
