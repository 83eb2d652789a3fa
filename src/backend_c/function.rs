//! The C function around a translated body: signature (sizes, output, inputs), size checks,
//! heap temporaries (kept between calls and reused), vector helpers, and the header.

use super::c_ast::{print_stmts, scalar_c_name, CType};
use super::guards;
use super::ix::Ix;
use super::translate::{Translator, SizeBinding};
use super::view::{Acc, Val, ValKind, View};
use super::{CProgram, CodegenError, CodegenOptions};
use crate::core::{Expr, ExprKind, TypedProgram};
use crate::ir::types::{ScalarType, Type, TypeNode};
use num_integer::Integer;
use super::edges::{self, SizeHandling};
use std::fmt::Write as _;
use std::rc::Rc;

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
const TEMP_ALLOC: &str = "#include <stdatomic.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

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

";

/// The C keywords (C23, and GNU's `asm`); those spelled with a leading underscore (`_Bool`,
/// `_Atomic`) are covered by the rule against leading underscores.
const C_KEYWORDS: &str = "\
     alignas alignof asm auto bool break case char const constexpr continue default do double \
     else enum extern false float for goto if inline int long nullptr register restrict return \
     short signed sizeof static static_assert struct switch thread_local true typedef typeof \
     typeof_unqual union unsigned void volatile while";

/// The identifiers with a lowercase letter, no leading underscore and no `_t` suffix that the
/// headers the generated C includes (`limits.h`, `stdint.h`, `stdlib.h`, `string.h`,
/// `stdatomic.h`, `sys/mman.h`) declare at file scope or define as macros, with glibc and GCC,
/// `_GNU_SOURCE` or not (collected with `gcc -E` and `gcc -E -dM`); and the system macros GCC
/// predefines in GNU mode (`linux`, `unix`, `i386`). Struct tags and members are left out:
/// they cannot clash with a variable or a function.
const HEADER_NAMES: &str = "\
     a64l abort abs aligned_alloc alloca arc4random arc4random_buf arc4random_uniform \
     at_quick_exit atexit atof atoi atol atoll atomic_bool atomic_char \
     atomic_compare_exchange_strong atomic_compare_exchange_strong_explicit \
     atomic_compare_exchange_weak atomic_compare_exchange_weak_explicit atomic_exchange \
     atomic_exchange_explicit atomic_fetch_add atomic_fetch_add_explicit atomic_fetch_and \
     atomic_fetch_and_explicit atomic_fetch_or atomic_fetch_or_explicit atomic_fetch_sub \
     atomic_fetch_sub_explicit atomic_fetch_xor atomic_fetch_xor_explicit atomic_flag \
     atomic_flag_clear atomic_flag_clear_explicit atomic_flag_test_and_set \
     atomic_flag_test_and_set_explicit atomic_init atomic_int atomic_is_lock_free atomic_llong \
     atomic_load atomic_load_explicit atomic_long atomic_schar atomic_short \
     atomic_signal_fence atomic_store atomic_store_explicit atomic_thread_fence atomic_uchar \
     atomic_uint atomic_ullong atomic_ulong atomic_ushort basename bcmp bcopy be16toh be32toh \
     be64toh bsearch bzero calloc canonicalize_file_name clearenv div drand48 drand48_r ecvt \
     ecvt_r erand48 erand48_r exit explicit_bzero fcvt fcvt_r fd_mask fd_set ffs ffsl ffsll \
     free gcvt getenv getloadavg getpt getsubopt grantpt htobe16 htobe32 htobe64 htole16 \
     htole32 htole64 i386 index initstate initstate_r jrand48 jrand48_r kill_dependency l64a \
     labs lcong48 lcong48_r ldiv le16toh le32toh le64toh linux llabs lldiv lrand48 lrand48_r \
     madvise malloc mblen mbstowcs mbtowc memccpy memchr memcmp memcpy memfd_create memfrob \
     memmem memmove memory_order memory_order_acq_rel memory_order_acquire \
     memory_order_consume memory_order_relaxed memory_order_release memory_order_seq_cst \
     mempcpy memrchr memset mincore mkdtemp mkostemp mkostemp64 mkostemps mkostemps64 mkstemp \
     mkstemp64 mkstemps mkstemps64 mktemp mlock mlock2 mlockall mmap mmap64 mprotect mrand48 \
     mrand48_r mremap msync munlock munlockall munmap nrand48 nrand48_r on_exit pkey_alloc \
     pkey_free pkey_get pkey_mprotect pkey_set posix_madvise posix_memalign posix_openpt \
     process_madvise process_mrelease pselect ptsname ptsname_r putenv qecvt qecvt_r qfcvt \
     qfcvt_r qgcvt qsort qsort_r quick_exit rand rand_r random random_r rawmemchr realloc \
     reallocarray realpath remap_file_pages rindex rpmatch secure_getenv seed48 seed48_r \
     select setenv setstate setstate_r shm_open shm_unlink sigabbrev_np sigdescr_np srand \
     srand48 srand48_r srandom srandom_r stpcpy stpncpy strcasecmp strcasecmp_l strcasestr \
     strcat strchr strchrnul strcmp strcoll strcoll_l strcpy strcspn strdup strdupa strerror \
     strerror_l strerror_r strerrordesc_np strerrorname_np strfromd strfromf strfromf128 \
     strfromf32 strfromf32x strfromf64 strfromf64x strfroml strfry strlen strncasecmp \
     strncasecmp_l strncat strncmp strncpy strndup strndupa strnlen strpbrk strrchr strsep \
     strsignal strspn strstr strtod strtod_l strtof strtof128 strtof128_l strtof32 strtof32_l \
     strtof32x strtof32x_l strtof64 strtof64_l strtof64x strtof64x_l strtof_l strtok strtok_r \
     strtol strtol_l strtold strtold_l strtoll strtoll_l strtoq strtoul strtoul_l strtoull \
     strtoull_l strtouq strverscmp strxfrm strxfrm_l system u_char u_int u_long u_short uint \
     ulong unix unlockpt unsetenv ushort valloc wcstombs wctomb";

