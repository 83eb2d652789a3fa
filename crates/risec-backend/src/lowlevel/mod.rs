//! Lowering to low-level Rise: the last, automatic step after the guide steps.
//!
//! Every value the program computes must say how it is computed. Walking the term from the
//! result inwards, a position is *written* when its value is stored: the program's result, the
//! argument of `toMem`/`let`, the elements written by a `mapSeq`/`mapPar` loop, the initial value
//! and the new accumulator of a reduction, and the arguments of the data-layout primitives seen
//! from the output side (`join`, `split`, `transpose`, `asScalar`, `asVector`, pairs). There a
//! high-level `map` becomes a sequential loop (`mapSeq`); a `map` that is only *read* stays a
//! view, computed element by element where it is consumed (no copy). Every `reduce` becomes
//! `reduceSeq`. Parallel or unrolled loops a sketch asked for (`mapPar`, `reduceSeqUnroll`) are
//! kept. Types do not change: the low-level primitives have the high-level ones' types.

use crate::core::normalize::program_normal;
use crate::core::{Expr, ExprKind, TypedProgram};
use crate::ir::primitive::Primitive;
use crate::support::budget::{Budget, Exhausted, Stage};

mod materialise;
mod nest;
mod restructure;

pub use materialise::Materialised;

/// Lowers a program (see the module documentation); the result has the same type. Before the
/// positions are decided, `let`s are hoisted and maps fused into the maps that write them
/// (`restructure`).
pub fn lower(p: &TypedProgram) -> TypedProgram {
    match lower_within(p, &Budget::new(std::time::Duration::MAX, u64::MAX)) {
        Ok(lowered) => lowered,
        Err(e) => unreachable!("an unlimited budget ran out: {e}"),
    }
}

/// [`lower`] within the run's `budget`, checked before every round of restructuring (each
/// near-linear in the program's size).
pub fn lower_within(p: &TypedProgram, budget: &Budget) -> Result<TypedProgram, Exhausted> {
    lower_reporting(p, budget).map(|(program, _)| program)
}

/// What the lowering decided beyond the defaults, for `--stats`: the values it stores once
/// instead of recomputing them in a loop, the reductions over joined arrays it folds row by
/// row, and the reductions it unrolls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoweringReport {
    /// Loop-invariant values stored before their loop (`materialise`).
    pub stored: Vec<Materialised>,
    /// The element counts of the reductions unrolled (`reduce` → `reduceSeqUnroll`).
    pub unrolled: Vec<u64>,
    /// Reductions over a joined array folded row by row (`nest`).
    pub nested: usize,
}

impl LoweringReport {
    /// One line per decision, as `--stats` lists them (types with `program`'s size names).
    pub fn notes(&self, program: &TypedProgram) -> Vec<String> {
        let mut notes: Vec<String> = self
            .stored
            .iter()
            .map(|m| {
                format!(
                    "stored once: a value of type {} that a `{}` loop recomputed on every iteration",
                    crate::core::print::program_body_type_to_source(program, &m.ty),
                    m.loop_name
                )
            })
            .collect();
        if self.nested > 0 {
            notes.push(format!(
                "folded {} reduction(s) over joined arrays row by row",
                self.nested
            ));
        }
        if !self.unrolled.is_empty() {
            let sizes: Vec<String> = self.unrolled.iter().map(u64::to_string).collect();
            notes.push(format!(
                "unrolled {} reduction(s) of a constant size ({} elements)",
                self.unrolled.len(),
                sizes.join(", ")
            ));
        }
        notes
    }
}

/// [`lower_within`], with what the lowering decided.
pub fn lower_reporting(
    p: &TypedProgram,
    budget: &Budget,
) -> Result<(TypedProgram, LoweringReport), Exhausted> {
    let mut report = LoweringReport::default();
    let normal = |t: &Expr| program_normal(t).unwrap_or_else(|_| t.clone());
    budget.check(Stage::Lowering)?;
    // A program reaching lowering without some of its parameters (eta-reduced by a search)
    // gets them back first: lowering, printing and C name them.
    let restored =
        crate::core::normalize::restore_params(&p.term, p.size_params.len(), p.value_params.len());
    let mut t = normal(&restored);
    // Fusion exposes new redexes and new fusion opportunities; a few rounds reach a fixpoint.
    for _ in 0..8 {
        budget.check(Stage::Lowering)?;
        let next = normal(&on_body(&t, &mut |b| {
            let simple =
                nest::nest_joined_reductions(&restructure::simplify(b), &mut report.nested);
            let stored = materialise::materialise_invariants(&simple, &mut report.stored);
            restructure::fuse_into_writers(&restructure::hoist_lets(&stored), true)
        }));
        if next == t {
            break;
        }
        t = next;
    }
    budget.check(Stage::Lowering)?;
    let t = on_body(&t, &mut restructure::hoist_lets);
    let mut unrolling = Unrolling::default();
    let term = lower_program(&t, &mut unrolling);
    report.unrolled = unrolling.extents;
    Ok((TypedProgram { term, ..p.clone() }, report))
}

