use super::*;

fn m() -> Nat {
    index(0)
}
fn n() -> Nat {
    index(1)
}

#[test]
fn division_by_constant_cancels_with_multiplication() {
    let m32 = div(&m(), &lit(32));
    assert_eq!(mul(&m32, &lit(32)), m());
    assert_eq!(div(&mul(&m(), &lit(4)), &lit(4)), m());
}

#[test]
fn sums_are_canonical() {
    let a = add(&add(&m(), &n()), &lit(3));
    let b = add(&lit(3), &add(&n(), &m()));
    assert_eq!(a, b);
    assert_eq!(sub(&a, &a), lit(0));
    // (sp*n + sz - sp) with sp = 1, sz = 3 is n + 2
    let slide_len = sub(&add(&mul(&lit(1), &n()), &lit(3)), &lit(1));
    assert_eq!(slide_len, add(&n(), &lit(2)));
}

#[test]
fn symbolic_division_is_exact_or_opaque() {
    let mn = mul(&m(), &n());
    assert_eq!(div(&mn, &n()), m());
    let opaque_div = div(&m(), &n());
    assert!(matches!(
        opaque_div.as_atom(),
        Some(NatAtom::Op(NatOp::Div, _, _))
    ));
}

#[test]
fn integrality_uses_facts() {
    let m32 = div(&m(), &lit(32));
    assert!(!is_integral_given(&m32, &[]));
    assert!(is_integral_given(&m32, std::slice::from_ref(&m32)));
    // n * m / 32 follows from 32 | m
    assert!(is_integral_given(
        &mul(&n(), &m32),
        std::slice::from_ref(&m32)
    ));
    // m / 64 does not follow from 32 | m
    assert!(!is_integral_given(
        &div(&m(), &lit(64)),
        std::slice::from_ref(&m32)
    ));
    // m / 16 follows from 32 | m
    assert!(is_integral_given(&div(&m(), &lit(16)), &[m32]));
    assert!(is_integral_given(&add(&m(), &lit(4)), &[]));
}

#[test]
fn evaluation() {
    let e = add(&mul(&div(&m(), &lit(32)), &n()), &lit(1));
    let v = e.eval(&|a| match a {
        NatAtom::Index(0) => Some(64),
        NatAtom::Index(1) => Some(3),
        _ => None,
    });
    assert_eq!(v, Ok(7));
    let bad = div(&m(), &lit(3)).eval(&|_| Some(64));
    assert!(matches!(bad, Err(NatEvalError::NotIntegral(_))));
}

#[test]
fn substitution_and_shifting() {
    // (#0 + #1)[#0 := 5] = 5 + #0
    let e = add(&m(), &n());
    assert_eq!(subst_index(&e, 0, &lit(5)), add(&lit(5), &index(0)));
    assert_eq!(shift(&shift(&e, 2, 0), -2, 0), e);
}

#[test]
fn linear_meta_isolation() {
    // 4 * ?0 - m = 0  gives ?0 = m / 4
    let e = sub(&mul(&lit(4), &meta(0)), &m());
    let (rest, c) = isolate_meta(&e, 0).unwrap();
    assert_eq!(c, lit(4));
    assert_eq!(div(&sub(&lit(0), &rest), &c), div(&m(), &lit(4)));
    // n * ?0 - 2 * n = 0 gives ?0 = 2
    let e = sub(&mul(&n(), &meta(0)), &mul(&lit(2), &n()));
    let (rest, c) = isolate_meta(&e, 0).unwrap();
    assert_eq!(div(&sub(&lit(0), &rest), &c), lit(2));
    assert!(isolate_meta(&mul(&meta(0), &meta(0)), 0).is_none());
}

#[test]
fn printing_round_trips_through_the_constructors() {
    let name = |a: &NatAtom| match a {
        NatAtom::Index(0) => "m".to_string(),
        _ => "n".to_string(),
    };
    assert_eq!(to_source(&div(&m(), &lit(32)), true, &name), "(m/32)");
    assert_eq!(to_source(&sub(&n(), &lit(1)), false, &name), "n - 1");
    assert_eq!(to_source(&lit(32), true, &name), "32");
    assert_eq!(to_source(&mul(&m(), &m()), false, &name), "m^2");
}

