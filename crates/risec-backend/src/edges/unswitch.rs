//! The edges kernel's checks hoisted out of its loops: a loop body whose accesses are all in
//! range runs without them.
//!
//! A checked load in a copy loop (packing a panel of B) keeps gcc from vectorising the loop,
//! and checked loads and stores around a register tile cost a branch each. Most iterations
//! are far from the edges, so each loop body is written twice: without checks, run when one
//! condition shows every checked access of the body in range, and with them otherwise. The
//! condition bounds each checked index by its largest value over the body: a sum of
//! non-negative terms with positive coefficients grows with each loop variable, so putting
//! each variable at its last value (`extent - 1`, a remainder at `divisor - 1`) gives an upper
//! bound.
//!
//! Which accesses a body's condition covers: those directly in it (unrolled blocks included)
//! and those in its innermost loops (loops with no loop inside), so that the copy loop inside
//! a packing loop becomes a plain loop. Accesses in deeper loops get their own condition in
//! those loops' bodies. Innermost loops keep their checks: a condition per element would cost
//! what the check costs.

use crate::c_ast::{CExpr, EdgeDim, Place, Stmt};
use crate::ix::{Atom, Ix};
use std::collections::HashSet;

/// Writes every loop body of `stmts` (at any depth) that has checked accesses twice, as
/// described in the module documentation. Returns how many bodies were.
pub fn unswitch(stmts: &mut [Stmt], needed: &[String]) -> usize {
    let mut count = 0;
    for s in stmts.iter_mut() {
        match s {
            Stmt::For { body, .. } if has_loop(body) => {
                // The whole body at once, where every access at any depth is in range: then
                // it runs as the kernel does, with no check and every loop whole.
                let mut all_inner = HashSet::new();
                let mut all_dims = Vec::new();
                all_checks(body, &mut all_inner, &mut all_dims);
                let whole = in_range(&all_dims, &all_inner);
                count += unswitch(body, needed);
                let mut inner = HashSet::new();
                let mut dims = Vec::new();
                shallow_checks(body, &mut inner, &mut dims);
                let shallow = (!dims.is_empty())
                    .then(|| in_range(&dims, &inner))
                    .flatten();
                if let Some(cond) = &shallow {
                    let checked = std::mem::take(body);
                    let plain = checked.iter().map(strip_stmt).collect();
                    *body = vec![Stmt::IfElse {
                        cond: cond.clone(),
                        note: "every access in range",
                        then: plain,
                        otherwise: checked,
                    }];
                    count += 1;
                }
                if let Some(cond) = whole.filter(|c| !c.is_empty() && Some(c) != shallow.as_ref()) {
                    let checked = std::mem::take(body);
                    *body = vec![Stmt::IfElse {
                        cond,
                        note: "every access in range",
                        then: plain_everywhere(&checked, needed),
                        otherwise: checked,
                    }];
                    count += 1;
                }
            }
            Stmt::Unrolled { body, .. } => count += unswitch(body, needed),
            _ => {}
        }
    }
    count
}

/// The checked dimensions of every access in `stmts`, at any depth, and the variables of the
/// loops in them.
fn all_checks(stmts: &[Stmt], inner: &mut HashSet<String>, dims: &mut Vec<(EdgeDim, u64)>) {
    for s in stmts {
        match s {
            Stmt::For { var, body, .. } => {
                inner.insert(var.clone());
                all_checks(body, inner, dims);
            }
            Stmt::Unrolled { body, .. } => all_checks(body, inner, dims),
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                all_checks(then, inner, dims);
                all_checks(otherwise, inner, dims);
            }
            Stmt::EdgeStore {
                guard, ty, value, ..
            } => {
                dims.extend(guard.dims.iter().map(|d| (d.clone(), ty.lanes)));
                expr_checks(value, dims);
            }
            other => other.for_each_expr(&mut |_, e| expr_checks(e, dims)),
        }
    }
}

