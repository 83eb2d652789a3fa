//! Size expressions ("nats"), normalised on creation and hash-consed.
//!
//! Every nat is kept as a canonical *polynomial with rational coefficients* over atoms (size
//! variables and the few operations that are not polynomial). `m/32` is the monomial `m` with
//! coefficient `1/32`, so `(m/32)*32` and `m` are the same value, and structural equality of two
//! interned nats (a pointer compare) is semantic equality for every form that matters when
//! rewriting Rise programs. Division by a constant is exact here; whether the result is a natural
//! number is a separate question answered by [`is_integral_given`] against the divisibility
//! facts the type checker records.
//!
//! Operations that are not polynomial (`a / b` and `a % b` with a symbolic divisor, `a ^ b` with a
//! symbolic exponent) become opaque atoms ([`NatAtom::Op`]). Arithmetic never panics: when a
//! coefficient would overflow, the operation is also kept as an opaque atom.

mod feasible;
mod rational;

pub use feasible::{can_be_nonnegative, can_both_be_whole, is_nonnegative, wholeness, Wholeness};
pub use rational::{checked_lcm, Rational};

use crate::ir::intern::{self, Table};
use hashconsing::HConsed;
use std::fmt;

/// An interned, normalised size expression. Equality is a pointer compare.
pub type Nat = HConsed<NatPoly>;

/// The operations a nat atom can keep symbolic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NatOp {
    /// `a + b`, only when the polynomial sum overflowed.
    Add,
    /// `a * b`, only when the polynomial product overflowed.
    Mul,
    /// `a / b` with a divisor that does not divide exactly.
    Div,
    /// `a % b`.
    Mod,
    /// `a ^ b`.
    Pow,
}

impl NatOp {
    /// The surface operator.
    pub fn symbol(self) -> &'static str {
        match self {
            NatOp::Add => "+",
            NatOp::Mul => "*",
            NatOp::Div => "/",
            NatOp::Mod => "%",
            NatOp::Pow => "^",
        }
    }
}

/// A factor of a monomial.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NatAtom {
    /// De Bruijn index of an enclosing nat binder (0 is the innermost).
    Index(u32),
    /// A nat binder named by a unique id; only used while elaborating source programs.
    Binder(u32),
    /// A size inference variable; never part of a finished core term.
    Meta(u32),
    /// An operation kept symbolic because it is not polynomial.
    Op(NatOp, Nat, Nat),
}

/// A product of atoms with positive powers, sorted by atom; empty for the constant monomial.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Monomial(Vec<(NatAtom, u32)>);

impl Monomial {
    /// The factors and their powers.
    pub fn factors(&self) -> &[(NatAtom, u32)] {
        &self.0
    }

    /// Whether this is the constant monomial `1`.
    pub fn is_constant(&self) -> bool {
        self.0.is_empty()
    }

    fn single(atom: NatAtom) -> Monomial {
        Monomial(vec![(atom, 1)])
    }

    /// The product; `None` when a power would pass `u32::MAX`.
    fn mul(&self, other: &Monomial) -> Option<Monomial> {
        let mut out = self.0.clone();
        for (atom, power) in &other.0 {
            match out.iter_mut().find(|(a, _)| a == atom) {
                Some((_, p)) => *p = p.checked_add(*power)?,
                None => out.push((atom.clone(), *power)),
            }
        }
        out.sort();
        Some(Monomial(out))
    }

    /// `self^e`; `None` when a power would pass `u32::MAX`.
    fn pow(&self, e: u32) -> Option<Monomial> {
        let powers: Option<Vec<_>> = self
            .0
            .iter()
            .map(|(a, p)| Some((a.clone(), p.checked_mul(e)?)))
            .collect();
        let mut powers = powers?;
        powers.retain(|(_, p)| *p > 0);
        Some(Monomial(powers))
    }

    /// `self / other` when every factor of `other` occurs in `self` with at least its power.
    fn div(&self, other: &Monomial) -> Option<Monomial> {
        let mut out = self.0.clone();
        for (atom, power) in &other.0 {
            let slot = out.iter_mut().find(|(a, _)| a == atom)?;
            if slot.1 < *power {
                return None;
            }
            slot.1 -= power;
        }
        out.retain(|(_, p)| *p > 0);
        Some(Monomial(out))
    }
}

