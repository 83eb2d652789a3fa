//! The C function around a translated body: signature (sizes, output, inputs), size checks,
//! heap temporaries (kept between calls and reused), vector helpers, and the header.

use super::body::{self, Entry, Setting, Translated};
use super::c_ast::{print_stmts, scalar_c_name, CType};
use super::c_print::thread_slice_stride;
use super::edges::{self, Rounding, SizeHandling};
use super::guards;
use super::ix::Ix;
use super::names::c_identifier;
use super::translate::{SizeBinding, Translator};
use super::{CProgram, CodegenError, CodegenOptions};
use crate::core::TypedProgram;
use crate::ir::types::{ScalarType, Type};
use num_integer::Integer;
use std::fmt::Write as _;

/// The allocator of heap temporaries in the generated C: 64-byte aligned; from 2 MiB on,
/// aligned to 2 MiB and (on Linux) marked for transparent huge pages, so that a packed copy of
/// a matrix costs a few page faults instead of one per 4 KiB page (measured on the
/// register-blocked GEMM at 1536³: 4,600 faults and 15 % of the run time without it).
///
/// Temporaries are kept between calls and reused (`rise_temp_get`/`rise_temp_put`), as BLAS
/// libraries keep their packing buffers: a fresh allocation is zeroed by the kernel page by page
/// on every call (6.5 % of the register-blocked GEMM's time with 2 threads at 1536³). One call
/// at a time uses the kept set; a concurrent call allocates and frees its own. The function's
/// `_release_temporaries` frees the kept set; `-DRISE_FRESH_TEMPORARIES` turns the reuse off.
/// The helpers are guarded (`RISE_TEMP_HELPERS`), so that several kernels' C can share a file.
const TEMP_ALLOC: &str = "#include <stdatomic.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#ifndef RISE_TEMP_HELPERS
#define RISE_TEMP_HELPERS

/* Heap temporaries: 64-byte aligned; large ones 2 MiB aligned, in huge pages where possible. */
static void *rise_temp_alloc(size_t bytes) {
    const size_t huge = (size_t)1 << 21;
    if (bytes < huge) return aligned_alloc(64, (bytes + 63) / 64 * 64);
    size_t rounded = (bytes + huge - 1) / huge * huge;
    void *p = aligned_alloc(huge, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p) madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

/* A temporary kept between calls: reused when large enough, else replaced. */
typedef struct { void *p; size_t bytes; } rise_temp_slot;
static void *rise_temp_get(int kept, rise_temp_slot *slot, size_t bytes) {
    if (!kept) return rise_temp_alloc(bytes);
    if (slot->p && slot->bytes >= bytes) return slot->p;
    free(slot->p);
    slot->p = rise_temp_alloc(bytes);
    slot->bytes = slot->p ? bytes : 0;
    return slot->p;
}
static void rise_temp_put(int kept, void *p) { if (!kept) free(p); }
#endif

";

/// The team size and thread number that per-thread temporaries are sliced by (with and without
/// OpenMP); emitted after [`TEMP_ALLOC`] when a temporary is private to the threads.
const THREAD_SLICES: &str =
    "/* Temporaries private to the threads of a parallel loop: one slice per thread. */
#if defined(_OPENMP)
#include <omp.h>
#define RISE_THREADS() ((size_t)omp_get_max_threads())
#define RISE_THREAD() omp_get_thread_num()
#else
#define RISE_THREADS() ((size_t)1)
#define RISE_THREAD() 0
#endif

";

/// Compiles a program to C; see [`super::emit_c`]. Sizes in the messages of errors are named
/// as in the source (types print nat indices as `#0`).
pub fn emit(program: &TypedProgram, options: &CodegenOptions) -> Result<CProgram, CodegenError> {
    emit_unnamed(program, options).map_err(|e| CodegenError::new(name_sizes(program, &e.message)))
}

/// `#i` (nat index `i` of the body's context, as types print it) replaced by the size
/// parameter's name.
fn name_sizes(program: &TypedProgram, message: &str) -> String {
    let count = program.size_params.len();
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find('#') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - at - 1);
        let name = rest[at + 1..at + 1 + digits]
            .parse::<usize>()
            .ok()
            .filter(|i| *i < count)
            .map(|i| &program.size_params[count - 1 - i]);
        match name {
            Some(n) => out.push_str(n),
            None => out.push_str(&rest[at..at + 1 + digits]),
        }
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    out
}

