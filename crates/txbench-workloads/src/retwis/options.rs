//! Retwis's own flags: the value size of a load and the key skew of a run,
//! parsed and refused here, recorded with the results.

use serde::{Deserialize, Serialize};

use super::constants::DEFAULT_VALUE_SIZE;
use super::schema::MAX_VALUE;
use crate::error::WorkloadError;
use crate::options::{BadValue, Flag, Options};

/// How a Retwis load writes its values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RetwisLoadOptions {
    /// Bytes per value.
    pub value_size: usize,
}

impl Options for RetwisLoadOptions {
    const FLAGS: &'static [Flag<Self>] = &[Flag {
        long: "value-size",
        help: "Bytes per value",
        value_name: "VALUE_SIZE",
        // DEFAULT_VALUE_SIZE, as the tests hold.
        default: Some("64"),
        choices: &[],
        set: |o, v| {
            o.value_size = parse_value_size(v)?;
            Ok(())
        },
    }];
}

impl Default for RetwisLoadOptions {
    fn default() -> Self {
        RetwisLoadOptions {
            value_size: DEFAULT_VALUE_SIZE,
        }
    }
}

/// How a Retwis run draws its keys.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RetwisRunOptions {
    /// Zipf coefficient of the key draw: 0 is uniform, 0.99 very skewed.
    pub zipf: f64,
}

impl Options for RetwisRunOptions {
    const FLAGS: &'static [Flag<Self>] = &[Flag {
        long: "zipf",
        help: "Zipf coefficient of the key draw: 0 is uniform, 0.99 very skewed",
        value_name: "ZIPF",
        default: Some("0"),
        choices: &[],
        set: |o, v| {
            o.zipf = parse_zipf(v)?;
            Ok(())
        },
    }];
}

/// A value size a load can write: 1 to [`MAX_VALUE`] bytes.
pub fn check_value_size(value_size: usize) -> Result<(), WorkloadError> {
    if (1..=MAX_VALUE).contains(&value_size) {
        Ok(())
    } else {
        Err(WorkloadError::BadOption(format!(
            "invalid value size {value_size}: it must be 1..={MAX_VALUE} bytes"
        )))
    }
}

/// `--zipf`: 0 or a positive finite number.
pub fn parse_zipf(s: &str) -> Result<f64, BadValue> {
    match s.trim().parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v),
        _ => Err(BadValue(format!(
            "invalid Zipf coefficient '{s}': expected 0 (uniform) or a positive number such as 0.99"
        ))),
    }
}

/// `--value-size`: 1 to [`MAX_VALUE`] bytes.
pub fn parse_value_size(s: &str) -> Result<usize, BadValue> {
    match s.trim().parse::<usize>() {
        Ok(v) if (1..=MAX_VALUE).contains(&v) => Ok(v),
        _ => Err(BadValue(format!(
            "invalid value size '{s}': expected 1..={MAX_VALUE} bytes"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flags_defaults_are_the_options_defaults() {
        let mut load = RetwisLoadOptions::default();
        let mut run = RetwisRunOptions::default();
        for flag in RetwisLoadOptions::FLAGS {
            (flag.set)(&mut load, flag.default.unwrap()).unwrap();
        }
        for flag in RetwisRunOptions::FLAGS {
            (flag.set)(&mut run, flag.default.unwrap()).unwrap();
        }
        assert_eq!(load, RetwisLoadOptions::default());
        assert_eq!(run, RetwisRunOptions::default());
    }

    #[test]
    fn a_bad_value_is_named() {
        let e = (RetwisRunOptions::FLAGS[0].set)(&mut Default::default(), "-1").unwrap_err();
        assert!(e.0.contains("'-1'"), "{e}");
        let e = (RetwisLoadOptions::FLAGS[0].set)(&mut Default::default(), "0").unwrap_err();
        assert!(e.0.contains("'0'"), "{e}");
    }
}
