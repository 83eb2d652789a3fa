//! What a Rise expression becomes during translation: a read *view* (index arithmetic, no code), a
//! *deferred* computation (code emitted where it is consumed), a function, or a pure C
//! expression; and *acceptors*, the write-side counterpart of views.
//!
//! A view of a data-layout primitive (`split`, `join`, `transpose`, `zip`, `asVector`, …) only
//! composes index functions (Lift's views). A computational primitive (`mapSeq`, `reduceSeq`,
//! `toMem`) is kept deferred until it is either written into an acceptor (a loop storing there)
//! or read (materialised into a temporary first). Layout primitives applied to a deferred value
//! are pushed onto the acceptor when it is written (DPIA's acceptors: `join` on the output side
//! writes row `i`, column `j` to `out[i*m + j]`).

use super::c_ast::{CExpr, EdgeDim, Guard};
use super::ix::Ix;
use crate::core::Expr;
use crate::ir::primitive::Primitive;
use crate::ir::types::Type;
use std::rc::Rc;

/// The translation environment: values of the enclosing lambdas, innermost last.
pub type Bindings<'a> = Rc<Vec<Val<'a>>>;

/// A value during translation, with its Rise type.
#[derive(Clone)]
pub struct Val<'a> {
    /// The Rise type (in the program's size context).
    pub ty: Type,
    /// What it is.
    pub kind: ValKind<'a>,
}

/// The kinds of values.
#[derive(Clone)]
pub enum ValKind<'a> {
    /// A scalar or vector: a pure C expression.
    Scalar(CExpr),
    /// An index (`idx[n]`).
    Index(Ix),
    /// A pair.
    Pair(Rc<Val<'a>>, Rc<Val<'a>>),
    /// An array, read through a view.
    Array(Rc<View<'a>>),
    /// A function.
    Fun(Rc<Func<'a>>),
    /// A computation not yet placed.
    Deferred(Rc<Deferred<'a>>),
}

/// Functions: lambdas with their environment, and partially applied primitives.
pub enum Func<'a> {
    /// `fun x => body` closed over `env`.
    Closure {
        /// The body (expression index 0 is the parameter).
        body: &'a Expr,
        /// The values of the enclosing lambdas.
        env: Bindings<'a>,
    },
    /// A primitive with the size and value arguments given so far.
    Prim {
        /// The primitive.
        prim: Primitive,
        /// Its explicit size arguments.
        nats: Vec<Ix>,
        /// Its value arguments so far.
        args: Vec<Val<'a>>,
    },
}

/// Read views of arrays.
pub enum View<'a> {
    /// Memory: `buf[offset + …]` with the row-major layout of the value's type.
    Mem {
        /// The buffer.
        buf: String,
        /// The element offset of the first scalar.
        offset: Ix,
        /// Whether `buf` is a temporary (64-byte aligned).
        aligned_base: bool,
    },
    /// Element `j` is `inner[start + j]` (rows of `split`, windows of `slide`, `drop`, `take`).
    Offset {
        /// The viewed array.
        inner: Val<'a>,
        /// The first element.
        start: Ix,
    },
    /// `join`: element `i` is `inner[i / m][i % m]`.
    Join {
        /// The viewed array of rows.
        inner: Val<'a>,
        /// The row length.
        m: Ix,
    },
    /// `split k`: element `i` is the row starting at `i * k`.
    Split {
        /// The viewed array.
        inner: Val<'a>,
        /// The row length.
        k: Ix,
    },
    /// `slide sz sp`: element `i` is the window starting at `i * sp`.
    Slide {
        /// The viewed array.
        inner: Val<'a>,
        /// The step.
        sp: Ix,
    },
    /// `transpose`: element `i` is column `i`.
    Transpose {
        /// The viewed matrix.
        inner: Val<'a>,
    },
    /// Column `col` of a matrix: element `j` is `inner[j][col]`.
    Column {
        /// The matrix.
        inner: Val<'a>,
        /// The column.
        col: Ix,
    },
    /// `zip`.
    Zip(Val<'a>, Val<'a>),
    /// A component of `unzip`.
    Proj {
        /// The array of pairs.
        inner: Val<'a>,
        /// The second component (else the first).
        second: bool,
    },
    /// High-level `map` in a read position: element `i` is `f (xs[i])`, computed where read.
    Map {
        /// The function.
        f: Val<'a>,
        /// The array.
        xs: Val<'a>,
    },
    /// `generate f`: element `i` is `f i`.
    Generate {
        /// The function.
        f: Val<'a>,
    },
    /// `asVector w`: element `i` is the vector of `inner[i*w .. i*w + w]`.
    AsVector {
        /// The scalar array.
        inner: Val<'a>,
        /// Lanes.
        w: u64,
    },
    /// `asScalar`: element `i` is lane `i % w` of `inner[i / w]`.
    AsScalar {
        /// The vector array.
        inner: Val<'a>,
        /// Lanes.
        w: u64,
    },
    /// What is written to an acceptor, read back where it was written: element `i` is the
    /// element at the acceptor's path extended by `i`. A reduction accumulates in place in a
    /// destination reached through layouts (a column block of the output) this way.
    Written(Acc),
    /// An array of the caller's read by the edges kernel, which runs at sizes rounded up past
    /// the array's real ones: the element at `path` (indices chosen so far, outermost first)
    /// is read where it is in range and is zero elsewhere.
    Edge {
        /// The array.
        array: Rc<EdgeArray>,
        /// The indices chosen so far.
        path: Vec<Ix>,
    },
    /// `pad l r x`: `x` outside `l .. l + n`, else `inner[i - l]`.
    Pad {
        /// The padded array.
        inner: Val<'a>,
        /// Left padding.
        l: Ix,
        /// Length of `inner`.
        n: Ix,
        /// The padding value.
        value: Val<'a>,
    },
    /// Element `i` of a padded array whose elements are arrays (`pad l r row rows`): `inside`
    /// (the element `i - l` of the padded array) where `l <= i < l + n`, `outside` (the
    /// padding value) elsewhere; chosen element by element as they are read.
    Choose {
        /// The index in the padded array.
        i: Ix,
        /// Left padding.
        l: Ix,
        /// Length of the padded array.
        n: Ix,
        /// The element of the padded array.
        inside: Val<'a>,
        /// The padding value.
        outside: Val<'a>,
    },
}

