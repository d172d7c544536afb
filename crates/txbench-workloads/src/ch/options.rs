//! The CH-benCHmark's own flags: how many analytical streams run beside
//! TPC-C's terminals, whether they alternate with phases without them, and
//! how long a query may run.

use std::time::Duration;

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
    /// How long a query may run before the server stops it, as text
    /// ("30s"); `None`: as long as it takes.
    pub query_timeout: Option<String>,
    /// The length of each phase when the streams alternate with phases
    /// without them, as text ("30s"); `None`: the streams run throughout.
    pub analytic_phases: Option<String>,
}

impl ChRunOptions {
    /// `--query-timeout`, if given.
    pub fn query_timeout(&self) -> Option<Duration> {
        read_duration(self.query_timeout.as_deref())
    }

    /// `--analytic-phases`, if given.
    pub fn analytic_phases(&self) -> Option<Duration> {
        read_duration(self.analytic_phases.as_deref())
    }
}

/// A duration kept as text (its flag checked it as it was set).
fn read_duration(text: Option<&str>) -> Option<Duration> {
    text.and_then(|t| humantime::parse_duration(t).ok())
}

/// A duration as the options keep it: text that reads back.
fn kept(d: Duration) -> Option<String> {
    Some(humantime::format_duration(d).to_string())
}

impl Default for ChRunOptions {
    fn default() -> Self {
        ChRunOptions {
            analytic_streams: 1,
            query_timeout: None,
            analytic_phases: None,
        }
    }
}

impl Options for ChRunOptions {
    const FLAGS: &'static [Flag<Self>] = &[
        Flag {
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
        },
        Flag {
            long: "query-timeout",
            help: "How long an analytical query may run before the server stops it (PostgreSQL's \
                   statement_timeout; refused on other engines); a stopped query is counted as \
                   its type's error. Default: as long as it takes",
            value_name: "DURATION",
            default: None,
            choices: &[],
            set: |o, v| {
                o.query_timeout = kept(parse_timeout(v)?);
                Ok(())
            },
        },
        Flag {
            long: "analytic-phases",
            help: "Alternate phases of this length without and with the analytical streams, \
                   from the window's start (the warm-up runs without), and report what the \
                   streams cost TPC-C as ratios with 95% intervals; the window needs four \
                   phases or more, best an odd number. Default: the streams run throughout",
            value_name: "DURATION",
            default: None,
            choices: &[],
            set: |o, v| {
                o.analytic_phases = kept(parse_phase(v)?);
                Ok(())
            },
        },
    ];
}

/// The most a query timeout or a phase may last: a day.
const A_DAY: Duration = Duration::from_secs(86_400);

/// `s` as a duration from `least` to a day, if it is one.
fn within_a_day(s: &str, least: Duration) -> Option<Duration> {
    (humantime::parse_duration(s.trim()).ok()).filter(|d| (least..=A_DAY).contains(d))
}

/// `--query-timeout`: a duration of a millisecond to a day.
pub fn parse_timeout(s: &str) -> Result<Duration, BadValue> {
    within_a_day(s, Duration::from_millis(1)).ok_or_else(|| {
        BadValue(format!(
            "invalid query timeout '{s}': expected a duration from 1ms to 24h, such as 30s"
        ))
    })
}

/// `--analytic-phases`: whole seconds, from 2 s (a phase loses up to a
/// second at each edge) to a day.
pub fn parse_phase(s: &str) -> Result<Duration, BadValue> {
    (within_a_day(s, Duration::from_secs(2)).filter(|d| d.subsec_nanos() == 0)).ok_or_else(|| {
        BadValue(format!(
            "invalid phase length '{s}': expected whole seconds from 2s to 24h, such as 30s"
        ))
    })
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
    fn a_timeout_is_a_duration_kept_as_text_that_reads_back() {
        assert_eq!(parse_timeout("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_timeout("1500ms"), Ok(Duration::from_millis(1500)));
        for bad in ["0s", "2days", "soon", ""] {
            let e = parse_timeout(bad).unwrap_err();
            assert!(e.0.contains(&format!("'{bad}'")), "{e}");
        }
        let mut o = ChRunOptions::default();
        (ChRunOptions::FLAGS[1].set)(&mut o, "1m 30s").unwrap();
        assert_eq!(o.query_timeout.as_deref(), Some("1m 30s"));
        assert_eq!(o.query_timeout(), Some(Duration::from_secs(90)));
    }

    #[test]
    fn a_phase_is_whole_seconds_kept_as_text_that_reads_back() {
        assert_eq!(parse_phase("30s"), Ok(Duration::from_secs(30)));
        for bad in ["1s", "2500ms", "2days", "x", ""] {
            let e = parse_phase(bad).unwrap_err();
            assert!(e.0.contains(&format!("'{bad}'")), "{e}");
        }
        let mut o = ChRunOptions::default();
        (ChRunOptions::FLAGS[2].set)(&mut o, "1m").unwrap();
        assert_eq!(o.analytic_phases(), Some(Duration::from_secs(60)));
    }

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