/// Applies `f` to the body of a program term (inside its size and value parameters).
fn on_body(e: &Expr, f: &mut dyn FnMut(&Expr) -> Expr) -> Expr {
    match &e.kind {
        ExprKind::NatLambda(b) => rebuild(e, ExprKind::NatLambda(Box::new(on_body(b, f)))),
        ExprKind::Lambda(b) => rebuild(e, ExprKind::Lambda(Box::new(on_body(b, f)))),
        _ => f(e),
    }
}

/// Whether a term still has high-level computations the C backend cannot take (`reduce`, or a
/// `map` in a written position); lists them by name.
pub fn remaining_high_level(e: &Expr) -> Vec<&'static str> {
    let mut out = Vec::new();
    walk_prims(e, &mut |p| {
        if p == Primitive::Reduce && !out.contains(&"reduce") {
            out.push("reduce");
        }
    });
    out
}

fn walk_prims(e: &Expr, f: &mut dyn FnMut(Primitive)) {
    match &e.kind {
        ExprKind::Prim(p) => f(*p),
        ExprKind::Lambda(b) | ExprKind::NatLambda(b) | ExprKind::NatApp(b, _) => walk_prims(b, f),
        ExprKind::App(a, b) => {
            walk_prims(a, f);
            walk_prims(b, f);
        }
        _ => {}
    }
}

fn lower_program(e: &Expr, unrolling: &mut Unrolling) -> Expr {
    match &e.kind {
        ExprKind::NatLambda(b) => rebuild(
            e,
            ExprKind::NatLambda(Box::new(lower_program(b, unrolling))),
        ),
        ExprKind::Lambda(b) => rebuild(e, ExprKind::Lambda(Box::new(lower_program(b, unrolling)))),
        _ => lower_expr(e, true, unrolling),
    }
}

fn rebuild(e: &Expr, kind: ExprKind) -> Expr {
    Expr::new(kind, e.ty.clone())
}

/// The head of an application spine and its arguments (nat arguments skipped but kept).
fn spine(e: &Expr) -> (&Expr, Vec<&Expr>) {
    let mut args = Vec::new();
    let mut head = e;
    loop {
        match &head.kind {
            ExprKind::App(f, a) => {
                args.push(&**a);
                head = f;
            }
            ExprKind::NatApp(f, _) => head = f,
            _ => break,
        }
    }
    args.reverse();
    (head, args)
}

/// How each value argument of the application spine `e` is treated: written (`true`) or read.
/// `written` says whether `e`'s own value is stored.
pub(crate) fn argument_modes(e: &Expr, written: bool) -> Vec<bool> {
    let (head, args) = spine(e);
    match head.kind {
        // A map of a function that only rearranges (`map transpose`) computes nothing: its
        // array is written exactly when the map's result is.
        // Over a map that only selects neighbourhoods or rearranges, the map keeps its own loop
        // and reads that map's elements where they are: passed on, the write would be made by
        // the loop of the map it reads (im2col packed by a loop over the channels, scattered and
        // sequential, instead of the sketch's parallel loop over the rows of output pixels).
        ExprKind::Prim(
            Primitive::Map | Primitive::MapSeq | Primitive::MapPar | Primitive::MapSeqUnroll,
        ) => vec![
            written || head.kind != ExprKind::Prim(Primitive::Map),
            written
                && args.first().is_some_and(|f| is_layout_function(f))
                && !args.get(1).is_some_and(|xs| reads_a_map_of_views(xs)),
        ],
        ExprKind::Prim(Primitive::Reduce | Primitive::ReduceSeq | Primitive::ReduceSeqUnroll) => {
            vec![true, true, false]
        }
        ExprKind::Prim(Primitive::ToMem) => vec![true],
        ExprKind::Prim(Primitive::Let) => vec![true, written],
        ExprKind::Prim(p) if is_layout_primitive(p) => vec![written],
        ExprKind::Prim(Primitive::MakePair | Primitive::Zip) => vec![written, written],
        _ => Vec::new(),
    }
}

