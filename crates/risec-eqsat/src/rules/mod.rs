//! The named rule library: every rule risec knows, with a one-line description, size
//! parameters, and a constructor. `risec rules` lists it; rule sets name rules as `map-fusion`
//! or, with size arguments, `split-join(32)`.
//!
//! [`validate`] checks a rule against the reference interpreter (every library rule is checked
//! by `tests/suite/rule_validation.rs`); [`vectorize`] computes the lane-wise functions of the
//! vectorisation rules.

mod library;
pub mod validate;
pub mod vectorize;

use crate::ir::nat::{self, Nat};
use crate::rewrite::Rule;

/// A rule of the library.
pub struct RuleInfo {
    /// The name, without parameters.
    pub name: &'static str,
    /// Names of the size parameters (`["s"]` for `split-join(s)`).
    pub params: &'static [&'static str],
    /// What the rule does, in one line (shown by `risec rules`).
    pub doc: &'static str,
    /// The rule as written (`lhs => rhs`), for documentation.
    pub shape: &'static str,
    /// Builds the rule for the given parameter values.
    pub build: fn(&[Nat]) -> Rule,
}

impl RuleInfo {
    /// The name with parameter placeholders: `split-join(s)`.
    pub fn signature(&self) -> String {
        if self.params.is_empty() {
            self.name.to_string()
        } else {
            format!("{}({})", self.name, self.params.join(", "))
        }
    }
}

/// Every rule of the library, in documentation order.
pub fn catalogue() -> &'static [RuleInfo] {
    library::CATALOGUE
}

/// A rule name that does not build a rule. `Display` gives the message risec prints (after
/// `error: ` on the command line, or as a diagnostic's label in a sketch).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// `split-join(32` : the size arguments are not closed.
    #[error("rule `{spec}`: missing `)`")]
    MissingParen {
        /// The rule as written.
        spec: String,
    },
    /// `split-join(x)`: a size argument is not a natural number.
    #[error("rule `{spec}`: size arguments must be natural numbers")]
    NotANumber {
        /// The rule as written.
        spec: String,
    },
    /// No rule of the library has this name.
    #[error("unknown rule `{name}`{}", did_you_mean(suggestions))]
    Unknown {
        /// The name, without size arguments.
        name: String,
        /// Library rules whose name contains it or is contained in it (may be empty).
        suggestions: Vec<&'static str>,
    },
    /// The rule takes another number of size arguments.
    #[error("rule `{name}` takes {expected} size argument(s), as in `{signature}`; {given} given")]
    Arity {
        /// The rule's name.
        name: &'static str,
        /// Its name with parameter placeholders (`split-join(s)`).
        signature: String,
        /// How many size arguments it takes.
        expected: usize,
        /// How many were given.
        given: usize,
    },
    /// A size argument is zero.
    #[error("rule `{spec}`: size arguments must be positive")]
    ZeroSize {
        /// The rule as written.
        spec: String,
    },
}

/// The end of [`RuleError::Unknown`]'s message.
fn did_you_mean(suggestions: &[&str]) -> String {
    if suggestions.is_empty() {
        " (`risec rules` lists them)".to_string()
    } else {
        format!("; did you mean {}?", suggestions.join(", "))
    }
}

/// Builds the rule named by `spec` (`eta`, `split-join(32)`).
pub fn lookup(spec: &str) -> Result<Rule, RuleError> {
    let spec = spec.trim();
    let (name, args) = match spec.split_once('(') {
        Some((name, rest)) => {
            let inner = rest
                .strip_suffix(')')
                .ok_or_else(|| RuleError::MissingParen {
                    spec: spec.to_string(),
                })?;
            let args = inner
                .split(',')
                .map(|a| a.trim().parse::<u64>().map(nat::lit))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| RuleError::NotANumber {
                    spec: spec.to_string(),
                })?;
            (name.trim(), args)
        }
        None => (spec, Vec::new()),
    };
    let info = catalogue()
        .iter()
        .find(|r| r.name == name)
        .ok_or_else(|| RuleError::Unknown {
            name: name.to_string(),
            suggestions: catalogue()
                .iter()
                .map(|r| r.name)
                .filter(|n| n.contains(name) || name.contains(n))
                .collect(),
        })?;
    if args.len() != info.params.len() {
        return Err(RuleError::Arity {
            name: info.name,
            signature: info.signature(),
            expected: info.params.len(),
            given: args.len(),
        });
    }
    if args.iter().any(|a| a.is_zero()) && !info.params.is_empty() {
        return Err(RuleError::ZeroSize {
            spec: spec.to_string(),
        });
    }
    Ok((info.build)(&args))
}