/// The canonical form behind a [`Nat`]: a sum of monomials with non-zero rational coefficients,
/// sorted by monomial.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NatPoly {
    terms: Vec<(Monomial, Rational)>,
}

/// The one table of interned nats.
static NATS: Table<NatPoly> = intern::table();

fn intern(mut terms: Vec<(Monomial, Rational)>) -> Nat {
    terms.sort_by(|a, b| a.0.cmp(&b.0));
    intern::intern(&NATS, NatPoly { terms })
}

/// Accumulates monomials, merging equal ones (sorted first, so that a product of two long
/// polynomials costs n log n, not n²); `None` once a coefficient overflowed.
fn collect(pairs: impl IntoIterator<Item = (Monomial, Rational)>) -> Option<Nat> {
    let mut pairs: Vec<(Monomial, Rational)> = pairs.into_iter().collect();
    // Stable: equal monomials are summed in the order given.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut terms: Vec<(Monomial, Rational)> = Vec::with_capacity(pairs.len());
    for (m, c) in pairs {
        match terms.last_mut() {
            Some((tm, tc)) if *tm == m => *tc = tc.checked_add(c)?,
            _ => terms.push((m, c)),
        }
    }
    terms.retain(|(_, c)| !c.is_zero());
    Some(intern(terms))
}

fn opaque(op: NatOp, a: &Nat, b: &Nat) -> Nat {
    intern(vec![(
        Monomial::single(NatAtom::Op(op, a.clone(), b.clone())),
        Rational::ONE,
    )])
}

/// The constant `n`.
pub fn constant(n: Rational) -> Nat {
    if n.is_zero() {
        intern(vec![])
    } else {
        intern(vec![(Monomial::default(), n)])
    }
}

/// The natural literal `n`.
pub fn lit(n: u64) -> Nat {
    constant(Rational::int(i128::from(n)))
}

/// A nat consisting of one atom.
pub fn atom(a: NatAtom) -> Nat {
    intern(vec![(Monomial::single(a), Rational::ONE)])
}

/// The nat variable with De Bruijn index `i`.
pub fn index(i: u32) -> Nat {
    atom(NatAtom::Index(i))
}

/// The inference variable `id`.
pub fn meta(id: u32) -> Nat {
    atom(NatAtom::Meta(id))
}

/// The elaboration-time binder `id`.
pub fn binder(id: u32) -> Nat {
    atom(NatAtom::Binder(id))
}

/// `a + b`.
pub fn add(a: &Nat, b: &Nat) -> Nat {
    collect(a.terms.iter().chain(b.terms.iter()).cloned())
        .unwrap_or_else(|| opaque(NatOp::Add, a, b))
}

/// `a - b` (may be negative for symbolic sizes; evaluation reports that).
pub fn sub(a: &Nat, b: &Nat) -> Nat {
    let neg: Option<Vec<_>> = b
        .terms
        .iter()
        .map(|(m, c)| Some((m.clone(), c.checked_neg()?)))
        .collect();
    neg.and_then(|neg| collect(a.terms.iter().cloned().chain(neg)))
        .unwrap_or_else(|| opaque(NatOp::Add, a, &opaque(NatOp::Mul, &lit(0), b)))
}

/// `a * b`.
pub fn mul(a: &Nat, b: &Nat) -> Nat {
    let mut pairs = Vec::with_capacity(a.terms.len() * b.terms.len());
    for (ma, ca) in &a.terms {
        for (mb, cb) in &b.terms {
            match (ma.mul(mb), ca.checked_mul(*cb)) {
                (Some(m), Some(c)) => pairs.push((m, c)),
                _ => return opaque(NatOp::Mul, a, b),
            }
        }
    }
    collect(pairs).unwrap_or_else(|| opaque(NatOp::Mul, a, b))
}