/// Whether `xs`, under layout primitives, is a `map` whose function only selects neighbourhoods
/// and rearranges (`slide` and layout primitives) over an array that is itself such a view of
/// a variable: an array of views that reading element by element computes nothing. (A map of
/// `transpose` over a map that computes is not: its elements would be written through it.)
fn reads_a_map_of_views(xs: &Expr) -> bool {
    let (head, args) = spine(xs);
    match head.kind {
        ExprKind::Prim(p) if is_layout_primitive(p) => {
            args.last().is_some_and(|a| reads_a_map_of_views(a))
        }
        ExprKind::Prim(Primitive::Map) => {
            args.len() == 2 && is_view_function(args[0]) && is_view_of_variable(args[1])
        }
        _ => false,
    }
}

/// Whether `e` is a variable seen through layout primitives, `slide` and maps of view
/// functions: index arithmetic on memory, nothing computed.
fn is_view_of_variable(e: &Expr) -> bool {
    let (head, args) = spine(e);
    match head.kind {
        ExprKind::Var(_) => args.is_empty(),
        ExprKind::Prim(p) if is_layout_primitive(p) || p == Primitive::Slide => {
            args.last().is_some_and(|a| is_view_of_variable(a))
        }
        ExprKind::Prim(Primitive::Map) => {
            args.len() == 2 && is_view_function(args[0]) && is_view_of_variable(args[1])
        }
        _ => false,
    }
}

/// Whether `f` only selects and rearranges: a layout function, or one built with `slide` as
/// well (its reads are index arithmetic).
fn is_view_function(f: &Expr) -> bool {
    only_rearranges(f, true)
}

/// The primitives that only rearrange their one data argument.
fn is_layout_primitive(p: Primitive) -> bool {
    matches!(
        p,
        Primitive::Join
            | Primitive::Split
            | Primitive::Transpose
            | Primitive::AsScalar
            | Primitive::AsVector
            | Primitive::AsVectorAligned
    )
}

/// Whether `f` only rearranges its argument: a composition of `join`, `split`, `transpose`,
/// `asScalar`, `asVector` and maps of such functions (`map transpose`), eta-reduced or as a
/// lambda applying them to its parameter.
pub(crate) fn is_layout_function(f: &Expr) -> bool {
    only_rearranges(f, false)
}

/// [`is_layout_function`], and with `slides` also taking `slide` (a view that selects
/// neighbourhoods) as rearranging.
fn only_rearranges(f: &Expr, slides: bool) -> bool {
    /// Whether `e` applies such functions to the function's parameter (De Bruijn index 0).
    fn applies_to_param(e: &Expr, slides: bool) -> bool {
        match &e.kind {
            ExprKind::Var(0) => true,
            ExprKind::App(g, a) => only_rearranges(g, slides) && applies_to_param(a, slides),
            _ => false,
        }
    }
    match &f.kind {
        ExprKind::Lambda(body) => applies_to_param(body, slides),
        _ => {
            let (head, args) = spine(f);
            match head.kind {
                ExprKind::Prim(p) if is_layout_primitive(p) => args.is_empty(),
                ExprKind::Prim(Primitive::Slide) => slides,
                ExprKind::Prim(
                    Primitive::Map
                    | Primitive::MapSeq
                    | Primitive::MapPar
                    | Primitive::MapSeqUnroll,
                ) => args.len() == 1 && only_rearranges(args[0], slides),
                _ => false,
            }
        }
    }
}

/// Rebuilds the application spine `e` with each value argument `i` replaced by `f(i, arg)`
/// (size arguments and the head are kept; a head that is not a primitive is passed to `f` as
/// argument `usize::MAX`).
pub(crate) fn map_arguments(e: &Expr, f: &mut dyn FnMut(usize, &Expr) -> Expr) -> Expr {
    fn go(e: &Expr, f: &mut dyn FnMut(usize, &Expr) -> Expr, next: &mut usize) -> Expr {
        crate::support::stack::guarded(|| go_unguarded(e, f, next))
    }

    fn go_unguarded(e: &Expr, f: &mut dyn FnMut(usize, &Expr) -> Expr, next: &mut usize) -> Expr {
        match &e.kind {
            ExprKind::App(g, a) => {
                let g2 = go(g, f, next);
                let i = *next;
                *next += 1;
                rebuild(e, ExprKind::App(Box::new(g2), Box::new(f(i, a))))
            }
            ExprKind::NatApp(g, n) => {
                let g2 = go(g, f, next);
                rebuild(e, ExprKind::NatApp(Box::new(g2), n.clone()))
            }
            ExprKind::Prim(_) => e.clone(),
            _ => f(usize::MAX, e),
        }
    }
    go(e, f, &mut 0)
}

