//! Loop iterations of the edges kernel that do nothing, skipped.
//!
//! The edges kernel runs at the rounded-up sizes: a block of 24 rows where only one is real
//! still has 4 panels of 6 rows to compute, and a reduction over `k` rounded up to 256 adds
//! zeros for the rest of the block. From some iteration on, a loop's iterations can do nothing
//! the caller sees, in two ways:
//!
//! * **dead**: every store of the iteration is a checked store past its array's real sizes
//!   (dropped), or a store to a local of the iteration;
//! * **no-op**: the iteration reads only padding from the checked arrays it depends on (zero),
//!   and every store puts back what was there: `acc = acc + 0 * 0` (a product is zero only
//!   when both factors are, as `0 * inf` is not). The reduction over the padded part of `k`
//!   is such.
//!
//! The loop stops at the first such iteration. Where it is known:
//!
//! * for a checked access and a checked dimension, the index's lowest value over the loops
//!   inside the body: the index is a sum of non-negative terms (the atoms of [`Ix`] are), so
//!   dropping the terms that mention an inner loop's variable (each with a positive
//!   coefficient) gives a lower bound;
//! * where that bound is `c·v + r` in the loop's variable `v` (a constant `c > 0`, `r` free of
//!   `v`), the access is past the real length `n` for every `v ≥ ⌈(n - r) / c⌉`;
//! * the loop's bound is the largest of those over the accesses that must be past (the
//!   stores, for dead iterations; the stores and loads, for no-op ones), checked by evaluating
//!   the body with those loads as zero.
//!
//! The bound is computed before the loop, into a local (`rise_edge_min(extent, …)`), so a
//! parallel loop keeps a bound OpenMP can read. Inside the loop, a check that the bound
//! implies (an index `c·v + r` below `n` where the bound is `⌈(n - r) / c⌉`) is dropped: the
//! reduction over `k` reads its panels with no check left in its loop.

use super::noop::NoOp;
use crate::c_ast::{CExpr, CType, Guard, Place, Stmt};
use crate::ir::types::ScalarType;
use crate::ix::{Atom, Ix};
use std::collections::HashSet;

/// The C helpers the bounds use (guarded, so that several kernels' C can share a file).
pub const HELPERS: &str = "#ifndef RISE_EDGE_HELPERS
#define RISE_EDGE_HELPERS
static inline int rise_edge_min(int a, int b) { return a < b ? a : b; }
static inline int rise_edge_max(int a, int b) { return a > b ? a : b; }
#endif

";

/// Stops every loop in `stmts` (at any depth) at its last iteration that does something, where
/// that is known; `fresh` gives unused C names. Returns how many loops were given a bound;
/// the bounds whose loops dropped the checks they imply are pushed to `needed` (the loop must
/// keep that bound even where every check holds).
pub fn trim(
    stmts: &mut Vec<Stmt>,
    fresh: &mut dyn FnMut(&str) -> String,
    needed: &mut Vec<String>,
) -> usize {
    let mut trimmed = 0;
    let mut i = 0;
    while i < stmts.len() {
        if let Stmt::For { body, .. } | Stmt::Unrolled { body, .. } = &mut stmts[i] {
            trimmed += trim(body, fresh, needed);
        }
        let found = match &mut stmts[i] {
            Stmt::For {
                var, extent, body, ..
            } => live_bound(var, body).map(|(bound, implied)| {
                let dropped = implied
                    .is_some_and(|(c, n_minus_r)| drop_implied_checks(body, var, c, &n_minus_r));
                (var.clone(), extent.to_c(), bound, dropped)
            }),
            _ => None,
        };
        if let Some((var, extent, bound, dropped)) = found {
            let name = fresh(&format!("{var}_live"));
            if dropped {
                needed.push(name.clone());
            }
            stmts.insert(
                i,
                Stmt::Decl {
                    ty: CType {
                        scalar: ScalarType::I32,
                        lanes: 1,
                    },
                    name: name.clone(),
                    init: Some(CExpr::Lit(format!("rise_edge_min({extent}, {bound})"))),
                },
            );
            i += 1;
            if let Stmt::For { limit, .. } = &mut stmts[i] {
                *limit = Some(name);
            }
            trimmed += 1;
        }
        i += 1;
    }
    trimmed
}

