//! The padding analysis of each primitive applied to all of its arguments: maps and
//! reductions (whether padding elements are neutral for the operator), pairs, `transpose`,
//! scalar operations (math functions included: which keep a zero zero), `natToFloat` (a
//! rounded-up size is not the real one), and the primitives that move elements (of a padded
//! dimension in `reshape`, of an unpadded one here).

use super::*;

impl Interp<'_> {
    /// `p` with size arguments `nats` applied to all of its value arguments `args`.
    pub(super) fn primitive<'a>(
        &mut self,
        p: Primitive,
        nats: &[Nat],
        mut args: Vec<Abs<'a>>,
    ) -> R<Abs<'a>> {
        use Primitive::*;
        // The abstract value, not the primitive `abs`.
        use super::Abs;
        let name = p.name();
        match p {
            Map | MapSeq | MapSeqUnroll | MapPar => {
                let arr = args.pop().expect("arity");
                let f = args.pop().expect("arity");
                self.map(f, arr, name)
            }
            Reduce | ReduceSeq | ReduceSeqUnroll => {
                let arr = args.pop().expect("arity");
                let init = args.pop().expect("arity");
                let f = args.pop().expect("arity");
                self.reduce(p, f, init, arr)
            }
            Zip => {
                let b = args.pop().expect("arity");
                let a = args.pop().expect("arity");
                zip(a, b, name)
            }
            Unzip => unzip(args.pop().expect("arity"), name),
            Fst | Snd => match args.pop().expect("arity") {
                Abs::Pair(a, b) => Ok((*if p == Fst { a } else { b }).clone()),
                _ => refuse(format!("`{name}` of a value that is not a pair")),
            },
            MakePair => {
                let b = args.pop().expect("arity");
                let a = args.pop().expect("arity");
                Ok(Abs::Pair(Rc::new(a), Rc::new(b)))
            }
            Transpose => transpose(args.pop().expect("arity"), name),
            Add | Sub | Mul | Div | Lt | Gt | Eq => {
                let b = scalar(args.pop().expect("arity"), name)?;
                let a = scalar(args.pop().expect("arity"), name)?;
                Ok(Abs::Scalar(binary(p, a, b)))
            }
            Neg | Sqrt | Primitive::Abs => {
                // -0, sqrt 0 and abs 0 are zero.
                let a = scalar(args.pop().expect("arity"), name)?;
                Ok(Abs::Scalar(Facts {
                    same: a.same,
                    zero: a.zero,
                    acc: false,
                }))
            }
            Exp | Log => {
                // exp 0 is 1 and log 0 is -inf: a zero does not stay zero.
                let a = scalar(args.pop().expect("arity"), name)?;
                Ok(Abs::Scalar(Facts {
                    same: a.same,
                    zero: false,
                    acc: false,
                }))
            }
            Max | Min => {
                // Of two zeros, one; `max acc 0` is not `acc` (acc may be negative).
                let b = scalar(args.pop().expect("arity"), name)?;
                let a = scalar(args.pop().expect("arity"), name)?;
                Ok(Abs::Scalar(Facts {
                    same: a.same && b.same,
                    zero: a.zero && b.zero,
                    acc: false,
                }))
            }
            NatToFloat => {
                // The same value unless the size is one of those rounded up.
                let Some(k) = nats.first() else {
                    return refuse("`natToFloat` without its size");
                };
                Ok(Abs::Scalar(Facts {
                    same: !(self.mentions_padded)(k),
                    zero: false,
                    acc: false,
                }))
            }
            Select => {
                let b = args.pop().expect("arity");
                let a = args.pop().expect("arity");
                let c = scalar(args.pop().expect("arity"), name)?;
                select(c, a, b)
            }
            Let => {
                let f = args.pop().expect("arity");
                let v = args.pop().expect("arity");
                self.apply(f, v)
            }
            ToMem | VectorFromScalar => Ok(args.pop().expect("arity")),
            Slide | Pad | PadClamp | Take | Drop
                if matches!(args.last(), Some(Abs::Array { pad: Some(_), .. })) =>
            {
                let arr = args.pop().expect("arity");
                let fill = args.pop();
                let (real, pad) = array(arr, name)?;
                let pad = pad.expect("matched");
                self.padded_view(p, nats, real, pad, fill)
            }
            Split | Join | Take | Drop | Slide | PadClamp | AsVector | AsVectorAligned
            | AsScalar | Pad => {
                let arr = args.pop().expect("arity");
                let fill = args.pop();
                unpadded_view(p, arr, fill)
            }
            Generate | Idx => refuse(format!("`{name}`")),
        }
    }

    /// `map f arr`: `f` of the real elements and, apart, `f` of the padding elements.
    fn map<'a>(&mut self, f: Abs<'a>, arr: Abs<'a>, name: &str) -> R<Abs<'a>> {
        let (real, pad) = array(arr, name)?;
        let real = self.apply(f.clone(), (*real).clone())?;
        let pad = match pad {
            Some(p) => Some(Rc::new(self.apply(f, (*p).clone())?)),
            None => None,
        };
        Ok(Abs::Array {
            real: Rc::new(real),
            pad,
        })
    }

    /// A reduction `p` of `arr` by `f` from `init`: what the accumulator keeps through any
    /// number of real elements, and nothing known when a padding element is not neutral for
    /// `f` (on either side for `reduce`, which may combine in any order).
    fn reduce<'a>(&mut self, p: Primitive, f: Abs<'a>, init: Abs<'a>, arr: Abs<'a>) -> R<Abs<'a>> {
        let (real, pad) = array(arr, p.name())?;
        // What the accumulator keeps through any number of real elements.
        let mut acc = init;
        for _ in 0..4 {
            let next = self.apply2(&f, acc.clone(), (*real).clone())?;
            let met = meet(&acc, &next)?;
            let stable = same_facts(&met, &acc);
            acc = met;
            if stable {
                break;
            }
        }
        if let Some(pad) = pad {
            let probe = as_acc(&acc)?;
            let mut neutral = is_acc(&self.apply2(&f, probe.clone(), (*pad).clone())?);
            if p == Primitive::Reduce {
                // `reduce` may combine in any order.
                neutral &= is_acc(&self.apply2(&f, (*pad).clone(), probe)?);
            }
            if !neutral {
                acc = meet(&acc, &forget(&acc))?;
            }
        }
        Ok(acc)
    }
}

