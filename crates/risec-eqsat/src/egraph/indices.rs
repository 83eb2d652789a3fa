//! Sets of De Bruijn indices kept per e-class ([`super::ClassData::free`]), stored compactly.
//!
//! Almost every index in an e-graph is small (it counts the binders between a variable and its
//! lambda), so a class's two sets — expression indices and nat indices — are kept as two 32-bit
//! masks inline, in 16 bytes and no allocation; only a class with an index of 32 or more keeps
//! sorted boxed slices. Both forms hold exactly the same sets: the choice is invisible outside.

/// Indices below this are kept as bits.
const BITS: u32 = 32;

/// A set of indices, read-only: bits or a sorted slice. Iterates in increasing order.
#[derive(Clone, Copy, Debug)]
pub enum Indices<'a> {
    /// Index `i` is in the set when bit `i` is set (every index is below 32).
    Bits(u32),
    /// A sorted slice without duplicates.
    Slice(&'a [u32]),
}

impl<'a> Indices<'a> {
    /// The indices, increasing.
    pub fn iter(self) -> impl Iterator<Item = u32> + 'a {
        let (bits, slice) = match self {
            Indices::Bits(b) => (b, &[][..]),
            Indices::Slice(s) => (0, s),
        };
        (0..BITS)
            .filter(move |i| bits & (1 << i) != 0)
            .chain(slice.iter().copied())
    }

    /// How many indices there are.
    pub fn len(self) -> usize {
        match self {
            Indices::Bits(b) => b.count_ones() as usize,
            Indices::Slice(s) => s.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Whether `i` is in the set.
    pub fn contains(self, i: u32) -> bool {
        match self {
            Indices::Bits(b) => i < BITS && b & (1 << i) != 0,
            Indices::Slice(s) => s.binary_search(&i).is_ok(),
        }
    }

    /// An owned copy.
    pub fn to_buf(self) -> IndexBuf {
        match self {
            Indices::Bits(b) => IndexBuf::Bits(b),
            Indices::Slice(s) => IndexBuf::from_sorted(s),
        }
    }

    /// The indices, increasing, in a vector.
    pub fn to_vec(self) -> Vec<u32> {
        self.iter().collect()
    }
}

/// An owned set of indices, in the form [`Indices`] reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IndexBuf {
    /// Every index is below 32: bit `i` for index `i`.
    Bits(u32),
    /// Some index is 32 or more: sorted, without duplicates.
    List(Box<[u32]>),
}

impl IndexBuf {
    /// The empty set.
    pub const EMPTY: IndexBuf = IndexBuf::Bits(0);

    /// The set of the indices in `sorted` (increasing, without duplicates).
    pub fn from_sorted(sorted: &[u32]) -> IndexBuf {
        if sorted.last().is_none_or(|&i| i < BITS) {
            IndexBuf::Bits(sorted.iter().fold(0, |b, &i| b | 1 << i))
        } else {
            IndexBuf::List(sorted.into())
        }
    }

    /// The set `{i}`.
    pub fn single(i: u32) -> IndexBuf {
        IndexBuf::from_sorted(&[i])
    }

    /// A read-only view.
    pub fn view(&self) -> Indices<'_> {
        match self {
            IndexBuf::Bits(b) => Indices::Bits(*b),
            IndexBuf::List(s) => Indices::Slice(s),
        }
    }
}

/// The union of two sets.
pub fn union(a: Indices, b: Indices) -> IndexBuf {
    match (a, b) {
        (Indices::Bits(x), Indices::Bits(y)) => IndexBuf::Bits(x | y),
        _ => {
            let mut out: Vec<u32> = a.iter().chain(b.iter()).collect();
            out.sort_unstable();
            out.dedup();
            IndexBuf::from_sorted(&out)
        }
    }
}

/// Removes index 0 and lowers the others: the set seen from outside a binder.
pub fn unbind(s: Indices) -> IndexBuf {
    match s {
        Indices::Bits(b) => IndexBuf::Bits(b >> 1),
        Indices::Slice(s) => {
            let lowered: Vec<u32> = s.iter().filter(|&&i| i > 0).map(|i| i - 1).collect();
            IndexBuf::from_sorted(&lowered)
        }
    }
}

/// The free expression indices and free nat indices of an e-class, in 16 bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreeIndices(Repr);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Repr {
    /// Both sets as bits.
    Small { exprs: u32, nats: u32 },
    /// Some index is 32 or more: both sets as sorted slices.
    Large(Box<[Box<[u32]>; 2]>),
}

impl FreeIndices {
    /// Both sets.
    pub fn new(exprs: IndexBuf, nats: IndexBuf) -> FreeIndices {
        match (exprs, nats) {
            (IndexBuf::Bits(exprs), IndexBuf::Bits(nats)) => {
                FreeIndices(Repr::Small { exprs, nats })
            }
            (e, n) => FreeIndices(Repr::Large(Box::new([
                e.view().to_vec().into(),
                n.view().to_vec().into(),
            ]))),
        }
    }

    /// The expression indices.
    pub fn exprs(&self) -> Indices<'_> {
        match &self.0 {
            Repr::Small { exprs, .. } => Indices::Bits(*exprs),
            Repr::Large(sets) => Indices::Slice(&sets[0]),
        }
    }

    /// The nat indices.
    pub fn nats(&self) -> Indices<'_> {
        match &self.0 {
            Repr::Small { nats, .. } => Indices::Bits(*nats),
            Repr::Large(sets) => Indices::Slice(&sets[1]),
        }
    }

    /// Bytes allocated on the heap (none unless some index is 32 or more).
    pub fn heap_bytes(&self) -> usize {
        match &self.0 {
            Repr::Small { .. } => 0,
            Repr::Large(sets) => {
                std::mem::size_of::<[Box<[u32]>; 2]>() + 4 * (sets[0].len() + sets[1].len())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(v: &[u32]) -> IndexBuf {
        IndexBuf::from_sorted(v)
    }

    #[test]
    fn small_and_large_sets_behave_alike() {
        assert_eq!(std::mem::size_of::<FreeIndices>(), 16);
        for (a, b) in [
            (&[0, 2, 5][..], &[1, 2, 7][..]),
            (&[0, 2, 40], &[1, 2, 7]),
            (&[], &[33, 35]),
        ] {
            let u = union(set(a).view(), set(b).view());
            let mut expected: Vec<u32> = a.iter().chain(b).copied().collect();
            expected.sort_unstable();
            expected.dedup();
            assert_eq!(u.view().to_vec(), expected);
            assert!(expected.iter().all(|&i| u.view().contains(i)));
            assert!(!u.view().contains(3) && !u.view().contains(64));
            assert_eq!(u.view().len(), expected.len());
        }
        assert_eq!(unbind(set(&[0, 1, 3]).view()).view().to_vec(), [0, 2]);
        assert_eq!(unbind(set(&[0, 1, 33]).view()).view().to_vec(), [0, 32]);
        assert_eq!(unbind(set(&[0, 32]).view()), set(&[31]));
        let f = FreeIndices::new(set(&[1, 40]), set(&[2]));
        assert_eq!(f.exprs().to_vec(), [1, 40]);
        assert_eq!(f.nats().to_vec(), [2]);
        assert!(f.heap_bytes() > 0);
        let g = FreeIndices::new(set(&[1, 4]), IndexBuf::EMPTY);
        assert_eq!(
            (g.exprs().to_vec(), g.nats().len(), g.heap_bytes()),
            (vec![1, 4], 0, 0)
        );
    }
}
