//! A workload's own flags as data: each flag's name, help and default, and
//! how a value given to it is taken. The command line (the binary's, with
//! its parser) shows and parses them; the library holds no parser of its
//! own, and the same values are recorded with the results and read back.

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A value a flag does not take: the text names the value and what is
/// expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(pub String);

/// One flag of a workload's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    /// The flag's long name, without its dashes (`zipf` for `--zipf`).
    pub long: &'static str,
    /// What the help says of it.
    pub help: &'static str,
    /// What the help calls its value (`N`, `FILE`).
    pub value_name: &'static str,
    /// The value taken when the flag is absent, shown in the help; `None`
    /// leaves the option's default (an absent `Option`, say).
    pub default: Option<&'static str>,
    /// The values it takes where they are a few names, each with its help
    /// (empty: any text its option takes).
    pub choices: &'static [Choice],
}

/// One value of a flag that takes a few names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The name given on the command line and recorded.
    pub name: &'static str,
    /// What it means.
    pub help: &'static str,
}

/// A workload's own flags: declared as data ([`Flag`]s), taken from the
/// command line by [`Options::set`], recorded with the results and read back
/// from them (serde), with a default for every field. [`NoOptions`] for a
/// workload that has none.
pub trait Options:
    Serialize + DeserializeOwned + Clone + Default + Debug + PartialEq + Send + Sync + 'static
{
    /// The flags, in the order of the help.
    const FLAGS: &'static [Flag];

    /// Take `value` given to the flag named `long` (one of [`Options::FLAGS`]);
    /// the error names the bad value and what is expected.
    fn set(&mut self, long: &str, value: &str) -> Result<(), BadValue>;
}

/// The options of a workload that has none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NoOptions {}

impl Options for NoOptions {
    const FLAGS: &'static [Flag] = &[];

    fn set(&mut self, long: &str, _: &str) -> Result<(), BadValue> {
        Err(unknown(long))
    }
}

/// The error of [`Options::set`] given a flag the options do not have: a
/// caller's mistake, named.
pub fn unknown(long: &str) -> BadValue {
    BadValue(format!("no flag --{long} here"))
}

/// The choice named `value` of `choices`, or the error that lists them.
pub fn choose<T: Copy>(value: &str, choices: &[(&str, T)]) -> Result<T, BadValue> {
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
            BadValue(format!(
                "invalid value '{value}': expected {}",
                names.join(", ")
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_choice_is_found_by_name_and_a_bad_one_is_named_with_the_choices() {
        let choices = [("a", 1), ("b", 2)];
        assert_eq!(choose("b", &choices), Ok(2));
        assert_eq!(
            choose("c", &choices),
            Err(BadValue("invalid value 'c': expected a, b".to_string()))
        );
        assert_eq!(NoOptions::default().set("x", "1"), Err(unknown("x")));
    }
}
