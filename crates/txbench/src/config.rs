//! `--config FILE`: TOML keys that mirror the flags, turned into flags placed right
//! after the subcommand so that flags on the command line override them.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{Context, Result, bail};
use clap::CommandFactory;

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
    use std::io::Read;
    let reading = || format!("reading config file '{}'", file.display());
    let mut bytes = Vec::new();
    std::fs::File::open(file)
        .with_context(reading)?
        .take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(reading)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        bail!(
            "config file '{}' is larger than {} KiB: not a txbench config",
            file.display(),
            MAX_CONFIG_BYTES / 1024
        );
    }
    String::from_utf8(bytes)
        .with_context(|| format!("config file '{}' is not UTF-8 text", file.display()))
}

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
    let known: Vec<(String, Option<char>)> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(|l| (l.to_string(), a.get_short())))
        .collect();
    let mut flags = Vec::new();
    for (key, value) in table {
        let flag = key.replace('_', "-");
        let Some((_, short)) = known.iter().find(|(l, _)| *l == flag && flag != "config") else {
            let names: Vec<&str> = known
                .iter()
                .map(|(l, _)| l.as_str())
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
            toml::Value::Boolean(true) => flags.push(format!("--{flag}").into()),
            toml::Value::Boolean(false) => {}
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