/// A checked access's dimension whose lower bound is `c·v + r`: past the real length `n` from
/// `v ≥ ⌈(n - r) / c⌉`.
#[derive(Clone, Debug, PartialEq)]
struct PastFrom {
    c: i64,
    /// `n - r`.
    n_minus_r: Ix,
}

/// What a loop body's checked accesses and stores are.
#[derive(Default)]
struct Survey {
    /// For each checked store, its dimensions past which it is dropped (empty: none known).
    stores: Vec<Vec<PastFrom>>,
    /// For each checked load (by buffer, index and lanes), its dimensions past which it is zero.
    loads: Vec<((String, Ix, u64), Vec<PastFrom>)>,
    /// Whether a store goes elsewhere than a checked array or a local of the body.
    other_stores: bool,
}

/// The number of iterations of the loop over `var` after which none does anything, as C, and
/// the `(c, n - r)` of the checks it implies (when every access that decided it has the same
/// one); `None` when not known.
fn live_bound(var: &str, body: &[Stmt]) -> Option<(String, Option<(i64, Ix)>)> {
    let mut locals = HashSet::new();
    let mut inner = HashSet::new();
    collect_scope(body, &mut locals, &mut inner);
    let mut survey = Survey::default();
    survey_body(body, &locals, &inner, var, &mut survey)?;
    // Dead iterations: every store checked and past its real sizes from some iteration on.
    if !survey.other_stores
        && !survey.stores.is_empty()
        && survey.stores.iter().all(|dims| !dims.is_empty())
    {
        return Some(bound_over(&survey.stores));
    }
    // No-op iterations: from where every load that can be past is, the body stores back what
    // was there.
    let mut deciding: Vec<Vec<PastFrom>> = survey
        .stores
        .iter()
        .filter(|d| !d.is_empty())
        .cloned()
        .collect();
    deciding.extend(
        survey
            .loads
            .iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(_, d)| d.clone()),
    );
    if deciding.is_empty() {
        return None;
    }
    let zero: Vec<(String, Ix, u64)> = survey
        .loads
        .iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|(k, _)| k.clone())
        .collect();
    let dead_stores = !survey.stores.iter().any(|d| d.is_empty());
    let mut eval = NoOp {
        locals: &locals,
        zero: &zero,
        vars: Vec::new(),
        cells: Vec::new(),
    };
    if !eval.body(body, dead_stores) {
        return None;
    }
    Some(bound_over(&deciding))
}

/// The largest, over the accesses, of the smallest `v` from which one is past (over its
/// dimensions), as C; and the implied check when every access has the same single one.
fn bound_over(accesses: &[Vec<PastFrom>]) -> (String, Option<(i64, Ix)>) {
    // Accesses with one such dimension whose bounds differ only in their constant (the rows
    // of a tile) keep the largest.
    let mut single: Vec<(i64, Ix, i64)> = Vec::new();
    let mut several: Vec<String> = Vec::new();
    for dims in accesses {
        if let [d] = dims.as_slice() {
            let k = d.n_minus_r.as_const_part();
            let base = d.n_minus_r.sub(&Ix::constant(k));
            match single.iter_mut().find(|(c, b, _)| *c == d.c && *b == base) {
                Some(entry) => entry.2 = entry.2.max(k),
                None => single.push((d.c, base, k)),
            }
            continue;
        }
        let mut texts: Vec<String> = dims.iter().map(|d| ceil_div(&d.n_minus_r, d.c)).collect();
        texts.sort();
        texts.dedup();
        if let Some(t) = texts
            .into_iter()
            .reduce(|a, b| format!("rise_edge_min({a}, {b})"))
        {
            several.push(t);
        }
    }
    let implied = match (single.as_slice(), several.is_empty()) {
        ([(c, base, k)], true)
            if accesses
                .iter()
                .all(|dims| dims.len() == 1 && dims[0].n_minus_r.as_const_part() == *k) =>
        {
            Some((*c, base.add(&Ix::constant(*k))))
        }
        _ => None,
    };
    several.extend(
        single
            .into_iter()
            .map(|(c, base, k)| ceil_div(&base.add(&Ix::constant(k)), c)),
    );
    several.sort();
    several.dedup();
    let bound = several
        .into_iter()
        .reduce(|a, b| format!("rise_edge_max({a}, {b})"))
        .unwrap_or_else(|| "0".into());
    (bound, implied)
}

