//! Printing a graph back as `.graph` text: the declared tensors, one `let` per operator (values
//! named `vN`, outputs by their names where the file gave them), and the `output` line.

use crate::check::Graph;
use crate::lang::TensorLang;
use egg::{Id, RecExpr};
use std::fmt::Write;

/// `expr` (whose last node is `outputs`) as a `.graph` file over `graph`'s declared tensors.
pub fn print(graph: &Graph, expr: &RecExpr<TensorLang>) -> String {
    let nodes = expr.as_ref();
    let mut out = String::new();
    for name in &graph.order {
        let d = &graph.decls[name];
        let dims: Vec<String> = d.shape.iter().map(|x| x.to_string()).collect();
        let kind = if d.weight { "weight" } else { "input" };
        let _ = writeln!(out, "{kind} {name} : {}", dims.join(" x "));
    }
    let mut names: Vec<String> = vec![String::new(); nodes.len()];
    // Outputs keep their names where each is a distinct value.
    if let Some(TensorLang::Outputs(rs)) = nodes.last() {
        for (r, n) in rs.iter().zip(&graph.outputs) {
            let at = usize::from(*r);
            if names[at].is_empty() && !matches!(nodes[at], TensorLang::Tensor(_)) {
                names[at] = n.clone();
            }
        }
    }
    // A split's parts take the outputs' names where they are outputs.
    let mut parts: Vec<[Option<String>; 2]> = vec![[None, None]; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        if let TensorLang::Split0(p) | TensorLang::Split1(p) = node {
            if !names[i].is_empty() {
                let k = usize::from(matches!(node, TensorLang::Split1(_)));
                parts[usize::from(*p)][k] = Some(names[i].clone());
            }
        }
    }
    let num = |id: &Id| match &nodes[usize::from(*id)] {
        TensorLang::Num(n) => n.to_string(),
        other => other.to_string(),
    };
    for (i, node) in nodes.iter().enumerate() {
        if names[i].is_empty() {
            names[i] = format!("v{i}");
        }
        let arg = |id: &Id| names[usize::from(*id)].clone();
        use TensorLang as T;
        let act = |id: &Id| match &nodes[usize::from(*id)] {
            T::Act(crate::lang::Act::None) => String::new(),
            T::Act(a) => format!(", act={a}"),
            _ => String::new(),
        };
        let call = match node {
            T::Num(_) | T::Act(_) => continue,
            T::Tensor(t) => {
                names[i] = t.0.to_string();
                continue;
            }
            T::Split0(p) | T::Split1(p) => {
                let k = usize::from(matches!(node, T::Split1(_)));
                names[i] = part_name(&parts, &names, usize::from(*p), k);
                continue;
            }
            T::Outputs(rs) => {
                let list: Vec<String> = rs.iter().map(arg).collect();
                let _ = writeln!(out, "output {}", list.join(", "));
                continue;
            }
            T::Split([ax, at, x]) => {
                let (a, b) = (
                    part_name(&parts, &names, i, 0),
                    part_name(&parts, &names, i, 1),
                );
                let _ = writeln!(
                    out,
                    "let {a}, {b} = split({}, axis={}, at={})",
                    arg(x),
                    num(ax),
                    num(at)
                );
                continue;
            }
            T::Matmul([a, x, w]) => format!("matmul({}, {}{})", arg(x), arg(w), act(a)),
            T::Conv2d([s, p, a, x, w]) => format!(
                "conv2d({}, {}, stride={}, pad={}{})",
                arg(x),
                arg(w),
                num(s),
                num(p),
                act(a)
            ),
            T::Add([a, b]) => format!("add({}, {})", arg(a), arg(b)),
            T::Mul([a, b]) => format!("mul({}, {})", arg(a), arg(b)),
            T::Relu(a) => format!("relu({})", arg(a)),
            T::Tanh(a) => format!("tanh({})", arg(a)),
            T::Sigmoid(a) => format!("sigmoid({})", arg(a)),
            T::Softmax(a) => format!("softmax({})", arg(a)),
            T::LayerNorm(a) => format!("layernorm({})", arg(a)),
            T::Transpose(a) => format!("transpose({})", arg(a)),
            T::MaxPool([k, s, p, x]) => format!(
                "maxpool({}, kernel={}, stride={}, pad={})",
                arg(x),
                num(k),
                num(s),
                num(p)
            ),
            T::AvgPool([k, s, p, x]) => format!(
                "avgpool({}, kernel={}, stride={}, pad={})",
                arg(x),
                num(k),
                num(s),
                num(p)
            ),
            T::Concat([ax, a, b]) => format!("concat({}, {}, axis={})", arg(a), arg(b), num(ax)),
            T::Enlarge([k, w]) => format!("enlarge({}, kernel={})", arg(w), num(k)),
        };
        let _ = writeln!(out, "let {} = {call}", names[i]);
    }
    out
}

/// The name of part `k` of the split at `at`: an output's, or the split's own with `a`/`b`.
fn part_name(parts: &[[Option<String>; 2]], names: &[String], at: usize, k: usize) -> String {
    parts[at][k]
        .clone()
        .unwrap_or_else(|| format!("{}{}", names[at], ["a", "b"][k]))
}
