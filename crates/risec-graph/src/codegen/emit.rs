//! The C of one graph: a `prepare` function that computes the values of weights alone once
//! (constants folded before inference), the graph function that computes the outputs from
//! the inputs, and a `release` function. Each operator is a call of a kernel compiled from
//! Rise ([`super::kernels`]) or of the hand-written data movement of `runtime.c`; a fused
//! activation is a second pass of its own kernel. Each value has its own buffer, allocated once
//! by `prepare` and reused by every call (a call allocates nothing); a part of a split whose
//! elements are contiguous is a pointer into its tensor, not a copy.

use super::kernels::{Kernel, Unary};
use crate::check::Graph;
use crate::lang::{Act, Meta, TensorLang};
use crate::shape::infer;
use egg::{Id, RecExpr};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The C of a graph's three functions and the kernels they call.
pub struct GraphFunctions {
    /// The definitions (and the state type).
    pub source: String,
    /// The prototypes for the header.
    pub prototypes: String,
    /// The Rise kernels called.
    pub kernels: BTreeSet<Kernel>,
}

struct Emitter<'a> {
    nodes: &'a [TensorLang],
    metas: Vec<Meta>,
    kernels: BTreeSet<Kernel>,
    /// The C expression of each tensor's data, once computed.
    ptr: Vec<Option<String>>,
    /// Buffers of the graph function, kept in the state (allocated by prepare): name, floats.
    state_buffers: Vec<(String, usize)>,
    /// Whether the graph function (not prepare) is being emitted.
    in_run: bool,
    temps: usize,
}

fn dims_product(s: &[usize]) -> usize {
    s.iter().product()
}