fn emit_unnamed(
    program: &TypedProgram,
    options: &CodegenOptions,
) -> Result<CProgram, CodegenError> {
    let names = CNames::of(program, options);
    let entry = Entry::of(program)?;

    // Sizes: symbolic parameters, or compiled in after checking them.
    let bindings: Vec<SizeBinding> = match &options.sizes {
        None => names
            .sizes
            .iter()
            .cloned()
            .map(SizeBinding::Named)
            .collect(),
        Some(values) => {
            check_sizes(program, values)?;
            values.iter().map(|v| SizeBinding::Value(*v)).collect()
        }
    };
    let mut sized = Translator::new(bindings.clone(), &names.reserved);
    sized.facts = program.facts.clone();
    let c_params = body::c_parameters(&names.params, &entry.param_types, &sized)?;
    let out_scalar = body::out_scalar(&entry.result)?;
    let main = body::translate(
        program,
        &entry,
        Setting {
            sizes: bindings,
            reserved: &names.reserved,
            param_names: &names.params,
            edge_inputs: vec![None; names.params.len()],
            edge_out: None,
            wide_scalars: options.wide_scalars,
        },
        &mut |_| Ok(()),
    )?;
    let fact_checks: Vec<(Ix, i64, String)> = if options.sizes.is_none() {
        program
            .facts
            .iter()
            .map(|f| fact_check(&sized, program, f))
            .collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    let rounded = round_sizes(program, options, &entry, &names, &fact_checks);

    // Signature.
    let fname = &names.function;
    let mut sig_params: Vec<String> = Vec::new();
    if options.sizes.is_none() {
        sig_params.extend(names.sizes.iter().map(|n| format!("int {n}")));
    }
    sig_params.push(format!("{} *restrict out", scalar_c_name(out_scalar)));
    sig_params.extend(c_params);
    let params = sig_params.join(", ");
    let signature = format!("int {fname}({params})");
    let doc = doc_comment(program, options, &rounded.handling);
    let edge_temps = rounded
        .kernel
        .as_ref()
        .map_or(0, |k| k.translated.temps.len());
    let header = header_text(fname, &doc, &signature, main.temps.len() + edge_temps);
    let source = c_file(&CFile {
        program,
        options,
        names: &names,
        entry: &entry,
        main: &main,
        fact_checks: &fact_checks,
        rounded: &rounded,
        params: &params,
        signature: &signature,
        doc: &doc,
    })?;
    let mut warnings = main.warnings.clone();
    for w in rounded.kernel.iter().flat_map(|k| &k.translated.warnings) {
        if !warnings.contains(w) {
            warnings.push(w.clone());
        }
    }
    Ok(CProgram {
        source,
        header,
        function_name: names.function,
        signature,
        sizes: rounded.handling,
        warnings,
    })
}

/// The C names of the function, its sizes and its value parameters, and the names every
/// parameter and local must differ from.
struct CNames {
    /// The function's name.
    function: String,
    /// The names taken: the function's, its kept temporaries', the output's, then the sizes'
    /// and the parameters'.
    reserved: Vec<String>,
    /// The size parameters' names, outermost first.
    sizes: Vec<String>,
    /// The value parameters' names, outermost first.
    params: Vec<String>,
}

impl CNames {
    /// Names the function (`options.function_name`, or the definition's name), then its sizes
    /// and its value parameters, each away from every name taken before it.
    fn of(program: &TypedProgram, options: &CodegenOptions) -> CNames {
        let fname = c_identifier(
            options.function_name.as_deref().unwrap_or(&program.name),
            &|_| false,
        );
        // The names every parameter and local must differ from: the function's, its kept
        // temporaries', and the output's.
        let mut reserved: Vec<String> = vec![
            fname.clone(),
            format!("{fname}_temps"),
            format!("{fname}_temps_busy"),
            format!("{fname}_release_temporaries"),
            format!("{fname}_tiles"),
            format!("{fname}_edges"),
            "out".into(),
        ];
        let mut take = |name: &str| {
            let n = c_identifier(name, &|n| reserved.iter().any(|r| r == n));
            reserved.push(n.clone());
            n
        };
        let sizes: Vec<String> = program.size_params.iter().map(|s| take(s)).collect();
        let params: Vec<String> = program.value_params.iter().map(|p| take(p)).collect();
        CNames {
            function: fname,
            reserved,
            sizes,
            params,
        }
    }
}

/// What the function does with sizes that violate the facts, with the rounding plan and the
/// edges kernel (translated) when it rounds them up.
struct RoundedSizes {
    handling: SizeHandling,
    plan: Option<edges::Plan>,
    kernel: Option<edges::kernel::EdgesKernel>,
}

/// Sizes that violate the facts: rounded up (`plan`: inside an edges kernel, or on copies),
/// or refused. Compiled-in sizes and programs that rely on no fact take any size.
fn round_sizes(
    program: &TypedProgram,
    options: &CodegenOptions,
    entry: &Entry,
    names: &CNames,
    fact_checks: &[(Ix, i64, String)],
) -> RoundedSizes {
    let exact = |why: Option<String>| RoundedSizes {
        handling: SizeHandling::Exact(why),
        plan: None,
        kernel: None,
    };
    if options.sizes.is_some() || fact_checks.iter().all(|(_, d, _)| *d == 1) {
        return RoundedSizes {
            handling: SizeHandling::Any,
            plan: None,
            kernel: None,
        };
    }
    if options.exact_sizes {
        return exact(None);
    }
    let p = match edges::plan(program, &names.sizes, fact_checks) {
        Ok(p) => p,
        Err(why) => return exact(Some(why)),
    };
    let multiples = names
        .sizes
        .iter()
        .zip(&p.multiples)
        .filter_map(|(n, m)| m.map(|m| (n.clone(), m)))
        .collect();
    let built = edges::kernel::build(
        program,
        entry,
        &edges::kernel::Context {
            size_names: &names.sizes,
            param_names: &names.params,
            reserved: &names.reserved,
            plan: &p,
            wide_scalars: options.wide_scalars,
        },
    );
    let (rounding, kernel) = match built {
        Ok(k) => (Rounding::InKernel, Some(k)),
        Err(why) => (Rounding::Copies(why), None),
    };
    RoundedSizes {
        handling: SizeHandling::RoundedUp(multiples, rounding),
        plan: Some(p),
        kernel,
    }
}

/// The comment above the function's declaration: what it computes, which sizes it takes and
/// what it returns; and the sizes compiled in, if any.
fn doc_comment(
    program: &TypedProgram,
    options: &CodegenOptions,
    handling: &SizeHandling,
) -> String {
    let mut doc = match handling {
        SizeHandling::RoundedUp(_, Rounding::InKernel) => format!(
            "/* `{}` compiled by risec from Rise.\n * Takes any positive sizes: sizes the tiles do not divide are rounded up\n * ({}) inside the kernel: reads past the\n * arrays give zero, writes past `out` are skipped, and so is work that only writes there.\n * Returns 0 on success; 1 when a size is not positive, 3 when an array is too large\n * for int indices, 2 when a temporary cannot be allocated. On a non-zero return `out` is\n * left untouched. */\n",
            program.name,
            handling.multiples_text()
        ),
        SizeHandling::RoundedUp(_, Rounding::Copies(_)) => format!(
            "/* `{}` compiled by risec from Rise.\n * Takes any positive sizes: sizes the tiles do not divide are rounded up\n * ({}), the inputs copied into zero-padded\n * buffers and the result's corner copied back.\n * Returns 0 on success; 1 when a size is not positive, 3 when an array is too large\n * for int indices, 2 when a buffer cannot be allocated. On a non-zero return `out` is\n * left untouched. */\n",
            program.name,
            handling.multiples_text()
        ),
        _ => format!(
            "/* `{}` compiled by risec from Rise.\n * Returns 0 on success; 1 when a size is not positive or violates a divisibility\n * fact the program relies on, 3 when an array is too large for int indices, 2 when a\n * temporary cannot be allocated. On a non-zero return `out` is left untouched. */\n",
            program.name
        ),
    };
    if let Some(values) = &options.sizes {
        let assignment: Vec<String> = program
            .size_params
            .iter()
            .zip(values)
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        let _ = writeln!(doc, "/* Sizes compiled in: {}. */", assignment.join(", "));
    }
    doc
}

/// The header: the function's declaration under its comment, and the declaration of
/// `…_release_temporaries` when the function keeps temporaries (`all_temps` of them).
fn header_text(fname: &str, doc: &str, signature: &str, all_temps: usize) -> String {
    let guard = format!("RISEC_{}_H", fname.to_uppercase());
    let release = if all_temps == 0 {
        String::new()
    } else {
        format!(
            "/* Frees the temporaries `{fname}` keeps between calls (they are reused by the next\n * call; compile with -DRISE_FRESH_TEMPORARIES to allocate them on every call instead).\n * Do not call it while `{fname}` runs. */\nvoid {fname}_release_temporaries(void);\n\n"
        )
    };
    format!(
        "#ifndef {guard}\n#define {guard}\n\n#include <stdint.h>\n\n{doc}{signature};\n\n{release}#endif /* {guard} */\n"
    )
}

/// What the `.c` file is made of.
struct CFile<'a> {
    program: &'a TypedProgram,
    options: &'a CodegenOptions,
    names: &'a CNames,
    entry: &'a Entry<'a>,
    /// The main kernel's body.
    main: &'a Translated,
    /// The facts as numerator, denominator and source text (symbolic sizes only).
    fact_checks: &'a [(Ix, i64, String)],
    rounded: &'a RoundedSizes,
    /// The parameters of the signature, as C.
    params: &'a str,
    signature: &'a str,
    /// The comment above the function.
    doc: &'a str,
}

