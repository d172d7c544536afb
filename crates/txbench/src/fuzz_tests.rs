//! Fuzzing the command line and config files: whatever a user types or a file
//! holds, txbench answers with a parse or a clear error, never a panic.

use std::ffi::OsString;

use proptest::prelude::*;

use crate::cli::Cli;
use crate::config;

/// Words a command line is made of: commands, flags, values good and bad,
/// and arbitrary text.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "tpcc",
            "tatp",
            "retwis",
            "run",
            "load",
            "check",
            "clean",
            "sweep",
            "serve",
            "selftest",
            "report",
            "compare",
            "merge",
            "--db",
            "--rate",
            "--duration",
            "--warmup",
            "--terminals",
            "-t",
            "-w",
            "--warehouses",
            "--subscribers",
            "--keys",
            "--connections",
            "--config",
            "--slo",
            "--rates",
            "--step",
            "--start-at",
            "--shards",
            "--shard-index",
            "--zipf",
            "--isolation",
            "--token",
            "--listen",
            "-1",
            "0",
            "1e30",
            "1e30/s",
            "NaN",
            "inf",
            "-inf",
            "99999999999999s",
            "p99<=5ms",
            "p100<=1ms",
            "..",
            "1..",
            "sqlite::memory:",
            "null:",
            "sim:?service=fixed:1ms",
            "=",
            "--",
            "-",
            "\u{e9}",
            "-\u{e9}",
        ])
        .prop_map(String::from),
        ".{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Any command line parses or is refused, without a panic.
    #[test]
    fn any_command_line_parses_or_is_refused(words in prop::collection::vec(word(), 0..8)) {
        let args = std::iter::once("txbench".to_string()).chain(words);
        let _ = Cli::try_parse_args(args);
    }

    /// Any config file (TOML or not) expands into flags or is refused with a
    /// message, without a panic.
    #[test]
    fn any_config_file_expands_or_is_refused(
        text in prop_oneof![
            ".{0,200}",
            "([a-z-]{1,12} = (\"[^\"]{0,12}\"|-?[0-9]{1,4}|true|false|\\[\\]|1\\.5|\\{\\}))\n{0,4}",
        ],
        words in prop::collection::vec(word(), 0..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.toml");
        std::fs::write(&file, &text).unwrap();
        let args: Vec<OsString> = ["txbench", "tpcc", "run"]
            .into_iter()
            .map(String::from)
            .chain(words)
            .map(OsString::from)
            .collect();
        if let Ok(expanded) = config::expand(args, &file) {
            let _ = Cli::try_parse_args(expanded);
        }
    }
}
