//! Printing core terms back as Rise surface syntax.
//!
//! The output is valid `.rise` text that elaborates to the same core term: every lambda
//! parameter is annotated with its type, literals keep their type suffix, nat arguments are
//! written as size expressions, and sugar (`let … in`, infix arithmetic, pairs) is used where
//! the term has that shape. Bound variables get generated names that cannot clash.

use super::{Expr, ExprKind, Literal, TypedProgram};
use crate::ir::nat::{self, Nat};
use crate::ir::primitive::Primitive;
use crate::ir::types::{self, ScalarType, Type, TypeNode};

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
/// as in [`TypedProgram::facts`]) so that the text checks again. A fact is written into an
/// array extent of the parameter types (or of the result type) as a size that has the same
/// value and divides by the fact's divisor, which the type checker records as the fact:
///
/// * `m/32` where `m` is an extent, as `(m/32*32)`; `(n + 4)/64` (normalised to
///   `n/64 + 1/16`) where `n + 4` is one, as `((n + 4)/64*64)`;
/// * `(n + 1)/7` where a multiple of `n + 1` is an extent, `2*n + 2`, as `((2*n + 2)/14*14)`;
/// * where such an extent declares another fact already, as text `t`, around it: `(n + 4)/2`
///   in `((n + 2)/7*7 + 2)` as `(((n + 2)/7*7 + 2)/2*2)`;
/// * otherwise in the extent closest to it: `(n + 2)/7` in `n + 4` as `((n + 2)/7*7 + 2)`;
///   when every extent declares a fact already, around the first one's text `t`, as
///   `(t + (n + 2)/7*7 - (n + 2))`.
///
/// Facts without a divisor, or a program without array extents, are listed in a comment.
pub fn program_to_source_declaring(p: &TypedProgram, facts: &[Nat]) -> String {
    let parts = Parts::of(p);
    let mut slots: Vec<Nat> = Vec::new();
    parts.header(&mut |n| {
        slots.push(n.clone());
        None
    });
    let mut declared: Vec<Option<String>> = vec![None; slots.len()];
    let mut unplaced = Vec::new();
    for fact in facts {
        match declaration(&parts.printer, fact, &slots, &declared) {
            Some((slot, text)) => declared[slot] = Some(text),
            None => unplaced.push(program_nat_to_source(p, fact)),
        }
    }
    let mut next = 0;
    let header = parts.header(&mut |_| {
        next += 1;
        declared.get(next - 1).cloned().flatten()
    });
    let mut out = String::new();
    if !unplaced.is_empty() {
        out.push_str(&format!(
            "// relies on these sizes being whole numbers: {}\n",
            unplaced.join(", ")
        ));
    }
    out.push_str(&format!("{header} =\n  {}\n", parts.body));
    out
}

/// Where and how [`program_to_source_declaring`] declares `fact`: the index of an extent among
/// `slots` (the signature's array extents, in order; `declared` holds the texts given to some
/// of them already) and the text that replaces it. `None` for a fact without a divisor, or
/// when no extent can take it.
fn declaration(
    printer: &Printer,
    fact: &Nat,
    slots: &[Nat],
    declared: &[Option<String>],
) -> Option<(usize, String)> {
    let (scaled, d) = scaled_fact(fact)?;
    let s = printer.nat_with(&scaled, true);
    // Extents that declare nothing yet and are whole numbers by themselves (an extent `m/4`
    // is no place for `m/4*4 + rest`).
    let whole = |n: &Nat| n.terms().iter().all(|(_, c)| c.is_integer());
    let free: Vec<usize> = (0..slots.len())
        .filter(|&i| declared[i].is_none() && whole(&slots[i]))
        .collect();
    // The sum itself is an extent.
    if let Some(&i) = free.iter().find(|&&i| slots[i] == scaled) {
        return Some((i, format!("({s}/{d}*{d})")));
    }
    // A multiple `a·sum` is one: it divides by `a·d` exactly when the sum divides by `d`, and
    // `a·sum/(a·d)` is the fact itself (`a·d` must be a literal, below 2^64).
    for &i in &free {
        let Some(ad) = integer_multiple(&slots[i], &scaled)
            .and_then(|a| a.checked_mul(d))
            .filter(|ad| u64::try_from(*ad).is_ok())
        else {
            continue;
        };
        let e = printer.nat_with(&slots[i], true);
        return Some((i, format!("({e}/{ad}*{ad})")));
    }
    // An extent that declares another fact already, as text `t`, is the sum or a multiple of
    // it: `(t/(a·d)*(a·d))`.
    for (i, t) in declared.iter().enumerate() {
        let Some(t) = t else { continue };
        let a = if slots[i] == scaled {
            Some(1)
        } else {
            integer_multiple(&slots[i], &scaled)
        };
        if let Some(ad) = a
            .and_then(|a| a.checked_mul(d))
            .filter(|ad| u64::try_from(*ad).is_ok())
        {
            return Some((i, format!("({t}/{ad}*{ad})")));
        }
    }
    // The free extent that differs from the sum by the fewest terms, as `sum/d*d + rest`.
    if let Some(&i) = free
        .iter()
        .min_by_key(|&&i| nat::sub(&slots[i], &scaled).terms().len())
    {
        let rest = nat::sub(&slots[i], &scaled);
        let rest = if rest.is_zero() {
            String::new()
        } else {
            let text = printer.nat_with(&rest, false);
            // Positive terms are written first: a leading `0 - ` means that all are negative.
            match text.strip_prefix("0 - ") {
                Some(negated) => format!(" - {negated}"),
                None => format!(" + {text}"),
            }
        };
        return Some((i, format!("({s}/{d}*{d}{rest})")));
    }
    // Every extent declares a fact already: this one goes around the first one's text (the
    // sum is added before it is taken away, so no difference on the way is negative).
    let (i, t) = declared
        .iter()
        .enumerate()
        .find_map(|(i, t)| Some((i, t.as_ref()?)))?;
    Some((i, format!("({t} + {s}/{d}*{d} - {s})")))
}

