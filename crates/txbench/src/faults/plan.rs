//! The commands a run's flags schedule, paired and checked once.

use std::time::Duration;

use txbench_core::faults::CommandKind;

use crate::failure::Failure;

/// A command due at a time of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedCommand {
    /// Fault or recovery.
    pub kind: CommandKind,
    /// When, from the run's start (warm-up included).
    pub at: Duration,
    /// What `sh -c` runs.
    pub command: String,
    /// How long it may run before it is killed.
    pub limit: Duration,
}

/// Pair each `--fault-at` with its `--fault-cmd` (and each `--recover-at`
/// with its `--recover-cmd`) in the order given; a time without its command
/// (or the reverse), an empty command or a time past the run's end (`run_for`:
/// warm-up and duration) is bad input, named.
pub fn plan(
    faults: (&[Duration], &[String]),
    recoveries: (&[Duration], &[String]),
    (run_for, limit): (Duration, Duration),
) -> Result<Vec<PlannedCommand>, Failure> {
    let mut planned = pair(CommandKind::Fault, faults, run_for, limit)?;
    planned.extend(pair(CommandKind::Recover, recoveries, run_for, limit)?);
    planned.sort_by_key(|c| c.at);
    Ok(planned)
}

fn pair(
    kind: CommandKind,
    (times, commands): (&[Duration], &[String]),
    run_for: Duration,
    limit: Duration,
) -> Result<Vec<PlannedCommand>, Failure> {
    let name = kind.name();
    if times.len() != commands.len() {
        return Err(Failure::usage(format!(
            "{} --{name}-at and {} --{name}-cmd: give one command for each time, in the same order",
            times.len(),
            commands.len()
        )));
    }
    times
        .iter()
        .zip(commands)
        .map(|(&at, command)| {
            if command.trim().is_empty() {
                return Err(Failure::usage(format!("--{name}-cmd '': an empty command")));
            }
            if at >= run_for {
                return Err(Failure::usage(format!(
                    "--{name}-at {}: the run (warm-up and duration) lasts {}",
                    humantime::format_duration(at),
                    humantime::format_duration(run_for)
                )));
            }
            Ok(PlannedCommand {
                kind,
                at,
                command: command.clone(),
                limit,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn times_pair_with_their_commands_and_bad_ones_are_named() {
        let cmds = |c: &[&str]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let planned = plan(
            (&[20 * S, 5 * S], &cmds(&["kill a", "kill b"])),
            (&[30 * S], &cmds(&["start a"])),
            (60 * S, S),
        )
        .unwrap();
        let seen: Vec<(CommandKind, u64, &str)> = planned
            .iter()
            .map(|c| (c.kind, c.at.as_secs(), c.command.as_str()))
            .collect();
        assert_eq!(
            seen,
            vec![
                (CommandKind::Fault, 5, "kill b"),
                (CommandKind::Fault, 20, "kill a"),
                (CommandKind::Recover, 30, "start a"),
            ]
        );
        let e = plan((&[S], &[]), (&[], &[]), (60 * S, S)).unwrap_err();
        assert!(
            e.to_string().contains("1 --fault-at and 0 --fault-cmd"),
            "{e}"
        );
        let e = plan((&[], &[]), (&[90 * S], &cmds(&["x"])), (60 * S, S)).unwrap_err();
        assert!(e.to_string().contains("--recover-at 1m 30s"), "{e}");
        let e = plan((&[S], &cmds(&[" "])), (&[], &[]), (60 * S, S)).unwrap_err();
        assert!(e.to_string().contains("empty command"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }
}
