//! `--config FILE`: TOML keys that mirror the flags, turned into flags placed right
//! after the subcommand so that flags on the command line override them; and
//! the `config.toml` a run writes from its settings, which repeats it.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::CommandFactory;
use txbench_core::settings::{Load, RunSettings, name_of};
use txbench_core::text_file;
use txbench_engines::redact;

use crate::cli::Cli;

/// The subcommand path of a parsed command line, e.g. ["tpcc", "run"].
fn subcommand_path(args: &[OsString]) -> Vec<String> {
    let mut cmd = Cli::command();
    let mut path = Vec::new();
    for a in args.iter().skip(1) {
        let Some(a) = a.to_str() else { continue };
        if a.starts_with('-') {
            continue;
        }
        let Some(sub) = cmd.find_subcommand(a).cloned() else {
            continue;
        };
        path.push(a.to_string());
        cmd = sub;
    }
    path
}

/// Whether the command line already gives the flag `--long` (or its short form).
fn given(args: &[OsString], long: &str, short: Option<char>) -> bool {
    args.iter().filter_map(|a| a.to_str()).any(|a| {
        a == format!("--{long}")
            || a.starts_with(&format!("--{long}="))
            || short.is_some_and(|s| {
                // '-' first: slicing at byte 1 is then on a character boundary.
                a.starts_with('-') && !a.starts_with("--") && a[1..].starts_with(s)
            })
    })
}

/// The largest config file read: a config is a few lines, and a file without
/// bound (`/dev/zero`) must not be read until memory runs out.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A config file's text, refused when it is larger than [`MAX_CONFIG_BYTES`].
fn read_bounded(file: &Path) -> Result<String> {
    text_file::read_bounded(file, MAX_CONFIG_BYTES)
        .map_err(|e| anyhow::anyhow!("config file '{}': {e}", file.display()))
}

