//! Printing statements of the C syntax tree ([`super::c_ast`]) as C text.

use super::c_ast::{scalar_c_name, Place, Schedule, Stmt};
use super::ix::Ix;
use super::translate::scalar_bytes;
use crate::ir::types::ScalarType;
use std::fmt::Write as _;

/// Prints statements at the given indentation (four spaces per level).
pub fn print_stmts(stmts: &[Stmt], depth: usize, out: &mut String) {
    for s in stmts {
        print_stmt(s, depth, out);
    }
}

fn print_stmt(s: &Stmt, depth: usize, out: &mut String) {
    let pad = "    ".repeat(depth);
    match s {
        Stmt::Comment(c) => {
            let _ = writeln!(out, "{pad}// {c}");
        }
        Stmt::Decl { ty, name, init } => match init {
            Some(e) => {
                let _ = write!(out, "{pad}{} {name} = ", ty.name());
                e.write_c_bare(out);
                out.push_str(";\n");
            }
            None => {
                let _ = writeln!(out, "{pad}{} {name};", ty.name());
            }
        },
        Stmt::LocalArray { scalar, name, len } => {
            let _ = writeln!(
                out,
                "{pad}{} {name}[{len}] __attribute__((aligned(64)));",
                scalar_c_name(*scalar)
            );
        }
        Stmt::ThreadSlice {
            scalar,
            name,
            all,
            len,
        } => {
            let ty = scalar_c_name(*scalar);
            let _ = writeln!(
                out,
                "{pad}{ty} *restrict {name} = {all} + (size_t)RISE_THREAD() * {};",
                thread_slice_stride(len, *scalar)
            );
        }
        Stmt::Store(place, e) => {
            let mut value = String::new();
            e.write_c_bare(&mut value);
            match place {
                Place::Mem { buf, idx, ty, .. } if ty.lanes == 1 => {
                    let _ = writeln!(out, "{pad}{buf}[{}] = {value};", idx.to_c());
                }
                Place::Mem {
                    buf,
                    idx,
                    ty,
                    aligned,
                } => {
                    let _ = writeln!(
                        out,
                        "{pad}{}_store{}(&{buf}[{}], {value});",
                        ty.name(),
                        if *aligned { "_aligned" } else { "" },
                        idx.to_c()
                    );
                }
                Place::Var(name, None) => {
                    let _ = writeln!(out, "{pad}{name} = {value};");
                }
                Place::Var(name, Some(lane)) => {
                    let _ = writeln!(out, "{pad}{name}[{}] = {value};", lane.to_c());
                }
            }
        }
        Stmt::EdgeStore {
            buf,
            idx,
            ty,
            guard,
            value,
            ..
        } => {
            let mut v = String::new();
            value.write_c_bare(&mut v);
            if ty.lanes == 1 {
                let _ = writeln!(
                    out,
                    "{pad}if ({}) {buf}[{}] = {v};",
                    guard.condition(0),
                    idx.to_c()
                );
            } else {
                let _ = writeln!(
                    out,
                    "{pad}{}_store_first(&{buf}[{}], {}, {v});",
                    ty.name(),
                    idx.to_c(),
                    guard.lanes_in_range(ty.lanes)
                );
            }
        }
        Stmt::For {
            var,
            extent,
            origin,
            schedule,
            body,
            limit,
        } => {
            let note = schedule_pragma(*schedule, &pad, out);
            let bound = match limit {
                Some(l) => l.clone(),
                None => extent.to_c(),
            };
            let _ = writeln!(
                out,
                "{pad}for (int {var} = 0; {var} < {bound}; {var}++) {{ // {}{note}",
                origin.name()
            );
            print_stmts(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::Range {
            var,
            start,
            end,
            origin,
            schedule,
            body,
        } => {
            let note = schedule_pragma(*schedule, &pad, out);
            let _ = writeln!(
                out,
                "{pad}for (int {var} = {}; {var} < {}; {var}++) {{ // {}{note}",
                start.to_c(),
                end.to_c(),
                origin.name()
            );
            print_stmts(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::IfElse {
            cond,
            note,
            then,
            otherwise,
        } => {
            let _ = writeln!(out, "{pad}if ({cond}) {{ // {note}");
            print_stmts(then, depth + 1, out);
            let _ = writeln!(out, "{pad}}} else {{");
            print_stmts(otherwise, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
        Stmt::Unrolled {
            origin,
            iteration,
            body,
        } => {
            let _ = writeln!(out, "{pad}{{ // {}: iteration {iteration}", origin.name());
            print_stmts(body, depth + 1, out);
            let _ = writeln!(out, "{pad}}}");
        }
    }
}

/// The distance in elements between two threads' slices of a per-thread temporary of `len`
/// elements: `len` rounded up to 64 bytes, so that every slice is aligned and no two threads
/// write to one cache line.
pub fn thread_slice_stride(len: &Ix, scalar: ScalarType) -> String {
    let per_line = (64 / scalar_bytes(scalar)).max(1);
    format!(
        "(((size_t)({}) + {}) / {per_line} * {per_line})",
        len.to_c(),
        per_line - 1
    )
}

/// Writes the OpenMP pragma of a loop run on `schedule`; returns the note for its comment.
fn schedule_pragma(schedule: Schedule, pad: &str, out: &mut String) -> &'static str {
    match schedule {
        Schedule::Sequential => "",
        Schedule::Parallel => {
            let _ = writeln!(out, "{pad}#pragma omp parallel for");
            ""
        }
        Schedule::ParallelDynamic => {
            let _ = writeln!(out, "{pad}#pragma omp parallel for schedule(dynamic)");
            ""
        }
        Schedule::NestedParallel => " (nested in a parallel loop: sequential)",
    }
}
