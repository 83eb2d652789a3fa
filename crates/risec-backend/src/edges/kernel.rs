//! The edges kernel: the program translated once more, at the sizes rounded up to the tiles'
//! multiples, reading and writing the caller's arrays in place at their real sizes.
//!
//! It computes what the kernel computes on zero-padded copies of the inputs (the rounding of
//! [`super::copies`]), without the copies: an input element past the real sizes reads as zero
//! (a checked load), an output element past them is not stored (a checked store), and a read
//! of the output there gives zero ([`super::positionwise`] proves that no stored value depends
//! on such a read). The program's own copies of the inputs (packed panels) are checked arrays
//! too ([`super::extents`]). Then:
//!
//! * the loop iterations that do nothing are skipped ([`super::trim`]): those that only write
//!   past the real sizes (a block of 24 rows with one real row computes one panel of 6 rows,
//!   not four), and those of a reduction over zero padding (the KC loop of the last block of
//!   `k` stops at `k`); the checks those bounds imply are dropped;
//! * loop bodies whose accesses are all in range run a copy without checks
//!   ([`super::unswitch`]).
//!
//! What remains of the rounding is the work inside partial register tiles. The checks cost
//! little where they sit outside the hot loops (packing the inputs, filling and emptying a
//! register tile); an input read inside a reduction loop is checked on every iteration, so such
//! kernels keep the copies ([`build`] says why).

use super::{dims, positionwise, sizes_named, trim, unswitch, Plan};
use crate::body::{self, Entry, Setting, Translated};
use crate::c_ast::{LoopOrigin, Stmt};
use crate::core::TypedProgram;
use crate::ir::primitive::Primitive;
use crate::ir::types::TypeNode;
use crate::names::c_identifier;
use crate::translate::SizeBinding;
use crate::view::EdgeArray;
use std::rc::Rc;

/// The edges kernel, translated.
pub struct EdgesKernel {
    /// Its body.
    pub translated: Translated,
    /// The lines at its entry: sizes past `INT_MAX` when rounded up refused, then the rounded
    /// sizes computed.
    pub prelude: Vec<String>,
    /// How many loops stop early at the real sizes.
    pub trimmed_loops: usize,
}

/// What [`build`] needs to know of the function.
pub struct Context<'a> {
    /// The size parameters' C names.
    pub size_names: &'a [String],
    /// The value parameters' C names.
    pub param_names: &'a [String],
    /// Names no local may take.
    pub reserved: &'a [String],
    /// The rounding.
    pub plan: &'a Plan,
    /// Compute `f32` scalars in `double`.
    pub wide_scalars: bool,
}

