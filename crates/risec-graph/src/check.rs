//! Checking a parsed `.graph` file: names, operators, attributes and shapes, into a [`Graph`].

use crate::ast::{Attr, AttrValue, Name, Stmt};
use crate::lang::{Act, Decl, Decls, Meta, TensorLang, TensorName};
use crate::shape::infer;
use egg::{Id, RecExpr, Symbol};
use risec_core::diagnostics::{Diagnostic, Span};
use rustc_hash::FxHashMap;

/// A checked tensor graph: its declared tensors and one expression computing all its
/// outputs (shared values are shared nodes), the last node being `(outputs …)`.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The inputs and weights, by name.
    pub decls: Decls,
    /// The declared tensors' names in the file's order.
    pub order: Vec<Symbol>,
    /// The graph; its last node is the `outputs` node.
    pub expr: RecExpr<TensorLang>,
    /// The outputs' names, in order.
    pub outputs: Vec<String>,
    /// The names the file gives values (for printing).
    pub names: FxHashMap<Id, String>,
}

impl Graph {
    /// The root (`outputs`) node's id.
    pub fn root(&self) -> Id {
        Id::from(self.expr.as_ref().len() - 1)
    }
}

/// The operators of `.graph` files: name, operands (`None`: two or more), attributes.
const OPERATORS: &[(&str, Option<usize>, &[&str])] = &[
    ("matmul", Some(2), &["act"]),
    ("conv2d", Some(2), &["stride", "pad", "act"]),
    ("add", Some(2), &[]),
    ("mul", Some(2), &[]),
    ("relu", Some(1), &[]),
    ("tanh", Some(1), &[]),
    ("sigmoid", Some(1), &[]),
    ("softmax", Some(1), &[]),
    ("layernorm", Some(1), &[]),
    ("transpose", Some(1), &[]),
    ("maxpool", Some(1), &["kernel", "stride", "pad"]),
    ("avgpool", Some(1), &["kernel", "stride", "pad"]),
    ("concat", None, &["axis"]),
    ("split", Some(1), &["axis", "at"]),
    ("enlarge", Some(1), &["kernel"]),
];

struct Builder {
    expr: RecExpr<TensorLang>,
    metas: Vec<Meta>,
    decls: Decls,
}

impl Builder {
    fn add(&mut self, node: TensorLang, span: Span) -> Result<Id, Diagnostic> {
        let metas = &self.metas;
        let meta = infer(&node, &|id| &metas[usize::from(id)], &self.decls)
            .map_err(|m| Diagnostic::error(m, span, "the operands do not fit this operator"))?;
        self.metas.push(meta);
        Ok(self.expr.add(node))
    }

    fn num(&mut self, n: i64) -> Id {
        self.metas.push(Meta::Num(n));
        self.expr.add(TensorLang::Num(n))
    }

    fn act(&mut self, a: Act) -> Id {
        self.metas.push(Meta::Act(a));
        self.expr.add(TensorLang::Act(a))
    }
}

