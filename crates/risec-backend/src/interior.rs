//! Loops split at the borders of padded views, so that their interior runs without the
//! per-element choice between the array and the padding.
//!
//! A `pad` read is `i < l ? pad : (i < l + n ? x[i - l] : pad)` ([`crate::c_fold::choose`]).
//! In a loop over `x` whose reads are at `x + c`, each such condition `x + c < b` holds exactly
//! for `x < b - c`: below a constant (the left border) or below the loop's extent minus a
//! constant (the right border). Between the largest left threshold `L` and the smallest right
//! one `E - R`, every condition is decided, so the loop runs in three ranges: `[0, L)` and
//! `[E - R, E)` with the conditions, `[L, E - R)` without them (a plain loop gcc can
//! vectorise). When the extent is too small for an interior, the loop runs as it was.
//! Conditions of other shapes (on another loop's variable, or `x` scaled or divided) stay as
//! they are in all three ranges. Loops with a stop of their own (`limit`) are left alone.

use crate::c_ast::CExpr;
use crate::c_stmt::Stmt;
use crate::ix::{Atom, Ix};
use std::rc::Rc;

/// Splits every loop of `stmts` (at any depth) that reads through padded views, as described in
/// the module documentation. Returns how many loops were split or had conditions decided.
pub fn split_borders(stmts: &mut Vec<Stmt>) -> usize {
    let mut count = 0;
    let mut out = Vec::with_capacity(stmts.len());
    for mut s in std::mem::take(stmts) {
        match &mut s {
            Stmt::For { body, .. } | Stmt::Range { body, .. } => count += split_borders(body),
            Stmt::IfElse {
                then, otherwise, ..
            } => count += split_borders(then) + split_borders(otherwise),
            _ => {}
        }
        match split_loop(&s) {
            Some(split) => {
                count += 1;
                out.push(split);
            }
            None => out.push(s),
        }
    }
    *stmts = out;
    count
}

/// Which side of the loop a condition's threshold is on.
enum Threshold {
    /// `x < k`: true only at the start (never, for `k <= 0`).
    Left(i64),
    /// `x < extent + k`: false only at the end (never, for `k >= 0`).
    Right(i64),
}

/// The loop `s` in three ranges, under a check that its extent leaves an interior, or `None`
/// when it is not a loop or has no condition to decide.
fn split_loop(s: &Stmt) -> Option<Stmt> {
    let Stmt::For {
        var,
        extent,
        origin,
        schedule,
        body,
        limit: None,
    } = s
    else {
        return None;
    };
    // Conditions decided on the whole range: `x < k` with k <= 0, `x < extent + k` with k >= 0.
    let always = |a: &Ix, b: &Ix| match threshold(a, b, var, extent)? {
        Threshold::Left(k) if k <= 0 => Some(false),
        Threshold::Right(k) if k >= 0 => Some(true),
        _ => None,
    };
    let mut thresholds = Vec::new();
    for_each_less(body, &mut |a, b| {
        if let Some(t) = threshold(a, b, var, extent) {
            thresholds.push(t);
        }
    });
    if thresholds.is_empty() {
        return None;
    }
    let body = &rewrite_body(body, &always);
    let (left, right) = thresholds.iter().fold((0, 0), |(left, right), t| match t {
        Threshold::Left(k) => (left.max(*k), right),
        Threshold::Right(k) => (left, right.min(*k)),
    });
    let start = Ix::constant(left);
    let end = extent.add(&Ix::constant(right));
    if left == 0 && right == 0 {
        // Nothing to split off: the loop with its decided conditions.
        return Some(Stmt::For {
            var: var.clone(),
            extent: extent.clone(),
            origin: *origin,
            schedule: *schedule,
            body: body.clone(),
            limit: None,
        });
    }
    let decided = rewrite_body(body, &|a, b| match threshold(a, b, var, extent)? {
        // In [left, extent + right): above every left threshold, below every right one.
        Threshold::Left(_) => Some(false),
        Threshold::Right(_) => Some(true),
    });
    let range = |from: &Ix, to: &Ix, body: Vec<Stmt>| Stmt::Range {
        var: var.clone(),
        start: from.clone(),
        end: to.clone(),
        origin: *origin,
        schedule: *schedule,
        body,
    };
    let mut parts = Vec::new();
    if left > 0 {
        parts.push(range(&Ix::constant(0), &start, body.clone()));
    }
    parts.push(range(&start, &end, decided));
    if right < 0 {
        parts.push(range(&end, extent, body.clone()));
    }
    Some(Stmt::IfElse {
        cond: format!("{} >= {}", end.to_c(), left),
        note: "the extent leaves an interior between the padded borders",
        then: parts,
        otherwise: vec![s.clone()],
    })
}

/// The threshold of `a < b` in the loop over `var` (of `extent`): `a - b` is `var` plus terms
/// without it, and the rest is a constant or the extent plus a constant.
fn threshold(a: &Ix, b: &Ix, var: &str, extent: &Ix) -> Option<Threshold> {
    let d = a.sub(b);
    let mut with_var = d
        .terms()
        .iter()
        .filter(|(m, _)| m.iter().any(|atom| atom_mentions(atom, var)));
    let (m, c) = with_var.next()?;
    if with_var.next().is_some()
        || *c != 1
        || !matches!(m.as_slice(), [Atom::Loop(name, _)] if name == var)
    {
        return None;
    }
    // a < b  <=>  var < var - (a - b)
    let bound = Ix::from_atom(m[0].clone()).sub(&d);
    if let Some(k) = bound.as_const() {
        return Some(Threshold::Left(k));
    }
    bound.sub(extent).as_const().map(Threshold::Right)
}

