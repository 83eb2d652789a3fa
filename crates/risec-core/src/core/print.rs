//! Printing core terms back as Rise surface syntax.
//!
//! The output is valid `.rise` text that elaborates to the same core term: every lambda
//! parameter is annotated with its type, literals keep their type suffix, nat arguments are
//! written as size expressions, and sugar (`let … in`, infix arithmetic, pairs) is used where
//! the term has that shape. Bound variables get generated names that cannot clash.

use super::{Expr, ExprKind, Literal, TypedProgram};
use crate::ir::nat::{self, Nat};
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, Type, TypeNode};

/// Writes a whole program as a `def` with its size and value parameters.
pub fn program_to_source(p: &TypedProgram) -> String {
    program_to_source_declaring(p, &[])
}

/// A fact the program relies on, for people: a divisibility fact as "`m/4` is a whole
/// number", a difference that must not be negative as "`n ≥ 5`".
pub fn fact_to_source(p: &TypedProgram, fact: &Nat) -> String {
    use crate::ir::nat::{self, Rational};
    if !fact.terms().iter().all(|(_, c)| c.is_integer()) {
        return format!(
            "`{}` is a whole number",
            divisibility_fact_to_source(p, fact)
        );
    }
    let constant = fact
        .terms()
        .iter()
        .find(|(m, _)| m.factors().is_empty())
        .map_or(0, |(_, c)| c.numer());
    if constant < 0 {
        let rest = nat::sub(fact, &nat::constant(Rational::int(constant)));
        format!("`{} ≥ {}`", program_nat_to_source(p, &rest), -constant)
    } else {
        format!("`{} ≥ 0`", program_nat_to_source(p, fact))
    }
}

/// Like [`program_to_source`], but declares the divisibility `facts` (over the size parameters,
/// as in [`TypedProgram::facts`]) so that the text checks again: a fact `m/32` is written into
/// the first parameter type where `m` is an extent, as `(m/32*32)`, which the type checker
/// records as "32 divides m". Facts of other shapes are listed in a comment.
pub fn program_to_source_declaring(p: &TypedProgram, facts: &[Nat]) -> String {
    let text = program_to_source_plain(p);
    let mut header_end = text.find(" =\n").unwrap_or(text.len());
    let mut header = text[..header_end].to_string();
    let mut unplaced = Vec::new();
    let nparams = p.size_params.len() as u32;
    for fact in facts {
        let placed = single_size_divisor(fact)
            .and_then(|(index, d)| {
                let name = p.size_params.get((nparams - 1 - index) as usize)?;
                let at = first_extent(&header, name)?;
                header.replace_range(at..at + name.len(), &format!("({name}/{d}*{d})"));
                Some(())
            })
            .or_else(|| {
                // A fact over a sum (`(n+4)/64`, normalised to `n/64 + 1/16`): written where
                // the sum is an extent, `(n + 4)` as `((n + 4)/64*64)`.
                let (scaled, d) = scaled_fact(fact)?;
                let extent = format!("({})", program_nat_to_source(p, &scaled));
                let at = first_extent(&header, &extent)?;
                header.replace_range(at..at + extent.len(), &format!("({extent}/{d}*{d})"));
                Some(())
            });
        if placed.is_none() {
            unplaced.push(program_nat_to_source(p, fact));
        }
    }
    let mut out = String::new();
    if !unplaced.is_empty() {
        out.push_str(&format!(
            "// relies on these sizes being whole numbers: {}\n",
            unplaced.join(", ")
        ));
    }
    out.push_str(&header);
    header_end = header_end.min(text.len());
    out.push_str(&text[header_end..]);
    out
}

/// `index/d` for a fact that is one size parameter divided by a constant.
fn single_size_divisor(n: &Nat) -> Option<(u32, i128)> {
    let terms = n.terms();
    if terms.len() != 1 {
        return None;
    }
    let (mono, coeff) = &terms[0];
    let [(nat::NatAtom::Index(i), 1)] = mono.factors() else {
        return None;
    };
    (coeff.numer() == 1 && coeff.denom() > 1).then_some((*i, coeff.denom()))
}

/// A divisibility fact as source text: `m/32`, or `(n + 4)/64` for one over a sum (which the
/// normal form of sizes keeps as `n/64 + 1/16`).
pub fn divisibility_fact_to_source(p: &TypedProgram, fact: &Nat) -> String {
    match scaled_fact(fact) {
        Some((scaled, d)) if scaled.terms().len() > 1 => {
            format!("({})/{d}", program_nat_to_source(p, &scaled))
        }
        _ => program_nat_to_source(p, fact),
    }
}

