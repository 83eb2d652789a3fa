//! Tests of `risec_core::core` that need programs written as text: the front end parses and
//! types them (the core crate sits below the front end, so these live here).

mod sizes {
    use risec_core::core::sizes::*;
    use risec_core::core::TypedProgram;
    use risec_core::diagnostics::SourceFile;
    use risec_frontend::load::compile_source;

    fn program() -> TypedProgram {
        let text = "def copy {m n : nat} (x : m.n.f32) : m.n.f32 = x";
        compile_source(&SourceFile::new("copy.rise", text), None).unwrap()
    }

    #[test]
    fn every_way_to_get_sizes_wrong_has_its_error() {
        let p = program();
        assert_eq!(parse_sizes(&p, " n=3, m=2 ").unwrap(), [2, 3]);
        assert_eq!(parse_some_sizes(&p, "n=3").unwrap(), [None, Some(3)]);
        let e = parse_sizes(&p, "m2").unwrap_err();
        assert_eq!(
            e.to_string(),
            "error: `--size m2`: expected NAME=VALUE, as in `--size m=…,n=…`"
        );
        let e = parse_sizes(&p, "q=1").unwrap_err();
        assert!(matches!(&e, SizesError::UnknownParameter { name, .. } if name == "q"));
        assert_eq!(
            e.to_string(),
            "error: `copy` has no size parameter `q`; its size parameters are: m, n"
        );
        let e = parse_sizes(&p, "m=two,n=1").unwrap_err();
        assert_eq!(
            e.to_string(),
            "error: size `m=two`: expected a natural number"
        );
        let e = parse_sizes(&p, "m=99999999999999999999,n=1").unwrap_err();
        assert!(matches!(e, SizesError::TooLarge { .. }), "{e}");
        let e = parse_sizes(&p, "m=1,m=2").unwrap_err();
        assert!(matches!(e, SizesError::Twice { .. }), "{e}");
        let e = parse_sizes(&p, "n=4").unwrap_err();
        assert_eq!(
            e.to_string(),
            "error: missing sizes for m: pass them as `--size m=…,n=…`"
        );
    }
}

mod normalize {
    use risec_core::core::normalize::*;

    use risec_frontend::load::test_term as program;

    #[test]
    fn reduces_beta_and_eta() {
        let e = program("def p {n : nat} (xs : n.f32) = (fun (g : f32 -> f32) => xs |> map (fun x => g x)) (fun (y : f32) => y + 1.0)");
        // The parameter itself is eta-reduced away: the normal form is `map (fun y => y + 1.0)`.
        let goal = program("def p {n : nat} = map (fun (y : f32) => y + 1.0) : n.f32 -> n.f32");
        assert_eq!(beta_eta_normal(&e).unwrap(), goal);
    }

    #[test]
    fn program_parameters_are_kept() {
        let e = program(
            "def p {n : nat} (xs : n.f32) = xs |> map (fun (x : f32) => (fun (y : f32) => y) x)",
        );
        let goal = program("def p {n : nat} (xs : n.f32) = xs |> map (fun (x : f32) => x)");
        assert_eq!(program_normal(&e).unwrap(), goal);
    }

    #[test]
    fn removed_parameters_are_restored_by_eta_expansion() {
        let written = program("def p {n : nat} (xs : n.f32) (ys : n.f32) = zip xs ys");
        let reduced = program("def p {n : nat} = zip : n.f32 -> n.f32 -> n.(f32, f32)");
        assert_eq!(restore_params(&reduced, 1, 2), written);
        // One parameter kept, one removed.
        let half = program("def p {n : nat} (xs : n.f32) = zip xs : n.f32 -> n.(f32, f32)");
        assert_eq!(restore_params(&half, 1, 2), written);
        // Nothing to restore.
        assert_eq!(restore_params(&written, 1, 2), written);
    }