/// Lowers `e`; `written` says whether its value is stored (see the module documentation).
fn lower_expr(e: &Expr, written: bool, unrolling: &mut Unrolling) -> Expr {
    crate::support::stack::guarded(|| lower_expr_unguarded(e, written, unrolling))
}

fn lower_expr_unguarded(e: &Expr, written: bool, unrolling: &mut Unrolling) -> Expr {
    match &e.kind {
        ExprKind::Lambda(b) => rebuild(
            e,
            ExprKind::Lambda(Box::new(lower_expr(b, written, unrolling))),
        ),
        ExprKind::NatLambda(b) => rebuild(
            e,
            ExprKind::NatLambda(Box::new(lower_expr(b, written, unrolling))),
        ),
        ExprKind::App(..) | ExprKind::NatApp(..) => {
            let modes = argument_modes(e, written);
            let (head, _) = spine(e);
            let new_prim = match head.kind {
                ExprKind::Prim(Primitive::Map) if written => Some(Primitive::MapSeq),
                ExprKind::Prim(Primitive::Reduce) if unrolling.admits(e) => {
                    Some(Primitive::ReduceSeqUnroll)
                }
                ExprKind::Prim(Primitive::Reduce) => Some(Primitive::ReduceSeq),
                _ => None,
            };
            // The arguments of an unrolled loop are emitted once per iteration.
            let copies = match new_prim.or(match head.kind {
                ExprKind::Prim(p) => Some(p),
                _ => None,
            }) {
                Some(Primitive::MapSeqUnroll | Primitive::ReduceSeqUnroll) => {
                    unrolled_extent(e).unwrap_or(1)
                }
                _ => 1,
            };
            let outer = unrolling.enclosing;
            unrolling.enclosing = outer.saturating_mul(copies);
            let mut out = map_arguments(e, &mut |i, a| {
                if i == usize::MAX {
                    lower_expr(a, false, unrolling)
                } else {
                    lower_expr(a, modes.get(i).copied().unwrap_or(false), unrolling)
                }
            });
            unrolling.enclosing = outer;
            if let Some(p) = new_prim {
                replace_head(&mut out, p);
            }
            out
        }
        _ => e.clone(),
    }
}

/// The most elements a `reduce` the lowering unrolls may fold: a window of a stencil, a short
/// dot product.
const UNROLL_EXTENT: u64 = 64;

/// The most copies of one reduction's body the lowering's unrolling may write (its extent
/// times the iterations of the unrolled loops around it).
const UNROLL_COPIES: u64 = 256;

/// The most loop iterations the lowering unrolls in a program, a quarter of what the C
/// backend unrolls in all (`translate::MAX_UNROLLED`), so that a sketch's own unrolled
/// loops keep their room.
const UNROLL_TOTAL: u64 = 4096;

/// Which reductions the lowering unrolls (`reduce` → `reduceSeqUnroll` rather than
/// `reduceSeq`): those of a constant, small number of elements whose body is straight-line
/// code (no loop, reduction or temporary inside), such as a stencil's window times its
/// weights. Unrolled, every tap is a separate term with a constant index: constant weights
/// become literals in the C (zero weights vanish: `c_fold`), and the C compiler vectorises the
/// loop around the window instead of running a short inner loop per output element (a 5 × 5
/// window: 17× faster).
#[derive(Debug, Default)]
struct Unrolling {
    /// The iterations of the unrolled loops around the current term (their product; 0 is
    /// read as 1).
    enclosing: u64,
    /// The iterations unrolled so far by this lowering.
    total: u64,
    /// The element count of each reduction unrolled.
    extents: Vec<u64>,
}

impl Unrolling {
    /// Whether the `reduce` application `e` is unrolled; records its iterations when it is.
    fn admits(&mut self, e: &Expr) -> bool {
        let (_, args) = spine(e);
        // The accumulator's type (a scalar or a vector: a local variable in the C).
        let accumulator = loop_operand_types(e).and_then(|t| t.get(1).cloned());
        let scalar_result = accumulator.is_some_and(|t| {
            matches!(
                t.get(),
                crate::ir::types::TypeNode::Scalar(_) | crate::ir::types::TypeNode::Vector(..)
            )
        });
        let Some(n) = unrolled_extent(e).filter(|n| (1..=UNROLL_EXTENT).contains(n)) else {
            return false;
        };
        let copies = n.saturating_mul(self.enclosing.max(1));
        if !scalar_result
            || !args.iter().all(|a| is_straight_line(a))
            || copies > UNROLL_COPIES
            || self.total + copies > UNROLL_TOTAL
        {
            return false;
        }
        self.total += copies;
        self.extents.push(n);
        true
    }
}

