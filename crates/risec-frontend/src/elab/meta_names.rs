//! Readable names for the inference variables (unknown sizes and types) that a diagnostic
//! shows: `?a`, `?b`, … in the order they first appear in the message, one variable one name,
//! instead of their internal ids (`?16.?19.f32` reads `?a.?b.f32`).

use std::cell::RefCell;

/// The names given so far in one message.
#[derive(Debug, Default)]
pub(super) struct MetaNames {
    /// The variables' ids, in the order they were named, each with whether it is a size (else
    /// a type).
    named: RefCell<Vec<(u32, bool)>>,
}

impl MetaNames {
    /// The name of the size inference variable `id`: the next unused one at its first use.
    pub(super) fn size(&self, id: u32) -> String {
        self.name(id, true)
    }

    /// The name of the type inference variable `id`: the next unused one at its first use.
    pub(super) fn ty(&self, id: u32) -> String {
        self.name(id, false)
    }

    fn name(&self, id: u32, is_size: bool) -> String {
        let mut named = self.named.borrow_mut();
        let index = match named.iter().position(|&(m, _)| m == id) {
            Some(i) => i,
            None => {
                named.push((id, is_size));
                named.len() - 1
            }
        };
        Self::nth(index)
    }

    /// The `index`-th name: `?a` … `?z`, then `?a1` … `?z1`, and so on.
    fn nth(index: usize) -> String {
        let letter = char::from(b'a' + (index % 26) as u8);
        match index / 26 {
            0 => format!("?{letter}"),
            round => format!("?{letter}{round}"),
        }
    }

    /// A note saying what the names stand for, when the message used any: "`?a` and `?b`
    /// stand for sizes and `?c` for a type not inferred yet".
    pub(super) fn note(&self) -> Option<String> {
        let named = self.named.borrow();
        let names = |size: bool| -> Vec<String> {
            (0..named.len())
                .filter(|&i| named[i].1 == size)
                .map(|i| format!("`{}`", Self::nth(i)))
                .collect()
        };
        let (sizes, types) = (names(true), names(false));
        let part = |names: &[String], one: &str, many: &str| match names {
            [] => None,
            [name] => Some((name.clone(), format!("a {one}"), "stands")),
            [init @ .., last] => Some((
                format!("{} and {last}", init.join(", ")),
                many.into(),
                "stand",
            )),
        };
        match (part(&sizes, "size", "sizes"), part(&types, "type", "types")) {
            (None, None) => None,
            (Some((n, what, verb)), None) | (None, Some((n, what, verb))) => {
                Some(format!("{n} {verb} for {what} not inferred yet"))
            }
            (Some((n, what, verb)), Some((m, other, _))) => Some(format!(
                "{n} {verb} for {what} and {m} for {other} not inferred yet"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_first_use_and_repeat_for_the_same_variable() {
        let names = MetaNames::default();
        assert_eq!(names.note(), None);
        assert_eq!(names.size(16), "?a");
        assert_eq!(names.size(19), "?b");
        assert_eq!(names.size(16), "?a");
        assert_eq!(
            names.note().as_deref(),
            Some("`?a` and `?b` stand for sizes not inferred yet")
        );
        assert_eq!(names.ty(7), "?c");
        assert_eq!(
            names.note().as_deref(),
            Some("`?a` and `?b` stand for sizes and `?c` for a type not inferred yet")
        );
        for id in 100..123 {
            names.size(id);
        }
        assert_eq!(names.size(200), "?a1");
        let one = MetaNames::default();
        one.ty(3);
        assert_eq!(
            one.note().as_deref(),
            Some("`?a` stands for a type not inferred yet")
        );
    }
}
