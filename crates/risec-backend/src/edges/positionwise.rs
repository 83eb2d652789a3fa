//! Whether the edges kernel may read zero where the output is past its real sizes.
//!
//! The edges kernel drops stores past the output's real sizes, and a read there gives zero,
//! not what the rounded-up program stored before: the output has no memory there. That is
//! harmless exactly when a value read from the output flows only into the store of the same
//! element: an accumulator updated in place (`out[i] = out[i] + x`), or a register tile filled
//! from the output, updated, and written back where it came from. Then what a position past
//! the real sizes holds never reaches a position within them. [`check_positionwise`] proves this by
//! following, through the statements, which output elements each value depends on (a small
//! taint analysis): locals and local arrays (at constant offsets, or as a whole) carry the set
//! of output elements (index, lanes and check) they were computed from; loops are followed to
//! a fixed point; a lane taken out of such a value, or a vector built from such lanes, stands
//! for "any element". Every checked store to the output must depend on no element but its
//! own.

use crate::c_ast::{CExpr, Guard, Place, Stmt};
use crate::ix::Ix;
use std::collections::HashMap;

/// An element of the output a value may depend on: its index, lanes and check.
#[derive(Clone, Debug, PartialEq)]
struct Element {
    idx: Ix,
    lanes: u64,
    guard: Guard,
}

/// The output elements a value depends on; `None`: any (a lane moved to another position).
type Taint = Option<Vec<Element>>;

fn union(a: &Taint, b: &Taint) -> Taint {
    let (Some(a), Some(b)) = (a, b) else {
        return None;
    };
    let mut out = a.clone();
    for e in b {
        if !out.contains(e) {
            out.push(e.clone());
        }
    }
    Some(out)
}

fn is_clean(t: &Taint) -> bool {
    matches!(t, Some(v) if v.is_empty())
}

/// What the analysis knows at a point of the statements.
#[derive(Clone, Default, PartialEq)]
struct State {
    /// Scalar and vector variables.
    vars: HashMap<String, Taint>,
    /// Array elements at constant offsets: (buffer, offset, lanes).
    cells: Vec<(String, i64, u64, Taint)>,
    /// Arrays written at other offsets: what any of their elements may depend on.
    whole: HashMap<String, Taint>,
}

impl State {
    fn join(&self, other: &State) -> State {
        let mut out = self.clone();
        for (k, t) in &other.vars {
            let merged = union(out.vars.get(k).unwrap_or(&Some(Vec::new())), t);
            out.vars.insert(k.clone(), merged);
        }
        for (b, o, l, t) in &other.cells {
            match out
                .cells
                .iter_mut()
                .find(|(b2, o2, l2, _)| b2 == b && o2 == o && l2 == l)
            {
                Some(cell) => cell.3 = union(&cell.3, t),
                None => out.cells.push((b.clone(), *o, *l, t.clone())),
            }
        }
        for (k, t) in &other.whole {
            let merged = union(out.whole.get(k).unwrap_or(&Some(Vec::new())), t);
            out.whole.insert(k.clone(), merged);
        }
        out
    }

    /// The state as the next iteration of the loop over `var` sees it: an output element
    /// indexed by `var` is a different element there, so a value depending on one depends on
    /// an element other than any the next iteration names.
    fn carry_over(&mut self, var: &str) {
        let stale = |t: &mut Taint| {
            if let Some(v) = t {
                if v.iter()
                    .any(|e| e.idx.mentions(var) || e.guard.mentions(var))
                {
                    *t = None;
                }
            }
        };
        self.vars.values_mut().for_each(stale);
        self.cells.iter_mut().for_each(|c| stale(&mut c.3));
        self.whole.values_mut().for_each(stale);
    }

    /// What a load of `lanes` elements of `buf` at `idx` depends on.
    fn load(&self, buf: &str, idx: &Ix, lanes: u64) -> Taint {
        let mut t = self.whole.get(buf).cloned().unwrap_or(Some(Vec::new()));
        let at = idx.as_const();
        for (b, o, l, ct) in &self.cells {
            if b != buf {
                continue;
            }
            let overlaps = match at {
                Some(c) => c < o + *l as i64 && *o < c + lanes as i64,
                None => true,
            };
            if overlaps {
                t = union(&t, ct);
            }
        }
        t
    }

