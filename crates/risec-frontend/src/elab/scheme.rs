//! Type schemes of checked helper definitions, so that checking a definition does not
//! re-elaborate every helper it uses (and every helper those use, …).
//!
//! A helper's size parameters act as implicit arguments inferred at each use. Once the helper
//! has been checked on its own, its type, divisibility facts and integrality obligations are
//! closed over its size parameters (no inference variable left): a [`Scheme`]. A use of the
//! helper in another definition's check then instantiates the scheme with fresh size variables,
//! which costs as much as the helper's type, not as much as its (transitively inlined) body.
//! Only the entry point's term inlines helper bodies. A helper whose type is only settled by its
//! uses (`def inc = map (fun x => x + 1.0)`, whose size is open) keeps being re-elaborated at
//! every use, as before.

use super::unify::{InferState, Obligation};
use crate::ir::nat::{self, Nat, NatAtom};
use crate::ir::types::{self, Type};
use crate::syntax::ast::Span;
use std::collections::HashMap;

/// A checked helper's type over its size parameters (elaboration-time binder ids).
#[derive(Clone, Debug)]
pub(super) struct Scheme {
    /// The binder ids of the size parameters, in order.
    binders: Vec<u32>,
    /// The type of the helper's value-parameter lambdas.
    ty: Type,
    /// Divisibility facts stated in the helper's annotations.
    facts: Vec<Nat>,
    /// Integrality obligations of the helper's body.
    obligations: Vec<Obligation>,
}

/// Whether `n` only mentions the binders in `allowed` (and no inference variable).
fn closed_over(n: &Nat, allowed: &[u32]) -> bool {
    !n.any_atom(&mut |a| match a {
        NatAtom::Meta(_) => true,
        NatAtom::Binder(b) => !allowed.contains(b),
        _ => false,
    })
}

/// Whether every size in `t` is [`closed_over`] `allowed`.
fn type_closed_over(t: &Type, allowed: &[u32]) -> bool {
    if t.has_metas() {
        return false;
    }
    let mut closed = true;
    types::rebuild(
        t,
        0,
        &mut |n, _| {
            closed &= closed_over(n, allowed);
            n.clone()
        },
        &mut |_, _, _| None,
    );
    closed
}

impl Scheme {
    /// The scheme of a definition just checked with `state`, whose body (value parameters as
    /// lambdas) has type `ty` and whose size parameters are the binders `binders`; `None` when
    /// something is still open.
    pub(super) fn generalize(state: &InferState, binders: &[u32], ty: &Type) -> Option<Scheme> {
        let ty = state.zonk(ty);
        if !type_closed_over(&ty, binders) {
            return None;
        }
        let facts: Vec<Nat> = state.facts.iter().map(|f| state.zonk_nat(f)).collect();
        let obligations: Vec<Obligation> = state
            .obligations
            .iter()
            .map(|o| Obligation {
                nat: state.zonk_nat(&o.nat),
                span: o.span,
            })
            .collect();
        let all_closed = facts
            .iter()
            .chain(obligations.iter().map(|o| &o.nat))
            .all(|n| closed_over(n, binders));
        all_closed.then(|| Scheme {
            binders: binders.to_vec(),
            ty,
            facts,
            obligations,
        })
    }

    /// A use of the helper at `at`: its type with fresh size variables for its size
    /// parameters; its facts and obligations, instantiated alike, join `state`'s.
    pub(super) fn instantiate(&self, state: &mut InferState, at: Span) -> Type {
        let fresh: HashMap<u32, Nat> = self
            .binders
            .iter()
            .map(|b| (*b, state.fresh_nat()))
            .collect();
        let subst = |n: &Nat| {
            nat::map_atoms(n, &mut |a| match a {
                NatAtom::Binder(b) => fresh.get(b).cloned(),
                _ => None,
            })
        };
        for fact in &self.facts {
            state.add_fact(subst(fact), at);
        }
        for ob in &self.obligations {
            state.obligations.push(Obligation {
                nat: subst(&ob.nat),
                span: ob.span,
            });
        }
        types::rebuild(&self.ty, 0, &mut |n, _| subst(n), &mut |_, _, _| None)
    }
}

#[cfg(test)]
mod tests {
    use crate::core::print::program_type_to_source;
    use crate::diagnostics::SourceFile;
    use crate::load::compile_source;

    fn compile(src: &str) -> Result<String, String> {
        compile_source(&SourceFile::new("s.rise", src), None)
            .map(|p| program_type_to_source(&p))
            .map_err(|e| e.render())
    }

    #[test]
    fn a_helper_is_instantiated_afresh_at_every_use() {
        let src = "def twice {n : nat} (x : n.f32) : 2.n.f32 = generate (fun (i : idx[2]) => x)\n\
                   def g (a : 3.f32) (b : 5.f32) : (2.3.f32, 2.5.f32) = (twice a, twice b)\n\
                   def main (x : f32) : f32 = x";
        // `g` is checked on its own with `twice` at n = 3 and n = 5.
        assert_eq!(compile(src).unwrap(), "f32 -> f32");
        let bad = src.replace("2.5.f32)", "2.4.f32)");
        let err = compile(&bad).unwrap_err();
        assert!(err.contains("type mismatch"), "{err}");
        assert!(err.contains("s.rise:2:"), "{err}");
    }

    #[test]
    fn helpers_open_in_their_sizes_are_still_inlined() {
        // `inc`'s size is only settled by each use.
        let src = "def inc = map (fun x => x + 1.0)\n\
                   def g (a : 3.f32) (b : 4.f32) : 4.f32 = inc b\n\
                   def main (a : 3.f32) : 3.f32 = inc a";
        assert_eq!(compile(src).unwrap(), "3.f32 -> 3.f32");
    }
}
