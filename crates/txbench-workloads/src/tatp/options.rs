//! TATP's own flags: the hash partitions of a load and how a run's
//! transactions keyed by `sub_nbr` find their subscriber, parsed and refused
//! here, recorded with the results.

use serde::{Deserialize, Serialize};

use super::key_access::KeyAccessChoice;
use crate::options::{BadValue, Flag, Options};

/// Most partitions a load may ask for: each is five tables of its own.
pub const MAX_PARTITIONS: u32 = 256;

/// How a TATP load places its rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TatpLoadOptions {
    /// Hash partitions of the tables; 0: whole tables.
    pub partitions: u32,
}

impl Options for TatpLoadOptions {
    const FLAGS: &'static [Flag<Self>] = &[Flag {
        long: "partitions",
        help: "Split the tables into N hash partitions (a subscriber's rows by s_id, the \
               alternative key's index by sub_nbr), as a sharded store places them; \
               PostgreSQL only. 0: whole tables",
        value_name: "N",
        default: Some("0"),
        choices: &[],
        set: |o, v| {
            o.partitions = parse_partitions(v)?;
            Ok(())
        },
    }];
}

/// How a TATP run finds the subscriber of the transactions keyed by sub_nbr.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TatpRunOptions {
    /// The strategies asked for; `None`: the engine's own.
    pub key_access: Option<KeyAccessChoice>,
}

impl Options for TatpRunOptions {
    const FLAGS: &'static [Flag<Self>] = &[Flag {
        long: "key-access",
        help: "How Update-Location and Insert-/Delete-Call-Forwarding find their subscriber \
               by sub_nbr: single, lookup, index, every-partition, try-every-partition or \
               server-side; a sweep takes several, separated by commas, or all [default: \
               single on a database, server-side on a txbench server]",
        value_name: "STRATEGY",
        default: None,
        choices: &[],
        set: |o, v| {
            o.key_access = Some(KeyAccessChoice::parse(v)?);
            Ok(())
        },
    }];
}

/// `--partitions`: 0 (whole tables) to [`MAX_PARTITIONS`].
pub fn parse_partitions(s: &str) -> Result<u32, BadValue> {
    match s.trim().parse::<u32>() {
        Ok(n) if n <= MAX_PARTITIONS => Ok(n),
        _ => Err(BadValue(format!(
            "invalid partition count '{s}': expected 0 (whole tables) to {MAX_PARTITIONS}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_count_out_of_range_is_named() {
        assert_eq!(parse_partitions("8"), Ok(8));
        assert_eq!(parse_partitions("0"), Ok(0));
        for bad in ["-1", "257", "four"] {
            let e = parse_partitions(bad).unwrap_err();
            assert!(e.0.contains(&format!("'{bad}'")), "{e}");
        }
    }
}