/// Names the generated code defines or uses that the other rules do not cover: `rise_kept`
/// (besides the helpers' `rise_temp_…`), `main` (not a kernel's name), and `l_`, `v_` (the
/// locals of the vector load and store macros, which would capture an argument of that name).
const BACKEND_NAMES: &[&str] = &["rise_kept", "main", "l_", "v_"];

/// Whether `name` can be a C identifier of the generated code as it is: a parameter, a local
/// or the function's name. The rule, complete for the C the backend writes:
///
/// * it is an identifier (ASCII letters, digits, `_`) that starts with a letter: a leading
///   underscore is reserved to the implementation (`_Bool`, `__x`, `_X`);
/// * it has a lowercase letter: names without one (`INT_MAX`, `NULL`, `EOF`, `FILE`, `M_PI`,
///   `MADV_HUGEPAGE`, `RISEC_F_H`) are the spelling of macros and constants;
/// * it does not end in `_t`, which POSIX reserves for types (`size_t`, `int32_t`);
/// * it is not a C keyword (`C_KEYWORDS`) nor a name from the included headers
///   (`HEADER_NAMES`: `memcpy`, `free`, `atomic_flag`, `linux`, …);
/// * it is none of the backend's own names: `rise_temp_…` (the helpers), `rise_kept`, the
///   vector types and their macros (`f32x…`, `f64x…`, `i32x…`, `i64x…`: `f32x8_load`),
///   `main`, `l_`, `v_`.
///
/// Names the function itself introduces (`out`, the parameters, `f_temps`, …) are kept apart by
/// [`c_identifier`]'s `taken`, and fresh locals by the translator's name set.
pub fn is_safe_c_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.chars().any(|c| c.is_ascii_lowercase())
        && !name.ends_with("_t")
        && !C_KEYWORDS.split_whitespace().any(|k| k == name)
        && !HEADER_NAMES.split_whitespace().any(|h| h == name)
        && !BACKEND_NAMES.contains(&name)
        && !["rise_temp_", "f32x", "f64x", "i32x", "i64x"]
            .iter()
            .any(|p| name.starts_with(p))
}

