//! What the recorded parameters of a run are made of beyond numbers and
//! names: a span of keys, and a value that may be unknown.

use std::fmt::Display;

use serde::{Serialize, Serializer};

/// A span of keys, `first..last` (both drawn), recorded as that text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span(pub i64, pub i64);

impl Serialize for Span {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}..{}", self.0, self.1))
    }
}

/// A value the run may not know (a C-Load another tool's load did not
/// record), recorded as `unknown` then: for `#[serde(serialize_with)]`.
pub fn known_or_unknown<T: Display, S: Serializer>(
    value: &Option<T>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.collect_str(v),
        None => s.serialize_str("unknown"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::result::recorded_parameters;

    #[derive(Serialize)]
    struct Example {
        span: Span,
        #[serde(serialize_with = "known_or_unknown")]
        known: Option<i64>,
        #[serde(serialize_with = "known_or_unknown")]
        unknown: Option<i64>,
        absent: Option<u32>,
        count: u32,
    }

    #[test]
    fn spans_numbers_and_unknowns_are_recorded_as_text_and_absent_fields_not_at_all() {
        let recorded = recorded_parameters(&Example {
            span: Span(1, 10),
            known: Some(220),
            unknown: None,
            absent: None,
            count: 64,
        });
        let pairs: Vec<(&str, &str)> = recorded
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("count", "64"),
                ("known", "220"),
                ("span", "1..10"),
                ("unknown", "unknown")
            ]
        );
        assert!(recorded_parameters(&()).is_empty());
    }
}
