//! Rewrite rules written with names, compiled to De Bruijn patterns.
//!
//! A rule is two Rise expressions, `map f (map g xs) => map (fun x => f (g x)) xs`: names bound by
//! `fun` inside the rule are variables, primitive names are primitives, and every other name is a
//! *pattern variable*. A pattern variable in a size-argument position (`split s xs`) stands for
//! a size. Rule parameters (`split-join(s)`) are size variables fixed when the rule is built.
//!
//! The compiler records, for every use of a pattern variable on the right-hand side, how its free
//! variables must be renamed: a variable matched under the binders `x, y` of the left-hand side
//! and used under other binders on the right keeps the references to the binders of the same
//! name, shifts the references to variables outside the rule, and must not use a binder that the
//! right-hand side does not have there (the side condition of eta and map fission). This is the
//! extraction-based shifting of the paper, derived from the rule instead of written by hand.

use crate::core::Literal;
use crate::diagnostics::Diagnostic;
use crate::frontend::syntax::ast::{BinOp, Binder, Expr, ExprKind, NumSuffix, Span};
use crate::frontend::syntax::parser;
use crate::ir::nat::{self, Nat};
use crate::ir::primitive::Primitive;

/// A left-hand-side pattern.
#[derive(Clone, Debug, PartialEq)]
pub enum Pat {
    /// A pattern variable (index into the rule's expression variables).
    Var(usize),
    /// A variable bound by a lambda of the pattern (De Bruijn index).
    Bound(u32),
    /// `fun x => body`
    Lambda(Box<Pat>),
    /// `fun (n : nat) => body` (only built by hand, for nat beta reduction)
    NatLambda(Box<Pat>),
    /// `f a`
    App(Box<Pat>, Box<Pat>),
    /// `f n`
    NatApp(Box<Pat>, NatPat),
    /// A primitive.
    Prim(Primitive),
    /// A literal.
    Literal(Literal),
}

/// A size in a left-hand side.
#[derive(Clone, Debug, PartialEq)]
pub enum NatPat {
    /// A size variable (index into the rule's size variables); binds or compares.
    Var(usize),
    /// A fixed size.
    Exact(Nat),
}

/// How the free variables of a pattern variable are renamed where the right-hand side uses it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renaming {
    /// Binders of the left-hand side around the matched variable.
    pub lhs_binders: u32,
    /// Binders of the right-hand side around the use.
    pub rhs_binders: u32,
    /// For each left-hand binder (index 0 innermost): its index on the right, or `None` when the
    /// right-hand side does not bind it there (then the variable must not use it).
    pub inner: Vec<Option<u32>>,
}

impl Renaming {
    /// The new index of free index `i`, or `None` when `i` may not occur.
    pub fn map(&self, i: u32) -> Option<u32> {
        if i < self.lhs_binders {
            self.inner[i as usize]
        } else {
            Some(i - self.lhs_binders + self.rhs_binders)
        }
    }

    /// Whether every index keeps its number.
    pub fn is_identity(&self) -> bool {
        self.lhs_binders == self.rhs_binders
            && self
                .inner
                .iter()
                .enumerate()
                .all(|(i, m)| *m == Some(i as u32))
    }
}

/// A right-hand-side template.
#[derive(Clone, Debug, PartialEq)]
pub enum Tpl {
    /// A pattern variable, renamed as described.
    Var(usize, Renaming),
    /// A variable bound by a lambda of the template.
    Bound(u32),
    /// `fun x => body`
    Lambda(Box<Tpl>),
    /// `f a`
    App(Box<Tpl>, Box<Tpl>),
    /// `f n`
    NatApp(Box<Tpl>, NatTpl),
    /// A primitive.
    Prim(Primitive),
    /// A literal.
    Literal(Literal),
}

/// A size on a right-hand side: arithmetic over size variables and literals.
#[derive(Clone, Debug, PartialEq)]
pub enum NatTpl {
    /// A size variable of the rule.
    Var(usize),
    /// A literal.
    Lit(u64),
    /// `a op b`
    Binary(BinOp, Box<NatTpl>, Box<NatTpl>),
}