/// The `.c` file: its preamble, the main kernel, the edges kernel, and the wrapper that
/// rounds sizes up.
fn c_file(f: &CFile) -> Result<String, CodegenError> {
    let fname = &f.names.function;
    let (mut entry_checks, mut checked_arithmetic) =
        entry_checks(f.options, &f.names.sizes, f.fact_checks);
    // The main kernel, then the edges kernel: their overflow checks first, since whether the
    // file needs the checked helpers depends on them.
    let (main_overflow, checked) = overflow_check(f.main)?;
    checked_arithmetic |= checked;
    let edges_overflow = match &f.rounded.kernel {
        Some(k) => {
            let (line, checked) = overflow_check(&k.translated)?;
            checked_arithmetic |= checked;
            line
        }
        None => None,
    };
    let mut src = preamble(f, checked_arithmetic);
    let static_signature = |name: &str| format!("static int {name}({})", f.params);
    let kernel_name = if f.rounded.plan.is_some() {
        format!("{fname}_tiles")
    } else {
        fname.clone()
    };
    let edges_name = format!("{fname}_edges");
    let opening = if f.rounded.plan.is_some() {
        format!(
            "/* The kernel: sizes that satisfy its divisibility facts only. */\n{}",
            static_signature(&kernel_name)
        )
    } else {
        format!("{}{}", f.doc, f.signature)
    };
    entry_checks.extend(main_overflow);
    src.push_str(&kernel_function(&KernelFunction {
        fname,
        opening: &opening,
        checks: &entry_checks,
        translated: f.main,
        first_slot: 0,
        param_names: &f.names.params,
    }));
    if let Some(k) = &f.rounded.kernel {
        let mut checks = k.prelude.clone();
        checks.extend(edges_overflow);
        let opening = format!(
            "\n/* The kernel at sizes rounded up to its tiles' multiples ({}), on the caller's\n * arrays: reads past them give zero, writes past `out` are skipped, and so are the loop\n * iterations that only write there. */\n{}",
            f.rounded.handling.multiples_text(),
            static_signature(&edges_name)
        );
        src.push_str(&kernel_function(&KernelFunction {
            fname,
            opening: &opening,
            checks: &checks,
            translated: &k.translated,
            first_slot: f.main.temps.len(),
            param_names: &f.names.params,
        }));
    }
    if let Some(plan) = &f.rounded.plan {
        let params: Vec<(String, Type)> = f
            .names
            .params
            .iter()
            .cloned()
            .zip(f.entry.param_types.iter().cloned())
            .collect();
        src.push('\n');
        src.push_str(&edges::wrapper(
            &edges::Kernel {
                program: f.program,
                name: fname,
                signature: f.signature,
                kernel: &kernel_name,
                edges: f.rounded.kernel.as_ref().map(|_| edges_name.as_str()),
                size_names: &f.names.sizes,
                params: &params,
                result: &f.entry.result,
                plan,
            },
            f.doc,
        )?);
    }
    Ok(src)
}

