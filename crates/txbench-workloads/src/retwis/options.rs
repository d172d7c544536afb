//! Retwis's own flags: the value size of a load and the key skew of a run,
//! parsed and refused here, recorded with the results.

use serde::{Deserialize, Serialize};

use super::constants::DEFAULT_VALUE_SIZE;
use super::schema::MAX_VALUE;
use crate::error::WorkloadError;

/// How a Retwis load writes its values.
#[derive(Debug, Clone, PartialEq, Eq, clap::Args, Serialize, Deserialize)]
#[serde(default)]
pub struct RetwisLoadOptions {
    /// Bytes per value
    #[arg(long, default_value_t = DEFAULT_VALUE_SIZE, value_parser = parse_value_size)]
    pub value_size: usize,
}

impl Default for RetwisLoadOptions {
    fn default() -> Self {
        RetwisLoadOptions {
            value_size: DEFAULT_VALUE_SIZE,
        }
    }
}

/// How a Retwis run draws its keys.
#[derive(Debug, Clone, Default, PartialEq, clap::Args, Serialize, Deserialize)]
#[serde(default)]
pub struct RetwisRunOptions {
    /// Zipf coefficient of the key draw: 0 is uniform, 0.99 very skewed
    #[arg(long, default_value_t = 0.0, value_parser = parse_zipf)]
    pub zipf: f64,
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
pub fn parse_zipf(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok(v),
        _ => Err(format!(
            "invalid Zipf coefficient '{s}': expected 0 (uniform) or a positive number such as 0.99"
        )),
    }
}

/// `--value-size`: 1 to [`MAX_VALUE`] bytes.
pub fn parse_value_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(v) if (1..=MAX_VALUE).contains(&v) => Ok(v),
        _ => Err(format!(
            "invalid value size '{s}': expected 1..={MAX_VALUE} bytes"
        )),
    }
}