/// `a / b`: exact for constant divisors and for divisors that are one monomial dividing every term
/// of `a`; an opaque atom otherwise (including division by zero, which the type checker reports).
pub fn div(a: &Nat, b: &Nat) -> Nat {
    if a.is_zero() && !b.is_zero() {
        return a.clone();
    }
    if let [(mb, cb)] = b.terms.as_slice() {
        let divided: Option<Vec<_>> = a
            .terms
            .iter()
            .map(|(ma, ca)| Some((ma.div(mb)?, ca.checked_div(*cb)?)))
            .collect();
        if let Some(pairs) = divided.and_then(collect) {
            return pairs;
        }
    }
    if a == b && !a.is_zero() {
        return lit(1);
    }
    opaque(NatOp::Div, a, b)
}

/// `a % b`: folded for integer constants and for `b` a constant that divides every coefficient
/// of `a`; an opaque atom otherwise.
pub fn rem(a: &Nat, b: &Nat) -> Nat {
    if let Some(d) = b.as_integer().filter(|d| *d > 0) {
        if let Some(n) = a.as_integer() {
            if n >= 0 {
                return constant(Rational::int(n % d));
            }
        }
        if a.terms
            .iter()
            .all(|(_, c)| c.is_integer() && c.numer() % d == 0)
        {
            return lit(0);
        }
    }
    opaque(NatOp::Mod, a, b)
}

/// `a ^ b`: expanded when the exponent is a small constant, an opaque atom otherwise.
pub fn pow(a: &Nat, b: &Nat) -> Nat {
    if let Some(e) = b.as_integer().filter(|e| (0..=64).contains(e)) {
        let mut acc = lit(1);
        for _ in 0..e {
            acc = mul(&acc, a);
            if acc.terms.len() > 256 {
                return opaque(NatOp::Pow, a, b);
            }
        }
        return acc;
    }
    opaque(NatOp::Pow, a, b)
}

/// `a^e` for a power `e` of a monomial being rebuilt ([`map_atoms`]): one monomial raised at
/// once whatever `e` is, a longer polynomial multiplied out up to the 64th power as [`pow`]
/// does, and an opaque power past that or on overflow.
fn power(a: &Nat, e: u32) -> Nat {
    if a.is_zero() {
        return lit(u64::from(e == 0));
    }
    if let [(m, c)] = a.terms.as_slice() {
        if let (Some(m), Some(c)) = (m.pow(e), c.checked_pow(e)) {
            return intern(vec![(m, c)]);
        }
    }
    pow(a, &lit(u64::from(e)))
}

/// Why a nat could not be evaluated to a natural number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NatEvalError {
    /// An atom had no value in the environment.
    Unbound(NatAtom),
    /// The result is not an integer (a division that does not divide).
    NotIntegral(String),
    /// The result is negative.
    Negative(i128),
    /// Division or remainder by zero.
    DivisionByZero,
    /// The value does not fit in 64 bits.
    Overflow,
}

impl fmt::Display for NatEvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NatEvalError::Unbound(a) => write!(f, "size variable {a:?} has no value"),
            NatEvalError::NotIntegral(v) => {
                write!(f, "size evaluates to {v}, which is not a natural number")
            }
            NatEvalError::Negative(v) => write!(f, "size evaluates to {v}, which is negative"),
            NatEvalError::DivisionByZero => write!(f, "division by zero in a size"),
            NatEvalError::Overflow => write!(f, "size too large"),
        }
    }
}

impl NatPoly {
    /// The monomials and their coefficients, in canonical order.
    pub fn terms(&self) -> &[(Monomial, Rational)] {
        &self.terms
    }

    /// Whether this is the constant 0.
    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value, when this is a constant.
    pub fn as_constant(&self) -> Option<Rational> {
        match self.terms.as_slice() {
            [] => Some(Rational::ZERO),
            [(m, c)] if m.is_constant() => Some(*c),
            _ => None,
        }
    }

    /// The value, when this is an integer constant.
    pub fn as_integer(&self) -> Option<i128> {
        self.as_constant()
            .filter(|c| c.is_integer())
            .map(|c| c.numer())
    }