/// The checks on entry (overflow-proof, see `guards`): sizes positive, facts; and whether they
/// use the checked helpers. None when the sizes are compiled in.
fn entry_checks(
    options: &CodegenOptions,
    size_names: &[String],
    fact_checks: &[(Ix, i64, String)],
) -> (Vec<String>, bool) {
    let mut entry_checks: Vec<String> = Vec::new();
    let mut checked_arithmetic = false;
    if options.sizes.is_none() && !size_names.is_empty() {
        let positive: Vec<String> = size_names.iter().map(|n| format!("{n} <= 0")).collect();
        entry_checks.push(format!("    if ({}) return 1;", positive.join(" || ")));
        for (numerator, denominator, text) in fact_checks {
            let (lines, checked) = guards::fact_lines(numerator, *denominator, text);
            entry_checks.extend(lines);
            checked_arithmetic |= checked;
        }
    }
    (entry_checks, checked_arithmetic)
}

/// The `.c` file up to the kernels: includes, vector helpers, the heap temporaries' allocator
/// and kept slots, and the helpers the kernels use (checked arithmetic when
/// `checked_arithmetic`, trimmed loops, lane selection).
fn preamble(f: &CFile, checked_arithmetic: bool) -> String {
    let fname = &f.names.function;
    let edges_kernel = &f.rounded.kernel;
    let mut src = String::new();
    let _ = writeln!(src, "/* Generated by risec: do not edit. */");
    let header_name = if f.options.header_name.is_empty() {
        format!("{fname}.h")
    } else {
        f.options.header_name.clone()
    };
    let _ = writeln!(src, "#include \"{header_name}\"\n");
    let _ = writeln!(
        src,
        "#include <limits.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
    );
    let mut vectors = f.main.vectors.clone();
    if let Some(k) = edges_kernel {
        vectors.extend(k.translated.vectors.iter().copied());
    }
    for v in &vectors {
        src.push_str(&vector_helpers(*v, edges_kernel.is_some()));
    }
    let edge_temps = edges_kernel
        .as_ref()
        .map_or(0, |k| k.translated.temps.len());
    let all_temps = f.main.temps.len() + edge_temps;
    if all_temps > 0 {
        src.push_str(TEMP_ALLOC);
        let per_thread = f
            .main
            .temps
            .iter()
            .chain(edges_kernel.iter().flat_map(|k| &k.translated.temps))
            .any(|t| t.per_thread);
        if per_thread {
            src.push_str(THREAD_SLICES);
        }
        let _ = writeln!(
            src,
            "/* The temporaries kept between calls, and whether a call is using them. */\n\
             static rise_temp_slot {fname}_temps[{all_temps}];\n\
             static atomic_flag {fname}_temps_busy = ATOMIC_FLAG_INIT;\n\n\
             void {fname}_release_temporaries(void) {{\n\
             \x20   if (atomic_flag_test_and_set_explicit(&{fname}_temps_busy, memory_order_acquire)) return;\n\
             \x20   for (int i = 0; i < {all_temps}; i++) {{ free({fname}_temps[i].p); {fname}_temps[i].p = NULL; {fname}_temps[i].bytes = 0; }}\n\
             \x20   atomic_flag_clear_explicit(&{fname}_temps_busy, memory_order_release);\n\
             }}\n"
        );
    }
    if checked_arithmetic {
        src.push_str(guards::CHECKED_HELPERS);
    }
    if edges_kernel.as_ref().is_some_and(|k| k.trimmed_loops > 0) {
        src.push_str(edges::trim::HELPERS);
    }
    let selects = |stmts: &[crate::c_ast::Stmt]| {
        let mut found = false;
        for s in stmts {
            s.for_each_expr(&mut |_, e| found |= e.has_vec_select());
        }
        found
    };
    if selects(&f.main.stmts)
        || edges_kernel
            .as_ref()
            .is_some_and(|k| selects(&k.translated.stmts))
    {
        src.push_str(SELECT);
    }
    src.push_str(&math_helpers(f));
    src
}