/// The constant number of iterations of the loop primitive applied in `e` (a map's or a
/// reduction's array length): the array argument's, or where the application leaves it out
/// (`reduce add 0.0`, a function of the array), the function's parameter's.
fn unrolled_extent(e: &Expr) -> Option<u64> {
    let array = loop_operand_types(e)?.pop()?;
    match array.get() {
        crate::ir::types::TypeNode::Array(n, _) => {
            n.as_integer().and_then(|k| u64::try_from(k).ok())
        }
        _ => None,
    }
}

/// The types of all value operands of the loop primitive applied in `e`, in order (`f, xs`
/// for a map, `f, init, xs` for a reduction), read off the arguments given and, for those a
/// partial application leaves out, off `e`'s function type.
fn loop_operand_types(e: &Expr) -> Option<Vec<crate::ir::types::Type>> {
    let (head, args) = spine(e);
    let arity = match head.kind {
        ExprKind::Prim(Primitive::Reduce | Primitive::ReduceSeq | Primitive::ReduceSeqUnroll) => 3,
        _ => 2,
    };
    if args.len() > arity {
        return None;
    }
    let mut types: Vec<crate::ir::types::Type> = args.iter().map(|a| a.ty.clone()).collect();
    let mut rest = e.ty.clone();
    while types.len() < arity {
        let crate::ir::types::TypeNode::Fun(param, result) = rest.get() else {
            return None;
        };
        types.push(param.clone());
        let next = result.clone();
        rest = next;
    }
    Some(types)
}

/// Whether `e` computes without loops, reductions or temporaries of its own (views, arithmetic
/// and math only): its code is a single expression per element.
fn is_straight_line(e: &Expr) -> bool {
    let mut straight = true;
    walk_prims(e, &mut |p| {
        straight &= !matches!(
            p,
            Primitive::Reduce
                | Primitive::ReduceSeq
                | Primitive::ReduceSeqUnroll
                | Primitive::MapSeq
                | Primitive::MapSeqUnroll
                | Primitive::MapPar
                | Primitive::ToMem
                | Primitive::Let
        );
    });
    straight
}

