//! The names of the generated C: which names of the program can be C identifiers as they are,
//! and the renaming of the others. Every name the backend writes (parameters, locals, the
//! function's own) differs from the C keywords, the included headers' names and the backend's
//! own helpers.

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
/// (besides the helpers' `rise_temp_…`), `main` (not a kernel's name), and `l_`, `v_`, `c_`
/// (the locals of the vector load and store macros, which would capture an argument of that
/// name).
const BACKEND_NAMES: &[&str] = &["rise_kept", "main", "l_", "v_", "c_"];

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
/// * it is none of the backend's own names: `rise_temp_…` (the helpers), `rise_edge…` (the
///   edges kernel's locals), `rise_kept`, the
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
        && !["rise_temp_", "rise_edge", "f32x", "f64x", "i32x", "i64x"]
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
