//! The padding analysis of the primitives that move elements within a padded dimension
//! (`slide`, `pad`, `padClamp`, `take`, `drop`), and the small value helpers the analysis shares.

use super::*;

impl Interp<'_> {
    /// `slide`, `pad`, `padClamp`, `take` or `drop` (with size arguments `nats`) of an array
    /// whose length is rounded up: its real elements `real` are a prefix, its padding `pad`
    /// follows.
    pub(super) fn padded_view<'a>(
        &mut self,
        p: Primitive,
        nats: &[Nat],
        real: Rc<Abs<'a>>,
        pad: Rc<Abs<'a>>,
        fill: Option<Abs<'a>>,
    ) -> R<Abs<'a>> {
        use Primitive::*;
        // The abstract value, not the primitive `abs`.
        use super::Abs;
        let name = p.name();
        let constant = |k: usize| nats.get(k).and_then(|n| n.as_integer());
        let window = |e: Abs<'a>| Abs::Array {
            real: Rc::new(e),
            pad: None,
        };
        Ok(match p {
            // A window that starts among the real elements and ends before the padding holds
            // real elements only, and those are the unpadded program's windows; the windows
            // after them mix real elements and padding.
            Slide => Abs::Array {
                real: Rc::new(window((*real).clone())),
                pad: Some(Rc::new(window(meet(&real, &pad)?))),
            },
            // Elements put after the array land after the padding: they stand where the
            // unpadded program has them only when there are none, or when they are zeros as
            // the padding is.
            Pad | PadClamp => {
                let after = constant(1);
                let fill = match (p, fill) {
                    (Pad, Some(f)) => f,
                    _ => (*real).clone(),
                };
                let fill_is_padding = p == Pad && is_zero(&fill) && is_zero(&pad);
                if after != Some(0) && !fill_is_padding {
                    return refuse(format!(
                        "`{name}` after a dimension that would be rounded up (its elements would move)"
                    ));
                }
                Abs::Array {
                    real: Rc::new(meet(&real, &fill)?),
                    pad: Some(Rc::new(meet(&pad, &forget(&fill))?)),
                }
            }
            // A prefix of a fixed length is real; one of a rounded-up length ends among the
            // padding.
            Take => match nats.first() {
                Some(n) if (self.mentions_padded)(n) => {
                    if !(self.padded_form)(n) {
                        return refuse(format!(
                            "`{name}` of a length that combines a rounded-up size with others"
                        ));
                    }
                    Abs::Array {
                        pad: Some(Rc::new(meet(&real, &pad)?)),
                        real,
                    }
                }
                _ => Abs::Array { real, pad: None },
            },
            // Dropping a fixed number of real elements keeps the rest in order.
            Drop => match nats.first() {
                Some(n) if !(self.mentions_padded)(n) => Abs::Array {
                    real,
                    pad: Some(pad),
                },
                _ => return refuse(format!("`{name}` of a rounded-up number of elements")),
            },
            _ => return refuse(format!("`{name}` of a dimension that would be rounded up")),
        })
    }
}

/// Whether every scalar of `v` is known to be zero.
pub(super) fn is_zero(v: &Abs) -> bool {
    match v {
        Abs::Scalar(f) => f.zero,
        Abs::Pair(a, b) => is_zero(a) && is_zero(b),
        Abs::Array { real, pad } => is_zero(real) && pad.as_deref().is_none_or(is_zero),
        Abs::Closure { .. } | Abs::Prim(..) => false,
    }
}

/// Whether two data values of the same shape are described alike.
pub(super) fn same_facts(a: &Abs, b: &Abs) -> bool {
    match (a, b) {
        (Abs::Scalar(x), Abs::Scalar(y)) => x == y,
        (Abs::Pair(a1, a2), Abs::Pair(b1, b2)) => same_facts(a1, b1) && same_facts(a2, b2),
        (Abs::Array { real: r1, pad: p1 }, Abs::Array { real: r2, pad: p2 }) => {
            same_facts(r1, r2)
                && match (p1, p2) {
                    (Some(x), Some(y)) => same_facts(x, y),
                    (None, None) => true,
                    _ => false,
                }
        }
        _ => false,
    }
}

/// The same shape with nothing known.
pub(super) fn forget<'a>(v: &Abs<'a>) -> Abs<'a> {
    match v {
        Abs::Scalar(_) => Abs::Scalar(Facts {
            same: false,
            zero: false,
            acc: false,
        }),
        Abs::Pair(a, b) => Abs::Pair(Rc::new(forget(a)), Rc::new(forget(b))),
        Abs::Array { real, pad } => Abs::Array {
            real: Rc::new(forget(real)),
            pad: pad.as_deref().map(|p| Rc::new(forget(p))),
        },
        other => other.clone(),
    }
}

pub(super) fn array<'a>(v: Abs<'a>, what: &str) -> R<(Rc<Abs<'a>>, Option<Rc<Abs<'a>>>)> {
    match v {
        Abs::Array { real, pad } => Ok((real, pad)),
        _ => refuse(format!("`{what}` of a value that is not an array")),
    }
}

pub(super) fn scalar(v: Abs, what: &str) -> R<Facts> {
    match v {
        Abs::Scalar(f) => Ok(f),
        _ => refuse(format!("`{what}` of a value that is not a scalar")),
    }
}