impl Emitter<'_> {
    fn shape(&self, id: Id) -> &[usize] {
        self.metas[usize::from(id)].shape().unwrap_or(&[])
    }

    fn num(&self, id: Id) -> usize {
        self.metas[usize::from(id)].num().unwrap_or(0) as usize
    }

    fn act(&self, id: Id) -> Act {
        self.metas[usize::from(id)].act().unwrap_or(Act::None)
    }

    fn p(&self, id: Id) -> String {
        self.ptr[usize::from(id)]
            .clone()
            .expect("operands come before their users")
    }

    /// A buffer of `n` floats for a temporary: in prepare, allocated there (and freed by
    /// [`Self::release`]); in the graph function, one of the state's (allocated by prepare,
    /// reused by every call). Its name.
    fn alloc(&mut self, out: &mut String, n: usize, what: &str) -> String {
        self.temps += 1;
        let name = format!("{what}{}", self.temps);
        if self.in_run {
            self.state_buffers.push((name.clone(), n));
            let _ = writeln!(out, "    float *{name} = s->{name};");
        } else {
            let _ = writeln!(out, "    float *{name} = malloc(sizeof(float) * {n}ULL); if (!{name}) {{ rc = 2; goto done; }}");
        }
        name
    }

    /// The end of a temporary's use: freed in prepare; kept in the state otherwise.
    fn release(&self, out: &mut String, name: &str) {
        if !self.in_run {
            let _ = writeln!(out, "    free({name});");
        }
    }

    fn call(&mut self, out: &mut String, kernel: Kernel, args: &str) {
        self.kernels.insert(kernel);
        let _ = writeln!(out, "    RG({}({args}));", kernel.name());
    }

    /// Emits node `i` computing into `dst` (a pointer expression); temporaries it needs are
    /// freed before it returns.
    fn op(&mut self, out: &mut String, i: usize, dst: &str) {
        use TensorLang as T;
        let node = self.nodes[i].clone();
        let oshape = self.metas[i].shape().unwrap_or(&[]).to_vec();
        let n_out = dims_product(&oshape);
        let with_act = |me: &mut Self,
                        out: &mut String,
                        act: Act,
                        body: &dyn Fn(&mut Self, &mut String, &str)| {
            if act == Act::None {
                body(me, out, dst);
            } else {
                let t = me.alloc(out, n_out, "t");
                body(me, out, &t);
                let u = match act {
                    Act::Relu => Unary::Relu,
                    Act::Tanh => Unary::Tanh,
                    _ => Unary::Sigmoid,
                };
                me.call(out, Kernel::Map(u), &format!("{n_out}, {dst}, {t}"));
                me.release(out, &t);
            }
        };
        match node {
            T::Matmul([act, a, b]) => {
                let (sa, sb) = (self.shape(a).to_vec(), self.shape(b).to_vec());
                let (pa, pb) = (self.p(a), self.p(b));
                let act = self.act(act);
                with_act(self, out, act, &|me, out, d| {
                    if sa.len() == 2 {
                        me.call(
                            out,
                            Kernel::Matmul,
                            &format!("{}, {}, {}, {d}, {pa}, {pb}", sa[0], sb[1], sa[1]),
                        );
                    } else {
                        me.call(
                            out,
                            Kernel::BatchMatmul,
                            &format!(
                                "{}, {}, {}, {}, {d}, {pa}, {pb}",
                                sa[0], sa[1], sb[2], sa[2]
                            ),
                        );
                    }
                });
            }
            T::Conv2d([s, p, act, x, w]) => {
                let (sx, sw) = (self.shape(x).to_vec(), self.shape(w).to_vec());
                let (stride, pad) = (self.num(s), self.num(p));
                let (px, pw) = (self.p(x), self.p(w));
                let act = self.act(act);
                with_act(self, out, act, &|me, out, d| {
                    me.conv(out, &sx, &sw, stride, pad, &oshape, d, &px, &pw)
                });
            }
            T::Add([a, b]) | T::Mul([a, b]) => {
                let k = if matches!(node, T::Add(_)) {
                    Kernel::Add
                } else {
                    Kernel::Mul
                };
                let args = format!("{n_out}, {dst}, {}, {}", self.p(a), self.p(b));
                self.call(out, k, &args);
            }
            T::Relu(a) | T::Tanh(a) | T::Sigmoid(a) => {
                let u = match node {
                    T::Relu(_) => Unary::Relu,
                    T::Tanh(_) => Unary::Tanh,
                    _ => Unary::Sigmoid,
                };
                let args = format!("{n_out}, {dst}, {}", self.p(a));
                self.call(out, Kernel::Map(u), &args);
            }
            T::Softmax(a) | T::LayerNorm(a) => {
                let cols = *oshape.last().unwrap_or(&1);
                let lanes = cols % 16 == 0;
                let k = if matches!(node, T::Softmax(_)) {
                    Kernel::Softmax { lanes }
                } else {
                    Kernel::LayerNorm { lanes }
                };
                let args = format!("{}, {cols}, {dst}, {}", n_out / cols.max(1), self.p(a));
                self.call(out, k, &args);
            }
            T::Transpose(a) => {
                let s = self.shape(a).to_vec();
                let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
                let batch = dims_product(&s[..s.len() - 2]);
                let pa = self.p(a);
                let _ = writeln!(out, "    for (long long b = 0; b < {batch}; b++) {{");
                self.call(
                    out,
                    Kernel::Transpose,
                    &format!("{m}, {n}, {dst} + b * {}LL, {pa} + b * {}LL", m * n, m * n),
                );
                let _ = writeln!(out, "    }}");
            }
            T::MaxPool([k, s, p, x]) | T::AvgPool([k, s, p, x]) => {
                let sx = self.shape(x).to_vec();
                let (k, s, pad) = (self.num(k), self.num(s), self.num(p));
                let is_max = matches!(node, T::MaxPool(_));
                let (hp, wp) = (sx[2] + 2 * pad, sx[3] + 2 * pad);
                let planes = sx[0] * sx[1];
                let t = self.alloc(out, planes * hp * wp, "t");
                let fill = if is_max { "-INFINITY" } else { "0.0f" };
                let _ = writeln!(
                    out,
                    "    rg_pad({planes}, {}, {}, {pad}, {fill}, {t}, {});",
                    sx[2],
                    sx[3],
                    self.p(x)
                );
                let _ = writeln!(
                    out,
                    "    rg_pool({}, {planes}, {hp}, {wp}, {k}, {s}, {}, {}, {dst}, {t});",
                    i32::from(is_max),
                    oshape[2],
                    oshape[3]
                );
                self.release(out, &t);
            }
            T::Concat([ax, a, b]) => {
                let ax = self.num(ax);
                let (sa, sb) = (self.shape(a).to_vec(), self.shape(b).to_vec());
                let outer = dims_product(&sa[..ax]);
                let (ai, bi) = (dims_product(&sa[ax..]), dims_product(&sb[ax..]));
                let _ = writeln!(
                    out,
                    "    rg_concat({outer}, {ai}, {bi}, {dst}, {}, {});",
                    self.p(a),
                    self.p(b)
                );
            }
            T::Split0(pair) | T::Split1(pair) => {
                let (outer, inner, offset, part) = self.part(pair, matches!(node, T::Split1(_)));
                let src = self.split_source(pair);
                let _ = writeln!(
                    out,
                    "    rg_part({outer}, {inner}, {offset}, {part}, {dst}, {src});"
                );
            }
            T::Enlarge([k, w]) => {
                let sw = self.shape(w).to_vec();
                let _ = writeln!(
                    out,
                    "    rg_enlarge({}, {}, {}, {}, {}, {dst}, {});",
                    sw[0],
                    sw[1],
                    sw[2],
                    sw[3],
                    self.num(k),
                    self.p(w)
                );
            }
            T::Num(_) | T::Act(_) | T::Tensor(_) | T::Split(_) | T::Outputs(_) => {}
        }
    }

    /// (outer, inner, offset, part) of a split's part, in floats.
    fn part(&self, pair: Id, second: bool) -> (usize, usize, usize, usize) {
        let TensorLang::Split([ax, at, x]) = &self.nodes[usize::from(pair)] else {
            unreachable!("a split")
        };
        let (ax, at) = (self.num(*ax), self.num(*at));
        let s = self.shape(*x);
        let rest = dims_product(&s[ax + 1..]);
        let outer = dims_product(&s[..ax]);
        let inner = s[ax] * rest;
        if second {
            (outer, inner, at * rest, (s[ax] - at) * rest)
        } else {
            (outer, inner, 0, at * rest)
        }
    }

    fn split_source(&self, pair: Id) -> String {
        let TensorLang::Split([_, _, x]) = &self.nodes[usize::from(pair)] else {
            unreachable!("a split")
        };
        self.p(*x)
    }

    #[allow(clippy::too_many_arguments)]
    fn conv(
        &mut self,
        out: &mut String,
        sx: &[usize],
        sw: &[usize],
        stride: usize,
        pad: usize,
        so: &[usize],
        dst: &str,
        px: &str,
        pw: &str,
    ) {
        let (n, c, h, w) = (sx[0], sx[1], sx[2], sx[3]);
        let (co, kh, kw) = (sw[0], sw[2], sw[3]);
        let (ho, wo) = (so[2], so[3]);
        let (hp, wp) = (h + 2 * pad, w + 2 * pad);
        let input = if pad > 0 {
            let t = self.alloc(out, n * c * hp * wp, "t");
            let _ = writeln!(
                out,
                "    rg_pad({}, {h}, {w}, {pad}, 0.0f, {t}, {px});",
                n * c
            );
            Some(t)
        } else {
            None
        };
        let src = input.clone().unwrap_or_else(|| px.to_string());
        if stride == 1 && kh == 3 && kw == 3 {
            let _ = writeln!(out, "    for (long long b = 0; b < {n}; b++) {{");
            self.call(
                out,
                Kernel::Conv3x3,
                &format!(
                    "{co}, {c}, {ho}, {wo}, {dst} + b * {}LL, {pw}, {src} + b * {}LL",
                    co * ho * wo,
                    c * hp * wp
                ),
            );
            let _ = writeln!(out, "    }}");
        } else if stride == 1 && kh == 1 && kw == 1 {
            let _ = writeln!(out, "    for (long long b = 0; b < {n}; b++) {{");
            self.call(
                out,
                Kernel::Conv1x1,
                &format!(
                    "{co}, {c}, {ho}, {wo}, {dst} + b * {}LL, {pw}, {src} + b * {}LL",
                    co * ho * wo,
                    c * hp * wp
                ),
            );
            let _ = writeln!(out, "    }}");
        } else {
            let _ = writeln!(out, "    rg_conv_direct({n}, {c}, {hp}, {wp}, {co}, {kh}, {kw}, {stride}, {ho}, {wo}, {dst}, {src}, {pw});");
        }
        if let Some(t) = input {
            self.release(out, &t);
        }
    }
}