/// Replaces the head primitive of the spine `e` by `p` (of the same type), in place: the
/// arguments are not copied.
fn replace_head(e: &mut Expr, p: Primitive) {
    let mut head = e;
    loop {
        match &mut head.kind {
            ExprKind::App(g, _) | ExprKind::NatApp(g, _) => head = g,
            ExprKind::Prim(q) => {
                *q = p;
                return;
            }
            _ => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::SourceFile;

    fn lowered(src: &str) -> String {
        let p =
            crate::frontend::load::compile_source(&SourceFile::new("t.rise", src), None).unwrap();
        crate::core::print::program_to_source(&lower(&p))
    }

    #[test]
    fn written_maps_become_loops_and_absorb_the_maps_they_read() {
        let out = lowered(
            "def f {n : nat} (xs : n.f32) (ys : n.f32) : n.f32 =\n\
             map (fun x => x * 2.0) (zip xs ys |> map (fun p => fst p + snd p))",
        );
        assert_eq!(out.matches("mapSeq").count(), 1, "{out}");
        assert!(!out.contains("map ("), "{out}");
    }

    #[test]
    fn maps_read_by_a_reduction_stay_views() {
        let out = lowered(
            "def f {n : nat} (xs : n.f32) : f32 = xs |> map (fun x => x * 2.0) |> reduce (+) 0.0",
        );
        assert!(out.contains("map (") && !out.contains("mapSeq"), "{out}");
    }

    #[test]
    fn a_map_that_only_rearranges_passes_the_write_position_to_its_array() {
        // The inner maps are written through `map join` and `transpose`, so they become loops.
        let out = lowered(
            "def f {n : nat} (xs : n.4.8.f32) : 4.(n*8).f32 =\n\
             xs |> map (fun x => map (map (fun v => v * 2.0)) x) |> transpose |> map join",
        );
        assert_eq!(out.matches("mapSeq").count(), 3, "{out}");
        assert!(!out.contains("map ("), "{out}");
    }

    /// Copying neighbourhoods (im2col): the loop over the rearranged rows stays a loop, and the
    /// map of windows it reads stays a view, rather than the copy being made by a loop over the
    /// windows' rows writing through the transposes.
    #[test]
    fn a_rearranging_map_over_a_map_of_windows_keeps_its_loop() {
        let out = lowered(
            "def f {n : nat} (xs : (n+2).f32) : 3.n.f32 =\n\
             xs |> slide 3 1 |> map (fun v => v) |> transpose |> map (fun r => r)",
        );
        assert!(out.contains("slide 3 1 |> map"), "{out}");
        assert_eq!(out.matches("mapSeq").count(), 1, "{out}");
        // Over a map that computes, the write is passed on as before.
        let out = lowered(
            "def f {n : nat} (xs : n.4.f32) : 4.n.f32 =\n\
             xs |> map (map (fun v => v * 2.0)) |> map (fun r => r) |> transpose |> map (fun r => r)",
        );
        assert!(!out.contains("map ("), "{out}");
    }

    #[test]
    fn lets_move_out_of_loops() {
        let out = lowered(
            "def f {n m : nat} (xs : n.f32) (ys : m.f32) : n.m.f32 =\n\
             xs |> map (fun x => let t = toMem (map (fun y => y + 1.0) ys) in map (fun z => x * z) t)",
        );
        assert!(
            out.trim_start().starts_with("def f") && out.contains("=\n  let "),
            "{out}"
        );
    }

    #[test]
    fn small_constant_windows_are_unrolled_and_other_reductions_are_not() {
        let window = lowered(
            "def f {n : nat} (xs : (n+4).f32) : n.f32 =\n\
             xs |> slide 5 1 |> map (fun w => w |> reduce (+) 0.0)",
        );
        assert!(window.contains("reduceSeqUnroll"), "{window}");
        let long = lowered("def f {n : nat} (xs : n.f32) : f32 = xs |> reduce (+) 0.0");
        assert!(!long.contains("Unroll"), "{long}");
        let too_long = lowered("def f (xs : 65.f32) : f32 = xs |> reduce (+) 0.0");
        assert!(!too_long.contains("Unroll"), "{too_long}");
        // A body with a loop of its own (a reduction per element) stays a loop.
        let nested = lowered(
            "def f {n : nat} (xs : 4.n.f32) : f32 =\n\
             xs |> map (fun r => r |> reduce (+) 0.0) |> reduce (+) 0.0",
        );
        assert!(!nested.contains("Unroll"), "{nested}");
        // An array accumulator is a loop the C backend keeps.
        let arrays = lowered(
            "def f {n : nat} (xs : 4.n.f32) : n.f32 =\n\
             xs |> reduce (fun a r => zip a r |> map (fun p => fst p + snd p)) (generate (fun (i : idx[n]) => 0.0))",
        );
        assert!(!arrays.contains("Unroll"), "{arrays}");
    }

    #[test]
    fn unrolling_stops_at_its_budget() {
        // 65 sums of 64 elements each: the first 64 fill the budget of 4096 unrolled
        // iterations; the 65th stays a loop.
        let mut src = String::from("def f (xs : 64.f32) : f32 =\n");
        for i in 0..65 {
            src.push_str(&format!(
                "  let s{i} = xs |> map (fun x => x * {i}.0) |> reduce (+) 0.0 in\n"
            ));
        }
        let total: Vec<String> = (0..65).map(|i| format!("s{i}")).collect();
        src.push_str(&format!("  {}", total.join(" + ")));
        let out = lowered(&src);
        assert_eq!(out.matches("reduceSeqUnroll").count(), 64, "{out}");
        assert_eq!(out.matches("reduceSeq ").count(), 1, "{out}");
    }

    #[test]
    fn reductions_become_sequential() {
        let out = lowered(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/matmul.rise"
        )));
        assert!(!out.contains("reduce ("), "{out}");
        assert!(out.contains("reduceSeq"), "{out}");
        assert_eq!(out.matches("mapSeq").count(), 2, "{out}");
        assert!(remaining_high_level(
            &lower(
                &crate::frontend::load::compile_source(
                    &SourceFile::new(
                        "m.rise",
                        include_str!(concat!(
                            env!("CARGO_MANIFEST_DIR"),
                            "/../..",
                            "/examples/matmul.rise"
                        ))
                    ),
                    None
                )
                .unwrap()
            )
            .term
        )
        .is_empty());
    }
}