/// An array as the edges kernel sees it ([`super::edges`]): its type has the rounded-up sizes,
/// but past its real length along some dimensions it holds no memory: reads there give zero,
/// stores there are dropped. The caller's arrays (their memory has the real sizes), and the
/// kernel's copies of them (packed panels, whose padding is then never written).
#[derive(Debug)]
pub struct EdgeArray {
    /// The C buffer.
    pub buf: String,
    /// The length of each dimension in memory, outermost first (the row-major strides): the
    /// real sizes for the caller's arrays, the rounded ones for the kernel's temporaries.
    pub strides: Vec<Ix>,
    /// The real length of each dimension, outermost first.
    pub real: Vec<Ix>,
    /// Whether each dimension's size was rounded up (an index there must be checked).
    pub rounded: Vec<bool>,
    /// Whether the buffer is a temporary (64-byte aligned).
    pub aligned_base: bool,
}

impl EdgeArray {
    /// The element offset and the in-range condition of the scalar at `path` (one index per
    /// dimension); with `lanes` above 1, of a vector whose lanes run along the last dimension
    /// from there.
    pub fn access(&self, path: &[Ix], lanes: u64) -> Option<(Ix, Guard)> {
        if path.len() != self.real.len() {
            return None;
        }
        let mut idx = Ix::constant(0);
        let mut dims = Vec::new();
        for (d, i) in path.iter().enumerate() {
            idx = idx.mul(&self.strides[d]).add(i);
            if self.rounded[d] {
                let innermost = d + 1 == path.len();
                dims.push(EdgeDim {
                    index: i.clone(),
                    bound: self.real[d].clone(),
                    innermost,
                    along_lanes: lanes > 1 && innermost,
                });
            }
        }
        Some((idx, Guard { dims }))
    }
}

/// Layout primitives that can be pushed from a value onto an acceptor.
#[derive(Clone, Debug)]
pub enum Layout {
    /// `join` of rows of `m`.
    Join(Ix),
    /// `split k`.
    Split(Ix),
    /// `transpose`.
    Transpose,
    /// `asScalar` of `w` lanes.
    AsScalar(u64),
    /// `asVector w`.
    AsVector(u64),
}

/// Computations not yet placed.
pub enum Deferred<'a> {
    /// `mapSeq`, `mapSeqUnroll` or `mapPar`.
    Map {
        /// Which one.
        prim: Primitive,
        /// The function.
        f: Val<'a>,
        /// The array.
        xs: Val<'a>,
    },
    /// `reduceSeq` or `reduceSeqUnroll`.
    Reduce {
        /// Which one.
        prim: Primitive,
        /// `(acc, elem) -> acc`.
        f: Val<'a>,
        /// The initial accumulator.
        init: Val<'a>,
        /// The array.
        xs: Val<'a>,
    },
    /// `toMem`.
    ToMem(Val<'a>),
    /// A layout primitive applied to a deferred value, `depth` levels down (`map` nested
    /// `depth` times around it): writing this value is writing `inner` through the layout.
    Layout {
        /// The primitive.
        layout: Layout,
        /// How many `map`s it sits under.
        depth: usize,
        /// The deferred value.
        inner: Val<'a>,
    },
    /// The placeholder argument used to find out whether a function only rearranges its
    /// argument (see `Translator::layout_function`); never written or read.
    Slot,
}

