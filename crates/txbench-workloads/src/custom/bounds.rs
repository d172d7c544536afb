//! The bounds on what a workload file sets. A file is input from anyone: a
//! number it gives must not make txbench allocate without end, abort or
//! wrap, so each is held to a bound named in the message that refuses it
//! (docs/workload-file.md lists them).
//!
//! What the file fixes is checked with the file; what depends on the scale
//! (`--scale`, or the scale a database holds) is checked at the load and at
//! the run too ([`super::Spec::beyond_bounds`]).

/// The largest workload file read: a file is a few kilobytes, and one named
/// by mistake (`/dev/zero`) must be refused, not read until memory runs out.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The most rows one load writes, its tables together: ten billion, days of
/// loading on any machine, while the load's list of chunks (one per 1,000
/// rows, 16 bytes each) stays within 160 MB.
pub const MAX_LOAD_ROWS: f64 = 1e10;

/// The most terminals a file's `terminals_per_scale` may make at a scale:
/// the bound of `--terminals`.
pub const MAX_TERMINALS: f64 = 10_000_000.0;

/// The longest string a generator draws: the longest `varchar` a file may
/// declare (MariaDB's row holds 16,383 characters of utf8mb4).
pub const MAX_TEXT_LENGTH: u32 = 16_383;

/// The longest string a `string` generator draws, for a `text` column: a
/// mebibyte (BenchBase's Wikipedia's longest article text is under 200 kB;
/// MariaDB's MEDIUMTEXT holds 16 MiB and its default packet 16 MiB), so a
/// load's batch of them stays in memory. A `varchar` holds its own length.
pub const MAX_STRING_LENGTH: u32 = 1 << 20;

/// The values of a `list` generator: a workload's own list (Voter's 286 area
/// codes), not a table's data.
pub const MAX_LIST_VALUES: usize = 100_000;

/// The most rows a `for_each` table gives one key: a million (BenchBase's
/// largest, Epinions' reviews of an item, is 500 a unit of the scale), so
/// that the zipfian sums that estimate the table's rows stay short.
pub const MAX_ROWS_EACH: i64 = 1_000_000;

/// The most values a query's `into_list` reads: the placeholders a list
/// stands for in a later statement (BenchBase's Twitter's are 20).
pub const MAX_LIST_ROWS: usize = 1_000;

/// The most times a transaction's statements repeat (`repeat`): the
/// transaction's steps are made that many times over, once per process
/// (BenchBase's largest, ResourceStresser's IO2, is 50).
pub const MAX_REPEAT: usize = 1_000;

/// The longest `pause_after`: a minute (BenchBase's longest, ResourceStresser's
/// Contention2, is 2 s), so that a mistyped pause cannot hold a run's
/// transactions past any window.
pub const MAX_PAUSE: std::time::Duration = std::time::Duration::from_secs(60);
