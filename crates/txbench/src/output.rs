//! What txbench prints, without ever panicking. `println!` and `eprintln!`
//! panic when their stream cannot be written (stdout on a full disk, a reader
//! that went away), which would turn a finished command into exit 101 with a
//! backtrace. Every line goes through here instead: a reader that went away
//! (`| head`) wanted no more, as with any command-line tool; any other failure
//! is remembered, and `main` turns it into exit 1 saying so.

use std::io::{self, Write};
use std::sync::OnceLock;

/// The first failure to write stdout (other than a reader that went away).
static STDOUT_FAILED: OnceLock<String> = OnceLock::new();

/// Write `text` to stdout; a reader that went away is no error.
pub fn try_print(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Write `text` to stdout, remembering a failure for [`stdout_failure`].
pub fn print(text: &str) {
    if let Err(e) = try_print(text) {
        let _ = STDOUT_FAILED.set(e.to_string());
    }
}

/// Why something printed could not be written, if it could not.
pub fn stdout_failure() -> Option<&'static str> {
    STDOUT_FAILED.get().map(String::as_str)
}

/// Write one line to stderr; one that cannot be written (stderr on a full
/// disk) is lost, never the command.
pub fn eprint_line(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}

/// `println!` through [`print()`].
macro_rules! outln {
    () => {
        $crate::output::print("\n")
    };
    ($($arg:tt)*) => {
        $crate::output::print(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`print()`].
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::print(&format!($($arg)*))
    };
}
