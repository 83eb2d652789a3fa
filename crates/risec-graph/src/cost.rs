//! The cost model: an estimate of each operator's run time on one core, in microseconds.
//!
//! Each operator costs the larger of its arithmetic at a peak rate and its memory traffic at a
//! streaming rate, plus a fixed overhead per operator (a call, a pass over the output, a fork
//! and join of the thread team). Products reach the peak rate only when wide enough: a product
//! whose output has fewer than [`FULL_WIDTH`] columns (channels for a convolution) runs
//! proportionally slower, which is what makes one wide product cheaper than two narrow ones
//! reading the same input (TASO's and TENSAT's reason to merge them). Values computed from
//! weights alone are free: they are computed once, before inference. A part of a `split` is a
//! view (free) when its elements are contiguous, else a copy; `concat` copies.
//!
//! The rates are this project's measurements on its 2-core AVX-512 CI machine (the register-
//! blocked GEMM's ~150 GFLOP/s with one thread, ~20 GB/s for a streaming pass); they are an
//! estimate for ranking graphs, not a prediction of any machine's times.

use crate::lang::{GraphEGraph, Meta, TensorLang};
use egg::{Id, Language};

/// Floating-point operations per microsecond at full width (150 GFLOP/s).
pub const PEAK_FLOP_PER_US: f64 = 150e3;
/// Bytes per microsecond of a streaming pass (20 GB/s).
pub const BYTES_PER_US: f64 = 20e3;
/// Microseconds every operator costs beyond its work.
pub const OVERHEAD_US: f64 = 2.0;
/// The output width from which a product runs at the peak rate.
pub const FULL_WIDTH: f64 = 64.0;

fn size(s: &[usize]) -> f64 {
    s.iter().map(|d| *d as f64).product()
}

/// The estimated cost of `node` in class `class` (µs): its measured time where the e-graph
/// carries measurements for it, else the analytic estimate; `None` for nodes a graph cannot
/// contain (invalid ones, whose operands do not fit).
pub fn node_cost(egraph: &GraphEGraph, class: Id, node: &TensorLang) -> Option<f64> {
    let meta = &egraph[class].data;
    if matches!(meta, Meta::Invalid(_)) {
        return None;
    }
    if let Some(table) = &egraph.analysis.measured {
        if let Some(us) =
            crate::codegen::measure::key(egraph, class, node).and_then(|k| table.get(&k))
        {
            return Some(*us);
        }
    }
    // A part of a split is a pointer into its tensor when its elements are contiguous (nothing
    // outside the split axis, as in rows of a matrix or channels of one image); else a copy.
    if let TensorLang::Split0(pair) | TensorLang::Split1(pair) = node {
        let outer = egraph[*pair].nodes.iter().find_map(|n| match n {
            TensorLang::Split([ax, _, x]) => {
                let ax = egraph[*ax].data.num()? as usize;
                Some(egraph[*x].data.shape()?[..ax].iter().product::<usize>())
            }
            _ => None,
        });
        let copied = outer.is_some_and(|o| o > 1) && !meta.constant();
        let out = meta.shape().map(size).unwrap_or(0.0);
        return Some(if copied {
            2.0 * out * 4.0 / BYTES_PER_US + OVERHEAD_US
        } else {
            0.0
        });
    }
    let shape = |id: &Id| egraph[*id].data.shape().map(size).unwrap_or(0.0);
    let dims = |id: &Id| {
        egraph[*id]
            .data
            .shape()
            .map(|s| s.to_vec())
            .unwrap_or_default()
    };
    op_cost(node, meta, &shape, &dims)
}

/// The estimated cost of one operator given its output's facts and its operands' sizes.
pub fn op_cost(
    node: &TensorLang,
    meta: &Meta,
    size_of: &dyn Fn(&Id) -> f64,
    dims_of: &dyn Fn(&Id) -> Vec<usize>,
) -> Option<f64> {
    use TensorLang as T;
    if matches!(meta, Meta::Invalid(_)) {
        return None;
    }
    let out = meta.shape().map(size).unwrap_or(0.0);
    let free = matches!(
        node,
        T::Num(_)
            | T::Act(_)
            | T::Tensor(_)
            | T::Outputs(_)
            | T::Split(_)
            | T::Split0(_)
            | T::Split1(_)
    );
    if free || meta.constant() {
        return Some(0.0);
    }
    let stream = |elements: f64| elements * 4.0 / BYTES_PER_US;
    let operands: f64 = node.children().iter().map(size_of).sum();
    let work = match node {
        T::Matmul([_, a, b]) => {
            let (da, db) = (dims_of(a), dims_of(b));
            let k = *da.last()? as f64;
            let n = *db.last()? as f64;
            let flops = 2.0 * out * k;
            let rate = PEAK_FLOP_PER_US * (n / FULL_WIDTH).min(1.0);
            (flops / rate).max(stream(out + operands))
        }
        T::Conv2d([_, _, _, x, w]) => {
            let dw = dims_of(w);
            let per_output: f64 = dw[1..].iter().map(|d| *d as f64).product();
            let flops = 2.0 * out * per_output;
            let rate = PEAK_FLOP_PER_US * (dw[0] as f64 / FULL_WIDTH).min(1.0);
            (flops / rate).max(stream(out + size_of(x) + size_of(w)))
        }
        T::MaxPool([k, ..]) | T::AvgPool([k, ..]) => {
            let _ = k;
            stream(out + operands)
        }
        // Exponentials cost about as much as a few passes.
        T::Softmax(_) | T::LayerNorm(_) | T::Tanh(_) | T::Sigmoid(_) => {
            3.0 * stream(out + operands)
        }
        _ => stream(out + operands),
    };
    Some(work + OVERHEAD_US)
}