/// Translates the edges kernel, or says why the function rounds up on copies instead.
pub fn build(program: &TypedProgram, entry: &Entry, cx: &Context) -> Result<EdgesKernel, String> {
    let mut reserved: Vec<String> = cx.reserved.to_vec();
    let mut prelude = Vec::new();
    let mut too_large = Vec::new();
    let mut rounded_names = Vec::new();
    for (n, m) in cx.size_names.iter().zip(&cx.plan.multiples) {
        match m {
            Some(m) => {
                let up = c_identifier(&format!("{n}_up"), &|c| reserved.iter().any(|r| r == c));
                reserved.push(up.clone());
                too_large.push(format!("{n} > INT_MAX - {}", m - 1));
                prelude.push(format!(
                    "    const int {up} = ({n} + {}) / {m} * {m};",
                    m - 1
                ));
                rounded_names.push(up);
            }
            None => rounded_names.push(n.clone()),
        }
    }
    prelude.insert(0, format!("    if ({}) return 3;", too_large.join(" || ")));
    let given = sizes_named(cx.size_names, &program.facts);
    let rounded = sizes_named(&rounded_names, &program.facts);
    // The caller's arrays whose sizes are rounded up along some dimension.
    let edge_array = |buf: &str, ty: &crate::ir::types::Type| -> Result<_, String> {
        if !matches!(ty.get(), TypeNode::Array(..)) {
            return Ok(None);
        }
        let real = dims(ty, &given).map_err(|e| e.message)?;
        let up = dims(ty, &rounded).map_err(|e| e.message)?;
        let flags: Vec<bool> = real.iter().zip(&up).map(|(r, u)| r != u).collect();
        Ok(flags.iter().any(|f| *f).then(|| {
            Rc::new(EdgeArray {
                buf: buf.to_string(),
                strides: real.clone(),
                real,
                rounded: flags,
                aligned_base: false,
            })
        }))
    };
    let edge_inputs = cx
        .param_names
        .iter()
        .zip(&entry.param_types)
        .map(|(n, t)| edge_array(n, t))
        .collect::<Result<Vec<_>, _>>()?;
    let edge_out = edge_array("out", &entry.result)?;
    let has_edge_out = edge_out.is_some();
    let checked: Vec<String> = edge_inputs
        .iter()
        .flatten()
        .map(|a| a.buf.clone())
        .collect();
    let mut trimmed_loops = 0;
    let mut refused = None;
    let translated = body::translate(
        program,
        entry,
        Setting {
            sizes: rounded_names
                .iter()
                .cloned()
                .map(SizeBinding::Named)
                .collect(),
            reserved: &reserved,
            param_names: cx.param_names,
            edge_inputs: edge_inputs.clone(),
            edge_out: edge_out.clone(),
            wide_scalars: cx.wide_scalars,
        },
        &mut |low| {
            let mut stmts = low.take_statements();
            // The checks read the statements as translated: before loops are trimmed and
            // checks hoisted.
            refused = checks(&stmts, has_edge_out, &checked).err();
            if refused.is_none() {
                let mut needed = Vec::new();
                trimmed_loops = trim::trim(&mut stmts, &mut |hint| low.fresh(hint), &mut needed);
                unswitch::unswitch(&mut stmts, &needed);
            }
            low.put_statements(stmts);
            Ok(())
        },
    )
    .map_err(|e| e.message)?;
    if let Some(why) = refused {
        return Err(why);
    }
    Ok(EdgesKernel {
        translated,
        prelude,
        trimmed_loops,
    })
}

/// Whether the translated kernel may run at rounded-up sizes on the caller's arrays: reads of
/// the output stay on their element ([`positionwise`]), and no input (of `checked`) is read
/// inside a reduction loop.
fn checks(stmts: &[Stmt], edge_out: bool, checked: &[String]) -> Result<(), String> {
    if edge_out {
        positionwise::check_positionwise(stmts, "out")?;
    }
    if let Some(buf) = checked_read_in_reduction(stmts, checked, false) {
        return Err(format!(
            "`{buf}` is read inside a reduction loop, where checking each read costs more than copying it once"
        ));
    }
    Ok(())
}

/// The first of `bufs` read with a check inside a reduction loop.
fn checked_read_in_reduction<'s>(
    stmts: &[Stmt],
    bufs: &'s [String],
    inside: bool,
) -> Option<&'s str> {
    for s in stmts {
        let found = match s {
            Stmt::For { origin, body, .. } | Stmt::Unrolled { origin, body, .. } => {
                checked_read_in_reduction(body, bufs, inside || is_reduction(*origin))
            }
            _ if inside => {
                let mut hit = None;
                s.for_each_expr(&mut |_, e| {
                    e.for_each_load(&mut |b, _, _| {
                        if hit.is_none() {
                            hit = bufs.iter().find(|x| *x == b).map(String::as_str);
                        }
                    })
                });
                hit
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}

fn is_reduction(origin: LoopOrigin) -> bool {
    matches!(
        origin,
        LoopOrigin::Primitive(Primitive::ReduceSeq | Primitive::ReduceSeqUnroll)
    )
}
