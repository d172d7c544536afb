//! A workload file's mistakes: each names the file, the line and the key.

use std::fmt;
use std::ops::Range;

/// A mistake in a workload file, where it is.
#[derive(Debug, Clone, PartialEq)]
pub struct FileError {
    /// The file as the user named it.
    pub file: String,
    /// Its line (1-based; 0 when the mistake has no one place).
    pub line: usize,
    /// What is wrong, naming the key.
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.message)
        }
    }
}

impl std::error::Error for FileError {}

/// Where in the file a mistake is: turns a span of the file's text into the
/// line a [`FileError`] names.
pub(super) struct Locator<'a> {
    file: &'a str,
    /// Where each line but the first starts: found once, so that naming the
    /// line of each of a file's thousands of statements stays linear (it
    /// counted the newlines from the start each time, and a sysbench script
    /// of 20,000 statements took 19 s to open).
    line_starts: Vec<usize>,
}

impl<'a> Locator<'a> {
    /// The file `text`, named `file` in its mistakes.
    pub(super) fn new(file: &'a str, text: &'a str) -> Self {
        let line_starts = (text.bytes().enumerate())
            .filter(|(_, b)| *b == b'\n')
            .map(|(at, _)| at + 1)
            .collect();
        Locator { file, line_starts }
    }

    /// The (1-based) line where `span` starts.
    pub(super) fn line(&self, span: &Range<usize>) -> usize {
        // The lines that start at or before the span, the first among them.
        self.line_starts
            .partition_point(|&start| start <= span.start)
            + 1
    }

    /// A mistake at `span` (no one place when the span is empty at 0).
    pub(super) fn error(&self, span: Range<usize>, message: String) -> FileError {
        FileError {
            file: self.file.to_string(),
            line: if span == (0..0) { 0 } else { self.line(&span) },
            message,
        }
    }

    /// A mistake of the whole file.
    pub(super) fn whole(&self, message: String) -> FileError {
        FileError {
            file: self.file.to_string(),
            line: 0,
            message,
        }
    }
}
