//! A workload's own flags as data: each flag's name, help and default, and
//! how a value given to it is taken. The command line (the binary's, with
//! its parser) shows and parses them; the library holds no parser of its
//! own, and the same values are recorded with the results and read back.

use std::fmt::Debug;

use serde::Serialize;
use serde::de::{DeserializeOwned, IntoDeserializer};

/// A value a flag does not take: the text names the value and what is
/// expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadValue(pub String);

/// One flag of a workload's own, of options `O`.
#[derive(Debug)]
pub struct Flag<O> {
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
    /// Take a value given to the flag; the error names the bad value and
    /// what is expected.
    pub set: fn(&mut O, &str) -> Result<(), BadValue>,
}

/// One value of a flag that takes a few names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The name given on the command line and recorded.
    pub name: &'static str,
    /// What it means.
    pub help: &'static str,
}

/// A workload's own flags: declared as data ([`Flag`]s, each with the
/// function that takes its value), recorded with the results and read back
/// from them (serde), with a default for every field. [`NoOptions`] for a
/// workload that has none.
pub trait Options:
    Serialize + DeserializeOwned + Clone + Default + Debug + PartialEq + Send + Sync + 'static
{
    /// The flags, in the order of the help.
    const FLAGS: &'static [Flag<Self>];
}

/// The options of a workload that has none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NoOptions {}

impl Options for NoOptions {
    const FLAGS: &'static [Flag<Self>] = &[];
}

/// The value of an enumeration named `value` as the results record it
/// (serde's name), so that a name taken is the name recorded.
pub fn by_name<T: DeserializeOwned>(value: &str) -> Result<T, BadValue> {
    let name: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
        value.into_deserializer();
    T::deserialize(name).map_err(|e| BadValue(format!("invalid value '{value}': {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Letter {
        A,
        B,
    }

    #[test]
    fn a_choice_is_found_by_name_and_a_bad_one_is_named_with_the_choices() {
        assert_eq!(by_name::<Letter>("a"), Ok(Letter::A));
        assert_eq!(by_name::<Letter>("b"), Ok(Letter::B));
        let e = by_name::<Letter>("c").unwrap_err();
        assert!(
            e.0.starts_with("invalid value 'c'") && e.0.contains("`a`") && e.0.contains("`b`"),
            "{e}"
        );
        assert!(NoOptions::FLAGS.is_empty());
    }
}
