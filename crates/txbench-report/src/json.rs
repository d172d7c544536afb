//! The JSON summary file: the result model as written, pretty-printed.

use std::fs;
use std::io;
use std::path::Path;

use txbench_core::result::{RESULT_SCHEMA_VERSION, RunResult};

/// Write a result to `path`, creating parent directories. The file appears whole
/// or not at all (written beside it, then renamed).
pub fn write(path: &Path, result: &RunResult) -> io::Result<()> {
    write_value(path, result)
}

/// Write any serializable value as pretty JSON, atomically (see [`write()`]).
pub fn write_value<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("writing {}: {e}", path.display()));
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(named)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    write_whole(path, (text + "\n").as_bytes()).map_err(named)
}

/// Write `bytes` to `path` whole or not at all: written beside, then
/// renamed, so a reader never sees half a file, and a write that fails (a
/// full disk) leaves nothing half-written behind.
pub fn write_whole(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let written = fs::write(&partial, bytes).and_then(|()| fs::rename(&partial, path));
    if written.is_err() {
        let _ = fs::remove_file(&partial);
    }
    written
}

/// Read a result written by [`write()`]; a result of a schema this txbench does
/// not know is refused by its version rather than read wrongly.
pub fn read(path: &Path) -> io::Result<RunResult> {
    let text = fs::read_to_string(path)?;
    let invalid = |msg: String| io::Error::new(io::ErrorKind::InvalidData, msg);
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| invalid(e.to_string()))?;
    match value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
    {
        Some(v) if (1..=u64::from(RESULT_SCHEMA_VERSION)).contains(&v) => {}
        Some(v) => {
            return Err(invalid(format!(
                "schema_version {v} is not one this txbench reads (1..={RESULT_SCHEMA_VERSION}): \
                 written by a newer txbench?"
            )));
        }
        None => return Err(invalid("no schema_version: not a txbench result".into())),
    }
    if let Some((at, v)) = beyond_any_figure(&value, String::new()) {
        return Err(invalid(format!(
            "{at} = {v:e} is beyond any figure txbench writes (edited or damaged?)"
        )));
    }
    serde_json::from_value(value).map_err(|e| invalid(e.to_string()))
}

/// The largest fraction a result holds: no latency, rate or share comes
/// near it, and past it a figure prints as hundreds of digits.
const MOST_FIGURE: f64 = 1e15;

/// The first fraction in `value` past [`MOST_FIGURE`], with its path
/// (counts and seeds are whole numbers, and are not fractions).
fn beyond_any_figure(value: &serde_json::Value, at: String) -> Option<(String, f64)> {
    match value {
        serde_json::Value::Number(n) if n.is_f64() => {
            let v = n.as_f64()?;
            (v.abs() > MOST_FIGURE).then_some((at, v))
        }
        serde_json::Value::Array(items) => (items.iter().enumerate())
            .find_map(|(i, item)| beyond_any_figure(item, format!("{at}[{i}]"))),
        serde_json::Value::Object(map) => (map.iter()).find_map(|(k, item)| {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            beyond_any_figure(item, path)
        }),
        _ => None,
    }
}