/// `a` when `e = a·s` for an integer `a ≥ 2`.
fn integer_multiple(e: &Nat, s: &Nat) -> Option<i128> {
    use crate::ir::nat::Rational;
    let (m, c) = s.terms().first()?;
    let (_, ce) = e.terms().iter().find(|(me, _)| me == m)?;
    let a = ce.checked_div(*c)?;
    if !a.is_integer() || a.numer() < 2 {
        return None;
    }
    (nat::mul(s, &nat::constant(Rational::int(a.numer()))) == *e).then_some(a.numer())
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

/// A program printed with one set of names: its signature's parts and its body.
struct Parts<'a> {
    /// The printer, with the size parameters' names.
    printer: Printer,
    name: &'a str,
    sizes: Vec<String>,
    /// The value parameters' names and types.
    params: Vec<(String, &'a Type)>,
    result: &'a Type,
    body: String,
}

impl<'a> Parts<'a> {
    fn of(p: &'a TypedProgram) -> Parts<'a> {
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
            params.push((name.clone(), param_ty));
            printer.vars.push(name);
            e = body;
        }
        let body = printer.expr(e, Prec::Lowest);
        Parts {
            printer,
            name: &p.name,
            sizes,
            params,
            result: &e.ty,
            body,
        }
    }

    /// `def name {sizes : nat} (params : types) : result`, with the array extents of the types
    /// written as `extent` gives them (see [`types::to_source_with_extents`]).
    fn header(&self, extent: &mut dyn FnMut(&Nat) -> Option<String>) -> String {
        let mut header = format!("def {}", self.name);
        if !self.sizes.is_empty() {
            header.push_str(&format!(" {{{} : nat}}", self.sizes.join(" ")));
        }
        for (name, ty) in &self.params {
            header.push_str(&format!(" ({name} : {})", self.printer.ty_with(ty, extent)));
        }
        format!("{header} : {}", self.printer.ty_with(self.result, extent))
    }
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

    fn ty_with(&self, t: &Type, extent: &mut dyn FnMut(&Nat) -> Option<String>) -> String {
        let mut names = self.nats.clone();
        types::to_source_with_extents(t, &mut names, &nat::default_atom_name, extent)
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

    /// Surface sugar for `let`, infix arithmetic, negation, pairs and annotated broadcasts and
    /// conversions.
    fn sugar(&mut self, e: &Expr) -> Option<(String, Prec)> {
        if let ExprKind::NatApp(f, n) = &e.kind {
            // `natToFloat k` is an `f32` unless its context says otherwise: an `f64` is
            // annotated.
            let f64_result = matches!(e.ty.get(), TypeNode::Scalar(ScalarType::F64));
            return (matches!(f.kind, ExprKind::Prim(Primitive::NatToFloat)) && f64_result).then(
                || {
                    let k = self.nat(n);
                    (format!("(natToFloat {k} : f64)"), Prec::Atom)
                },
            );
        }
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
