//! A workload's own flags on the command line: the table of
//! [`txbench_workloads::Flag`]s a workload declares becomes clap arguments,
//! and the values given are taken by each flag's `set`, so the workload
//! library holds no command-line parser.

use std::ops::Deref;

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{ArgMatches, Args, Command, FromArgMatches};
use txbench_workloads::{BadValue, Flag, Options};

/// A workload's options as parsed from its flags.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flags<O>(pub O);

impl<O> Deref for Flags<O> {
    type Target = O;

    fn deref(&self) -> &O {
        &self.0
    }
}

/// The clap argument of one flag: its value checked as it is parsed (a bad
/// one is refused naming the flag and the value, before any work), by the
/// flag's own `set` or against its choices.
fn arg<O: Options>(flag: &'static Flag<O>) -> clap::Arg {
    let mut arg = clap::Arg::new(flag.long)
        .long(flag.long)
        .help(flag.help)
        .value_name(flag.value_name);
    if let Some(default) = flag.default {
        arg = arg.default_value(default);
    }
    if flag.choices.is_empty() {
        let check = move |value: &str| -> Result<String, BadValue> {
            (flag.set)(&mut O::default(), value)?;
            Ok(value.to_string())
        };
        arg.value_parser(check)
    } else {
        let choices = flag
            .choices
            .iter()
            .map(|c| PossibleValue::new(c.name).help(c.help));
        arg.value_parser(PossibleValuesParser::new(choices))
    }
}

impl<O: Options> Args for Flags<O> {
    fn augment_args(cmd: Command) -> Command {
        O::FLAGS
            .iter()
            .fold(cmd, |cmd, flag| cmd.arg(arg::<O>(flag)))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl<O: Options> FromArgMatches for Flags<O> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut options = O::default();
        for flag in O::FLAGS {
            // Absent from these matches where the command has not the flag.
            let Ok(Some(value)) = m.try_get_one::<String>(flag.long) else {
                continue;
            };
            (flag.set)(&mut options, value)
                .map_err(|e| clap::Error::raw(clap::error::ErrorKind::ValueValidation, e.0))?;
        }
        Ok(Flags(options))
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_workloads::custom::ycsb::{Core, YcsbRunOptions};
    use txbench_workloads::retwis::options::RetwisRunOptions;

    fn parse<O: Options>(args: &[&str]) -> Result<O, clap::Error> {
        let cmd = Flags::<O>::augment_args(Command::new("t"));
        let m = cmd.try_get_matches_from(std::iter::once("t").chain(args.iter().copied()))?;
        Flags::<O>::from_arg_matches(&m).map(|f| f.0)
    }

    #[test]
    fn flags_given_and_defaults_reach_the_options() {
        let run: RetwisRunOptions = parse(&["--zipf", "0.75"]).unwrap();
        assert_eq!(run.zipf, 0.75);
        let ycsb: YcsbRunOptions = parse(&[]).unwrap();
        assert_eq!(ycsb, YcsbRunOptions::default());
        let ycsb: YcsbRunOptions = parse(&["--workload", "d"]).unwrap();
        assert_eq!(ycsb.workload, Core::D);
    }

    #[test]
    fn a_bad_value_is_refused_naming_the_flag_and_the_value() {
        let e = parse::<RetwisRunOptions>(&["--zipf=-2"]).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("--zipf") && text.contains("'-2'"), "{text}");
        let e = parse::<YcsbRunOptions>(&["--workload", "g"]).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("--workload") && text.contains("'g'"),
            "{text}"
        );
    }
}