#[test]
fn sums_with_several_fractions_are_printed_as_one_division() {
    // `n/7 + 2/7` would read back as two divisions, each taken for a whole number (and `2/7`
    // is none): `(n + 2)/7` is one.
    let name = |a: &NatAtom| match a {
        NatAtom::Index(0) => "m".to_string(),
        _ => "n".to_string(),
    };
    let n2 = div(&add(&n(), &lit(2)), &lit(7));
    assert_eq!(to_source(&n2, false, &name), "(n + 2)/7");
    assert_eq!(to_source(&n2, true, &name), "((n + 2)/7)");
    let mixed = add(&div(&n(), &lit(4)), &div(&mul(&m(), &lit(3)), &lit(6)));
    assert_eq!(to_source(&mixed, false, &name), "(2*m + n)/4");
    // One fraction beside whole terms reads back as it is.
    let one = add(&div(&n(), &lit(4)), &m());
    assert_eq!(to_source(&one, false, &name), "m + n/4");
    let less = sub(&div(&n(), &lit(7)), &div(&lit(2), &lit(7)));
    assert_eq!(to_source(&less, false, &name), "(n - 2)/7");
}

#[test]
fn huge_powers_do_not_panic() {
    let big = pow(&lit(2), &lit(200));
    assert!(big.as_integer().is_none() || big.as_integer().unwrap() > 0);
    let _ = mul(&big, &big);
    let _ = pow(&add(&m(), &n()), &lit(64));
}

/// `n^(64^k)`.
fn tower(base: &Nat, k: usize) -> Nat {
    (0..k).fold(base.clone(), |acc, _| pow(&acc, &lit(64)))
}

#[test]
fn powers_past_u32_are_opaque_not_wrapped() {
    // 64^6 = 2^36 does not fit a monomial's u32 power: it used to wrap (to n^0 = 1).
    let big = tower(&m(), 6);
    assert_ne!(big, lit(1));
    assert!(
        has_op(&big, NatOp::Mul) || has_op(&big, NatOp::Pow),
        "{big}"
    );
    // n^(2^30) · n^(2^30) · … stays checked as well.
    let half = tower(&m(), 5);
    assert_eq!(half.terms()[0].0.factors()[0].1, 1 << 30);
    let square = mul(&half, &mul(&half, &mul(&half, &half)));
    assert!(has_op(&square, NatOp::Mul), "{square}");
}

#[test]
fn substituting_into_a_huge_power_is_immediate() {
    // m^(2^30) with m := n: one monomial raised at once, not 2^30 products.
    let big = tower(&m(), 5);
    let replaced = map_atoms(&big, &mut |a| (*a == NatAtom::Index(0)).then(n));
    assert_eq!(replaced, tower(&n(), 5));
    // With m := n + 1 the power is kept opaque.
    let replaced = map_atoms(&big, &mut |a| {
        (*a == NatAtom::Index(0)).then(|| add(&n(), &lit(1)))
    });
    assert!(has_op(&replaced, NatOp::Pow), "{replaced}");
    // With m := 0 it is 0.
    let zero = map_atoms(&big, &mut |a| (*a == NatAtom::Index(0)).then(|| lit(0)));
    assert_eq!(zero, lit(0));
}

#[test]
fn evaluating_a_huge_power_is_immediate() {
    let big = tower(&m(), 5);
    let at = |v: u64| big.eval(&|a| (*a == NatAtom::Index(0)).then_some(v));
    assert_eq!(at(1), Ok(1));
    assert_eq!(at(0), Ok(0));
    assert_eq!(at(2), Err(NatEvalError::Overflow));
}

#[test]
fn long_products_are_collected_quickly() {
    // (m_0 + … + m_299)·(m_300 + … + m_599): 90,000 distinct monomials.
    let sum = |r: std::ops::Range<u32>| r.fold(lit(0), |acc, i| add(&acc, &index(i)));
    let p = mul(&sum(0..300), &sum(300..600));
    assert_eq!(p.terms().len(), 90_000);
}