/// Whether node `i` is a tensor computed by an operator (not a leaf, attribute or pair).
fn computes(node: &TensorLang, meta: &Meta) -> bool {
    !matches!(
        node,
        TensorLang::Num(_)
            | TensorLang::Act(_)
            | TensorLang::Tensor(_)
            | TensorLang::Split(_)
            | TensorLang::Outputs(_)
    ) && meta.shape().is_some()
}

/// The C of `expr` (a graph over `graph`'s tensors, last node `outputs`) as the functions
/// `FUNCTION_prepare`, `FUNCTION` and `FUNCTION_release`.
pub fn graph_functions(
    function: &str,
    graph: &Graph,
    expr: &RecExpr<TensorLang>,
) -> Result<GraphFunctions, String> {
    let nodes = expr.as_ref();
    let mut metas: Vec<Meta> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let m = infer(node, &|id| &metas[usize::from(id)], &graph.decls)
            .map_err(|e| format!("the graph is not well formed: {e}"))?;
        metas.push(m);
    }
    let mut e = Emitter {
        nodes,
        metas,
        kernels: BTreeSet::new(),
        ptr: vec![None; nodes.len()],
        state_buffers: Vec::new(),
        in_run: false,
        temps: 0,
    };
    let weights: Vec<_> = graph
        .order
        .iter()
        .filter(|s| graph.decls[*s].weight)
        .copied()
        .collect();
    let inputs: Vec<_> = graph
        .order
        .iter()
        .filter(|s| !graph.decls[*s].weight)
        .copied()
        .collect();
    let outputs: Vec<Id> = match nodes.last() {
        Some(TensorLang::Outputs(rs)) => rs.to_vec(),
        _ => return Err("the graph has no outputs node".into()),
    };
    // Leaves.
    for (i, node) in nodes.iter().enumerate() {
        if let TensorLang::Tensor(t) = node {
            e.ptr[i] = Some(if graph.decls[&t.0].weight {
                format!("s->w_{}", t.0)
            } else {
                format!("in_{}", t.0)
            });
        }
    }
    // Prepare: the values of weights alone.
    let mut prep = String::new();
    let mut state_fields = String::new();
    for w in &weights {
        let _ = writeln!(state_fields, "    const float *w_{w};");
        let _ = writeln!(prep, "    s->w_{w} = w_{w};");
    }
    for (i, node) in nodes.iter().enumerate() {
        if computes(node, &e.metas[i]) && e.metas[i].constant() {
            let n = dims_product(e.metas[i].shape().unwrap_or(&[]));
            let _ = writeln!(state_fields, "    float *c{i};");
            let _ = writeln!(prep, "    s->c{i} = malloc(sizeof(float) * {n}ULL); if (!s->c{i}) {{ rc = 2; goto done; }}");
            let dst = format!("s->c{i}");
            e.op(&mut prep, i, &dst);
            e.ptr[i] = Some(dst);
        }
    }
    // Run: the rest, in order; an output computed here is written in place. Its buffers are
    // the state's (allocated once by prepare), so that a call allocates nothing: one call at a
    // time per state.
    e.in_run = true;
    let mut run = String::new();
    let mut out_slot: Vec<Option<usize>> = vec![None; nodes.len()];
    for (k, r) in outputs.iter().enumerate() {
        let i = usize::from(*r);
        if out_slot[i].is_none()
            && computes(&nodes[i], &e.metas[i])
            && !e.metas[i].constant()
            && !is_view(&e, i)
        {
            out_slot[i] = Some(k);
        }
    }
    for (i, node) in nodes.iter().enumerate() {
        if !computes(node, &e.metas[i]) || e.ptr[i].is_some() {
            continue;
        }
        if is_view(&e, i) {
            let (TensorLang::Split0(p) | TensorLang::Split1(p)) = nodes[i] else {
                unreachable!()
            };
            let (_, _, offset, _) = e.part(p, matches!(nodes[i], TensorLang::Split1(_)));
            e.ptr[i] = Some(format!("({} + {offset}LL)", e.split_source(p)));
            continue;
        }
        let dst = match out_slot[i] {
            Some(k) => format!("out_{k}"),
            None => {
                let n = dims_product(e.metas[i].shape().unwrap_or(&[]));
                e.state_buffers.push((format!("v{i}"), n));
                let _ = writeln!(run, "    float *v{i} = s->v{i};");
                format!("v{i}")
            }
        };
        e.op(&mut run, i, &dst);
        e.ptr[i] = Some(dst);
    }
    for (k, r) in outputs.iter().enumerate() {
        let i = usize::from(*r);
        if out_slot[i] != Some(k) {
            let n = dims_product(e.metas[i].shape().unwrap_or(&[]));
            let _ = writeln!(
                run,
                "    memcpy(out_{k}, {}, sizeof(float) * {n}ULL);",
                e.p(*r)
            );
        }
    }
    // The graph function's buffers: in the state, allocated by prepare, freed by release.
    let mut buffer_frees = String::new();
    for (name, n) in &e.state_buffers {
        let _ = writeln!(state_fields, "    float *{name};");
        let _ = writeln!(prep, "    s->{name} = malloc(sizeof(float) * {n}ULL); if (!s->{name}) {{ rc = 2; goto done; }}");
        let _ = writeln!(buffer_frees, "    free(s->{name});");
    }
    let wparams: Vec<String> = weights
        .iter()
        .map(|w| format!("const float *w_{w}"))
        .collect();
    let iparams: Vec<String> = inputs
        .iter()
        .map(|w| format!("const float *in_{w}"))
        .chain((0..outputs.len()).map(|k| format!("float *out_{k}")))
        .collect();
    let prepare_sig = format!(
        "{function}_state *{function}_prepare({})",
        if wparams.is_empty() {
            "void".into()
        } else {
            wparams.join(", ")
        }
    );
    let run_sig = format!(
        "int {function}(const {function}_state *s, {})",
        iparams.join(", ")
    );
    let release_sig = format!("void {function}_release({function}_state *s)");
    let const_frees: String = (0..nodes.len())
        .filter(|i| computes(&nodes[*i], &e.metas[*i]) && e.metas[*i].constant())
        .map(|i| format!("    free(s->c{i});\n"))
        .chain(std::iter::once(buffer_frees))
        .collect();
    let mut source = String::new();
    let _ = write!(
        source,
        "#define RG(call) do {{ if ((call) != 0) {{ rc = 1; goto done; }} }} while (0)\n\nstruct {function}_state {{\n{state_fields}    int unused;\n}};\n\n{release_sig} {{\n    if (!s) return;\n{const_frees}    free(s);\n}}\n\n{prepare_sig} {{\n    int rc = 0;\n    {function}_state *s = calloc(1, sizeof *s);\n    if (!s) return NULL;\n    if (rc) goto done;\n{prep}done:\n    if (rc) {{ {function}_release(s); return NULL; }}\n    return s;\n}}\n\n{run_sig} {{\n    int rc = 0;\n    if (rc) goto done;\n{run}done:\n    return rc;\n}}\n#undef RG\n"
    );
    let prototypes = format!(
        "typedef struct {function}_state {function}_state;\n/* Computes the values of the weights alone, once, and allocates the graph's buffers; NULL when\n * memory runs out. */\n{prepare_sig};\n/* Computes the outputs (0; 1 when a kernel refuses its sizes), in the state's buffers: one\n * call at a time per state. */\n{run_sig};\n/* Frees what prepare made. */\n{release_sig};\n"
    );
    Ok(GraphFunctions {
        source,
        prototypes,
        kernels: e.kernels,
    })
}

/// Whether node `i` is a part of a split whose elements are contiguous (a pointer, no copy).
fn is_view(e: &Emitter, i: usize) -> bool {
    match e.nodes[i] {
        TensorLang::Split0(p) | TensorLang::Split1(p) => {
            !e.metas[i].constant() && e.part(p, false).0 == 1
        }
        _ => false,
    }
}