/// The definitions of the math helper macros the kernels use ([`crate::c_math`]), in a fixed
/// order; empty when they use none.
fn math_helpers(f: &CFile) -> String {
    let mut used = std::collections::BTreeSet::new();
    let mut scan = |stmts: &[crate::c_ast::Stmt]| {
        for s in stmts {
            s.for_each_expr(&mut |_, e| {
                e.for_each_math_helper(&mut |h| {
                    used.insert(h);
                })
            });
        }
    };
    scan(&f.main.stmts);
    if let Some(k) = &f.rounded.kernel {
        scan(&k.translated.stmts);
    }
    used.into_iter().map(|h| h.definition()).collect()
}

/// The check that every array's element count (the caller's arrays and the temporaries) fits
/// the generated C's `int` indices (`None` when all do by construction), and whether it uses
/// the checked helpers.
fn overflow_check(t: &Translated) -> Result<(Option<String>, bool), CodegenError> {
    let mut overflow: Vec<String> = Vec::new();
    let mut checked_arithmetic = false;
    // A lone size (or a quotient of one) fits by construction; comparing it would warn.
    for c in t.counts.iter().chain(t.temps.iter().map(|t| &t.len)) {
        if c.as_const().is_some_and(|v| v > i32::MAX as i64) {
            return Err(CodegenError::new(format!(
                "an array of {} elements is too large for int indices",
                c.to_c()
            )));
        }
        if let Some((condition, checked)) = guards::count_condition(c) {
            overflow.push(condition);
            checked_arithmetic |= checked;
        }
    }
    overflow.dedup();
    let line =
        (!overflow.is_empty()).then(|| format!("    if ({}) return 3;", overflow.join(" || ")));
    Ok((line, checked_arithmetic))
}

