//! The CH-benCHmark's own flag: how many analytical streams run beside
//! TPC-C's terminals.

use serde::{Deserialize, Serialize};

use crate::options::{BadValue, Flag, Options};

/// The most analytical streams a run takes.
pub const MAX_STREAMS: usize = 1_000;

/// How a CH-benCHmark run is made up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChRunOptions {
    /// Analytical streams, each running the 22 queries in order.
    pub analytic_streams: usize,
}

impl Default for ChRunOptions {
    fn default() -> Self {
        ChRunOptions {
            analytic_streams: 1,
        }
    }
}

impl Options for ChRunOptions {
    const FLAGS: &'static [Flag<Self>] = &[Flag {
        long: "analytic-streams",
        help: "Analytical streams beside TPC-C's terminals, each running the 22 queries in \
               order, back to back, on a session of its own",
        value_name: "A",
        default: Some("1"),
        choices: &[],
        set: |o, v| {
            o.analytic_streams = parse_streams(v)?;
            Ok(())
        },
    }];
}

/// `--analytic-streams`: 0 to [`MAX_STREAMS`].
pub fn parse_streams(s: &str) -> Result<usize, BadValue> {
    match s.trim().parse::<usize>() {
        Ok(n) if n <= MAX_STREAMS => Ok(n),
        _ => Err(BadValue(format!(
            "invalid number of analytical streams '{s}': expected 0..={MAX_STREAMS}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_a_count_up_to_the_bound() {
        assert_eq!(parse_streams("0"), Ok(0));
        assert_eq!(parse_streams(" 2 "), Ok(2));
        for bad in ["-1", "x", "1001", ""] {
            let e = parse_streams(bad).unwrap_err();
            assert!(e.0.contains(&format!("'{bad}'")), "{e}");
        }
    }
}
