//! Reading a file a user names as text, with a bound on its size.
//!
//! A config or a workload file is a few kilobytes. Named by mistake (or on
//! purpose) as `/dev/zero` or a disk image, it must be refused at the bound,
//! not read until memory runs out.

use std::io::Read;
use std::path::Path;

/// Why a text file was not read.
#[derive(Debug, thiserror::Error)]
pub enum TextFileError {
    /// It could not be opened or read.
    #[error("cannot read it: {0}")]
    Io(#[from] std::io::Error),
    /// It holds more than the bound.
    #[error("it is larger than {} KiB", .0 / 1024)]
    TooLarge(u64),
    /// Its bytes are not UTF-8.
    #[error("it is not UTF-8 text")]
    NotText,
}

/// The text of `path`, refused when it holds more than `max_bytes` (no more
/// than `max_bytes + 1` bytes are ever read).
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<String, TextFileError> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(max_bytes + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max_bytes {
        return Err(TextFileError::TooLarge(max_bytes));
    }
    String::from_utf8(bytes).map_err(|_| TextFileError::NotText)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_refused_at_the_bound() {
        let refused = read_bounded(Path::new("/dev/zero"), 4096).unwrap_err();
        assert!(matches!(refused, TextFileError::TooLarge(4096)));
        assert_eq!(refused.to_string(), "it is larger than 4 KiB");
    }

    #[test]
    fn text_within_the_bound_is_read_and_bytes_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("t");
        std::fs::write(&text, "four").unwrap();
        assert_eq!(read_bounded(&text, 4).unwrap(), "four");
        assert!(matches!(
            read_bounded(&text, 3),
            Err(TextFileError::TooLarge(3))
        ));
        std::fs::write(&text, [0xff, 0xfe]).unwrap();
        assert!(matches!(
            read_bounded(&text, 4),
            Err(TextFileError::NotText)
        ));
        assert!(matches!(
            read_bounded(&dir.path().join("none"), 4),
            Err(TextFileError::Io(_))
        ));
    }
}