/// `⌈x / c⌉` in C, for a positive constant `c` (C's division truncates toward zero, which for
/// a negative `x` rounds up: the bound stays safe, and at most 0).
fn ceil_div(x: &Ix, c: i64) -> String {
    if c == 1 {
        return x.to_c();
    }
    format!("({}) / {c}", x.add(&Ix::constant(c - 1)).to_c())
}

/// The locals declared in `stmts` and the variables of the loops inside them.
fn collect_scope(stmts: &[Stmt], locals: &mut HashSet<String>, inner: &mut HashSet<String>) {
    for s in stmts {
        match s {
            Stmt::Decl { name, .. }
            | Stmt::LocalArray { name, .. }
            | Stmt::ThreadSlice { name, .. } => {
                locals.insert(name.clone());
            }
            Stmt::For { var, body, .. } | Stmt::Range { var, body, .. } => {
                inner.insert(var.clone());
                collect_scope(body, locals, inner);
            }
            Stmt::Unrolled { body, .. } => collect_scope(body, locals, inner),
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                collect_scope(then, locals, inner);
                collect_scope(otherwise, locals, inner);
            }
            Stmt::Comment(_) | Stmt::Store(..) | Stmt::EdgeStore { .. } => {}
        }
    }
}

/// Fills `survey` for `stmts`; `None` when a checked index cannot be bounded.
fn survey_body(
    stmts: &[Stmt],
    locals: &HashSet<String>,
    inner: &HashSet<String>,
    var: &str,
    survey: &mut Survey,
) -> Option<()> {
    for s in stmts {
        let mut loads_ok = true;
        for e in own_exprs(s) {
            e.for_each_edge_load(&mut |l| {
                let CExpr::EdgeLoad {
                    buf,
                    idx,
                    ty,
                    guard,
                    ..
                } = l
                else {
                    return;
                };
                match past_from(guard, inner, var) {
                    Some(dims) => {
                        let key = (buf.clone(), idx.clone(), ty.lanes);
                        if !survey.loads.iter().any(|(k, _)| *k == key) {
                            survey.loads.push((key, dims));
                        }
                    }
                    None => loads_ok = false,
                }
            })
        }
        if !loads_ok {
            return None;
        }
        match s {
            Stmt::Comment(_)
            | Stmt::Decl { .. }
            | Stmt::LocalArray { .. }
            | Stmt::ThreadSlice { .. } => {}
            Stmt::Store(place, _) => {
                let target = match place {
                    Place::Mem { buf, .. } => buf,
                    Place::Var(name, _) => name,
                };
                if !locals.contains(target) {
                    survey.other_stores = true;
                }
            }
            Stmt::EdgeStore { guard, .. } => survey.stores.push(past_from(guard, inner, var)?),
            Stmt::For { body, .. } | Stmt::Unrolled { body, .. } => {
                survey_body(body, locals, inner, var, survey)?
            }
            // Trimming runs before the checks are hoisted into these, and before loops are
            // split at padded borders.
            Stmt::IfElse { .. } | Stmt::Range { .. } => return None,
        }
    }
    Some(())
}

/// The expressions of a statement itself (not those of the statements inside it).
fn own_exprs(s: &Stmt) -> Vec<&CExpr> {
    match s {
        Stmt::Decl { init: Some(e), .. } | Stmt::Store(_, e) => vec![e],
        Stmt::EdgeStore { value, .. } => vec![value],
        _ => Vec::new(),
    }
}

/// The dimensions of a check whose lower bound over `inner` is linear in `var`; `None` when an
/// index cannot be bounded below.
fn past_from(guard: &Guard, inner: &HashSet<String>, var: &str) -> Option<Vec<PastFrom>> {
    let mut dims = Vec::new();
    for d in &guard.dims {
        let low = lower_bound(&d.index, inner)?;
        if let Some((c, r)) = linear_in(&low, var) {
            dims.push(PastFrom {
                c,
                n_minus_r: d.bound.sub(&r),
            });
        }
    }
    Some(dims)
}

/// A lower bound of `ix` over the loops named in `inner`: `ix` without its terms that mention
/// one (each must have a positive coefficient, as it is then non-negative).
fn lower_bound(ix: &Ix, inner: &HashSet<String>) -> Option<Ix> {
    let mut low = Ix::constant(0);
    for (atoms, c) in ix.terms() {
        if atoms.iter().any(|a| atom_mentions_any(a, inner)) {
            if *c <= 0 {
                return None;
            }
            continue;
        }
        low = low.add(&term(atoms, *c));
    }
    Some(low)
}

