//! The two sides of a user rule as text: where its variables are used, under which binders,
//! what literals it writes, and the text of an instance (every variable replaced).

use crate::frontend::syntax::ast::{Binder, Expr, ExprKind, Span};
use crate::interp::sampling::Constants;

/// A pattern variable's or size variable's use in one side of the rule.
pub(super) struct Use {
    /// Its span in that side's text.
    span: Span,
    /// The variable: index into the rule's expression (or size) variables.
    var: usize,
    /// Whether it is a size variable.
    size: bool,
    /// The binder names in scope, outermost first.
    binders: Vec<String>,
}

/// The uses of the rule's variables in one side.
pub(super) fn uses(
    e: &Expr,
    exprs: &[String],
    sizes: &[String],
    binders: &mut Vec<String>,
    out: &mut Vec<Use>,
) {
    let go = |e: &Expr, binders: &mut Vec<String>, out: &mut Vec<Use>| {
        uses(e, exprs, sizes, binders, out)
    };
    match &e.kind {
        ExprKind::Name(n) if !binders.contains(n) => {
            let (var, size) = match exprs.iter().position(|v| v == n) {
                Some(i) => (Some(i), false),
                None => (sizes.iter().position(|v| v == n), true),
            };
            if let Some(var) = var {
                out.push(Use {
                    span: e.span,
                    var,
                    size,
                    binders: binders.clone(),
                });
            }
        }
        ExprKind::Lambda(bs, body) => {
            let depth = binders.len();
            binders.extend(bs.iter().map(|b| match b {
                Binder::Plain(i) | Binder::Typed(i, _) | Binder::Size(i) => i.name.clone(),
            }));
            go(body, binders, out);
            binders.truncate(depth);
        }
        ExprKind::Let(x, v, b) => {
            go(v, binders, out);
            binders.push(x.name.clone());
            go(b, binders, out);
            binders.pop();
        }
        ExprKind::App(a, b)
        | ExprKind::Pipe(a, b)
        | ExprKind::Compose(a, b)
        | ExprKind::Binary(_, a, b)
        | ExprKind::Pair(a, b) => {
            go(a, binders, out);
            go(b, binders, out);
        }
        ExprKind::Neg(a) | ExprKind::Annot(a, _) => go(a, binders, out),
        _ => {}
    }
}

/// The sizes written as numbers in a side (`split 32`), of which drawn sizes are often taken
/// as multiples.
pub(super) fn literal_sizes(e: &Expr, out: &mut Vec<u64>) {
    match &e.kind {
        ExprKind::Nat(v) => out.push(*v),
        ExprKind::Lambda(_, a) | ExprKind::Neg(a) | ExprKind::Annot(a, _) => literal_sizes(a, out),
        ExprKind::Let(_, a, b)
        | ExprKind::App(a, b)
        | ExprKind::Pipe(a, b)
        | ExprKind::Compose(a, b)
        | ExprKind::Binary(_, a, b)
        | ExprKind::Pair(a, b) => {
            literal_sizes(a, out);
            literal_sizes(b, out);
        }
        _ => {}
    }
}

/// The scalar constants written in a side (`1.0`, `2i32`), whose neighbourhoods inputs are
/// drawn from and functions compare with.
pub(super) fn literal_constants(e: &Expr, out: &mut Constants) {
    match &e.kind {
        ExprKind::Float { value, .. } => out.add_float(*value),
        ExprKind::Int { value, .. } => out.add_int(*value),
        ExprKind::Lambda(_, a) | ExprKind::Neg(a) | ExprKind::Annot(a, _) => {
            literal_constants(a, out)
        }
        ExprKind::Let(_, a, b)
        | ExprKind::App(a, b)
        | ExprKind::Pipe(a, b)
        | ExprKind::Compose(a, b)
        | ExprKind::Binary(_, a, b)
        | ExprKind::Pair(a, b) => {
            literal_constants(a, out);
            literal_constants(b, out);
        }
        _ => {}
    }
}

/// Whether a side computes with scalars: arithmetic, comparisons, `select` or a scalar literal.
pub(super) fn computes_with_scalars(e: &Expr) -> bool {
    const SCALAR_PRIMITIVES: [&str; 9] = [
        "add", "sub", "mul", "div", "neg", "lt", "gt", "eq", "select",
    ];
    match &e.kind {
        ExprKind::Float { .. }
        | ExprKind::Int { .. }
        | ExprKind::Binary(..)
        | ExprKind::Neg(_)
        | ExprKind::Section(_) => true,
        ExprKind::Name(n) => SCALAR_PRIMITIVES.contains(&n.as_str()),
        ExprKind::Lambda(_, a) | ExprKind::Annot(a, _) => computes_with_scalars(a),
        ExprKind::Let(_, a, b)
        | ExprKind::App(a, b)
        | ExprKind::Pipe(a, b)
        | ExprKind::Compose(a, b)
        | ExprKind::Pair(a, b) => computes_with_scalars(a) || computes_with_scalars(b),
        _ => false,
    }
}

/// `text` with each span replaced (spans do not overlap).
fn splice(text: &str, mut edits: Vec<(Span, String)>) -> String {
    edits.sort_by_key(|(s, _)| s.start);
    let mut out = String::with_capacity(text.len() * 2);
    let mut at = 0;
    for (span, with) in edits {
        out.push_str(&text[at..span.start]);
        out.push_str(&with);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// One side of a rule: its text and the uses of its variables.
pub(super) struct Side<'t> {
    pub(super) text: &'t str,
    pub(super) uses: Vec<Use>,
}

impl Side<'_> {
    /// The text with every variable replaced: expression variable `i` by `exprs[i]` applied to
    /// the binders `args[i]`, size variable `j` by `sizes[j]`.
    pub(super) fn instance(
        &self,
        exprs: &[String],
        args: &[Vec<String>],
        sizes: &[String],
    ) -> String {
        let edits = self
            .uses
            .iter()
            .map(|u| {
                let with = if u.size {
                    sizes[u.var].clone()
                } else if args[u.var].is_empty() {
                    exprs[u.var].clone()
                } else {
                    format!("({} {})", exprs[u.var], args[u.var].join(" "))
                };
                (u.span, with)
            })
            .collect();
        splice(self.text, edits)
    }
}

/// The binders a pattern variable's values may use: those around its left-hand use that
/// every right-hand use has in scope too (by name, outermost first, each name once).
pub(super) fn shared_binders(var: usize, lhs: &[Use], rhs: &[Use]) -> Vec<String> {
    let Some(first) = lhs.iter().find(|u| !u.size && u.var == var) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (k, b) in first.binders.iter().enumerate() {
        let shadowed = first.binders[k + 1..].contains(b);
        let everywhere = rhs
            .iter()
            .filter(|u| !u.size && u.var == var)
            .all(|u| u.binders.contains(b));
        if !shadowed && everywhere {
            out.push(b.clone());
        }
    }
    out
}