/// The statements with no check at any depth, where each is known to hold: the branches
/// written for partly checked bodies reduced to their unchecked side, and the loops that stop
/// early at the real sizes whole again (every iteration is in range), their bounds' locals
/// dropped; but not those `needed` (the loop dropped checks its bound implies).
fn plain_everywhere(stmts: &[Stmt], needed: &[String]) -> Vec<Stmt> {
    let limits: HashSet<&String> = stmts
        .iter()
        .filter_map(|s| match s {
            Stmt::For { limit: Some(l), .. } if !needed.contains(l) => Some(l),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for s in stmts {
        match s {
            Stmt::Decl { name, .. } if limits.contains(name) => {}
            Stmt::For { body, limit, .. } => out.push(with_body(
                s,
                plain_everywhere(body, needed),
                limit.clone().filter(|l| needed.contains(l)),
            )),
            Stmt::Unrolled {
                origin,
                iteration,
                body,
            } => out.push(Stmt::Unrolled {
                origin: *origin,
                iteration: *iteration,
                body: plain_everywhere(body, needed),
            }),
            Stmt::IfElse { then, .. } => out.extend(plain_everywhere(then, needed)),
            other => out.push(strip_stmt(other)),
        }
    }
    out
}

/// Whether `stmts` have a loop (not unrolled) at any depth.
fn has_loop(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::For { .. } => true,
        Stmt::Unrolled { body, .. } => has_loop(body),
        Stmt::IfElse {
            then, otherwise, ..
        } => has_loop(then) || has_loop(otherwise),
        _ => false,
    })
}

/// The checked dimensions (with the access's lanes) of the accesses a body's condition covers,
/// and the variables of the innermost loops they sit in.
fn shallow_checks(stmts: &[Stmt], inner: &mut HashSet<String>, dims: &mut Vec<(EdgeDim, u64)>) {
    for s in stmts {
        match s {
            Stmt::For { var, body, .. } if !has_loop(body) => {
                inner.insert(var.clone());
                shallow_checks(body, inner, dims);
            }
            Stmt::For { .. } | Stmt::IfElse { .. } => {}
            Stmt::Unrolled { body, .. } => shallow_checks(body, inner, dims),
            Stmt::EdgeStore {
                guard, ty, value, ..
            } => {
                dims.extend(guard.dims.iter().map(|d| (d.clone(), ty.lanes)));
                expr_checks(value, dims);
            }
            other => other.for_each_expr(&mut |_, e| expr_checks(e, dims)),
        }
    }
}

fn expr_checks(e: &CExpr, dims: &mut Vec<(EdgeDim, u64)>) {
    e.for_each_edge_load(&mut |l| {
        if let CExpr::EdgeLoad { guard, ty, .. } = l {
            dims.extend(guard.dims.iter().map(|d| (d.clone(), ty.lanes)))
        }
    });
}

/// The condition, in C, that every checked dimension is in range for every value of the
/// variables in `inner`; `None` when an index cannot be bounded.
fn in_range(dims: &[(EdgeDim, u64)], inner: &HashSet<String>) -> Option<String> {
    // Per real length and index up to its constant: the largest constant (the last row of a
    // tile covers the others).
    let mut tops: Vec<(Ix, Ix, i64)> = Vec::new();
    for (d, lanes) in dims {
        let mut top = upper_bound(&d.index, inner)?;
        if d.along_lanes {
            top = top.add(&Ix::constant(*lanes as i64 - 1));
        }
        let k = top.as_const_part();
        let base = top.sub(&Ix::constant(k));
        match tops
            .iter_mut()
            .find(|(n, b, _)| *n == d.bound && *b == base)
        {
            Some(entry) => entry.2 = entry.2.max(k),
            None => tops.push((d.bound.clone(), base, k)),
        }
    }
    let parts: Vec<String> = tops
        .iter()
        .map(|(n, base, k)| format!("{} < {}", base.add(&Ix::constant(*k)).to_c(), n.to_c()))
        .collect();
    Some(parts.join(" && "))
}

/// An upper bound of `ix` over the loop variables in `vars` (each below its extent), or
/// `None` when a term that mentions one has a negative coefficient.
fn upper_bound(ix: &Ix, vars: &HashSet<String>) -> Option<Ix> {
    let mut total = Ix::constant(0);
    for (atoms, c) in ix.terms() {
        let mut term = Ix::constant(*c);
        let mut varies = false;
        for a in atoms {
            let (bound, v) = atom_upper_bound(a, vars)?;
            varies |= v;
            term = term.mul(&bound);
        }
        if varies && *c < 0 {
            return None;
        }
        total = total.add(&term);
    }
    Some(total)
}

/// An upper bound of one atom, and whether it mentions a variable of `vars`.
fn atom_upper_bound(a: &Atom, vars: &HashSet<String>) -> Option<(Ix, bool)> {
    let mentions = vars.iter().any(|v| Ix::from_atom(a.clone()).mentions(v));
    if !mentions {
        return Some((Ix::from_atom(a.clone()), false));
    }
    match a {
        Atom::Loop(_, extent) => Some((extent.sub(&Ix::constant(1)), true)),
        Atom::Div(x, d) => Some((upper_bound(x, vars)?.div(d), true)),
        Atom::Mod(_, d) => Some((d.sub(&Ix::constant(1)), true)),
        Atom::Size(_) => Some((Ix::from_atom(a.clone()), false)),
    }
}