/// Builds a comma-separated list of rules (`map-fusion, split-join(32), eta`).
pub fn lookup_all(specs: &str) -> Result<Vec<Rule>, RuleError> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, c) in specs.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&specs[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&specs[start..]);
    out.into_iter()
        .filter(|s| !s.trim().is_empty())
        .map(lookup)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_builds_and_names_are_unique() {
        let mut names = std::collections::HashSet::new();
        for info in catalogue() {
            assert!(names.insert(info.name), "duplicate rule {}", info.name);
            let args: Vec<Nat> = info.params.iter().map(|_| nat::lit(4)).collect();
            let rule = (info.build)(&args);
            assert!(!rule.doc.is_empty(), "{} has no description", info.name);
            assert!(!info.doc.is_empty());
        }
    }

    #[test]
    fn lookup_parses_parameters() {
        let rules = lookup_all("map-fusion, split-join(32),eta").unwrap();
        let names: Vec<&str> = rules.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["map-fusion", "split-join(32)", "eta"]);
        assert!(lookup("split-join(x)").is_err());
    }

    /// Each way a rule name can be wrong, as a variant and as the message risec prints.
    #[test]
    fn lookup_errors_are_typed() {
        let err = |spec: &str| match lookup(spec) {
            Ok(rule) => panic!("`{spec}` built {}", rule.name),
            Err(e) => e,
        };
        assert_eq!(
            err("split-join(32"),
            RuleError::MissingParen {
                spec: "split-join(32".into()
            }
        );
        assert_eq!(
            err("split-join(32").to_string(),
            "rule `split-join(32`: missing `)`"
        );
        let e = err(" split-join(x) ");
        assert!(matches!(&e, RuleError::NotANumber { spec } if spec == "split-join(x)"));
        assert_eq!(
            e.to_string(),
            "rule `split-join(x)`: size arguments must be natural numbers"
        );
        match err("map-fuse") {
            RuleError::Unknown { name, suggestions } => {
                assert_eq!(name, "map-fuse");
                assert!(suggestions.is_empty());
            }
            e => panic!("{e:?}"),
        }
        assert_eq!(
            err("map-fuse").to_string(),
            "unknown rule `map-fuse` (`risec rules` lists them)"
        );
        match err("fusion") {
            RuleError::Unknown { suggestions, .. } => assert!(suggestions.contains(&"map-fusion")),
            e => panic!("{e:?}"),
        }
        assert!(err("fusion")
            .to_string()
            .starts_with("unknown rule `fusion`; did you mean map-fusion"));
        let e = err("split-join");
        assert_eq!(
            e,
            RuleError::Arity {
                name: "split-join",
                signature: "split-join(s)".into(),
                expected: 1,
                given: 0
            }
        );
        assert_eq!(
            e.to_string(),
            "rule `split-join` takes 1 size argument(s), as in `split-join(s)`; 0 given"
        );
        assert!(matches!(
            err("eta(4)"),
            RuleError::Arity {
                expected: 0,
                given: 1,
                ..
            }
        ));
        assert_eq!(
            err("split-join(0)"),
            RuleError::ZeroSize {
                spec: "split-join(0)".into()
            }
        );
        assert_eq!(
            err("split-join(0)").to_string(),
            "rule `split-join(0)`: size arguments must be positive"
        );
        // A list stops at its first wrong rule.
        assert!(matches!(
            lookup_all("eta, map-fuse, split-join"),
            Err(RuleError::Unknown { .. })
        ));
    }
}