/// A compiled rule: patterns plus the names of its variables.
#[derive(Clone, Debug)]
pub struct CompiledRule {
    /// The left-hand side.
    pub lhs: Pat,
    /// The right-hand side.
    pub rhs: Tpl,
    /// Expression pattern variables, by index.
    pub expr_vars: Vec<String>,
    /// Size variables by index; the first ones are the rule's parameters.
    pub nat_vars: Vec<String>,
    /// Values of the parameters (the first `params.len()` size variables).
    pub params: Vec<Nat>,
}

/// What a rule may use besides its two sides.
#[derive(Clone, Debug, Default)]
pub struct RuleSignature<'a> {
    /// Size parameters of the rule (`s` in `split-join(s)`).
    pub params: &'a [&'a str],
    /// Their values.
    pub values: &'a [Nat],
    /// Expression variables computed from a match rather than matched (used on the right only,
    /// as if bound outside the rule).
    pub derived: &'a [&'a str],
    /// Whether the left-hand side may be a lone pattern variable (the rule then needs a
    /// condition on the class's type, or it would rewrite everything).
    pub any_class: bool,
}

/// Compiles `lhs => rhs` with no parameters.
pub fn compile(lhs: &str, rhs: &str) -> Result<CompiledRule, Diagnostic> {
    compile_with(lhs, rhs, &RuleSignature::default())
}

/// Compiles `lhs => rhs` with the given parameters and derived variables.
pub fn compile_with(
    lhs: &str,
    rhs: &str,
    sig: &RuleSignature<'_>,
) -> Result<CompiledRule, Diagnostic> {
    if sig.params.len() != sig.values.len() {
        return Err(Diagnostic::error(
            format!(
                "the rule takes {} size parameters, {} given",
                sig.params.len(),
                sig.values.len()
            ),
            Span::default(),
            "wrong number of parameters",
        ));
    }
    let parse = |text: &str| parser::parse_expr(text).map_err(|mut ds| ds.remove(0));
    let (lhs_ast, rhs_ast) = (parse(lhs)?, parse(rhs)?);
    let mut c = Compiler {
        expr_vars: Vec::new(),
        nat_vars: sig.params.iter().map(|s| s.to_string()).collect(),
        lhs_contexts: Vec::new(),
        in_lhs: true,
    };
    let lhs = c.pat(&lhs_ast, &mut Vec::new())?;
    if matches!(lhs, Pat::Var(_)) && !sig.any_class {
        return Err(Diagnostic::error(
            "a left-hand side cannot be a lone pattern variable",
            lhs_ast.span,
            "it would match everything",
        ));
    }
    for d in sig.derived {
        c.expr_vars.push(d.to_string());
        c.lhs_contexts.push(Vec::new());
    }
    c.in_lhs = false;
    let rhs = c.tpl(&rhs_ast, &mut Vec::new())?;
    Ok(CompiledRule {
        lhs,
        rhs,
        expr_vars: c.expr_vars,
        nat_vars: c.nat_vars,
        params: sig.values.to_vec(),
    })
}

struct Compiler {
    expr_vars: Vec<String>,
    nat_vars: Vec<String>,
    /// The binder names around each expression variable's left-hand occurrence.
    lhs_contexts: Vec<Vec<String>>,
    in_lhs: bool,
}

/// An application spine: the head and its arguments, outermost last.
fn spine(e: &Expr) -> (&Expr, Vec<&Expr>) {
    let mut args = Vec::new();
    let mut head = e;
    loop {
        match &head.kind {
            ExprKind::App(f, a) => {
                args.push(&**a);
                head = f;
            }
            ExprKind::Pipe(a, f) => {
                args.push(&**a);
                head = f;
            }
            _ => break,
        }
    }
    args.reverse();
    (head, args)
}

fn unsupported(e: &Expr, what: &str) -> Diagnostic {
    Diagnostic::error(
        format!("{what} cannot be used in rewrite rules"),
        e.span,
        "not supported in a rule",
    )
}

fn literal(e: &Expr) -> Result<Option<Literal>, Diagnostic> {
    Ok(match &e.kind {
        ExprKind::Float {
            value,
            suffix: None | Some(NumSuffix::F32),
        } => Some(Literal::f32(*value as f32)),
        ExprKind::Float {
            value,
            suffix: Some(NumSuffix::F64),
        } => Some(Literal::f64(*value)),
        ExprKind::Int {
            value,
            suffix: NumSuffix::I32,
        } => Some(Literal::I32(*value as i32)),
        ExprKind::Int {
            value,
            suffix: NumSuffix::I64,
        } => Some(Literal::I64(*value)),
        ExprKind::Int {
            value,
            suffix: NumSuffix::F32,
        } => Some(Literal::f32(*value as f32)),
        ExprKind::Int {
            value,
            suffix: NumSuffix::F64,
        } => Some(Literal::f64(*value as f64)),
        ExprKind::Float { .. } => return Err(unsupported(e, "this literal")),
        _ => None,
    })
}