/// The write-side counterpart of a view: where element `path` of a value goes.
#[derive(Clone)]
pub struct Acc {
    /// The transformation chain.
    pub node: Rc<AccNode>,
    /// Indices chosen so far (outermost first; a last index may be a vector lane).
    pub path: Vec<Ix>,
}

/// Acceptor transformations, each rewriting the path for its inner acceptor from position `at`
/// on (the indices before `at` were chosen before the transformation applied).
pub enum AccNode {
    /// Memory with the row-major layout of `ty`, starting at `offset`.
    Mem {
        /// The buffer.
        buf: String,
        /// The type of the value stored there.
        ty: Type,
        /// The element offset.
        offset: Ix,
        /// Whether the buffer is a temporary (64-byte aligned).
        aligned_base: bool,
    },
    /// A scalar or vector local variable.
    Var(String),
    /// The caller's output array in the edges kernel: stores past its real sizes are dropped,
    /// and reads there give zero.
    Edge(Rc<EdgeArray>),
    /// A layout transformation applied at path position `at`.
    Layout {
        /// The acceptor written through.
        inner: Rc<AccNode>,
        /// The transformation of the value (writing `layout(x)` to `inner` is writing `x` here).
        layout: Layout,
        /// The path position it applies from.
        at: usize,
    },
}

impl Acc {
    /// An acceptor for a whole memory region.
    pub fn mem(buf: &str, ty: Type, offset: Ix, aligned_base: bool) -> Acc {
        Acc {
            node: Rc::new(AccNode::Mem {
                buf: buf.to_string(),
                ty,
                offset,
                aligned_base,
            }),
            path: Vec::new(),
        }
    }

    /// An acceptor for a local variable.
    pub fn var(name: &str) -> Acc {
        Acc {
            node: Rc::new(AccNode::Var(name.to_string())),
            path: Vec::new(),
        }
    }

    /// The acceptor of element `i`.
    pub fn elem(&self, i: Ix) -> Acc {
        let mut path = self.path.clone();
        path.push(i);
        Acc {
            node: self.node.clone(),
            path,
        }
    }

    /// The acceptor for `x` such that writing `layout(x)` here is writing `x` there.
    pub fn through(&self, layout: &Layout) -> Acc {
        self.through_at(layout, 0)
    }

    /// The acceptor for `x` such that writing `map^depth layout x` (the layout applied `depth`
    /// levels down) here is writing `x` there.
    pub fn through_at(&self, layout: &Layout, depth: usize) -> Acc {
        Acc {
            node: Rc::new(AccNode::Layout {
                inner: self.node.clone(),
                layout: layout.clone(),
                at: self.path.len() + depth,
            }),
            path: self.path.clone(),
        }
    }
}

/// Rewrites a path through one layout transformation (`None` when the path is too short, i.e.
/// a whole vector is stored where lanes must be addressed one by one).
pub fn rewrite_path(layout: &Layout, at: usize, path: &[Ix]) -> Option<Vec<Ix>> {
    let mut out: Vec<Ix> = path[..at.min(path.len())].to_vec();
    let rest = path.get(at..)?;
    match layout {
        Layout::Join(m) => {
            let [i, j, tail @ ..] = rest else { return None };
            out.push(i.mul(m).add(j));
            out.extend(tail.iter().cloned());
        }
        Layout::Split(k) => {
            let [i, tail @ ..] = rest else { return None };
            out.push(i.div(k));
            out.push(i.rem(k));
            out.extend(tail.iter().cloned());
        }
        Layout::Transpose => {
            let [i, j, tail @ ..] = rest else { return None };
            out.push(j.clone());
            out.push(i.clone());
            out.extend(tail.iter().cloned());
        }
        Layout::AsScalar(w) => {
            let [i, lane, tail @ ..] = rest else {
                return None;
            };
            out.push(i.scale(*w as i64).add(lane));
            out.extend(tail.iter().cloned());
        }
        Layout::AsVector(w) => {
            let [i, tail @ ..] = rest else { return None };
            let w = Ix::constant(*w as i64);
            out.push(i.div(&w));
            out.push(i.rem(&w));
            out.extend(tail.iter().cloned());
        }
    }
    Some(out)
}