    #[test]
    fn a_computed_argument_used_twice_is_let_bound() {
        let e = program(
            "def p {n : nat} (xs : n.f32) = \
             (fun (s : f32) => s * s + s) (xs |> reduce (+) 0.0)",
        );
        let goal = program(
            "def p {n : nat} (xs : n.f32) = \
             let s = xs |> reduce (+) 0.0 in s * s + s",
        );
        assert_eq!(program_normal(&e).unwrap(), goal);
        // Used once, or a plain variable: substituted as before.
        let once = program(
            "def p {n : nat} (xs : n.f32) = (fun (s : f32) => s + 1.0) (xs |> reduce (+) 0.0)",
        );
        let goal = program("def p {n : nat} (xs : n.f32) = (xs |> reduce (+) 0.0) + 1.0");
        assert_eq!(program_normal(&once).unwrap(), goal);
        let var = program("def p (x : f32) = (fun (s : f32) => s * s) x");
        assert_eq!(
            program_normal(&var).unwrap(),
            program("def p (x : f32) = x * x")
        );
    }

    #[test]
    fn reduces_nat_beta() {
        let e = program(
            "def p (xs : 8.f32) = (fun (n : nat) => fun (v : (2*n).f32) => split n v) 4 xs",
        );
        let goal = program("def p = split 4 : 8.f32 -> 2.4.f32");
        assert_eq!(beta_eta_normal(&e).unwrap(), goal);
    }

    #[test]
    fn compose_many_normalises_to_repeated_additions() {
        let add1 = "(fun (y : f32) => y + 1.0)";
        let compose = "(fun (f : f32 -> f32) (g : f32 -> f32) (x : f32) => f (g x))";
        let e = program(&format!(
            "def p = (fun c => (fun a => c a (c a (c a a))) {add1}) {compose}"
        ));
        let goal = program("def p = fun (x : f32) => x + 1.0 + 1.0 + 1.0 + 1.0");
        assert_eq!(beta_eta_normal(&e).unwrap(), goal);
    }

    #[test]
    fn normal_forms_are_fixed_points() {
        let e = program(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/matmul.rise"
        )));
        let n = beta_eta_normal(&e).unwrap();
        assert_eq!(beta_eta_normal(&n).unwrap(), n);
    }
}

mod padding {
    use risec_core::core::padding::*;

    fn verdict(src: &str, padded: &[bool]) -> Result<(), NotPaddable> {
        let names: Vec<String> = (0..padded.len()).map(|i| format!("s{i}")).collect();
        check_paddable(&risec_frontend::load::test_term(src), padded, &names)
    }

    const MATMUL: &str = "def matmul {m n k : nat} (a : m.k.f32) (b : k.n.f32) : m.n.f32 =\n  \
        a |> map (fun arow => transpose b |> map (fun bcol =>\n    \
        zip arow bcol |> map (fun p => fst p * snd p) |> reduce (+) 0.0))";

    #[test]
    fn matmul_may_be_padded_along_every_size() {
        for padded in [
            [true, true, true],
            [true, false, false],
            [false, false, true],
        ] {
            assert_eq!(verdict(MATMUL, &padded), Ok(()), "{padded:?}");
        }
    }

    #[test]
    fn a_product_over_a_padded_size_may_not() {
        let prod = "def prod {n : nat} (xs : n.f32) : f32 = xs |> reduce (*) 1.0";
        assert!(verdict(prod, &[true]).is_err());
        // Scaling by a scalar input that may be infinite: 0 * inf is NaN.
        let scaled = "def s {n : nat} (c : f32) (xs : n.f32) : f32 = \
                      xs |> map (fun x => x * c) |> reduce (+) 0.0";
        assert!(verdict(scaled, &[true]).is_err());
        assert_eq!(verdict(scaled, &[false]), Ok(()));
        // A maximum is not zero-neutral either.
        let shifted = "def t {n : nat} (xs : n.f32) : f32 = \
                       xs |> map (fun x => x + 1.0) |> reduce (+) 0.0";
        assert!(verdict(shifted, &[true]).is_err());
    }

    #[test]
    fn a_map_of_anything_may_be_padded() {
        let scaled = "def s {n : nat} (c : f32) (xs : n.f32) : n.f32 = \
                      xs |> map (fun x => x * c + 1.0)";
        assert_eq!(verdict(scaled, &[true]), Ok(()));
    }