fn binop_prim(op: BinOp, e: &Expr) -> Result<Primitive, Diagnostic> {
    op.primitive()
        .ok_or_else(|| unsupported(e, "this operator"))
}

/// Desugars surface forms shared by both sides into plain application spines.
enum Shape<'a> {
    Name(&'a str),
    Lit(Literal),
    Lambda(Vec<String>, &'a Expr),
    Apply(&'a Expr, Vec<&'a Expr>),
    Prim(Primitive, Vec<&'a Expr>),
    Compose(&'a Expr, &'a Expr),
    Let(&'a str, &'a Expr, &'a Expr),
}

fn shape(e: &Expr) -> Result<Shape<'_>, Diagnostic> {
    if let Some(l) = literal(e)? {
        return Ok(Shape::Lit(l));
    }
    Ok(match &e.kind {
        ExprKind::Name(n) => Shape::Name(n),
        ExprKind::Lambda(binders, body) => {
            let names = binders
                .iter()
                .map(|b| match b {
                    Binder::Plain(i) | Binder::Typed(i, _) => Ok(i.name.clone()),
                    Binder::Size(_) => Err(unsupported(e, "size lambdas")),
                })
                .collect::<Result<_, _>>()?;
            Shape::Lambda(names, body)
        }
        ExprKind::App(..) | ExprKind::Pipe(..) => {
            let (head, args) = spine(e);
            Shape::Apply(head, args)
        }
        ExprKind::Binary(op, a, b) => Shape::Prim(binop_prim(*op, e)?, vec![a, b]),
        ExprKind::Neg(a) => Shape::Prim(Primitive::Neg, vec![a]),
        ExprKind::Pair(a, b) => Shape::Prim(Primitive::MakePair, vec![a, b]),
        ExprKind::Section(op) => Shape::Prim(binop_prim(*op, e)?, vec![]),
        ExprKind::Compose(f, g) => Shape::Compose(f, g),
        ExprKind::Let(x, v, b) => Shape::Let(&x.name, v, b),
        ExprKind::Annot(..) => return Err(unsupported(e, "type annotations")),
        ExprKind::Nat(_) => return Err(unsupported(e, "a size in value position")),
        ExprKind::Float { .. } | ExprKind::Int { .. } => {
            return Err(unsupported(e, "this literal"))
        }
    })
}

fn bound_index(binders: &[String], name: &str) -> Option<u32> {
    binders
        .iter()
        .rev()
        .position(|b| b == name)
        .map(|p| p as u32)
}

impl Compiler {
    fn nat_var(&mut self, name: &str, e: &Expr) -> Result<usize, Diagnostic> {
        if let Some(i) = self.nat_vars.iter().position(|v| v == name) {
            return Ok(i);
        }
        if !self.in_lhs {
            return Err(Diagnostic::error(
                format!("size `{name}` is not bound by the left-hand side"),
                e.span,
                "unknown size",
            ));
        }
        self.nat_vars.push(name.to_string());
        Ok(self.nat_vars.len() - 1)
    }

    fn nat_pat(&mut self, e: &Expr) -> Result<NatPat, Diagnostic> {
        match &e.kind {
            ExprKind::Nat(v) => Ok(NatPat::Exact(nat::lit(*v))),
            ExprKind::Name(n) => Ok(NatPat::Var(self.nat_var(n, e)?)),
            _ => Err(unsupported(e, "size arithmetic on a left-hand side")),
        }
    }

    fn nat_tpl(&mut self, e: &Expr) -> Result<NatTpl, Diagnostic> {
        match &e.kind {
            ExprKind::Nat(v) => Ok(NatTpl::Lit(*v)),
            ExprKind::Name(n) => Ok(NatTpl::Var(self.nat_var(n, e)?)),
            ExprKind::Binary(op, a, b) => Ok(NatTpl::Binary(
                *op,
                Box::new(self.nat_tpl(a)?),
                Box::new(self.nat_tpl(b)?),
            )),
            _ => Err(Diagnostic::error(
                "expected a size",
                e.span,
                "a size argument",
            )),
        }
    }

    fn expr_var(&mut self, name: &str, binders: &[String], e: &Expr) -> Result<usize, Diagnostic> {
        if let Some(i) = self.expr_vars.iter().position(|v| v == name) {
            if self.in_lhs && self.lhs_contexts[i] != binders {
                return Err(Diagnostic::error(
                    format!("pattern variable `{name}` occurs under different binders"),
                    e.span,
                    "a repeated pattern variable must be used under the same binders",
                ));
            }
            return Ok(i);
        }
        if !self.in_lhs {
            return Err(Diagnostic::error(
                format!("`{name}` is not bound by the left-hand side"),
                e.span,
                "unknown pattern variable",
            ));
        }
        self.expr_vars.push(name.to_string());
        self.lhs_contexts.push(binders.to_vec());
        Ok(self.expr_vars.len() - 1)
    }

    /// The primitive a head name denotes, unless a binder shadows it.
    fn head_prim(head: &Expr, binders: &[String]) -> Option<Primitive> {
        match &head.kind {
            ExprKind::Name(n) if bound_index(binders, n).is_none() => Primitive::from_name(n),
            _ => None,
        }
    }

    fn pat(&mut self, e: &Expr, binders: &mut Vec<String>) -> Result<Pat, Diagnostic> {
        Ok(match shape(e)? {
            Shape::Lit(l) => Pat::Literal(l),
            Shape::Name(n) => match bound_index(binders, n) {
                Some(i) => Pat::Bound(i),
                None => match Primitive::from_name(n) {
                    Some(p) => Pat::Prim(p),
                    None => Pat::Var(self.expr_var(n, binders, e)?),
                },
            },
            Shape::Lambda(names, body) => {
                let depth = binders.len();
                binders.extend(names.iter().cloned());
                let mut p = self.pat(body, binders);
                binders.truncate(depth);
                for _ in &names {
                    p = Ok(Pat::Lambda(Box::new(p?)));
                }
                p?
            }
            Shape::Apply(head, args) => {
                let nat_args = Self::head_prim(head, binders).map_or(0, |p| p.nat_arity());
                let mut acc = self.pat(head, binders)?;
                for (i, a) in args.into_iter().enumerate() {
                    acc = if i < nat_args {
                        Pat::NatApp(Box::new(acc), self.nat_pat(a)?)
                    } else {
                        Pat::App(Box::new(acc), Box::new(self.pat(a, binders)?))
                    };
                }
                acc
            }
            Shape::Prim(p, args) => {
                let mut acc = Pat::Prim(p);
                for a in args {
                    acc = Pat::App(Box::new(acc), Box::new(self.pat(a, binders)?));
                }
                acc
            }
            Shape::Let(x, v, b) => {
                // let x = v in b  =  let v (fun x => b)
                let vp = self.pat(v, binders)?;
                binders.push(x.to_string());
                let bp = self.pat(b, binders);
                binders.pop();
                let head = Pat::App(Box::new(Pat::Prim(Primitive::Let)), Box::new(vp));
                Pat::App(Box::new(head), Box::new(Pat::Lambda(Box::new(bp?))))
            }
            Shape::Compose(..) => return Err(unsupported(e, "`>>`")),
        })
    }

    fn tpl(&mut self, e: &Expr, binders: &mut Vec<String>) -> Result<Tpl, Diagnostic> {
        Ok(match shape(e)? {
            Shape::Lit(l) => Tpl::Literal(l),
            Shape::Name(n) => match bound_index(binders, n) {
                Some(i) => Tpl::Bound(i),
                None => match self.expr_vars.iter().position(|v| v == n) {
                    Some(slot) => Tpl::Var(slot, self.renaming(slot, binders)),
                    None => match Primitive::from_name(n) {
                        Some(p) => Tpl::Prim(p),
                        None => {
                            self.expr_var(n, binders, e)?;
                            unreachable!("expr_var rejects new variables on the right")
                        }
                    },
                },
            },
            Shape::Lambda(names, body) => {
                let depth = binders.len();
                binders.extend(names.iter().cloned());
                let t = self.tpl(body, binders);
                binders.truncate(depth);
                let mut t = t?;
                for _ in &names {
                    t = Tpl::Lambda(Box::new(t));
                }
                t
            }
            Shape::Apply(head, args) => {
                let nat_args = Self::head_prim(head, binders).map_or(0, |p| p.nat_arity());
                let mut acc = self.tpl(head, binders)?;
                for (i, a) in args.into_iter().enumerate() {
                    acc = if i < nat_args {
                        Tpl::NatApp(Box::new(acc), self.nat_tpl(a)?)
                    } else {
                        Tpl::App(Box::new(acc), Box::new(self.tpl(a, binders)?))
                    };
                }
                acc
            }
            Shape::Prim(p, args) => {
                let mut acc = Tpl::Prim(p);
                for a in args {
                    acc = Tpl::App(Box::new(acc), Box::new(self.tpl(a, binders)?));
                }
                acc
            }
            Shape::Compose(f, g) => {
                // f >> g  =  fun x => g (f x), x invisible to names
                binders.push(String::new());
                let ft = self.tpl(f, binders);
                let gt = ft.and_then(|ft| Ok((ft, self.tpl(g, binders)?)));
                binders.pop();
                let (ft, gt) = gt?;
                let inner = Tpl::App(Box::new(ft), Box::new(Tpl::Bound(0)));
                Tpl::Lambda(Box::new(Tpl::App(Box::new(gt), Box::new(inner))))
            }
            Shape::Let(x, v, b) => {
                let vt = self.tpl(v, binders)?;
                binders.push(x.to_string());
                let bt = self.tpl(b, binders);
                binders.pop();
                let body = Tpl::Lambda(Box::new(bt?));
                Tpl::App(
                    Box::new(Tpl::App(Box::new(Tpl::Prim(Primitive::Let)), Box::new(vt))),
                    Box::new(body),
                )
            }
        })
    }

    fn renaming(&self, slot: usize, rhs: &[String]) -> Renaming {
        let lhs = &self.lhs_contexts[slot];
        let inner = (0..lhs.len())
            .map(|i| {
                let name = &lhs[lhs.len() - 1 - i];
                if name.is_empty() {
                    None
                } else {
                    bound_index(rhs, name)
                }
            })
            .collect();
        Renaming {
            lhs_binders: lhs.len() as u32,
            rhs_binders: rhs.len() as u32,
            inner,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_fusion_compiles() {
        let r = compile("map f (map g xs)", "map (fun x => f (g x)) xs").unwrap();
        assert_eq!(r.expr_vars, ["f", "g", "xs"]);
        let Tpl::App(map_h, xs) = &r.rhs else {
            panic!()
        };
        assert!(matches!(&**xs, Tpl::Var(2, ren) if ren.is_identity()));
        let Tpl::App(_, lam) = &**map_h else { panic!() };
        let Tpl::Lambda(body) = &**lam else { panic!() };
        // f is used under one new binder: outer references shift by one.
        let Tpl::App(f, _) = &**body else { panic!() };
        let Tpl::Var(0, ren) = &**f else { panic!() };
        assert_eq!(ren.map(0), Some(1));
        assert!(!ren.is_identity());
    }

    #[test]
    fn eta_derives_its_side_condition() {
        let r = compile("fun x => f x", "f").unwrap();
        let Tpl::Var(0, ren) = &r.rhs else { panic!() };
        assert_eq!(ren.map(0), None, "f must not use x");
        assert_eq!(ren.map(1), Some(0), "outer variables move in by one");
    }

    #[test]
    fn size_arguments_and_parameters() {
        let sig = RuleSignature {
            params: &["s"],
            values: &[nat::lit(32)],
            ..Default::default()
        };
        let r = compile_with("map f xs", "join (map (map f) (split s xs))", &sig).unwrap();
        assert_eq!(r.nat_vars, ["s"]);
        let r = compile("join (split s xs)", "xs").unwrap();
        assert_eq!(r.nat_vars, ["s"]);
        assert!(matches!(r.lhs, Pat::App(_, _)));
    }

    #[test]
    fn errors_are_reported() {
        assert!(compile("map f xs", "map g xs").is_err());
        assert!(compile("f", "f").is_err());
        assert!(compile("map f (fun x => f)", "f").is_err());
    }
}
