//! Size assignments as users write them (`--size m=1024,n=512`): text → a value for each of a
//! program's size parameters, in declaration order. `risec eval` (which may read missing sizes
//! off its inputs) and C generation with compiled-in sizes both read sizes this way.

use super::TypedProgram;

/// Size text that does not assign the program's size parameters. `Display` gives the message
/// risec prints.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizesError {
    /// An item is not `NAME=VALUE`.
    #[error("error: `--size {item}`: expected NAME=VALUE, as in `--size {pattern}`")]
    NotAnAssignment {
        /// The item (`m1024`).
        item: String,
        /// `m=…,n=…` for the program's size parameters.
        pattern: String,
    },
    /// The program has no size parameter of this name.
    #[error(
        "error: `{program}` has no size parameter `{name}`; its size parameters are: {}",
        params.join(", ")
    )]
    UnknownParameter {
        /// The program's entry point.
        program: String,
        /// The name given.
        name: String,
        /// The program's size parameters.
        params: Vec<String>,
    },
    /// A value is not a natural number.
    #[error("error: size `{name}={value}`: expected a natural number")]
    NotANumber {
        /// The size parameter.
        name: String,
        /// The text given for it.
        value: String,
    },
    /// A value does not fit in 64 bits.
    #[error(
        "error: size `{name}={value}` is too large (the largest is {})",
        u64::MAX
    )]
    TooLarge {
        /// The size parameter.
        name: String,
        /// The text given for it.
        value: String,
    },
    /// A size parameter is given twice.
    #[error("error: `--size` gives `{name}` twice; give each size once, as in `--size {pattern}`")]
    Twice {
        /// The size parameter.
        name: String,
        /// `m=…,n=…` for the program's size parameters.
        pattern: String,
    },
    /// Some size parameters were given no value.
    #[error("error: missing sizes for {}: pass them as `--size {pattern}`", missing.join(", "))]
    Missing {
        /// Their names, in declaration order.
        missing: Vec<String>,
        /// `m=…,n=…` for the program's size parameters.
        pattern: String,
    },
}

/// `m=…,n=…` for the program's size parameters.
fn pattern(p: &TypedProgram) -> String {
    p.size_params
        .iter()
        .map(|n| format!("{n}=…"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Parses `m=4,n=3` into values for some of the program's size parameters, in declaration order
/// (`None` for those not given).
pub fn parse_some_sizes(p: &TypedProgram, text: &str) -> Result<Vec<Option<u64>>, SizesError> {
    let mut values: Vec<Option<u64>> = vec![None; p.size_params.len()];
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| SizesError::NotAnAssignment {
                item: item.to_string(),
                pattern: pattern(p),
            })?;
        let (name, value) = (name.trim().to_string(), value.trim().to_string());
        let Some(slot) = p.size_params.iter().position(|s| *s == name) else {
            return Err(SizesError::UnknownParameter {
                program: p.name.clone(),
                name,
                params: p.size_params.clone(),
            });
        };
        let v: u64 = match value.parse() {
            Ok(v) => v,
            Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
                return Err(SizesError::TooLarge { name, value })
            }
            Err(_) => return Err(SizesError::NotANumber { name, value }),
        };
        if values[slot].is_some() {
            return Err(SizesError::Twice {
                name,
                pattern: pattern(p),
            });
        }
        values[slot] = Some(v);
    }
    Ok(values)
}

/// Every size of `values`, or [`SizesError::Missing`] naming those not given.
pub fn require_all_sizes(
    p: &TypedProgram,
    values: Vec<Option<u64>>,
) -> Result<Vec<u64>, SizesError> {
    let missing: Vec<String> = p
        .size_params
        .iter()
        .zip(&values)
        .filter(|(_, v)| v.is_none())
        .map(|(n, _)| n.clone())
        .collect();
    if !missing.is_empty() {
        return Err(SizesError::Missing {
            missing,
            pattern: pattern(p),
        });
    }
    Ok(values.into_iter().flatten().collect())
}

/// Parses `m=1024,n=512` into a value for every size parameter, in declaration order.
pub fn parse_sizes(p: &TypedProgram, text: &str) -> Result<Vec<u64>, SizesError> {
    require_all_sizes(p, parse_some_sizes(p, text)?)
}