    fn store(&mut self, buf: &str, idx: &Ix, lanes: u64, t: Taint) {
        match idx.as_const() {
            Some(c) => {
                self.cells
                    .retain(|(b, o, l, _)| !(b == buf && *o == c && *l == lanes));
                self.cells.push((buf.to_string(), c, lanes, t));
            }
            None => {
                let merged = union(self.whole.get(buf).unwrap_or(&Some(Vec::new())), &t);
                self.whole.insert(buf.to_string(), merged);
            }
        }
    }

    fn expr(&self, e: &CExpr, out: &str) -> Taint {
        match e {
            CExpr::Lit(_)
            | CExpr::Index(_)
            | CExpr::IxLess(..)
            | CExpr::WideIndex(_)
            | CExpr::SizeAs(..) => Some(Vec::new()),
            CExpr::Var(v) => self.vars.get(v).cloned().unwrap_or(Some(Vec::new())),
            CExpr::EdgeLoad {
                buf,
                idx,
                ty,
                guard,
                ..
            } if buf == out => Some(vec![Element {
                idx: idx.clone(),
                lanes: ty.lanes,
                guard: (**guard).clone(),
            }]),
            CExpr::EdgeLoad { .. } => Some(Vec::new()),
            // Unchecked reads of the output do not occur in the edges kernel; if one did,
            // nothing would be known of it.
            CExpr::Load { buf, .. } if buf == out => None,
            CExpr::Load { buf, idx, ty, .. } => self.load(buf, idx, ty.lanes),
            CExpr::Bin(_, a, b) => union(&self.expr(a, out), &self.expr(b, out)),
            CExpr::Math(_, _, xs) => xs
                .iter()
                .try_fold(Vec::new(), |acc, x| union(&Some(acc), &self.expr(x, out))),
            CExpr::Neg(a) => self.expr(a, out),
            CExpr::Cond(c, a, b) | CExpr::VecSelect(c, a, b) => union(
                &self.expr(c, out),
                &union(&self.expr(a, out), &self.expr(b, out)),
            ),
            CExpr::Lane(v, _) => {
                if is_clean(&self.expr(v, out)) {
                    Some(Vec::new())
                } else {
                    None
                }
            }
            CExpr::Lanes(_, xs) => {
                if xs.iter().all(|x| is_clean(&self.expr(x, out))) {
                    Some(Vec::new())
                } else {
                    None
                }
            }
        }
    }
}

/// Checks that every value stored to `out` depends on the output only through reads of the
/// element it is stored to; otherwise says where it does not.
pub fn check_positionwise(stmts: &[Stmt], out: &str) -> Result<(), String> {
    let mut state = State::default();
    run(stmts, out, &mut state)
}