/// `zip a b`: pairs of real elements and pairs of padding elements (both arrays padded, or
/// neither).
fn zip<'a>(a: Abs<'a>, b: Abs<'a>, name: &str) -> R<Abs<'a>> {
    let (ra, pa) = array(a, name)?;
    let (rb, pb) = array(b, name)?;
    let pad = match (pa, pb) {
        (Some(x), Some(y)) => Some(Rc::new(Abs::Pair(x, y))),
        (None, None) => None,
        _ => return refuse("`zip` of arrays padded differently"),
    };
    Ok(Abs::Array {
        real: Rc::new(Abs::Pair(ra, rb)),
        pad,
    })
}

/// `unzip arr`: the arrays of first and of second components, padded as `arr` is.
fn unzip<'a>(arr: Abs<'a>, name: &str) -> R<Abs<'a>> {
    let (real, pad) = array(arr, name)?;
    let Abs::Pair(r1, r2) = &*real else {
        return refuse("`unzip` of an array that is not of pairs");
    };
    let (p1, p2) = match pad.as_deref() {
        Some(Abs::Pair(p1, p2)) => (Some(p1.clone()), Some(p2.clone())),
        None => (None, None),
        Some(_) => return refuse("`unzip` of an array that is not of pairs"),
    };
    Ok(Abs::Pair(
        Rc::new(Abs::Array {
            real: r1.clone(),
            pad: p1,
        }),
        Rc::new(Abs::Array {
            real: r2.clone(),
            pad: p2,
        }),
    ))
}

/// `transpose arr`: the padding of the rows becomes that of the columns and the other way
/// round.
fn transpose<'a>(arr: Abs<'a>, name: &str) -> R<Abs<'a>> {
    let (outer_real, outer_pad) = array(arr, name)?;
    let (rr, rp) = array((*outer_real).clone(), name)?;
    let (pr, pp) = match outer_pad {
        Some(p) => {
            let (pr, pp) = array((*p).clone(), name)?;
            (Some(pr), pp)
        }
        None => (None, None),
    };
    Ok(Abs::Array {
        real: Rc::new(Abs::Array { real: rr, pad: pr }),
        pad: rp.map(|rp| Rc::new(Abs::Array { real: rp, pad: pp })),
    })
}

/// The facts of an arithmetic operation or a comparison `p` of scalars `a` and `b`: which
/// zeros stay zero, and which keep the probed accumulator.
fn binary(p: Primitive, a: Facts, b: Facts) -> Facts {
    use Primitive::*;
    let same = a.same && b.same;
    match p {
        Add => Facts {
            same,
            zero: a.zero && b.zero,
            acc: (a.acc && b.zero) || (a.zero && b.acc),
        },
        Sub => Facts {
            same,
            zero: a.zero && b.zero,
            acc: a.acc && b.zero,
        },
        // 0 * x is not 0 when x is infinite or NaN.
        Mul => Facts {
            same,
            zero: a.zero && b.zero,
            acc: false,
        },
        _ => Facts {
            same,
            zero: false,
            acc: false,
        },
    }
}

/// `select c a b`: what holds of both branches, and no more the unpadded value unless the
/// condition is.
fn select<'a>(c: Facts, a: Abs<'a>, b: Abs<'a>) -> R<Abs<'a>> {
    let both = meet(&a, &b)?;
    Ok(match both {
        _ if c.same => both,
        // Either branch: what holds of both holds of the choice (a padding zero
        // stays zero through `select (lt v 0) (neg v) v`), but it may differ from
        // the unpadded program's where the condition does.
        Abs::Scalar(f) => Abs::Scalar(Facts { same: false, ..f }),
        _ => meet(&both, &forget(&both))?,
    })
}

/// `split`, `join`, `take`, `drop`, `slide`, `pad`, `padClamp`, `asVector` or `asScalar`
/// (`fill`: `pad`'s value) of an array whose outer dimension is not rounded up (`join` of
/// rows of a rounded-up length is refused).
fn unpadded_view<'a>(p: Primitive, arr: Abs<'a>, fill: Option<Abs<'a>>) -> R<Abs<'a>> {
    use Primitive::*;
    // The abstract value, not the primitive `abs`.
    use super::Abs;
    let name = p.name();
    let (real, pad) = array(arr, name)?;
    if pad.is_some() {
        return refuse(format!("`{name}` of a dimension that would be rounded up"));
    }
    let inner = |v: Rc<Abs<'a>>| -> R<Rc<Abs<'a>>> {
        match &*v {
            Abs::Array { real, pad: None } => Ok(real.clone()),
            Abs::Array { .. } => {
                refuse(format!("`{name}` of a dimension that would be rounded up"))
            }
            _ => refuse(format!("`{name}` of an array of scalars")),
        }
    };
    let wrap = |e: Rc<Abs<'a>>| Abs::Array { real: e, pad: None };
    Ok(match p {
        Split | Slide => wrap(Rc::new(wrap(real))),
        Join => wrap(inner(real)?),
        Pad => {
            let fill = fill.expect("arity");
            wrap(Rc::new(meet(&real, &fill)?))
        }
        _ => wrap(real),
    })
}