/// The C identifier for a name of the program (the function, a size or value parameter):
/// other characters than ASCII letters, digits and `_` become `_`; a name that is not safe
/// ([`is_safe_c_name`]) gets the prefix `p_` (`int` is `p_int`, `INT_MAX` is `p_INT_MAX`);
/// then `_` is appended while the name is unsafe (`size_t` is `p_size_t_`) or `taken` (by an
/// earlier parameter, say). Safe names are kept as they are.
pub fn c_identifier(name: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !is_safe_c_name(&s) {
        s = format!("p_{s}");
    }
    // Terminates: `taken` is finite, and the name keeps its first letter and a lowercase one,
    // ends in `_` (not `_t`) and has no reserved prefix (it had none or is `p_…`), so it is
    // unsafe only while it is one of the finitely many listed names.
    while !is_safe_c_name(&s) || taken(&s) {
        s.push('_');
    }
    s
}

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
        "out".into(),
    ];
    // Peel the size and value binders.
    let mut body: &Expr = &program.term;
    for _ in &program.size_params {
        match &body.kind {
            ExprKind::NatLambda(b) => body = b,
            _ => return Err(CodegenError::new("internal: missing size binder")),
        }
    }
    let mut param_types: Vec<Type> = Vec::new();
    for name in &program.value_params {
        match (&body.kind, body.ty.get()) {
            (ExprKind::Lambda(b), TypeNode::Fun(d, _)) => {
                param_types.push(d.clone());
                body = b;
            }
            _ => {
                return Err(CodegenError::new(format!(
                    "internal: missing binder for parameter `{name}`"
                )))
            }
        }
    }
    let result_ty = body.ty.clone();

    // Sizes: symbolic parameters, or compiled in after checking them.
    let mut size_names: Vec<String> = Vec::new();
    for s in &program.size_params {
        let n = c_identifier(s, &|n| reserved.iter().any(|r| r == n));
        reserved.push(n.clone());
        size_names.push(n);
    }
    let bindings: Vec<SizeBinding> = match &options.sizes {
        None => size_names.iter().cloned().map(SizeBinding::Named).collect(),
        Some(values) => {
            check_sizes(program, values)?;
            values.iter().map(|v| SizeBinding::Value(*v)).collect()
        }
    };
    let mut param_names: Vec<String> = Vec::new();
    for p in &program.value_params {
        let n = c_identifier(p, &|n| reserved.iter().any(|r| r == n));
        reserved.push(n.clone());
        param_names.push(n);
    }

    let mut low = Translator::new(bindings.clone(), &reserved);
    low.facts = program.facts.clone();
    // Parameters as values.
    let mut env: Vec<Val<'_>> = Vec::new();
    let mut c_params: Vec<String> = Vec::new();
    for (name, ty) in param_names.iter().zip(&param_types) {
        match ty.get() {
            TypeNode::Scalar(s) => {
                c_params.push(format!("{} {name}", scalar_c_name(*s)));
                env.push(Val {
                    ty: ty.clone(),
                    kind: ValKind::Scalar(super::c_ast::CExpr::Var(name.clone())),
                });
            }
            TypeNode::Array(..) => {
                let s = Translator::base_scalar(ty).map_err(|e| {
                    CodegenError::new(format!("parameter `{name}`: {}", e.message))
                })?;
                low.scalars(ty).map_err(|e| {
                    CodegenError::new(format!("parameter `{name}`: {}", e.message))
                })?;
                c_params.push(format!("const {} *restrict {name}", scalar_c_name(s)));
                env.push(Val {
                    ty: ty.clone(),
                    kind: ValKind::Array(Rc::new(View::Mem {
                        buf: name.clone(),
                        offset: Ix::constant(0),
                        aligned_base: false,
                    })),
                });
            }
            _ => {
                return Err(CodegenError::new(format!(
                    "parameter `{name}` has type {ty}: only scalars and arrays of scalars can be passed to the C function"
                )))
            }
        }
    }
    let out_scalar = match result_ty.get() {
        TypeNode::Scalar(_) | TypeNode::Array(..) => Translator::base_scalar(&result_ty)?,
        _ => {
            return Err(CodegenError::new(format!(
            "the result has type {result_ty}: only scalars and arrays of scalars can be returned"
        )))
        }
    };
    low.scalars(&result_ty)?;
    let value = low.eval(body, &Rc::new(env))?;
    low.write(
        value,
        &Acc::mem("out", result_ty.clone(), Ix::constant(0), false),
    )?;

    // Element counts of the arrays, for the overflow check.
    let mut counts: Vec<Ix> = vec![low.scalars(&result_ty)?];
    for ty in &param_types {
        if matches!(ty.get(), TypeNode::Array(..)) {
            counts.push(low.scalars(ty)?);
        }
    }
    let fact_checks: Vec<(Ix, i64, String)> = if options.sizes.is_none() {
        program
            .facts
            .iter()
            .map(|f| fact_check(&low, program, f))
            .collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    let (stmts, temps, vectors) = low.finish();
    // Sizes that violate the facts: rounded up by a wrapper (`plan`), or refused.
    let mut plan = None;
    let size_handling = if options.sizes.is_some()
        || fact_checks.iter().all(|(_, d, _)| *d == 1)
    {
        SizeHandling::Any
    } else if options.exact_sizes {
        SizeHandling::Exact(None)
    } else {
        match edges::plan(program, &size_names, &fact_checks) {
            Ok(p) => {
                let multiples = size_names
                    .iter()
                    .zip(&p.multiples)
                    .filter_map(|(n, m)| m.map(|m| (n.clone(), m)))
                    .collect();
                plan = Some(p);
                SizeHandling::RoundedUp(multiples)
            }
            Err(why) => SizeHandling::Exact(Some(why)),
        }
    };
    let rounded = plan.is_some();
    let kernel_name = if rounded {
        format!("{fname}_tiles")
    } else {
        fname.clone()
    };

    // Signature.
    let mut sig_params: Vec<String> = Vec::new();
    if options.sizes.is_none() {
        sig_params.extend(size_names.iter().map(|n| format!("int {n}")));
    }
    sig_params.push(format!("{} *restrict out", scalar_c_name(out_scalar)));
    sig_params.extend(c_params);
    let signature = format!("int {fname}({})", sig_params.join(", "));
    let kernel_signature = format!("static int {kernel_name}({})", sig_params.join(", "));

    let mut doc = match &size_handling {
        SizeHandling::RoundedUp(_) => {
            format!(
                "/* `{}` compiled by risec from Rise.\n * Takes any positive sizes: sizes the tiles do not divide are rounded up\n * ({}), the inputs copied into zero-padded\n * buffers and the result's corner copied back.\n * Returns 0 on success; 1 when a size is not positive, 3 when an array is too large\n * for int indices, 2 when a buffer cannot be allocated. On a non-zero return `out` is\n * left untouched. */\n",
                program.name,
                size_handling.multiples_text()
            )
        }
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
    let guard = format!("RISEC_{}_H", fname.to_uppercase());
    let release = if temps.is_empty() {
        String::new()
    } else {
        format!(
            "/* Frees the temporaries `{fname}` keeps between calls (they are reused by the next\n * call; compile with -DRISE_FRESH_TEMPORARIES to allocate them on every call instead).\n * Do not call it while `{fname}` runs. */\nvoid {fname}_release_temporaries(void);\n\n"
        )
    };
    let header = format!(
        "#ifndef {guard}\n#define {guard}\n\n#include <stdint.h>\n\n{doc}{signature};\n\n{release}#endif /* {guard} */\n"
    );

    // The checks on entry (overflow-proof, see `guards`): sizes positive, facts, counts.
    let mut guard_lines: Vec<String> = Vec::new();
    let mut checked_arithmetic = false;
    if options.sizes.is_none() && !size_names.is_empty() {
        let positive: Vec<String> = size_names.iter().map(|n| format!("{n} <= 0")).collect();
        guard_lines.push(format!("    if ({}) return 1;", positive.join(" || ")));
        for (numerator, denominator, text) in &fact_checks {
            let (lines, checked) = guards::fact_lines(numerator, *denominator, text);
            guard_lines.extend(lines);
            checked_arithmetic |= checked;
        }
    }
    let mut overflow: Vec<String> = Vec::new();
    // A lone size (or a quotient of one) fits by construction; comparing it would warn.
    for c in counts.iter().chain(temps.iter().map(|t| &t.len)) {
        if let Some((condition, checked)) = guards::count_condition(c) {
            overflow.push(condition);
            checked_arithmetic |= checked;
        }
    }
    overflow.dedup();
    if !overflow.is_empty() {
        guard_lines.push(format!("    if ({}) return 3;", overflow.join(" || ")));
    }
    let mut src = String::new();
    let _ = writeln!(src, "/* Generated by risec: do not edit. */");
    let header_name = if options.header_name.is_empty() {
        format!("{fname}.h")
    } else {
        options.header_name.clone()
    };
    let _ = writeln!(src, "#include \"{header_name}\"\n");
    let _ = writeln!(
        src,
        "#include <limits.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
    );
    for v in &vectors {
        src.push_str(&vector_helpers(*v));
    }
    if !temps.is_empty() {
        src.push_str(TEMP_ALLOC);
    }
    if !temps.is_empty() {
        let _ = writeln!(
            src,
            "/* The temporaries kept between calls, and whether a call is using them. */\n\
             static rise_temp_slot {fname}_temps[{n}];\n\
             static atomic_flag {fname}_temps_busy = ATOMIC_FLAG_INIT;\n\n\
             void {fname}_release_temporaries(void) {{\n\
             \x20   if (atomic_flag_test_and_set_explicit(&{fname}_temps_busy, memory_order_acquire)) return;\n\
             \x20   for (int i = 0; i < {n}; i++) {{ free({fname}_temps[i].p); {fname}_temps[i].p = NULL; {fname}_temps[i].bytes = 0; }}\n\
             \x20   atomic_flag_clear_explicit(&{fname}_temps_busy, memory_order_release);\n\
             }}\n",
            n = temps.len()
        );
    }
    if checked_arithmetic {
        src.push_str(guards::CHECKED_HELPERS);
    }
    if rounded {
        let _ = writeln!(
            src,
            "/* The kernel: sizes that satisfy its divisibility facts only. */\n{kernel_signature} {{"
        );
    } else {
        let _ = writeln!(src, "{doc}{signature} {{");
    }
    for line in &guard_lines {
        let _ = writeln!(src, "{line}");
    }
    for c in counts.iter().chain(temps.iter().map(|t| &t.len)) {
        if c.as_const().is_some_and(|v| v > i32::MAX as i64) {
            return Err(CodegenError::new(format!(
                "an array of {} elements is too large for int indices",
                c.to_c()
            )));
        }
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
        let _ = writeln!(
            src,
            "    {ty} *{name} = rise_temp_get(rise_kept, &{fname}_temps[{slot}], (size_t)({len}) * sizeof({ty}));",
            name = t.name,
            len = t.len.to_c()
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
    print_stmts(&stmts, 1, &mut body);
    for name in &param_names {
        if !stmts.iter().any(|s| s.mentions(name)) {
            let _ = writeln!(src, "    (void){name}; /* not used by the program */");
        }
    }
    src.push_str(&body);
    if !temps.is_empty() {
        let _ = writeln!(src, "    {puts}{release_kept}");
    }
    let _ = writeln!(src, "    return 0;\n}}");
    if let Some(plan) = &plan {
        let params: Vec<(String, Type)> = param_names
            .iter()
            .cloned()
            .zip(param_types.iter().cloned())
            .collect();
        src.push('\n');
        src.push_str(&edges::wrapper(
            &edges::Kernel {
                program,
                name: &fname,
                signature: &signature,
                kernel: &kernel_name,
                size_names: &size_names,
                params: &params,
                result: &result_ty,
                plan,
            },
            &doc,
        )?);
    }
    Ok(CProgram {
        source: src,
        header,
        function_name: fname,
        signature,
        sizes: size_handling,
    })
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

fn vector_helpers(v: CType) -> String {
    let t = v.name();
    let s = scalar_c_name(v.scalar);
    let bytes = v.lanes
        * match v.scalar {
            ScalarType::F64 | ScalarType::I64 => 8,
            _ => 4,
        };
    format!(
        "typedef {s} {t} __attribute__((vector_size({bytes})));\n\
         /* loads and stores are macros: vectors wider than the target's registers passed to or\n   \
         returned from functions make gcc print an ABI note (an error with -Werror) */\n\
         #define {t}_load(p) ({{ {t} l_; memcpy(&l_, (p), sizeof l_); l_; }})\n\
         #define {t}_load_aligned(p) (*(const {t} *)__builtin_assume_aligned((p), {bytes}))\n\
         #define {t}_store(p, ...) do {{ {t} v_ = (__VA_ARGS__); memcpy((p), &v_, sizeof v_); }} while (0)\n\
         #define {t}_store_aligned(p, ...) (*({t} *)__builtin_assume_aligned((p), {bytes}) = (__VA_ARGS__))\n\n"
    )
}
