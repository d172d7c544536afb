//! The JSON summary file: the result model as written, pretty-printed.

use std::fs;
use std::io;
use std::path::Path;

use txbench_core::result::RunResult;

/// Write a result to `path`, creating parent directories.
pub fn write(path: &Path, result: &RunResult) -> io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    let text = serde_json::to_string_pretty(result).map_err(io::Error::other)?;
    fs::write(path, text + "\n")
}

/// Read a result written by [`write`].
pub fn read(path: &Path) -> io::Result<RunResult> {
    let text = fs::read_to_string(path)?;
    serde_json::from_str(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}