/// A fact with fractional coefficients as `(d · fact, d)`, `d` the least common multiple of
/// its coefficients' denominators (`n/64 + 1/16` → `(n + 4, 64)`).
fn scaled_fact(fact: &Nat) -> Option<(Nat, i128)> {
    use crate::ir::nat::{self, Rational};
    let mut d: i128 = 1;
    for (_, c) in fact.terms() {
        d = nat::checked_lcm(d, c.denom())?;
    }
    (d > 1).then(|| (nat::mul(fact, &nat::constant(Rational::int(d))), d))
}

/// The byte offset of the first whole-word `name` after the first `(` that is followed by `:`
/// (that is, inside a value parameter's type).
fn first_extent(header: &str, name: &str) -> Option<usize> {
    let start = header.find(" : ")?;
    let bytes = header.as_bytes();
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'\'';
    let mut from = start;
    while let Some(rel) = header[from..].find(name) {
        let at = from + rel;
        let before_ok = at == 0 || !is_word(bytes[at - 1]);
        let end = at + name.len();
        let after_ok = end >= bytes.len() || !is_word(bytes[end]);
        if before_ok && after_ok && bytes.get(end) == Some(&b'.') {
            return Some(at);
        }
        from = end;
    }
    None
}

fn program_to_source_plain(p: &TypedProgram) -> String {
    let mut printer = Printer::default();
    let mut e = &p.term;
    let mut sizes = Vec::new();
    while let ExprKind::NatLambda(body) = &e.kind {
        let hint = p
            .size_params
            .get(sizes.len())
            .map(String::as_str)
            .unwrap_or("n");
        let name = printer.fresh(hint);
        printer.nats.push(name.clone());
        sizes.push(name);
        e = body;
    }
    let mut params = Vec::new();
    while let (ExprKind::Lambda(body), TypeNode::Fun(param_ty, _)) = (&e.kind, e.ty.get()) {
        let hint = p
            .value_params
            .get(params.len())
            .map(String::as_str)
            .unwrap_or("x");
        let name = printer.fresh(hint);
        params.push(format!("({name} : {})", printer.ty(param_ty)));
        printer.vars.push(name);
        e = body;
    }
    let mut header = format!("def {}", p.name);
    if !sizes.is_empty() {
        header.push_str(&format!(" {{{} : nat}}", sizes.join(" ")));
    }
    for param in &params {
        header.push(' ');
        header.push_str(param);
    }
    let result = printer.ty(&e.ty);
    format!(
        "{header} : {result} =\n  {}\n",
        printer.expr(e, Prec::Lowest)
    )
}

/// Writes a closed term as an expression.
pub fn expr_to_source(e: &Expr) -> String {
    Printer::default().expr(e, Prec::Lowest)
}

/// Writes a closed type.
pub fn type_to_source(t: &Type) -> String {
    Printer::default().ty(t)
}

/// Binding strength of the context an expression is printed in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Prec {
    Lowest,
    Pipe,
    Additive,
    Multiplicative,
    Unary,
    Application,
    Atom,
}

#[derive(Default)]
struct Printer {
    vars: Vec<String>,
    nats: Vec<String>,
}

impl Printer {
    /// A name based on `hint` that is not a primitive, a keyword or a name in scope.
    fn fresh(&self, hint: &str) -> String {
        let taken = |c: &str| {
            Primitive::from_name(c).is_some()
                || crate::ir::types::ScalarType::from_name(c).is_some()
                || matches!(c, "def" | "fun" | "let" | "in" | "nat" | "data")
                || self.vars.iter().any(|v| v == c)
                || self.nats.iter().any(|v| v == c)
        };
        if !hint.is_empty() && !taken(hint) {
            return hint.to_string();
        }
        let base = if hint.is_empty() { "x" } else { hint };
        (0..)
            .map(|i| format!("{base}{i}"))
            .find(|c| !taken(c))
            .expect("an unused name exists")
    }

    fn ty(&self, t: &Type) -> String {
        let mut names = self.nats.clone();
        types::to_source(t, &mut names, &nat::default_atom_name)
    }

    fn nat(&self, n: &Nat) -> String {
        self.nat_with(n, true)
    }

    fn nat_with(&self, n: &Nat, atomic: bool) -> String {
        types::nat_to_source(n, &self.nats, &nat::default_atom_name, atomic)
    }

    fn expr(&mut self, e: &Expr, prec: Prec) -> String {
        let (text, own) = self.expr_inner(e);
        if own < prec {
            format!("({text})")
        } else {
            text
        }
    }

