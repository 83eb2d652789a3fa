//! Durations and byte sizes as people write and read them: the command line's `--time 10s` and
//! `--memory 4GiB`, and the figures in reports.
//!
//! Parsing is done by [`humantime`] and [`bytesize`]; this module only adds what the command
//! line needs on top: a unit is required (`--memory 4` is far more likely a mistake than four
//! bytes), sizes too large for a `u64` are refused, and the messages say what to write.
//!
//! ```
//! use risec_core::support::units::{parse_duration, parse_size};
//! assert_eq!(parse_duration("500ms").unwrap(), std::time::Duration::from_millis(500));
//! assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
//! ```

use bytesize::ByteSize;
use std::time::Duration;

/// A duration that does not parse. `Display` gives the message risec prints.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum DurationError {
    /// A bare number (`10`).
    #[error("`{text}` needs a unit: `{value}s` (seconds), `{value}ms` or `{value}m`")]
    NoUnit {
        /// The text as given.
        text: String,
        /// The number.
        value: u64,
    },
    /// More than a `Duration` holds.
    #[error("`{text}` is too long a duration")]
    TooLong {
        /// The text as given.
        text: String,
    },
    /// Not a duration at all (`soon`, `10x`).
    #[error(
        "`{text}` is not a duration ({source}): write a number and a unit (ms, s, m, h), \
         as in `10s`, `500ms` or `2m`"
    )]
    Invalid {
        /// The text as given.
        text: String,
        /// What [`humantime`] said.
        source: humantime::DurationError,
    },
}

/// A size in bytes that does not parse. `Display` gives the message risec prints.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ByteSizeError {
    /// A bare number (`4`).
    #[error("`{text}` needs a unit, as in `{number}MiB` or `{number}GiB`")]
    NoUnit {
        /// The text as given.
        text: String,
        /// The number, trimmed.
        number: String,
    },
    /// Not a size at all (`4 parsecs`).
    #[error(
        "`{text}` is not a size: write a number and a unit (B, KiB, MiB, GiB, TiB, KB, MB, GB), \
         as in `4GiB` or `512MiB`"
    )]
    Invalid {
        /// The text as given.
        text: String,
    },
    /// More bytes than a `u64` holds.
    #[error("`{text}` is too large a size")]
    TooLarge {
        /// The text as given.
        text: String,
    },
}

/// Parses a duration with [`humantime`]: a number and a unit (`ms`, `s`, `m` or `min`, `h`, …),
/// or several (`1m 30s`): `10s`, `500ms`, `2m`, `1.5s`.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let text_owned = || text.to_string();
    humantime::parse_duration(text.trim()).map_err(|e| match e {
        humantime::DurationError::UnknownUnit { unit, value, .. } if unit.is_empty() => {
            DurationError::NoUnit {
                text: text_owned(),
                value,
            }
        }
        humantime::DurationError::NumberOverflow => DurationError::TooLong { text: text_owned() },
        source => DurationError::Invalid {
            text: text_owned(),
            source,
        },
    })
}

/// Parses a size in bytes with [`bytesize`]: a number and a unit, binary (`KiB`, `MiB`, `GiB`,
/// `TiB`) or decimal (`KB`, `MB`, `GB`, `TB`), case-insensitive, or `B`: `4GiB`, `512MiB`,
/// `1.5GiB`, `2GB`, `100B`.
pub fn parse_size(text: &str) -> Result<u64, ByteSizeError> {
    let trimmed = text.trim();
    if !trimmed.is_empty() && trimmed.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(ByteSizeError::NoUnit {
            text: text.to_string(),
            number: trimmed.to_string(),
        });
    }
    let size: ByteSize = trimmed.parse().map_err(|_| ByteSizeError::Invalid {
        text: text.to_string(),
    })?;
    // bytesize saturates on overflow.
    if size.as_u64() == u64::MAX {
        return Err(ByteSizeError::TooLarge {
            text: text.to_string(),
        });
    }
    Ok(size.as_u64())
}

/// A measured time for people: `2.41 ms`, `35.2 ms`, `1.24 s`.
pub fn format_duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}

/// A time limit as it can be written on the command line: `10s`, `500ms`, `2m`, `1s 500ms`
/// ([`humantime::format_duration`]).
pub fn format_duration_limit(d: Duration) -> String {
    humantime::format_duration(d).to_string()
}

/// A number of bytes for people, in binary units: `4.0 GiB`, `5.2 MiB`, `512 B`.
pub fn format_bytes(bytes: u64) -> String {
    ByteSize(bytes).display().iec().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(
            parse_duration(" 1.5s ").unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert_eq!(parse_duration("1m 30s").unwrap(), Duration::from_secs(90));
        let e = parse_duration("10").unwrap_err();
        assert_eq!(
            e,
            DurationError::NoUnit {
                text: "10".into(),
                value: 10
            }
        );
        assert_eq!(
            e.to_string(),
            "`10` needs a unit: `10s` (seconds), `10ms` or `10m`"
        );
        for bad in ["", "s", "10x", "-1s", "ten seconds"] {
            let e = parse_duration(bad).unwrap_err();
            assert!(matches!(e, DurationError::Invalid { .. }), "{bad}");
            assert!(e.to_string().contains("not a duration"), "{bad}");
        }
        assert!(matches!(
            parse_duration("99999999999999999999999s"),
            Err(DurationError::TooLong { .. })
        ));
        for d in ["10s", "500ms", "2m", "1s 500ms", "0s"] {
            assert_eq!(format_duration_limit(parse_duration(d).unwrap()), d);
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_size("512 mib").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("2GB").unwrap(), 2_000_000_000);
        assert_eq!(parse_size("100B").unwrap(), 100);
        let e = parse_size(" 4").unwrap_err();
        assert!(matches!(&e, ByteSizeError::NoUnit { number, .. } if number == "4"));
        assert_eq!(e.to_string(), "` 4` needs a unit, as in `4MiB` or `4GiB`");
        for bad in ["4XB", "", "GiB", "-1GiB", "four GiB"] {
            let e = parse_size(bad).unwrap_err();
            assert!(matches!(e, ByteSizeError::Invalid { .. }), "{bad}");
            assert!(e.to_string().contains("not a size"), "{bad}");
        }
        let e = parse_size("99999999999TiB").unwrap_err();
        assert!(matches!(e, ByteSizeError::TooLarge { .. }));
        assert_eq!(e.to_string(), "`99999999999TiB` is too large a size");
        assert_eq!(format_bytes(4 << 30), "4.0 GiB");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(5_452_595), "5.2 MiB");
    }

    #[test]
    fn measured_times() {
        assert_eq!(format_duration(Duration::from_micros(2410)), "2.41 ms");
        assert_eq!(format_duration(Duration::from_micros(35_200)), "35.2 ms");
        assert_eq!(format_duration(Duration::from_millis(1240)), "1.24 s");
    }
}