/// The statement without checks on the accesses a body's condition covers (the same ones
/// [`shallow_checks`] collects).
fn strip_stmt(s: &Stmt) -> Stmt {
    match s {
        Stmt::EdgeStore {
            buf,
            idx,
            ty,
            value,
            aligned,
            ..
        } => Stmt::Store(
            Place::Mem {
                buf: buf.clone(),
                idx: idx.clone(),
                ty: *ty,
                aligned: *aligned,
            },
            strip(value),
        ),
        Stmt::Store(place, e) => Stmt::Store(place.clone(), strip(e)),
        Stmt::Decl { ty, name, init } => Stmt::Decl {
            ty: *ty,
            name: name.clone(),
            init: init.as_ref().map(strip),
        },
        Stmt::For { body, limit, .. } if !has_loop(body) => {
            with_body(s, body.iter().map(strip_stmt).collect(), limit.clone())
        }
        Stmt::Unrolled { .. } => s.with_bodies(&mut |body| body.iter().map(strip_stmt).collect()),
        other => other.clone(),
    }
}

/// The loop `s` with another body and bound (other statements are returned as they are).
fn with_body(s: &Stmt, body: Vec<Stmt>, limit: Option<String>) -> Stmt {
    match s {
        Stmt::For {
            var,
            extent,
            origin,
            schedule,
            ..
        } => Stmt::For {
            var: var.clone(),
            extent: extent.clone(),
            origin: *origin,
            schedule: *schedule,
            body,
            limit,
        },
        other => other.clone(),
    }
}

/// The expression with its checked loads made plain.
fn strip(e: &CExpr) -> CExpr {
    e.map_edge_loads(&mut |l| match l {
        CExpr::EdgeLoad {
            buf,
            idx,
            ty,
            aligned,
            ..
        } => Some(CExpr::Load {
            buf: buf.clone(),
            idx: idx.clone(),
            ty: *ty,
            aligned: *aligned,
        }),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c_ast::{print_stmts, CType, Guard, LoopOrigin, Schedule};
    use crate::ir::types::ScalarType;
    use std::rc::Rc;

    #[test]
    fn a_packing_loop_body_runs_unchecked_where_its_panel_is_in_range() {
        // for i < n_up/32: for j < 32: mem[i*32 + j] = (i*32 + j < n ? b[i*32 + j] : 0)
        let i = Ix::loop_var("i", &Ix::size("n_up").div(&Ix::constant(32)));
        let j = Ix::loop_var("j", &Ix::constant(32));
        let at = i.scale(32).add(&j);
        let ty = CType {
            scalar: ScalarType::F32,
            lanes: 1,
        };
        let load = CExpr::EdgeLoad {
            buf: "b".into(),
            idx: at.clone(),
            ty,
            guard: Rc::new(Guard {
                dims: vec![EdgeDim {
                    index: at.clone(),
                    bound: Ix::size("n"),
                    innermost: true,
                    along_lanes: false,
                }],
            }),
            aligned: false,
        };
        let copy = Stmt::Store(
            Place::Mem {
                buf: "mem".into(),
                idx: at,
                ty,
                aligned: false,
            },
            load,
        );
        let inner = Stmt::For {
            var: "j".into(),
            extent: Ix::constant(32),
            origin: LoopOrigin::Copy,
            schedule: Schedule::Sequential,
            body: vec![copy],
            limit: None,
        };
        let mut stmts = vec![Stmt::For {
            var: "i".into(),
            extent: Ix::size("n_up").div(&Ix::constant(32)),
            origin: LoopOrigin::Copy,
            schedule: Schedule::Sequential,
            body: vec![inner],
            limit: None,
        }];
        assert_eq!(unswitch(&mut stmts, &[]), 1);
        let mut text = String::new();
        print_stmts(&stmts, 0, &mut text);
        assert!(text.contains("if (i * 32 + 31 < n) {"), "{text}");
        assert!(text.contains("mem[i * 32 + j] = b[i * 32 + j];"), "{text}");
        assert!(
            text.contains("mem[i * 32 + j] = (i * 32 + j < n ? b[i * 32 + j] : 0);"),
            "{text}"
        );
    }
}