/// `ix` as `c·var + r` with a constant `c > 0` and `r` free of `var`.
fn linear_in(ix: &Ix, var: &str) -> Option<(i64, Ix)> {
    let mut c = 0;
    let mut rest = Ix::constant(0);
    for (atoms, k) in ix.terms() {
        match atoms.as_slice() {
            [Atom::Loop(name, _)] if name == var => c += k,
            _ if atoms.iter().any(|a| Ix::from_atom(a.clone()).mentions(var)) => return None,
            _ => rest = rest.add(&term(atoms, *k)),
        }
    }
    (c > 0).then_some((c, rest))
}

fn term(atoms: &[Atom], c: i64) -> Ix {
    atoms
        .iter()
        .fold(Ix::constant(c), |t, a| t.mul(&Ix::from_atom(a.clone())))
}

fn atom_mentions_any(a: &Atom, names: &HashSet<String>) -> bool {
    let ix = Ix::from_atom(a.clone());
    names.iter().any(|n| ix.mentions(n))
}

/// Drops, in the body of the loop over `var` that now stops at `⌈(n - r) / c⌉`, the checks
/// that bound implies: a dimension whose index is `c·var + r` with real length `n`, except one
/// a vector's lanes run along (the bound implies its first lane only). Returns whether there
/// was one.
fn drop_implied_checks(body: &mut [Stmt], var: &str, c: i64, n_minus_r: &Ix) -> bool {
    let dropped = std::cell::Cell::new(false);
    let implied = |guard: &Guard| -> Guard {
        Guard {
            dims: guard
                .dims
                .iter()
                .filter(|d| {
                    // A vector's check along its lanes stays: the bound puts its first lane
                    // in range, not its last (the partial vector at the end).
                    let exact = !d.along_lanes
                        && linear_in(&d.index, var)
                            .filter(|(c2, r)| *c2 == c && d.bound.sub(r) == *n_minus_r)
                            .is_some();
                    dropped.set(dropped.get() || exact);
                    !exact
                })
                .cloned()
                .collect(),
        }
    };
    rewrite_guards(body, &implied);
    dropped.get()
}