/// What [`kernel_function`] prints.
struct KernelFunction<'a> {
    /// The function's base name (for its temporaries' slots).
    fname: &'a str,
    /// The comment and signature before the opening brace.
    opening: &'a str,
    /// The checks on entry, as lines.
    checks: &'a [String],
    /// The body.
    translated: &'a Translated,
    /// The first of the function's slots for kept temporaries this body uses.
    first_slot: usize,
    /// The value parameters' C names (unused ones are marked so).
    param_names: &'a [String],
}

/// A C function running a translated body: the checks on entry, the heap temporaries taken
/// (kept between calls: the slots from `first_slot` on), the body, the temporaries given back.
fn kernel_function(k: &KernelFunction) -> String {
    let fname = k.fname;
    let temps = &k.translated.temps;
    let mut src = String::new();
    let _ = writeln!(src, "{} {{", k.opening);
    for line in k.checks {
        let _ = writeln!(src, "{line}");
    }
    // `rise_kept`: this call uses the temporaries kept between calls (no other call is using them).
    let release_kept = format!(
        "if (rise_kept) atomic_flag_clear_explicit(&{fname}_temps_busy, memory_order_release);"
    );
    if !temps.is_empty() {
        let _ = writeln!(
            src,
            "#if defined(RISE_FRESH_TEMPORARIES)\n    const int rise_kept = 0;\n#else\n    \
             const int rise_kept = !atomic_flag_test_and_set_explicit(&{fname}_temps_busy, memory_order_acquire);\n#endif"
        );
    }
    for (slot, t) in temps.iter().enumerate() {
        let ty = scalar_c_name(t.scalar);
        let len = if t.per_thread {
            format!("{} * RISE_THREADS()", thread_slice_stride(&t.len, t.scalar))
        } else {
            format!("(size_t)({})", t.len.to_c())
        };
        let _ = writeln!(
            src,
            "    {ty} *{name} = rise_temp_get(rise_kept, &{fname}_temps[{slot}], {len} * sizeof({ty}));",
            slot = k.first_slot + slot,
            name = t.name,
        );
    }
    let puts: String = temps
        .iter()
        .rev()
        .map(|t| format!("rise_temp_put(rise_kept, {}); ", t.name))
        .collect();
    if !temps.is_empty() {
        let null: Vec<String> = temps.iter().map(|t| format!("!{}", t.name)).collect();
        let _ = writeln!(
            src,
            "    if ({}) {{ {puts}{release_kept} return 2; }}",
            null.join(" || ")
        );
    }
    let mut body = String::new();
    print_stmts(&k.translated.stmts, 1, &mut body);
    for name in k.param_names {
        if !k.translated.stmts.iter().any(|s| s.mentions(name)) {
            let _ = writeln!(src, "    (void){name}; /* not used by the program */");
        }
    }
    src.push_str(&body);
    if !temps.is_empty() {
        let _ = writeln!(src, "    {puts}{release_kept}");
    }
    let _ = writeln!(src, "    return 0;\n}}");
    src
}

