//! The e-graph language of tensor graphs and the facts every e-class carries.
//!
//! Operators take their attributes as leading children, as in TASO and TENSAT, so that rules
//! can match and keep them: `(matmul ACT A B)`, `(conv2d STRIDE PAD ACT X W)`,
//! `(concat AXIS A B)`, `(split AXIS AT X)` (a pair, read with `split0` and `split1`),
//! `(maxpool K STRIDE PAD X)`, `(enlarge K W)`. An activation (`none`, `relu`, `tanh`,
//! `sigmoid`) fused into a product is applied to its result. Tensors declared in the file are
//! leaves written `@NAME`; `(outputs …)` holds the graph's results, in order.
//!
//! [`GraphAnalysis`] gives every class its [`Meta`]: the tensor's shape and whether it is
//! *constant* (computed from weights alone, so computed once before inference and free at run
//! time), or a number, an activation, a pair of `split`.

use crate::shape::infer;
use egg::{define_language, Analysis, DidMerge, EGraph, Id, Symbol};
use rustc_hash::FxHashMap;
use std::fmt;
use std::str::FromStr;

/// An activation fused into a product, or applied alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Act {
    /// None.
    None,
    /// `max(x, 0)`.
    Relu,
    /// The hyperbolic tangent.
    Tanh,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
}

impl Act {
    /// Its name in `.graph` files (`act=relu`) and in patterns.
    pub fn name(self) -> &'static str {
        match self {
            Act::None => "none",
            Act::Relu => "relu",
            Act::Tanh => "tanh",
            Act::Sigmoid => "sigmoid",
        }
    }

    /// Every activation.
    pub const ALL: [Act; 4] = [Act::None, Act::Relu, Act::Tanh, Act::Sigmoid];

    /// Applies it to one value.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Act::None => x,
            Act::Relu => x.max(0.0),
            Act::Tanh => x.tanh(),
            Act::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        }
    }
}

impl FromStr for Act {
    type Err = ();
    fn from_str(s: &str) -> Result<Act, ()> {
        Act::ALL.into_iter().find(|a| a.name() == s).ok_or(())
    }
}

impl fmt::Display for Act {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A tensor declared in the file (`input` or `weight`), written `@NAME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TensorName(pub Symbol);

impl FromStr for TensorName {
    type Err = ();
    fn from_str(s: &str) -> Result<TensorName, ()> {
        s.strip_prefix('@')
            .filter(|n| !n.is_empty())
            .map(|n| TensorName(Symbol::from(n)))
            .ok_or(())
    }
}

impl fmt::Display for TensorName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.0)
    }
}

define_language! {
    /// The nodes of a tensor graph (see the module documentation).
    pub enum TensorLang {
        "matmul" = Matmul([Id; 3]),
        "conv2d" = Conv2d([Id; 5]),
        "add" = Add([Id; 2]),
        "mul" = Mul([Id; 2]),
        "relu" = Relu(Id),
        "tanh" = Tanh(Id),
        "sigmoid" = Sigmoid(Id),
        "softmax" = Softmax(Id),
        "layernorm" = LayerNorm(Id),
        "transpose" = Transpose(Id),
        "maxpool" = MaxPool([Id; 4]),
        "avgpool" = AvgPool([Id; 4]),
        "concat" = Concat([Id; 3]),
        "split" = Split([Id; 3]),
        "split0" = Split0(Id),
        "split1" = Split1(Id),
        "enlarge" = Enlarge([Id; 2]),
        "outputs" = Outputs(Box<[Id]>),
        Num(i64),
        Act(Act),
        Tensor(TensorName),
    }
}

/// What an e-class is.
#[derive(Clone, Debug, PartialEq)]
pub enum Meta {
    /// A tensor of this shape; `constant` when it is computed from weights alone.
    Tensor {
        /// The dimensions.
        shape: Vec<usize>,
        /// Computed from weights alone.
        constant: bool,
    },
    /// The two parts of a `split`.
    Pair {
        /// The first part's shape.
        first: Vec<usize>,
        /// The second part's shape.
        second: Vec<usize>,
        /// Computed from weights alone.
        constant: bool,
    },
    /// A number (an attribute).
    Num(i64),
    /// An activation (an attribute).
    Act(Act),
    /// The graph's results.
    Outputs,
    /// A node whose operands do not fit it: never made by the checked front end or by a rule
    /// whose condition holds; kept so that the analysis never panics.
    Invalid(String),
}

impl Meta {
    /// The shape, for a tensor.
    pub fn shape(&self) -> Option<&[usize]> {
        match self {
            Meta::Tensor { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// Whether it is computed from weights alone (numbers and activations are).
    pub fn constant(&self) -> bool {
        match self {
            Meta::Tensor { constant, .. } | Meta::Pair { constant, .. } => *constant,
            Meta::Num(_) | Meta::Act(_) => true,
            Meta::Outputs | Meta::Invalid(_) => false,
        }
    }

    /// The number, for a number.
    pub fn num(&self) -> Option<i64> {
        match self {
            Meta::Num(n) => Some(*n),
            _ => None,
        }
    }

    /// The activation, for an activation.
    pub fn act(&self) -> Option<Act> {
        match self {
            Meta::Act(a) => Some(*a),
            _ => None,
        }
    }
}

/// A declared tensor: its shape, and whether it is a weight.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// The dimensions.
    pub shape: Vec<usize>,
    /// Known before inference.
    pub weight: bool,
}

/// The declared tensors, by name.
pub type Decls = FxHashMap<Symbol, Decl>;

/// The analysis: the declared tensors, from which every class's [`Meta`] follows; and the
/// measured operator times when the measured cost model is in use.
#[derive(Clone, Debug, Default)]
pub struct GraphAnalysis {
    /// The graph's inputs and weights.
    pub decls: Decls,
    /// Measured times by operator key (`crate::codegen::measure`); `None`: the analytic model.
    pub measured: Option<std::rc::Rc<crate::codegen::measure::CostTable>>,
}

/// The e-graph of tensor graphs.
pub type GraphEGraph = EGraph<TensorLang, GraphAnalysis>;

impl Analysis<TensorLang> for GraphAnalysis {
    type Data = Meta;

    fn make(egraph: &mut GraphEGraph, enode: &TensorLang, _id: Id) -> Meta {
        let decls = &egraph.analysis.decls;
        infer(enode, &|id| &egraph[id].data, decls).unwrap_or_else(Meta::Invalid)
    }

    fn merge(&mut self, a: &mut Meta, b: Meta) -> DidMerge {
        match (&mut *a, b) {
            (Meta::Invalid(_), b) if !matches!(b, Meta::Invalid(_)) => {
                *a = b;
                DidMerge(true, false)
            }
            (_, Meta::Invalid(_)) => DidMerge(false, true),
            (
                Meta::Tensor { constant, .. } | Meta::Pair { constant, .. },
                Meta::Tensor { constant: c, .. } | Meta::Pair { constant: c, .. },
            ) => {
                // Equal values: one computed from weights alone makes both so.
                let before = *constant;
                *constant |= c;
                DidMerge(*constant != before, c != *constant)
            }
            _ => DidMerge(false, false),
        }
    }
}