fn run(stmts: &[Stmt], out: &str, state: &mut State) -> Result<(), String> {
    for s in stmts {
        match s {
            Stmt::Comment(_) => {}
            Stmt::LocalArray { name, .. } | Stmt::ThreadSlice { name, .. } => {
                state.cells.retain(|(b, ..)| b != name);
                state.whole.remove(name);
            }
            Stmt::Decl { name, init, .. } => {
                let t = match init {
                    Some(e) => state.expr(e, out),
                    None => Some(Vec::new()),
                };
                state.vars.insert(name.clone(), t);
            }
            Stmt::Store(Place::Var(name, lane), e) => {
                let t = state.expr(e, out);
                let t = match lane {
                    // One lane of a vector from a value that depends on the output: the lanes
                    // no longer line up with the elements.
                    Some(_) if !is_clean(&t) => None,
                    Some(_) => state.vars.get(name).cloned().unwrap_or(Some(Vec::new())),
                    None => t,
                };
                state.vars.insert(name.clone(), t);
            }
            Stmt::Store(Place::Mem { buf, idx, ty, .. }, e) => {
                if buf == out {
                    return Err("the output is written unchecked".into());
                }
                let t = state.expr(e, out);
                state.store(buf, idx, ty.lanes, t);
            }
            Stmt::EdgeStore {
                buf,
                idx,
                ty,
                guard,
                value,
                ..
            } => {
                if buf != out {
                    continue;
                }
                let own = Element {
                    idx: idx.clone(),
                    lanes: ty.lanes,
                    guard: guard.clone(),
                };
                match state.expr(value, out) {
                    Some(deps) if deps.iter().all(|d| *d == own) => {}
                    _ => {
                        return Err(format!(
                        "the value stored to out[{}] may depend on other elements of the output",
                        idx.to_c()
                    ))
                    }
                }
            }
            Stmt::For { var, body, .. } => {
                // Iterate to a fixed point: what one iteration leaves, the next reads, where
                // an element indexed by the loop's variable is another element.
                let mut head = state.clone();
                loop {
                    let mut after = head.clone();
                    run(body, out, &mut after)?;
                    after.carry_over(var);
                    let next = head.join(&after);
                    if next == head {
                        break;
                    }
                    head = next;
                }
                *state = head;
            }
            Stmt::Unrolled { body, .. } => run(body, out, state)?,
            Stmt::Range { .. } => return Err("a loop split at padded borders".into()),
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                let mut other = state.clone();
                run(then, out, state)?;
                run(otherwise, out, &mut other)?;
                *state = state.join(&other);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c_ast::{CType, EdgeDim, LoopOrigin, Schedule};
    use crate::ir::types::ScalarType;
    use std::rc::Rc;

    fn f32x(lanes: u64) -> CType {
        CType {
            scalar: ScalarType::F32,
            lanes,
        }
    }

    fn guard(i: &Ix) -> Guard {
        Guard {
            dims: vec![EdgeDim {
                index: i.clone(),
                bound: Ix::size("m"),
                innermost: true,
                along_lanes: false,
            }],
        }
    }

    fn out_load(i: &Ix) -> CExpr {
        CExpr::EdgeLoad {
            buf: "out".into(),
            idx: i.clone(),
            ty: f32x(1),
            guard: Rc::new(guard(i)),
            aligned: false,
        }
    }

    fn out_store(i: &Ix, value: CExpr) -> Stmt {
        Stmt::EdgeStore {
            buf: "out".into(),
            idx: i.clone(),
            ty: f32x(1),
            guard: guard(i),
            value,
            aligned: false,
        }
    }

    fn add(a: CExpr, b: CExpr) -> CExpr {
        CExpr::Bin(crate::c_ast::BinOp::Add, Rc::new(a), Rc::new(b))
    }

    fn looped(var: &str, body: Vec<Stmt>) -> Stmt {
        Stmt::For {
            var: var.into(),
            extent: Ix::size("m_up"),
            origin: LoopOrigin::Copy,
            schedule: Schedule::Sequential,
            body,
            limit: None,
        }
    }

    #[test]
    fn an_accumulator_updated_in_place_is_positionwise() {
        let i = Ix::loop_var("i", &Ix::size("m_up"));
        let body = vec![out_store(&i, add(out_load(&i), CExpr::Lit("1.0f".into())))];
        assert_eq!(check_positionwise(&[looped("i", body)], "out"), Ok(()));
    }

    #[test]
    fn a_register_tile_filled_updated_and_written_back_is_positionwise() {
        let i = Ix::loop_var("i", &Ix::size("m_up"));
        let fill = Stmt::Store(
            Place::Mem {
                buf: "acc".into(),
                idx: Ix::constant(0),
                ty: f32x(1),
                aligned: true,
            },
            out_load(&i),
        );
        let acc = CExpr::Load {
            buf: "acc".into(),
            idx: Ix::constant(0),
            ty: f32x(1),
            aligned: true,
        };
        let update = looped(
            "p",
            vec![Stmt::Store(
                Place::Mem {
                    buf: "acc".into(),
                    idx: Ix::constant(0),
                    ty: f32x(1),
                    aligned: true,
                },
                add(acc.clone(), CExpr::Lit("2.0f".into())),
            )],
        );
        let body = vec![
            Stmt::LocalArray {
                scalar: ScalarType::F32,
                name: "acc".into(),
                len: 8,
            },
            fill,
            update,
            out_store(&i, acc),
        ];
        assert_eq!(check_positionwise(&[looped("i", body)], "out"), Ok(()));
    }

    #[test]
    fn reading_a_neighbour_is_refused() {
        let i = Ix::loop_var("i", &Ix::size("m_up"));
        let next = i.add(&Ix::constant(1));
        let body = vec![out_store(&i, add(out_load(&i), out_load(&next)))];
        assert!(check_positionwise(&[looped("i", body)], "out").is_err());
    }

    #[test]
    fn a_running_sum_carried_between_elements_is_refused() {
        let i = Ix::loop_var("i", &Ix::size("m_up"));
        let body = vec![
            Stmt::Store(
                Place::Var("s".into(), None),
                add(CExpr::Var("s".into()), out_load(&i)),
            ),
            out_store(&i, CExpr::Var("s".into())),
        ];
        let stmts = vec![
            Stmt::Decl {
                ty: f32x(1),
                name: "s".into(),
                init: Some(CExpr::Lit("0.0f".into())),
            },
            looped("i", body),
        ];
        assert!(check_positionwise(&stmts, "out").is_err());
    }
}