fn atom_mentions(a: &Atom, var: &str) -> bool {
    Ix::from_atom(a.clone()).mentions(var)
}

/// Calls `f` on the operands of every index comparison in `stmts`.
fn for_each_less(stmts: &[Stmt], f: &mut dyn FnMut(&Ix, &Ix)) {
    fn expr(e: &CExpr, f: &mut dyn FnMut(&Ix, &Ix)) {
        match e {
            CExpr::IxLess(a, b) => f(a, b),
            CExpr::Bin(_, x, y) => {
                expr(x, f);
                expr(y, f);
            }
            CExpr::Neg(x) | CExpr::Lane(x, _) => expr(x, f),
            CExpr::Lanes(_, xs) => xs.iter().for_each(|x| expr(x, f)),
            CExpr::Cond(c, x, y) | CExpr::VecSelect(c, x, y) => {
                expr(c, f);
                expr(x, f);
                expr(y, f);
            }
            CExpr::Math(_, _, xs) => xs.iter().for_each(|x| expr(x, f)),
            _ => {}
        }
    }
    for s in stmts {
        s.for_each_expr(&mut |_, e| expr(e, f));
    }
}

/// `stmts` with each index comparison that `decide` decides replaced by its value (a choice
/// by the branch taken).
fn rewrite_body(stmts: &[Stmt], decide: &dyn Fn(&Ix, &Ix) -> Option<bool>) -> Vec<Stmt> {
    stmts.iter().map(|s| rewrite_stmt(s, decide)).collect()
}

fn rewrite_stmt(s: &Stmt, decide: &dyn Fn(&Ix, &Ix) -> Option<bool>) -> Stmt {
    match s {
        Stmt::Decl { ty, name, init } => Stmt::Decl {
            ty: *ty,
            name: name.clone(),
            init: init.as_ref().map(|x| rewrite(x, decide)),
        },
        Stmt::Store(place, value) => Stmt::Store(place.clone(), rewrite(value, decide)),
        other => other.with_bodies(&mut |body| rewrite_body(body, decide)),
    }
}

fn rewrite(e: &CExpr, decide: &dyn Fn(&Ix, &Ix) -> Option<bool>) -> CExpr {
    let r = |x: &Rc<CExpr>| Rc::new(rewrite(x, decide));
    match e {
        CExpr::IxLess(a, b) => match decide(a, b) {
            Some(v) => CExpr::Lit(if v { "1" } else { "0" }.into()),
            None => e.clone(),
        },
        CExpr::Cond(c, x, y) => {
            if let CExpr::IxLess(a, b) = &**c {
                if let Some(v) = decide(a, b) {
                    return rewrite(if v { x } else { y }, decide);
                }
            }
            CExpr::Cond(r(c), r(x), r(y))
        }
        CExpr::Bin(op, x, y) => CExpr::Bin(*op, r(x), r(y)),
        CExpr::Neg(x) => CExpr::Neg(r(x)),
        CExpr::Lane(x, i) => CExpr::Lane(r(x), i.clone()),
        CExpr::Lanes(t, xs) => CExpr::Lanes(*t, xs.iter().map(|x| rewrite(x, decide)).collect()),
        CExpr::VecSelect(c, x, y) => CExpr::VecSelect(r(c), r(x), r(y)),
        CExpr::Math(op, t, xs) => CExpr::Math(*op, *t, xs.iter().map(r).collect()),
        _ => e.clone(),
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostics::SourceFile;
    use crate::{emit_c, CodegenOptions};

    fn c_of(src: &str) -> String {
        let p = crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None)
            .unwrap_or_else(|e| panic!("{}", e.render()));
        emit_c(&p, &CodegenOptions::new("t.h")).unwrap().source
    }

    /// The loop of lines of `c` starting at the line that contains `header`.
    fn loop_at<'c>(c: &'c str, header: &str) -> Vec<&'c str> {
        let lines: Vec<&str> = c.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.contains(header))
            .unwrap_or_else(|| panic!("no `{header}` in:\n{c}"));
        let indent = lines[start].len() - lines[start].trim_start().len();
        let end = lines[start + 1..]
            .iter()
            .position(|l| l.len() - l.trim_start().len() == indent && l.trim() == "}")
            .unwrap();
        lines[start..=start + 1 + end].to_vec()
    }

    /// A three-point sum over a zero-padded array: the first and last elements with the choice,
    /// the others without it; the whole loop, with it, where n leaves no interior.
    #[test]
    fn a_padded_window_is_read_without_choices_between_the_borders() {
        let c = c_of(
            "def f {n : nat} (x : n.f32) : n.f32 =\n\
             x |> pad 1 1 0.0 |> slide 3 1 |> mapSeq (fun w => reduceSeqUnroll (fun a v => a + v) 0.0 w)",
        );
        assert!(
            c.contains("if (n - 1 >= 1) { // the extent leaves an interior"),
            "{c}"
        );
        let interior = loop_at(&c, "= 1; x_blk < n - 1; x_blk++)");
        assert!(!interior.iter().any(|l| l.contains('?')), "{interior:?}");
        for border in ["= 0; x_blk < 1; x_blk++)", "= n - 1; x_blk < n; x_blk++)"] {
            assert!(loop_at(&c, border).iter().any(|l| l.contains('?')), "{c}");
        }
        assert!(
            loop_at(&c, "= 0; x_blk < n; x_blk++)")
                .iter()
                .any(|l| l.contains('?')),
            "{c}"
        );
    }
}
