//! The JSON summary file: the result model as written, pretty-printed.

use std::fs;
use std::io;
use std::path::Path;

use txbench_core::result::RunResult;

/// Write a result to `path`, creating parent directories. The file appears whole
/// or not at all (written beside it, then renamed).
pub fn write(path: &Path, result: &RunResult) -> io::Result<()> {
    write_value(path, result)
}

/// Write any serializable value as pretty JSON, atomically (see [`write`]).
pub fn write_value<T: serde::Serialize>(path: &Path, value: &T) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    fs::write(&partial, text + "\n")?;
    fs::rename(&partial, path)
}

/// Read a result written by [`write`].
pub fn read(path: &Path) -> io::Result<RunResult> {
    let text = fs::read_to_string(path)?;
    serde_json::from_str(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}