/// The words a flag takes for true and for false.
type BoolWords = [&'static str; 2];

/// The flags a config file stands for, checked against the command's own flags;
/// flags the command line gives are left out, so the command line wins.
fn flags_from_config(file: &Path, path: &[String], args: &[OsString]) -> Result<Vec<OsString>> {
    let text = read_bounded(file)?;
    let table: toml::Table = toml::from_str(&text)
        .with_context(|| format!("config file '{}' is not valid TOML", file.display()))?;
    let mut cmd = Cli::command();
    for p in path {
        cmd = cmd
            .find_subcommand(p)
            .cloned()
            .expect("path came from this command");
    }
    // Each flag's name, short name, and the words it takes for true and
    // false: none for a flag that takes no value (`--strict`), `on` and
    // `off` for sysbench's switches (`--range-selects`).
    let known: Vec<(String, Option<char>, Option<BoolWords>)> = cmd
        .get_arguments()
        .filter_map(|a| {
            let words = a.get_action().takes_values().then(|| {
                let on = a.get_possible_values().iter().any(|v| v.get_name() == "on");
                if on { ["on", "off"] } else { ["true", "false"] }
            });
            a.get_long().map(|l| (l.to_string(), a.get_short(), words))
        })
        .collect();
    let mut flags = Vec::new();
    for (key, value) in table {
        let flag = key.replace('_', "-");
        let Some((_, short, words)) = known.iter().find(|(l, ..)| *l == flag && flag != "config")
        else {
            let names: Vec<&str> = known
                .iter()
                .map(|(l, ..)| l.as_str())
                .filter(|l| *l != "config")
                .collect();
            bail!(
                "config file '{}': unknown key '{key}' for `txbench {}` (known: {})",
                file.display(),
                path.join(" "),
                names.join(", ")
            );
        };
        if given(args, &flag, *short) {
            continue;
        }
        match value {
            toml::Value::Boolean(b) => match words {
                Some([yes, no]) => {
                    flags.push(format!("--{flag}={}", if b { yes } else { no }).into())
                }
                None if b => flags.push(format!("--{flag}").into()),
                None => {}
            },
            toml::Value::String(s) => flags.push(format!("--{flag}={s}").into()),
            toml::Value::Integer(i) => flags.push(format!("--{flag}={i}").into()),
            toml::Value::Float(f) => flags.push(format!("--{flag}={f}").into()),
            // A flag given several times (db = ["mysql://...", "mysql://..."]).
            toml::Value::Array(items) if items.iter().all(|v| v.is_str()) => {
                for v in items {
                    flags.push(format!("--{flag}={}", v.as_str().expect("checked")).into());
                }
            }
            other => bail!(
                "config file '{}': key '{key}' has a value of type {} (expected a string, number or boolean)",
                file.display(),
                other.type_str()
            ),
        }
    }
    Ok(flags)
}

/// The command line with the config file's flags inserted after the subcommand.
pub fn expand(args: Vec<OsString>, config: &Path) -> Result<Vec<OsString>> {
    let path = subcommand_path(&args);
    let flags = flags_from_config(config, &path, &args)?;
    // Insert right after the last subcommand word, so later command-line flags win.
    let mut seen = 0;
    let mut at = args.len();
    for (i, a) in args.iter().enumerate().skip(1) {
        if seen < path.len() && a.to_str() == Some(path[seen].as_str()) {
            seen += 1;
            if seen == path.len() {
                at = i + 1;
                break;
            }
        }
    }
    let mut out = args[..at].to_vec();
    out.extend(flags);
    out.extend_from_slice(&args[at..]);
    Ok(out)
}

/// The `config.toml` that repeats a run of `workload` on `db` with
/// `settings`, the workload defined by `definition` (a workload file's
/// `--file` or `--workload`; empty for the others): its flags as TOML, the defaults it resolved (scale, terminals,
/// connections, seed) made explicit, any secret removed from the URLs. The
/// agreed start time is left out: a repeat starts when it is run.
pub fn repeat_file(
    workload: &str,
    db: &[String],
    definition: &serde_json::Map<String, serde_json::Value>,
    settings: &RunSettings,
) -> String {
    let s = settings;
    let mut t = toml::Table::new();
    let mut put = |k: &str, v: toml::Value| {
        t.insert(k.to_string(), v);
    };
    let urls: Vec<toml::Value> = db.iter().map(|u| redact(u).into()).collect();
    match <[toml::Value; 1]>::try_from(urls) {
        Ok([one]) => put("db", one),
        Err(many) => put("db", toml::Value::Array(many)),
    }
    put(&s.scale.unit, s.scale.value.into());
    for (name, value) in definition.iter().chain(&s.options) {
        if let Ok(value) = toml::Value::try_from(value) {
            put(&name.replace('_', "-"), value);
        }
    }
    put("duration", seconds(s.duration_secs));
    if let Some(n) = s.transactions {
        // TOML integers are signed.
        put("transactions", i64::try_from(n).unwrap_or(i64::MAX).into());
    }
    put("warmup", seconds(s.warmup_secs));
    put("terminals", (s.terminals as i64).into());
    put("connections", (s.connections as i64).into());
    put("wait", s.wait_name().into());
    // Seeds are made below i64::MAX: TOML integers are signed.
    put("seed", (s.seed as i64).into());
    if let Load::Open {
        rate,
        schedule,
        arrival,
        pacing,
        queue_limit,
    } = &s.load
    {
        // A schedule sets the run's length, which "duration" repeats.
        put(
            "rate",
            schedule.clone().unwrap_or(format!("{rate}/s")).into(),
        );
        put("arrival", name_of(&arrival).into());
        put("pacing", name_of(&pacing).into());
        if let Some(q) = queue_limit {
            put("queue-limit", (*q as i64).into());
        }
    }
    if let Some(i) = s.isolation {
        put("isolation", i.name().into());
    }
    put("round-trips", s.round_trips.name().into());
    put("timestamps", s.timestamps.name().into());
    put("max-retries", i64::from(s.max_retries).into());
    put("grace", seconds(s.grace_secs));
    put("affinity", name_of(&s.affinity).into());
    if s.shards > 1 {
        put("shards", i64::from(s.shards).into());
        put("shard-index", i64::from(s.shard_index).into());
    }
    let secrets_removed = db.iter().any(|u| redact(u) != *u);
    format!(
        "# txbench {workload} run --config config.toml repeats this run.\n{}{}",
        if secrets_removed {
            "# Secrets in the URL were replaced by ***: give them again, or in PGPASSWORD, \
             MYSQL_PWD, REDISCLI_AUTH or TXBENCH_TOKEN.\n"
        } else {
            ""
        },
        toml::to_string(&t).expect("a TOML table serializes")
    )
}

/// Seconds as a duration flag takes them ("1m 30s").
fn seconds(secs: f64) -> toml::Value {
    humantime::format_duration(std::time::Duration::from_secs_f64(secs))
        .to_string()
        .into()
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use txbench_core::Isolation;
    use txbench_core::settings::{Affinity, Arrival, Pacing, Scale, WaitMode};
    use txbench_workloads::retwis::Retwis;

    use super::*;
    use crate::cli::{Cli, Command, Verb, WorkloadArgs};
    use crate::plan::RunPlan;

    fn settings() -> RunSettings {
        RunSettings {
            scale: Scale {
                unit: "keys".into(),
                value: 20_000,
            },
            options: [("zipf".to_string(), serde_json::json!(0.75))]
                .into_iter()
                .collect(),
            duration_secs: 90.0,
            transactions: None,
            warmup_secs: 0.5,
            terminals: 12,
            connections: 3,
            connections_sizing: "--connections".into(),
            wait: WaitMode::Spec,
            seed: 99,
            load: Load::Open {
                rate: 1500.0,
                schedule: None,
                arrival: Arrival::Uniform,
                pacing: Pacing::Sleep,
                queue_limit: Some(40),
            },
            max_retries: 2,
            grace_secs: 3.0,
            affinity: Affinity::Warehouse,
            isolation: Some(Isolation::RepeatableRead),
            round_trips: txbench_core::RoundTrips::Statement,
            timestamps: txbench_core::Timestamps::Kernel,
            nodes: 1,
            shard_index: 1,
            shards: 2,
            start_at: Some("2026-11-25T10:00:00.000Z".into()),
        }
    }

    /// The plan `txbench --config FILE retwis run` makes of a config file.
    fn plan_from(file: &Path) -> RunPlan<Retwis> {
        let args: Vec<OsString> = ["txbench", "retwis", "run"].map(OsString::from).to_vec();
        let cli = Cli::try_parse_from(expand(args, file).unwrap()).unwrap();
        let Command::Workload(chosen) = cli.command else {
            panic!("not a workload command");
        };
        let Ok(WorkloadArgs {
            verb: Some(Verb::Run(cmd)),
            ..
        }) = chosen.args::<Retwis>()
        else {
            panic!("not a Retwis run");
        };
        RunPlan::of(&cmd).unwrap()
    }

    #[test]
    fn the_written_config_repeats_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let db = ["sqlite:retwis.db".to_string()];
        std::fs::write(
            &file,
            repeat_file("retwis", &db, &Default::default(), &settings()),
        )
        .unwrap();
        let plan = plan_from(&file);
        let s = settings();
        assert_eq!(plan.db, db);
        assert_eq!(plan.scale, Some(s.scale.value));
        assert_eq!(plan.options.zipf, 0.75);
        assert_eq!(plan.duration.as_secs_f64(), s.duration_secs);
        assert_eq!(plan.warmup.as_secs_f64(), s.warmup_secs);
        assert_eq!(plan.terminals, Some(s.terminals));
        assert_eq!(plan.connections, Some(s.connections));
        assert_eq!(plan.wait, s.wait);
        assert_eq!(plan.seed, s.seed);
        assert_eq!(plan.load(), s.load);
        assert_eq!(plan.max_retries, s.max_retries);
        assert_eq!(plan.grace.as_secs_f64(), s.grace_secs);
        assert_eq!(plan.affinity, s.affinity);
        assert_eq!(plan.isolation, s.isolation);
        assert_eq!(plan.round_trips, s.round_trips);
        assert_eq!(plan.timestamps, s.timestamps);
        assert_eq!((plan.shard.index(), plan.shard.count()), (1, 2));
        // A repeat starts when it is run, not at the first run's agreed time.
        assert!(plan.start_at.is_none());
    }

    #[test]
    fn a_rate_schedule_is_repeated_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.toml");
        let mut s = settings();
        s.duration_secs = 4.5;
        s.load = Load::Open {
            rate: 1400.0,
            schedule: Some("1000/s for 1500ms, ramp 1000..2000/s over 3s".into()),
            arrival: Arrival::Poisson,
            pacing: Pacing::Auto,
            queue_limit: None,
        };
        std::fs::write(
            &file,
            repeat_file("retwis", &["sqlite:r.db".into()], &Default::default(), &s),
        )
        .unwrap();
        let plan = plan_from(&file);
        assert_eq!(plan.duration.as_secs_f64(), 4.5);
        let Load::Open { rate, schedule, .. } = plan.load() else {
            panic!("not an open loop");
        };
        assert_eq!(
            schedule.as_deref(),
            Some("1000/s for 1500ms, ramp 1000..2000/s over 3s")
        );
        assert!((rate - 1333.333).abs() < 0.001, "{rate}");
    }

    #[test]
    fn the_written_config_keeps_no_secret() {
        let db = ["postgres://bench:hunter2@db:5432/test".to_string()];
        let text = repeat_file("retwis", &db, &Default::default(), &settings());
        assert!(!text.contains("hunter2"), "{text}");
        assert!(text.contains("Secrets in the URL were replaced"), "{text}");
    }
}