    /// The atom, when this nat is exactly one atom.
    pub fn as_atom(&self) -> Option<&NatAtom> {
        match self.terms.as_slice() {
            [(m, c)] if *c == Rational::ONE => match m.0.as_slice() {
                [(a, 1)] => Some(a),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether any atom (looking inside opaque operations) satisfies `pred`.
    pub fn any_atom(&self, pred: &mut dyn FnMut(&NatAtom) -> bool) -> bool {
        self.terms.iter().any(|(m, _)| {
            m.0.iter().any(|(a, _)| match a {
                NatAtom::Op(_, x, y) => x.any_atom(pred) || y.any_atom(pred),
                leaf => pred(leaf),
            })
        })
    }

    /// Evaluates to a natural number, looking up the value of every leaf atom with `lookup`.
    pub fn eval(&self, lookup: &dyn Fn(&NatAtom) -> Option<u64>) -> Result<u64, NatEvalError> {
        let mut total = Rational::ZERO;
        for (m, c) in &self.terms {
            let mut term = *c;
            for (a, p) in &m.0 {
                let v = eval_atom(a, lookup)?;
                let factor = Rational::int(i128::from(v))
                    .checked_pow(*p)
                    .ok_or(NatEvalError::Overflow)?;
                term = term.checked_mul(factor).ok_or(NatEvalError::Overflow)?;
            }
            total = total.checked_add(term).ok_or(NatEvalError::Overflow)?;
        }
        if !total.is_integer() {
            return Err(NatEvalError::NotIntegral(total.to_string()));
        }
        let n = total.numer();
        if n < 0 {
            return Err(NatEvalError::Negative(n));
        }
        u64::try_from(n).map_err(|_| NatEvalError::Overflow)
    }
}

fn eval_atom(a: &NatAtom, lookup: &dyn Fn(&NatAtom) -> Option<u64>) -> Result<u64, NatEvalError> {
    match a {
        NatAtom::Op(op, x, y) => {
            let (x, y) = (x.eval(lookup)?, y.eval(lookup)?);
            match op {
                NatOp::Add => x.checked_add(y).ok_or(NatEvalError::Overflow),
                NatOp::Mul => x.checked_mul(y).ok_or(NatEvalError::Overflow),
                NatOp::Div if y == 0 => Err(NatEvalError::DivisionByZero),
                NatOp::Div if x % y != 0 => Err(NatEvalError::NotIntegral(format!("{x}/{y}"))),
                NatOp::Div => Ok(x / y),
                NatOp::Mod if y == 0 => Err(NatEvalError::DivisionByZero),
                NatOp::Mod => Ok(x % y),
                NatOp::Pow => {
                    let e = u32::try_from(y).map_err(|_| NatEvalError::Overflow)?;
                    x.checked_pow(e).ok_or(NatEvalError::Overflow)
                }
            }
        }
        leaf => lookup(leaf).ok_or_else(|| NatEvalError::Unbound(leaf.clone())),
    }
}

/// Rebuilds `n` with every leaf atom (index, binder, meta) replaced by what `f` returns for it,
/// or kept when `f` returns `None`. Opaque operations are rebuilt through the normalising
/// constructors, so a substitution that makes a division exact simplifies it.
pub fn map_atoms(n: &Nat, f: &mut dyn FnMut(&NatAtom) -> Option<Nat>) -> Nat {
    // First find the replacements; most calls change nothing and then nothing is rebuilt.
    let mut replacements: Vec<Option<Nat>> = Vec::new();
    let mut changed = false;
    for (m, _) in &n.terms {
        for (a, _) in &m.0 {
            let r = match a {
                NatAtom::Op(op, x, y) => {
                    let (x2, y2) = (map_atoms(x, f), map_atoms(y, f));
                    if x2 == *x && y2 == *y {
                        None
                    } else {
                        Some(apply_op(*op, &x2, &y2))
                    }
                }
                leaf => f(leaf),
            };
            changed |= r.is_some();
            replacements.push(r);
        }
    }
    if !changed {
        return n.clone();
    }
    let mut replacements = replacements.into_iter();
    let mut acc = lit(0);
    for (m, c) in &n.terms {
        let mut term = constant(*c);
        for (a, p) in &m.0 {
            let replaced = replacements
                .next()
                .flatten()
                .unwrap_or_else(|| atom(a.clone()));
            term = mul(&term, &power(&replaced, *p));
        }
        acc = add(&acc, &term);
    }
    acc
}

/// Applies a nat operation through its normalising constructor.
pub fn apply_op(op: NatOp, a: &Nat, b: &Nat) -> Nat {
    match op {
        NatOp::Add => add(a, b),
        NatOp::Mul => mul(a, b),
        NatOp::Div => div(a, b),
        NatOp::Mod => rem(a, b),
        NatOp::Pow => pow(a, b),
    }
}

/// Shifts the free De Bruijn indices `>= cutoff` of `n` by `delta`.
pub fn shift(n: &Nat, delta: i64, cutoff: u32) -> Nat {
    map_atoms(n, &mut |a| match a {
        NatAtom::Index(i) if *i >= cutoff => Some(index((*i as i64 + delta).max(0) as u32)),
        _ => None,
    })
}

/// Substitutes `value` for index `target` and lowers the indices above it by one, as when the
/// binder of `target` is removed (nat beta reduction). `value` is given relative to the context
/// outside that binder and is shifted by `target`.
pub fn subst_index(n: &Nat, target: u32, value: &Nat) -> Nat {
    map_atoms(n, &mut |a| match a {
        NatAtom::Index(i) if *i == target => Some(shift(value, target as i64, 0)),
        NatAtom::Index(i) if *i > target => Some(index(i - 1)),
        _ => None,
    })
}

/// When `n` is linear in `meta` (every monomial mentioning it has it as a plain factor, and no
/// opaque operation mentions it), returns `rest` and the coefficient `c` with
/// `n = c * meta + rest`; `c` may itself be symbolic (`n * ?m`).
pub fn isolate_meta(n: &Nat, meta_id: u32) -> Option<(Nat, Nat)> {
    let target = NatAtom::Meta(meta_id);
    let mut coeff = Vec::new();
    let mut rest = Vec::new();
    for (m, c) in &n.terms {
        let power = m.0.iter().find(|(a, _)| *a == target).map(|(_, p)| *p);
        let inside_op = m.0.iter().any(|(a, _)| match a {
            NatAtom::Op(_, x, y) => {
                x.any_atom(&mut |b| *b == target) || y.any_atom(&mut |b| *b == target)
            }
            _ => false,
        });
        if inside_op {
            return None;
        }
        match power {
            Some(1) => coeff.push((m.div(&Monomial::single(target.clone()))?, *c)),
            Some(_) => return None,
            None => rest.push((m.clone(), *c)),
        }
    }
    if coeff.is_empty() {
        return None;
    }
    Some((intern(rest), intern(coeff)))
}

/// Appends to `out` the De Bruijn indices in `n` that are at least `offset`, minus `offset`
/// (the free indices of a size seen from outside `offset` binders).
pub fn free_indices(n: &Nat, offset: u32, out: &mut Vec<u32>) {
    n.any_atom(&mut |a| {
        if let NatAtom::Index(i) = a {
            if *i >= offset {
                out.push(i - offset);
            }
        }
        false
    });
}

/// Whether an opaque operation `op` occurs in `n` (at any depth).
pub fn has_op(n: &Nat, op: NatOp) -> bool {
    n.terms.iter().any(|(m, _)| {
        m.0.iter().any(|(a, _)| match a {
            NatAtom::Op(o, x, y) => *o == op || has_op(x, op) || has_op(y, op),
            _ => false,
        })
    })
}

/// The ids of the size inference variables in `n`.
pub fn metas(n: &Nat) -> Vec<u32> {
    let mut out = Vec::new();
    n.any_atom(&mut |a| {
        if let NatAtom::Meta(m) = a {
            if !out.contains(m) {
                out.push(*m);
            }
        }
        false
    });
    out
}

/// Decides whether `n` is a natural-number-valued expression, given `facts`: nats known to be
/// integers (a fact `m/32` says that 32 divides `m`). Sound but incomplete: `n` minus integer
/// multiples of facts (times monomials) must reach integer coefficients.
pub fn is_integral_given(n: &Nat, facts: &[Nat]) -> bool {
    let mut rest = n.clone();
    for _ in 0..64 {
        let Some((m, c)) = rest.terms.iter().find(|(_, c)| !c.is_integer()).cloned() else {
            return true;
        };
        let mut progressed = false;
        for fact in facts {
            for (fm, fc) in &fact.terms {
                if fc.is_integer() {
                    continue;
                }
                // rest - k * (m / fm) * fact cancels the term when k = c / fc is an integer.
                let (Some(multiplier), Some(k)) = (m.div(fm), c.checked_div(*fc)) else {
                    continue;
                };
                if !k.is_integer() {
                    continue;
                }
                let scaled = mul(&constant(k), &intern(vec![(multiplier, Rational::ONE)]));
                let next = sub(&rest, &mul(&scaled, fact));
                if next.terms.iter().filter(|(_, c)| !c.is_integer()).count()
                    < rest.terms.iter().filter(|(_, c)| !c.is_integer()).count()
                {
                    rest = next;
                    progressed = true;
                    break;
                }
            }
            if progressed {
                break;
            }
        }
        if !progressed {
            return false;
        }
    }
    false
}

/// Writes `n` in surface syntax, naming leaf atoms with `name`. The output re-parses to the same
/// nat. `atomic` asks for parentheses around anything that is not a literal or a single name.
///
/// A sum with several fractional coefficients is written as one division, `(n + 2)/7` rather
/// than `n/7 + 2/7`: the type checker takes every division it reads for a whole number, and
/// `n/7` and `2/7` are not, where their sum may be.
pub fn to_source(n: &Nat, atomic: bool, name: &dyn Fn(&NatAtom) -> String) -> String {
    let terms = &n.terms;
    if terms.is_empty() {
        return "0".to_string();
    }
    if terms.iter().filter(|(_, c)| !c.is_integer()).count() >= 2 {
        let d = terms
            .iter()
            .try_fold(1i128, |d, (_, c)| checked_lcm(d, c.denom()));
        let scaled: Option<Vec<(Monomial, Rational)>> = d.and_then(|d| {
            terms
                .iter()
                .map(|(m, c)| Some((m.clone(), c.checked_mul(Rational::int(d))?)))
                .collect()
        });
        if let (Some(d), Some(scaled)) = (d, scaled) {
            let text = format!("{}/{d}", to_source(&intern(scaled), true, name));
            return if atomic { format!("({text})") } else { text };
        }
    }
    // Print a positive term first so that no leading unary minus is needed.
    let mut order: Vec<usize> = (0..terms.len()).collect();
    order.sort_by_key(|&i| (terms[i].1.numer() < 0, terms[i].0.is_constant(), i));
    let mut out = String::new();
    for (pos, &i) in order.iter().enumerate() {
        let (m, c) = &terms[i];
        let negative = c.numer() < 0;
        if pos == 0 && negative {
            out.push_str("0 - ");
        } else if pos > 0 {
            out.push_str(if negative { " - " } else { " + " });
        }
        let abs_num = c.numer().unsigned_abs();
        let mut factors: Vec<String> = Vec::new();
        if m.is_constant() || abs_num != 1 {
            factors.push(abs_num.to_string());
        }
        for (a, p) in &m.0 {
            let base = match a {
                NatAtom::Op(op, x, y) => {
                    format!(
                        "({} {} {})",
                        to_source(x, true, name),
                        op.symbol(),
                        to_source(y, true, name)
                    )
                }
                leaf => name(leaf),
            };
            factors.push(if *p == 1 { base } else { format!("{base}^{p}") });
        }
        out.push_str(&factors.join("*"));
        if c.denom() != 1 {
            out.push_str(&format!("/{}", c.denom()));
        }
    }
    let simple = terms.len() == 1 && terms[0].1.denom() == 1 && terms[0].1.numer() >= 0 && {
        let f = terms[0].0.factors();
        f.is_empty() || (f.len() == 1 && f[0].1 == 1 && terms[0].1 == Rational::ONE)
    };
    if atomic && !simple {
        format!("({out})")
    } else {
        out
    }
}

impl fmt::Display for NatPoly {
    /// Debug-friendly rendering: indices as `#i`, binders as `b<id>`, metas as `?<id>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = intern(self.terms.clone());
        f.write_str(&to_source(&n, false, &default_atom_name))
    }
}

/// The debugging name of a leaf atom.
pub fn default_atom_name(a: &NatAtom) -> String {
    match a {
        NatAtom::Index(i) => format!("#{i}"),
        NatAtom::Binder(b) => format!("b{b}"),
        NatAtom::Meta(m) => format!("?{m}"),
        NatAtom::Op(op, x, y) => format!("({x} {} {y})", op.symbol()),
    }
}

#[cfg(test)]
mod tests;