    #[test]
    fn matmul_rows_are_independent_and_a_sum_over_rows_is_not() {
        let matmul = risec_frontend::load::test_term(MATMUL);
        assert!(rows_independent(&matmul, 3, 0));
        assert!(!rows_independent(&matmul, 3, 1));
        assert!(!rows_independent(&matmul, 3, 2));
        let every_row = "def r {m n : nat} (a : m.n.f32) : m.f32 = \
                         a |> map (fun row => a |> map (fun r => reduce (+) 0.0 r) |> reduce (+) 0.0)";
        assert!(!rows_independent(
            &risec_frontend::load::test_term(every_row),
            2,
            0
        ));
        let own_row =
            "def r {m n : nat} (a : m.n.f32) : m.f32 = a |> map (fun row => reduce (+) 0.0 row)";
        assert!(rows_independent(
            &risec_frontend::load::test_term(own_row),
            2,
            0
        ));
    }

    #[test]
    fn a_sum_of_absolute_values_may_be_padded() {
        // Padding zeros stay zero through the `select`, and zero is neutral for the sum.
        let abs = "def p {n : nat} (x : n.f32) : f32 = \
                   x |> map (fun v => select (lt v 0.0) (neg v) v) |> reduce (+) 0.0";
        assert_eq!(verdict(abs, &[true]), Ok(()));
        // A branch that is not zero on zeros makes the sum change.
        let shifted = "def p {n : nat} (x : n.f32) : f32 = \
                       x |> map (fun v => select (lt v 0.0) (neg v) (v + 1.0)) |> reduce (+) 0.0";
        assert!(verdict(shifted, &[true]).is_err());
    }

    #[test]
    fn math_functions_keep_zeros_zero_only_where_they_do() {
        // sqrt 0 = abs 0 = max 0 0 = min 0 0 = 0: a sum over padding stays the sum.
        for f in [
            "sqrt (abs v)",
            "abs v",
            "max v 0.0",
            "min v 0.0",
            "max (abs v) (sqrt v)",
        ] {
            let src = format!(
                "def p {{n : nat}} (x : n.f32) : f32 = x |> map (fun v => {f}) |> reduce (+) 0.0"
            );
            assert_eq!(verdict(&src, &[true]), Ok(()), "{f}");
        }
        // exp 0 = 1 and log 0 = -inf: the padding would change the sum.
        for f in ["exp v", "log v", "max v 1.0"] {
            let src = format!(
                "def p {{n : nat}} (x : n.f32) : f32 = x |> map (fun v => {f}) |> reduce (+) 0.0"
            );
            assert!(verdict(&src, &[true]).is_err(), "{f}");
        }
        // A maximum over padded zeros is not the maximum of the real elements (all may be
        // negative).
        let maximum = "def p {n : nat} (x : n.f32) : f32 = x |> reduce max (-1.0 / 0.0)";
        assert!(verdict(maximum, &[true]).is_err());
        assert_eq!(verdict(maximum, &[false]), Ok(()));
        // Element-wise, anything goes: padding positions are not copied back.
        let rowwise = "def p {n : nat} (x : n.f32) : n.f32 = x |> map (fun v => exp v)";
        assert_eq!(verdict(rowwise, &[true]), Ok(()));
    }

    #[test]
    fn a_size_converted_to_a_float_is_the_padded_one() {
        let mean = "def m {m n : nat} (a : m.n.f32) : m.f32 = \
                    a |> map (fun row => (row |> reduce (+) 0.0) / natToFloat n)";
        // Rounding up the rows changes nothing of a row; rounding up n changes the divisor.
        assert_eq!(verdict(mean, &[true, false]), Ok(()));
        assert!(verdict(mean, &[false, true]).is_err());
        let scaled = "def s {m n : nat} (x : m.f32) : m.f32 = \
                      x |> map (fun v => v * natToFloat (n + 1))";
        assert_eq!(verdict(scaled, &[true, false]), Ok(()));
        assert!(verdict(scaled, &[false, true]).is_err());
    }

