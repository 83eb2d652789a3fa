//! The named rule library: every rule risec knows, with a one-line description, size
//! parameters, and a constructor. `risec rules` lists it; rule sets name rules as `map-fusion`
//! or, with size arguments, `split-join(32)`.
//!
//! [`validate`] checks a rule against the reference interpreter (every library rule is checked
//! by `tests/rule_validation.rs`); [`vectorize`] computes the lane-wise functions of the
//! vectorisation rules.

mod library;
#[cfg(any(test, feature = "testkit"))]
pub mod validate;
pub mod vectorize;

use crate::eqsat::rewrite::Rule;
use crate::ir::nat::{self, Nat};

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

/// Builds the rule named by `spec` (`eta`, `split-join(32)`).
pub fn lookup(spec: &str) -> Result<Rule, String> {
    let spec = spec.trim();
    let (name, args) = match spec.split_once('(') {
        Some((name, rest)) => {
            let inner = rest
                .strip_suffix(')')
                .ok_or_else(|| format!("rule `{spec}`: missing `)`"))?;
            let args = inner
                .split(',')
                .map(|a| a.trim().parse::<u64>().map(nat::lit))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| format!("rule `{spec}`: size arguments must be natural numbers"))?;
            (name.trim(), args)
        }
        None => (spec, Vec::new()),
    };
    let info = catalogue().iter().find(|r| r.name == name).ok_or_else(|| {
        let close: Vec<&str> = catalogue()
            .iter()
            .map(|r| r.name)
            .filter(|n| n.contains(name) || name.contains(n))
            .collect();
        if close.is_empty() {
            format!("unknown rule `{name}` (`risec rules` lists them)")
        } else {
            format!("unknown rule `{name}`; did you mean {}?", close.join(", "))
        }
    })?;
    if args.len() != info.params.len() {
        return Err(format!(
            "rule `{}` takes {} size argument(s), as in `{}`; {} given",
            info.name,
            info.params.len(),
            info.signature(),
            args.len()
        ));
    }
    if args.iter().any(|a| a.is_zero()) && !info.params.is_empty() {
        return Err(format!("rule `{spec}`: size arguments must be positive"));
    }
    Ok((info.build)(&args))
}

/// Builds a comma-separated list of rules (`map-fusion, split-join(32), eta`).
pub fn lookup_all(specs: &str) -> Result<Vec<Rule>, String> {
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
        assert!(lookup("split-join")
            .unwrap_err()
            .contains("takes 1 size argument"));
        assert!(lookup("map-fuse").unwrap_err().contains("unknown rule"));
        assert!(lookup("split-join(x)").is_err());
    }
}