/// Rewrites every check in `stmts` with `f`; a check left with no dimension becomes a plain
/// access.
fn rewrite_guards(stmts: &mut [Stmt], f: &dyn Fn(&Guard) -> Guard) {
    let expr = |e: &CExpr| -> CExpr {
        e.map_edge_loads(&mut |l| match l {
            CExpr::EdgeLoad {
                buf,
                idx,
                ty,
                guard,
                aligned,
            } => Some(CExpr::edge_load(buf, idx.clone(), *ty, f(guard), *aligned)),
            _ => None,
        })
    };
    for s in stmts.iter_mut() {
        match s {
            Stmt::Decl { init: Some(e), .. } => *e = expr(e),
            Stmt::Store(_, e) => *e = expr(e),
            Stmt::EdgeStore {
                buf,
                idx,
                ty,
                guard,
                value,
                aligned,
            } => {
                let v = expr(value);
                *s = Stmt::edge_store(buf.clone(), idx.clone(), *ty, f(guard), v, *aligned);
            }
            Stmt::For { body, .. } | Stmt::Range { body, .. } | Stmt::Unrolled { body, .. } => {
                rewrite_guards(body, f)
            }
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                rewrite_guards(then, f);
                rewrite_guards(otherwise, f);
            }
            Stmt::Comment(_)
            | Stmt::LocalArray { .. }
            | Stmt::ThreadSlice { .. }
            | Stmt::Decl { init: None, .. } => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c_ast::{print_stmts, BinOp, EdgeDim, LoopOrigin, Schedule};
    use crate::ir::primitive::Primitive;
    use std::rc::Rc;

    fn f32x1() -> CType {
        CType {
            scalar: ScalarType::F32,
            lanes: 1,
        }
    }

    /// A check that `index` is below `bound`.
    fn check(index: &Ix, bound: &str) -> Guard {
        Guard {
            dims: vec![EdgeDim {
                index: index.clone(),
                bound: Ix::size(bound),
                innermost: true,
                along_lanes: false,
            }],
        }
    }

    fn load(buf: &str, index: &Ix, bound: &str) -> CExpr {
        CExpr::EdgeLoad {
            buf: buf.into(),
            idx: index.clone(),
            ty: f32x1(),
            guard: Rc::new(check(index, bound)),
            aligned: false,
        }
    }

    fn looped(var: &str, extent: &str, origin: LoopOrigin, body: Vec<Stmt>) -> Stmt {
        Stmt::For {
            var: var.into(),
            extent: Ix::size(extent),
            origin,
            schedule: Schedule::Sequential,
            body,
            limit: None,
        }
    }

    fn trimmed(mut stmts: Vec<Stmt>) -> (String, Vec<String>) {
        let mut names = 0;
        let mut needed = Vec::new();
        trim(
            &mut stmts,
            &mut |hint| {
                names += 1;
                format!("{hint}{names}")
            },
            &mut needed,
        );
        let mut text = String::new();
        print_stmts(&stmts, 0, &mut text);
        (text, needed)
    }

    fn add(a: CExpr, b: CExpr) -> CExpr {
        CExpr::Bin(BinOp::Add, Rc::new(a), Rc::new(b))
    }

    fn mul(a: CExpr, b: CExpr) -> CExpr {
        CExpr::Bin(BinOp::Mul, Rc::new(a), Rc::new(b))
    }

    #[test]
    fn iterations_that_only_store_past_the_real_size_are_skipped() {
        let i = Ix::loop_var("i", &Ix::size("m_up"));
        let store = Stmt::EdgeStore {
            buf: "out".into(),
            idx: i.clone(),
            ty: f32x1(),
            guard: check(&i, "m"),
            value: CExpr::Lit("1.0f".into()),
            aligned: false,
        };
        let (text, needed) = trimmed(vec![looped("i", "m_up", LoopOrigin::Copy, vec![store])]);
        assert!(
            text.contains("int32_t i_live1 = rise_edge_min(m_up, m);"),
            "{text}"
        );
        assert!(text.contains("for (int i = 0; i < i_live1; i++)"), "{text}");
        // The bound implies the check, which is gone: the loop now relies on it.
        assert!(text.contains("    out[i] = 1.0f;"), "{text}");
        assert_eq!(needed, vec!["i_live1".to_string()]);
    }

    #[test]
    fn a_loop_with_another_effect_is_kept_whole() {
        let i = Ix::loop_var("i", &Ix::size("m_up"));
        let body = vec![
            Stmt::EdgeStore {
                buf: "out".into(),
                idx: i.clone(),
                ty: f32x1(),
                guard: check(&i, "m"),
                value: CExpr::Lit("1.0f".into()),
                aligned: false,
            },
            Stmt::Store(
                Place::Var("count".into(), None),
                add(CExpr::Var("count".into()), CExpr::Lit("1".into())),
            ),
        ];
        let (text, _) = trimmed(vec![looped("i", "m_up", LoopOrigin::Copy, body)]);
        assert!(!text.contains("_live"), "{text}");
    }

    #[test]
    fn a_reduction_over_padding_stops_at_the_real_length() {
        let p = Ix::loop_var("p", &Ix::size("k_up"));
        let update = Stmt::Store(
            Place::Var("acc".into(), None),
            add(
                CExpr::Var("acc".into()),
                mul(load("a", &p, "k"), load("b", &p, "k")),
            ),
        );
        let reduce = LoopOrigin::Primitive(Primitive::ReduceSeq);
        let (text, _) = trimmed(vec![looped("p", "k_up", reduce, vec![update])]);
        assert!(text.contains("rise_edge_min(k_up, k)"), "{text}");
        // No check is left in the loop.
        assert!(text.contains("acc = acc + (a[p] * b[p]);"), "{text}");
    }

    #[test]
    fn a_product_with_one_padding_factor_is_not_skipped() {
        // `0 * x` is not zero when `x` is infinite.
        let p = Ix::loop_var("p", &Ix::size("k_up"));
        let update = Stmt::Store(
            Place::Var("acc".into(), None),
            add(
                CExpr::Var("acc".into()),
                mul(load("a", &p, "k"), CExpr::Var("x".into())),
            ),
        );
        let reduce = LoopOrigin::Primitive(Primitive::ReduceSeq);
        let (text, _) = trimmed(vec![looped("p", "k_up", reduce, vec![update])]);
        assert!(!text.contains("_live"), "{text}");
    }
}