    #[test]
    fn reshaping_a_padded_size_may_not() {
        let joined = "def j {m n : nat} (a : m.n.f32) : (m*n).f32 = join a";
        assert!(verdict(joined, &[true, false]).is_err());
        assert!(verdict(joined, &[false, false]).is_ok());
    }
}

mod padding_stencils {
    use risec_core::core::padding::*;

    fn verdict(src: &str, padded: &[bool]) -> Result<(), NotPaddable> {
        let names: Vec<String> = ["n", "m"][..padded.len()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        check_paddable(&risec_frontend::load::test_term(src), padded, &names)
    }

    #[test]
    fn a_stencil_over_an_input_with_a_border_may_be_padded() {
        let j1 = "def j {n : nat} (xs : (n+2).f32) : n.f32 = \
                  xs |> slide 3 1 |> map (fun w => reduce (+) 0.0 w * 0.5)";
        assert_eq!(verdict(j1, &[true]), Ok(()));
        // Windows of 4 taken 2 apart: the real windows still read real elements only.
        let strided = "def s {n : nat} (xs : (2*n+2).f32) : n.f32 = \
                       xs |> slide 4 2 |> map (fun w => reduce (+) 0.0 w)";
        assert_eq!(verdict(strided, &[true]), Ok(()));
        let src = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../..",
            "/examples/jacobi2d.rise"
        ))
        .unwrap();
        assert_eq!(verdict(&src, &[true, true]), Ok(()));
        assert_eq!(verdict(&src, &[false, true]), Ok(()));
    }

    #[test]
    fn elements_put_after_a_padded_dimension_are_refused_unless_zero() {
        // `pad 0 1 1.0`: the element after the array would land after the padding.
        let ones = "def p {n : nat} (xs : n.f32) : (n+1).f32 = xs |> pad 0 1 1.0";
        assert!(verdict(ones, &[true]).is_err());
        let zeros = "def p {n : nat} (xs : n.f32) : (n+1).f32 = xs |> pad 0 1 0.0";
        assert_eq!(verdict(zeros, &[true]), Ok(()));
        let before = "def p {n : nat} (xs : n.f32) : (n+2).f32 = xs |> pad 2 0 1.0";
        assert_eq!(verdict(before, &[true]), Ok(()));
        // Clamping repeats the last element, which padding would change.
        let clamped = "def p {n : nat} (xs : n.f32) : (n+1).f32 = xs |> padClamp 0 1";
        assert!(verdict(clamped, &[true]).is_err());
    }

    #[test]
    fn a_refusal_names_the_sizes() {
        let product = "def q {n m : nat} (a : (n*m).f32) : (n*m).f32 = a";
        let err = verdict(product, &[true, false]).unwrap_err();
        assert!(err.0.contains("`(m*n).f32`"), "{err}");
        assert!(!err.0.contains('#'), "{err}");
    }
}

mod print {
    use risec_core::core::print::*;
    use risec_core::core::TypedProgram;
    use risec_core::diagnostics::SourceFile;
    use risec_core::ir::nat::{self, Nat};
    use risec_frontend::load::compile_source;

    fn compile(source: &str) -> TypedProgram {
        compile_source(&SourceFile::new("p.rise", source), None)
            .unwrap_or_else(|e| panic!("{}\n{source}", e.render()))
    }

    /// `p` printed declaring `facts`: it must read back as the same term, with facts that give
    /// every one of `facts`.
    fn declared(p: &TypedProgram, facts: &[Nat]) -> String {
        let text = program_to_source_declaring(p, facts);
        let back = compile_source(&SourceFile::new("back.rise", &text), None)
            .unwrap_or_else(|e| panic!("{}\n{text}", e.render()));
        assert!(back.term == p.term, "another term: {text}");
        for fact in facts {
            assert!(
                nat::is_integral_given(fact, &back.facts),
                "{fact} in {text}"
            );
        }
        assert!(!text.contains("relies on"), "{text}");
        text
    }

    /// `(size + offset)/d` over the size parameter at de Bruijn index `size`.
    fn fact(size: u32, times: u64, offset: u64, d: u64) -> Nat {
        let sum = nat::add(
            &nat::mul(&nat::lit(times), &nat::index(size)),
            &nat::lit(offset),
        );
        nat::div(&sum, &nat::lit(d))
    }