/// Checks compiled-in sizes: the right number, positive, satisfying every fact.
fn check_sizes(program: &TypedProgram, values: &[u64]) -> Result<(), CodegenError> {
    if values.len() != program.size_params.len() {
        return Err(CodegenError::new(format!(
            "`{}` has {} size parameters ({}), but {} sizes were given",
            program.name,
            program.size_params.len(),
            program.size_params.join(", "),
            values.len()
        )));
    }
    for (n, v) in program.size_params.iter().zip(values) {
        if *v == 0 || *v > i32::MAX as u64 {
            return Err(CodegenError::new(format!(
                "size `{n}={v}` must be positive and fit in an int"
            )));
        }
    }
    match program.violated_fact(values) {
        Some(fact) => Err(CodegenError::new(format!(
            "the program assumes {}, which is false for these sizes",
            crate::core::print::fact_to_source(program, fact)
        ))),
        None => Ok(()),
    }
}

/// A fact `N/d` (a nat with rational coefficients, whole and not negative) as its numerator,
/// denominator, and what it assumes in source terms.
fn fact_check(
    low: &Translator,
    program: &TypedProgram,
    fact: &crate::ir::nat::Nat,
) -> Result<(Ix, i64, String), CodegenError> {
    let mut denominator: i128 = 1;
    for (_, c) in fact.terms() {
        let d = c.denom();
        denominator = denominator.lcm(&d);
    }
    let scaled = crate::ir::nat::mul(fact, &crate::ir::nat::lit(denominator as u64));
    let numerator = low.nat(&scaled)?;
    Ok((
        numerator,
        denominator as i64,
        crate::core::print::fact_to_source(program, fact),
    ))
}

/// The typedef of a vector type and its load and store macros; with `edges`, also the
/// partial ones of the edges kernel (`…_load_first`, `…_store_first`: the lanes in range).
/// `RISE_SELECT(m, a, b)`: lane by lane, `a` where the comparison `m` holds (its lanes all ones)
/// and `b` elsewhere; C has no `?:` on vectors, so the lanes are chosen with bit masks.
const SELECT: &str = "#ifndef RISE_SELECT
#define RISE_SELECT(m, a, b) ({ __typeof__(m) m_ = (m); __typeof__(a) a_ = (a), b_ = (b); \\
    (__typeof__(a_))(((__typeof__(m_))a_ & m_) | ((__typeof__(m_))b_ & ~m_)); })
#endif
";

fn vector_helpers(v: CType, edges: bool) -> String {
    let t = v.name();
    let s = scalar_c_name(v.scalar);
    let bytes = v.lanes
        * match v.scalar {
            ScalarType::F64 | ScalarType::I64 => 8,
            _ => 4,
        };
    let lanes = v.lanes;
    let edge = if edges {
        format!(
            "/* the first `count` lanes (every lane from {lanes} on, none from 0 down), the others zero */\n\
             #define {t}_load_first(p, count) ({{ {t} l_ = {{0}}; int c_ = (count); \\\n    \
             if (c_ >= {lanes}) memcpy(&l_, (p), sizeof l_); else if (c_ > 0) memcpy(&l_, (p), (size_t)c_ * sizeof({s})); l_; }})\n\
             #define {t}_store_first(p, count, ...) do {{ {t} v_ = (__VA_ARGS__); int c_ = (count); \\\n    \
             if (c_ >= {lanes}) memcpy((p), &v_, sizeof v_); else if (c_ > 0) memcpy((p), &v_, (size_t)c_ * sizeof({s})); }} while (0)\n"
        )
    } else {
        String::new()
    };
    format!(
        "typedef {s} {t} __attribute__((vector_size({bytes})));\n\
         /* loads and stores are macros: vectors wider than the target's registers passed to or\n   \
         returned from functions make gcc print an ABI note (an error with -Werror) */\n\
         #define {t}_load(p) ({{ {t} l_; memcpy(&l_, (p), sizeof l_); l_; }})\n\
         #define {t}_load_aligned(p) (*(const {t} *)__builtin_assume_aligned((p), {bytes}))\n\
         #define {t}_store(p, ...) do {{ {t} v_ = (__VA_ARGS__); memcpy((p), &v_, sizeof v_); }} while (0)\n\
         #define {t}_store_aligned(p, ...) (*({t} *)__builtin_assume_aligned((p), {bytes}) = (__VA_ARGS__))\n{edge}\n"
    )
}