/// Checks the statements of `file`'s text into a graph; every error found is reported.
pub fn check(stmts: &[Stmt]) -> Result<Graph, Vec<Diagnostic>> {
    let mut b = Builder {
        expr: RecExpr::default(),
        metas: Vec::new(),
        decls: Decls::default(),
    };
    let mut values: FxHashMap<String, (Id, Span)> = FxHashMap::default();
    let mut names: FxHashMap<Id, String> = FxHashMap::default();
    let mut order = Vec::new();
    let mut errors = Vec::new();
    let mut outputs: Option<Vec<Name>> = None;
    // Names whose statement had an error: their uses are not reported again.
    let mut failed: rustc_hash::FxHashSet<String> = Default::default();
    for stmt in stmts {
        let result = match stmt {
            Stmt::Tensor { name, weight, dims } => (|| {
                defined_once(&values, name)?;
                if let Some((_, span)) = dims.iter().find(|(d, _)| *d == 0) {
                    return Err(Diagnostic::error(
                        "a dimension of 0",
                        *span,
                        "dimensions are at least 1",
                    ));
                }
                let shape: Vec<usize> = dims.iter().map(|d| d.0).collect();
                let sym = Symbol::from(name.text.as_str());
                b.decls.insert(
                    sym,
                    Decl {
                        shape,
                        weight: *weight,
                    },
                );
                order.push(sym);
                let id = b.add(TensorLang::Tensor(TensorName(sym)), name.span)?;
                values.insert(name.text.clone(), (id, name.span));
                Ok(())
            })(),
            Stmt::Let {
                names: bound,
                op,
                args,
                attrs,
                span,
            } => {
                let result = let_stmt(
                    &mut b,
                    &mut values,
                    &mut names,
                    bound,
                    op,
                    args,
                    attrs,
                    *span,
                );
                if result.is_err() {
                    failed.extend(bound.iter().map(|n| n.text.clone()));
                    // An operand whose own statement failed was reported there.
                    if args
                        .iter()
                        .any(|a| failed.contains(&a.text) && !values.contains_key(&a.text))
                    {
                        continue;
                    }
                }
                result
            }
            Stmt::Output { names: out } => {
                if let Some(first) = &outputs {
                    Err(Diagnostic::error(
                        "a second `output` statement",
                        out[0].span,
                        "one `output` statement lists every result",
                    )
                    .with_secondary(first[0].span, "the first"))
                } else {
                    outputs = Some(out.clone());
                    Ok(())
                }
            }
        };
        if let Err(e) = result {
            errors.push(e);
        }
    }
    let mut results = Vec::new();
    match &outputs {
        None => errors.push(Diagnostic::error(
            "the graph has no `output` statement",
            Span::new(0, 0),
            "expected `output NAME, …` naming the graph's results",
        )),
        Some(out) => {
            for n in out {
                match values.get(&n.text) {
                    Some((id, _)) => results.push(*id),
                    None if failed.contains(&n.text) => {}
                    None => errors.push(unknown(n)),
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    b.metas.push(Meta::Outputs);
    b.expr.add(TensorLang::Outputs(results.into_boxed_slice()));
    Ok(Graph {
        decls: b.decls,
        order,
        expr: b.expr,
        outputs: outputs
            .unwrap_or_default()
            .into_iter()
            .map(|n| n.text)
            .collect(),
        names,
    })
}

fn unknown(n: &Name) -> Diagnostic {
    Diagnostic::error(
        format!("unknown value `{}`", n.text),
        n.span,
        "expected a tensor declared by `input`/`weight` or bound by `let` above",
    )
}

fn defined_once(values: &FxHashMap<String, (Id, Span)>, name: &Name) -> Result<(), Diagnostic> {
    match values.get(&name.text) {
        Some((_, first)) => Err(Diagnostic::error(
            format!("`{}` is defined twice", name.text),
            name.span,
            "a name is bound once",
        )
        .with_secondary(*first, "first defined here")),
        None => Ok(()),
    }
}

#[allow(clippy::too_many_arguments)]
fn let_stmt(
    b: &mut Builder,
    values: &mut FxHashMap<String, (Id, Span)>,
    names: &mut FxHashMap<Id, String>,
    bound: &[Name],
    op: &Name,
    args: &[Name],
    attrs: &[Attr],
    span: Span,
) -> Result<(), Diagnostic> {
    let Some(&(_, arity, keys)) = OPERATORS.iter().find(|(n, _, _)| *n == op.text) else {
        let known: Vec<&str> = OPERATORS.iter().map(|o| o.0).collect();
        return Err(Diagnostic::error(
            format!("unknown operator `{}`", op.text),
            op.span,
            format!("expected one of {}", known.join(", ")),
        ));
    };
    match arity {
        Some(n) if args.len() != n => {
            return Err(Diagnostic::error(
                format!(
                    "`{}` takes {n} operand{}, not {}",
                    op.text,
                    if n == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
                "operands",
            ))
        }
        None if args.len() < 2 => {
            return Err(Diagnostic::error(
                format!("`{}` takes two or more operands", op.text),
                span,
                "operands",
            ))
        }
        _ => {}
    }
    let want = if op.text == "split" { 2 } else { 1 };
    if bound.len() != want {
        return Err(Diagnostic::error(
            format!(
                "`{}` gives {want} value{}, {} named",
                op.text,
                if want == 1 { "" } else { "s" },
                bound.len()
            ),
            bound[0].span,
            if want == 2 {
                "expected two names: `let a, b = split(…)`"
            } else {
                "expected one name"
            },
        ));
    }
    for n in bound {
        defined_once(values, n)?;
    }
    let mut given: FxHashMap<&str, &Attr> = FxHashMap::default();
    for a in attrs {
        if !keys.contains(&a.key.text.as_str()) {
            return Err(Diagnostic::error(
                format!("`{}` has no attribute `{}`", op.text, a.key.text),
                a.key.span,
                if keys.is_empty() {
                    "it takes none".to_string()
                } else {
                    format!("expected one of {}", keys.join(", "))
                },
            ));
        }
        if given.insert(a.key.text.as_str(), a).is_some() {
            return Err(Diagnostic::error(
                format!("attribute `{}` given twice", a.key.text),
                a.span,
                "once",
            ));
        }
    }
    let int = |key: &str, default: Option<i64>| -> Result<i64, Diagnostic> {
        match given.get(key) {
            Some(Attr {
                value: AttrValue::Int(v),
                ..
            }) => Ok(*v),
            Some(a) => Err(Diagnostic::error(
                format!("`{key}` is a whole number"),
                a.span,
                "e.g. `stride=2`",
            )),
            None => default.ok_or_else(|| {
                Diagnostic::error(
                    format!("`{}` needs `{key}=…`", op.text),
                    span,
                    format!("add `{key}=N`"),
                )
            }),
        }
    };
    let act = || -> Result<Act, Diagnostic> {
        match given.get("act") {
            None => Ok(Act::None),
            Some(Attr {
                value: AttrValue::Word(w),
                span,
                ..
            }) => w.parse().map_err(|_| {
                Diagnostic::error(
                    format!("unknown activation `{w}`"),
                    *span,
                    "expected none, relu, tanh or sigmoid",
                )
            }),
            Some(a) => Err(Diagnostic::error(
                "an activation is a word",
                a.span,
                "expected none, relu, tanh or sigmoid",
            )),
        }
    };
    let mut operands = Vec::new();
    for a in args {
        match values.get(&a.text) {
            Some((id, _)) => operands.push(*id),
            None => return Err(unknown(a)),
        }
    }
    use TensorLang as T;
    let x = operands[0];
    let node_id = match op.text.as_str() {
        "matmul" => {
            let a = b.act(act()?);
            b.add(T::Matmul([a, x, operands[1]]), span)?
        }
        "conv2d" => {
            let (s, p) = (b.num(int("stride", Some(1))?), b.num(int("pad", Some(0))?));
            let a = b.act(act()?);
            b.add(T::Conv2d([s, p, a, x, operands[1]]), span)?
        }
        "add" => b.add(T::Add([x, operands[1]]), span)?,
        "mul" => b.add(T::Mul([x, operands[1]]), span)?,
        "relu" => b.add(T::Relu(x), span)?,
        "tanh" => b.add(T::Tanh(x), span)?,
        "sigmoid" => b.add(T::Sigmoid(x), span)?,
        "softmax" => b.add(T::Softmax(x), span)?,
        "layernorm" => b.add(T::LayerNorm(x), span)?,
        "transpose" => b.add(T::Transpose(x), span)?,
        "maxpool" | "avgpool" => {
            let k = int("kernel", None)?;
            let s = int("stride", Some(k))?;
            let (k, s, p) = (b.num(k), b.num(s), b.num(int("pad", Some(0))?));
            let node = if op.text == "maxpool" {
                T::MaxPool([k, s, p, x])
            } else {
                T::AvgPool([k, s, p, x])
            };
            b.add(node, span)?
        }
        "concat" => {
            let axis = int("axis", None)?;
            let mut acc = x;
            for &o in &operands[1..] {
                let ax = b.num(axis);
                acc = b.add(T::Concat([ax, acc, o]), span)?;
            }
            acc
        }
        "split" => {
            let (ax, at) = (b.num(int("axis", None)?), b.num(int("at", None)?));
            let pair = b.add(T::Split([ax, at, x]), span)?;
            let first = b.add(T::Split0(pair), span)?;
            let second = b.add(T::Split1(pair), span)?;
            values.insert(bound[0].text.clone(), (first, bound[0].span));
            values.insert(bound[1].text.clone(), (second, bound[1].span));
            names.insert(first, bound[0].text.clone());
            names.insert(second, bound[1].text.clone());
            return Ok(());
        }
        "enlarge" => {
            let k = b.num(int("kernel", None)?);
            b.add(T::Enlarge([k, x]), span)?
        }
        _ => unreachable!("every operator of OPERATORS is built"),
    };
    values.insert(bound[0].text.clone(), (node_id, bound[0].span));
    names.insert(node_id, bound[0].text.clone());
    Ok(())
}