    #[test]
    fn facts_over_an_extent_or_a_multiple_of_it_divide_it() {
        let p = compile(
            "def f {n m : nat} (xs : (n+4).(m).f32) : (n+4).f32 =\n  \
             xs |> map (fun r => r |> reduce (+) 0.0)",
        );
        let text = declared(&p, &[fact(1, 1, 4, 64), fact(0, 1, 0, 32)]);
        assert!(
            text.contains("(xs : ((n + 4)/64*64).(m/32*32).f32)"),
            "{text}"
        );
        // A split by 2 then by 7 of `2n + 2` relies on `(n + 1)/7`; a split by 2^20 of `4m` on
        // `m/2^18` (these were written in a comment, and the result did not check).
        let p = compile(
            "def f {n m : nat} (xs : (2*n+2).(4*m).f32) : (2*n+2).f32 =\n  \
             xs |> map (fun r => r |> reduce (+) 0.0)",
        );
        let text = declared(&p, &[fact(1, 1, 1, 7), fact(0, 1, 0, 262144)]);
        assert!(
            text.contains("(xs : ((2*n + 2)/14*14).((4*m)/1048576*1048576).f32)"),
            "{text}"
        );
    }

    #[test]
    fn facts_over_other_sums_are_written_into_the_closest_extent() {
        // Harris's stencils take `n + 4` to `n + 2` to `n`: a split by 7 of `n + 2` relies on
        // `(n + 2)/7`, which is no extent of the signature.
        let p = compile(
            "def f {n m : nat} (img : (n+4).(m+4).f32) : n.m.f32 =\n  \
             img |> drop 2 |> take n |> map (fun r => r |> drop 2 |> take m)",
        );
        let text = declared(&p, &[fact(1, 1, 2, 7), fact(0, 1, 2, 2)]);
        assert!(
            text.contains("(img : ((n + 2)/7*7 + 2).((m + 2)/2*2 + 2).f32) : n.m.f32"),
            "{text}"
        );
        // A fact over an extent that declares another one goes around it.
        let text = declared(&p, &[fact(1, 1, 2, 7), fact(1, 1, 4, 2), fact(1, 1, 4, 3)]);
        assert!(
            text.contains("(img : ((((n + 2)/7*7 + 2)/2*2)/3*3).(m + 4).f32) : n.m.f32"),
            "{text}"
        );
        // More facts than extents: the others go around the texts of the first ones.
        let p = compile("def f {n : nat} (xs : (n+4).f32) : (n+4).f32 = xs");
        let facts = [
            fact(0, 1, 2, 7),
            fact(0, 1, 0, 3),
            fact(0, 1, 1, 5),
            fact(0, 2, 3, 9),
        ];
        let text = declared(&p, &facts);
        assert!(text.contains(" : (n/3*3 + 4).f32 ="), "{text}");
        assert!(text.contains(" + (n + 1)/5*5 - (n + 1))"), "{text}");
        assert!(text.contains(" + (2*n + 3)/9*9 - (2*n + 3))"), "{text}");
    }

    #[test]
    fn a_size_over_a_sum_reads_back_as_one_division() {
        // The result and the lambda's types have `(n + 2)/7`, which used to be written
        // `n/7 + 2/7`: two divisions that the type checker took for whole numbers.
        let p = compile(
            "def f {n : nat} (xs : ((n+2)/7*7+2).f32) : ((n+2)/7).7.f32 =\n  \
             (fun (y : ((n+2)/7).7.f32) => y) (xs |> drop 2 |> split 7)",
        );
        let text = declared(&p, &p.facts.clone());
        assert!(
            text.contains("(fun (x : ((n + 2)/7).7.f32) => x)"),
            "{text}"
        );
        let plain = program_to_source(&p);
        let back = compile(&plain);
        assert!(back.term == p.term, "{plain}");
    }
}

// FLOP counts of the examples (`core::flops`), in a file of their own.
#[path = "core_on_programs/flops.rs"]
mod flops;