    /// The text of `e` and the precedence of its outermost construct.
    fn expr_inner(&mut self, e: &Expr) -> (String, Prec) {
        crate::support::stack::guarded(|| self.expr_inner_unguarded(e))
    }

    fn expr_inner_unguarded(&mut self, e: &Expr) -> (String, Prec) {
        if let Some(r) = self.sugar(e) {
            return r;
        }
        match &e.kind {
            ExprKind::Var(i) => {
                let name = self
                    .vars
                    .len()
                    .checked_sub(*i as usize + 1)
                    .map(|k| self.vars[k].clone())
                    .unwrap_or_else(|| format!("free{i}"));
                (name, Prec::Atom)
            }
            ExprKind::Lambda(body) => {
                let TypeNode::Fun(param, _) = e.ty.get() else {
                    return ("<ill-typed lambda>".to_string(), Prec::Atom);
                };
                let param = self.ty(param);
                let name = self.fresh("x");
                self.vars.push(name.clone());
                let b = self.expr(body, Prec::Lowest);
                self.vars.pop();
                (format!("fun ({name} : {param}) => {b}"), Prec::Lowest)
            }
            ExprKind::NatLambda(body) => {
                let name = self.fresh("n");
                self.nats.push(name.clone());
                let b = self.expr(body, Prec::Lowest);
                self.nats.pop();
                (format!("fun ({name} : nat) => {b}"), Prec::Lowest)
            }
            ExprKind::App(f, a) if pipes_argument(f, a) => {
                let a_s = self.expr(a, Prec::Pipe);
                let fs = self.expr(f, Prec::Additive);
                (format!("{a_s} |> {fs}"), Prec::Pipe)
            }
            ExprKind::App(f, a) => {
                let fs = self.expr(f, Prec::Application);
                let a_s = self.expr(a, Prec::Atom);
                (format!("{fs} {a_s}"), Prec::Application)
            }
            ExprKind::NatApp(f, n) => {
                let fs = self.expr(f, Prec::Application);
                (format!("{fs} {}", self.nat(n)), Prec::Application)
            }
            ExprKind::Prim(p) => (p.name().to_string(), Prec::Atom),
            ExprKind::Literal(l) => (literal_to_source(*l), Prec::Atom),
        }
    }

    /// Surface sugar for `let`, infix arithmetic, negation, pairs and annotated broadcasts.
    fn sugar(&mut self, e: &Expr) -> Option<(String, Prec)> {
        let ExprKind::App(f, b) = &e.kind else {
            return None;
        };
        if let ExprKind::Prim(p) = &f.kind {
            return match p {
                Primitive::Neg => Some((format!("-{}", self.expr(b, Prec::Unary)), Prec::Unary)),
                Primitive::VectorFromScalar => {
                    let arg = self.expr(b, Prec::Atom);
                    Some((
                        format!("(vectorFromScalar {arg} : {})", self.ty(&e.ty)),
                        Prec::Atom,
                    ))
                }
                _ => None,
            };
        }
        let ExprKind::App(g, a) = &f.kind else {
            return None;
        };
        let ExprKind::Prim(p) = &g.kind else {
            return None;
        };
        let (op, level) = match p {
            Primitive::Add => ("+", Prec::Additive),
            Primitive::Sub => ("-", Prec::Additive),
            Primitive::Mul => ("*", Prec::Multiplicative),
            Primitive::Div => ("/", Prec::Multiplicative),
            Primitive::MakePair => {
                let (x, y) = (self.expr(a, Prec::Lowest), self.expr(b, Prec::Lowest));
                return Some((format!("({x}, {y})"), Prec::Atom));
            }
            Primitive::Let => {
                let ExprKind::Lambda(body) = &b.kind else {
                    // `let v f` with `f` not a lambda (a `let` moved out of it): applied to a
                    // fresh name, `let x = v in (f) x`.
                    let value = self.expr(a, Prec::Lowest);
                    let function = self.expr(b, Prec::Atom);
                    let name = self.fresh("x");
                    return Some((
                        format!("let {name} = {value} in {function} {name}"),
                        Prec::Lowest,
                    ));
                };
                let value = self.expr(a, Prec::Lowest);
                let name = self.fresh("x");
                self.vars.push(name.clone());
                let body = self.expr(body, Prec::Lowest);
                self.vars.pop();
                return Some((format!("let {name} = {value} in {body}"), Prec::Lowest));
            }
            _ => return None,
        };
        let lhs = self.expr(a, level);
        let rhs = self.expr(
            b,
            if level == Prec::Additive {
                Prec::Multiplicative
            } else {
                Prec::Unary
            },
        );
        Some((format!("{lhs} {op} {rhs}"), level))
    }
}

/// Whether `f a` reads better as `a |> f`: `f` is a data-transforming primitive (partially
/// applied to everything but its data argument), as in `xs |> map g |> reduce add 0.0`.
fn pipes_argument(f: &Expr, a: &Expr) -> bool {
    let (mut head, mut values, mut nats) = (f, 0, 0);
    loop {
        match &head.kind {
            ExprKind::App(g, _) => (head, values) = (g, values + 1),
            ExprKind::NatApp(g, _) => (head, nats) = (g, nats + 1),
            _ => break,
        }
    }
    let ExprKind::Prim(p) = head.kind else {
        return false;
    };
    if nats != p.nat_arity() || values + 1 != p.value_arity() {
        return false;
    }
    use Primitive::*;
    match p {
        Map | MapSeq | MapSeqUnroll | MapPar | Reduce | ReduceSeq | ReduceSeqUnroll | Split
        | Slide | Pad | PadClamp | Take | Drop | AsVector | AsVectorAligned => true,
        Join | Transpose | AsScalar => {
            matches!(&a.kind, ExprKind::App(g, x) if pipes_argument(g, x))
        }
        _ => false,
    }
}

/// A literal in surface syntax (floats always with a fraction, non-f32 types with a suffix).
pub fn literal_to_source(l: Literal) -> String {
    // Non-finite values have no literal syntax; they are written as the division producing them.
    fn float(text: String, suffix: &str) -> String {
        match text.as_str() {
            "NaN" => format!("(0.0{suffix} / 0.0{suffix})"),
            "inf" => format!("(1.0{suffix} / 0.0{suffix})"),
            "-inf" => format!("(-1.0{suffix} / 0.0{suffix})"),
            _ if text.contains('.') => format!("{text}{suffix}"),
            _ => match text.find('e') {
                Some(pos) => format!("{}.0{}{suffix}", &text[..pos], &text[pos..]),
                None => format!("{text}.0{suffix}"),
            },
        }
    }
    match l {
        Literal::F32(bits) => float(format!("{:?}", f32::from_bits(bits)), ""),
        Literal::F64(bits) => float(format!("{:?}", f64::from_bits(bits)), "f64"),
        Literal::I32(v) => format!("{v}i32"),
        Literal::I64(v) => format!("{v}i64"),
        // Booleans have no literal syntax: a comparison with the same value is written instead.
        Literal::Bool(b) => if b {
            "(lt 0i32 1i32)"
        } else {
            "(lt 1i32 0i32)"
        }
        .to_string(),
    }
}

/// Writes the type of a program with its size parameters named as in the source:
/// `(m : nat) -> (n : nat) -> m.n.f32 -> …`.
pub fn program_type_to_source(p: &TypedProgram) -> String {
    let mut printer = Printer::default();
    let mut t = p.ty().clone();
    let mut out = String::new();
    while let TypeNode::NatFun(body) = t.get() {
        let hint = p
            .size_params
            .get(printer.nats.len())
            .map(String::as_str)
            .unwrap_or("n");
        let name = printer.fresh(hint);
        out.push_str(&format!("({name} : nat) -> "));
        printer.nats.push(name);
        t = body.clone();
    }
    out.push_str(&printer.ty(&t));
    out
}

/// Writes a term of the program's body context (inside all size parameters, whose names it
/// uses; variables bound outside the term are written `free0`, `free1`, …).
pub fn program_subterm_to_source(p: &TypedProgram, e: &Expr) -> String {
    let mut printer = Printer {
        vars: Vec::new(),
        nats: p.size_params.clone(),
    };
    printer.expr(e, Prec::Lowest)
}

/// [`program_subterm_to_source`] for a term under lambdas whose variables are named `vars`
/// (outermost first).
pub fn program_subterm_to_source_under(p: &TypedProgram, e: &Expr, vars: Vec<String>) -> String {
    let mut printer = Printer {
        vars,
        nats: p.size_params.clone(),
    };
    printer.expr(e, Prec::Lowest)
}

/// Writes a type of the program's body context with the size parameters' names.
pub fn program_body_type_to_source(p: &TypedProgram, t: &Type) -> String {
    let printer = Printer {
        vars: Vec::new(),
        nats: p.size_params.clone(),
    };
    printer.ty(t)
}

/// Writes a size of the program's body context (inside all size parameters) with their names.
pub fn program_nat_to_source(p: &TypedProgram, n: &Nat) -> String {
    let printer = Printer {
        vars: Vec::new(),
        nats: p.size_params.clone(),
    };
    printer.nat_with(n, false)
}
