//! Fuzzing workload files: whatever a file holds, it is refused with a
//! message or it parses, and a file that parses (at a scale within its
//! bounds) loads rows and draws transactions without a panic, an abort or
//! an allocation without bound.

use proptest::prelude::*;
use txbench_core::rng::Rand;
use txbench_core::workload::{Terminal, Workload};

use super::load::{schema_table, table_rows};
use super::parse;
use super::run::FileWorkload;

/// Rows drawn from each end of a table: enough to reach every generator's
/// first and last keys without loading a large table.
const ROWS_AT_EACH_END: i64 = 20;

/// A value as a file might give it, good or hostile.
fn number() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "0",
        "1",
        "-1",
        "2",
        "100",
        "0.001",
        "1e10",
        "1e15",
        "nan",
        "inf",
        "-inf",
        "2147483647",
        "2147483648",
        "4294967295",
        "1000000000",
        "9223372036854775800",
        "9223372036854775807",
        "-9223372036854775808",
        "\"x\"",
    ])
}

/// Mostly `usual`, sometimes any [`number`]: a file whose every value is
/// hostile is refused at its first, and the checks after it go untried.
fn mostly(usual: &'static str) -> impl Strategy<Value = &'static str> {
    prop_oneof![3 => Just(usual), 1 => number()]
}

/// A column's or parameter's generator: mostly one of each kind with the
/// settings it needs (values mostly usual), sometimes any kind with any
/// settings.
fn generator() -> impl Strategy<Value = String> {
    let formed =
        (0..9usize, mostly("1"), mostly("100"), mostly("0.9")).prop_map(|(kind, x, y, theta)| {
            match kind {
                0 => format!("gen = \"sequence\", min = {x}"),
                1 => format!("gen = \"uniform\", min = {x}, max = {y}"),
                2 => format!("gen = \"zipfian\", of = \"t.id\", theta = {theta}"),
                3 => format!("gen = \"latest\", of = \"t.id\", theta = {theta}"),
                4 => format!("gen = \"nurand\", a = {x}, min = {x}, max = {y}"),
                5 => format!("gen = \"string\", min_length = {x}, max_length = {y}"),
                6 => format!("gen = \"number\", length = {x}"),
                7 => format!("gen = \"constant\", value = {y}"),
                _ => format!(
                    "gen = \"{}\", of = \"t.id\"",
                    if x == "1" { "key" } else { "next-key" }
                ),
            }
        });
    prop_oneof![4 => formed, 1 => any_generator()]
}

/// Any kind of generator with any of the settings.
fn any_generator() -> impl Strategy<Value = String> {
    let kinds = prop::sample::select(vec![
        "sequence", "uniform", "zipfian", "latest", "nurand", "string", "number", "constant",
        "key", "next-key", "other",
    ]);
    let keys = prop::sample::select(vec![
        "min",
        "max",
        "length",
        "min_length",
        "max_length",
        "a",
        "theta",
        "value",
    ]);
    let of = prop::sample::select(vec![
        "",
        ", of = \"t.id\"",
        ", of = \"t.v\"",
        ", of = \"u.id\"",
    ]);
    (kinds, prop::collection::vec((keys, number()), 0..4), of).prop_map(|(kind, settings, of)| {
        let mut seen = Vec::new();
        let mut text = format!("gen = \"{kind}\"{of}");
        for (key, value) in settings {
            if !seen.contains(&key) {
                seen.push(key);
                text.push_str(&format!(", {key} = {value}"));
            }
        }
        text
    })
}

/// A column type, good or not.
fn column_type() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "bigint",
        "int",
        "varchar(20)",
        "varchar(0)",
        "varchar(16384)",
        "char(5)",
        "decimal(12,2)",
        "decimal(70,2)",
        "timestamp",
        "text",
    ])
}

/// A name, an identifier or not.
fn name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        3 => prop::sample::select(vec!["v", "w", "v{i}"]),
        1 => prop::sample::select(vec!["order", "a b", "", "x\\\"y", "txbench_x"]),
    ]
}

prop_compose! {
    /// A workload file of one table `t` (keys `id`, a sequence) and one
    /// transaction, every other value drawn.
    fn file()(
        default_scale in mostly("3"),
        rows_per_scale in mostly("10"),
        terminals_per_scale in mostly("1"),
        id_gen in prop_oneof![
            4 => mostly("1").prop_map(|min| format!("gen = \"sequence\", min = {min}")),
            1 => generator(),
        ],
        columns in prop::collection::vec((name(), column_type(), generator(), mostly("2")), 0..3),
        params in prop::collection::vec((name(), generator()), 0..3),
    ) -> String {
        let mut text = format!(
            "[workload]\nname = \"fuzz\"\nscale = \"units\"\ndefault_scale = {default_scale}\n\
             terminals_per_scale = {terminals_per_scale}\n\n\
             [[table]]\nname = \"t\"\nrows_per_scale = {rows_per_scale}\nprimary_key = [\"id\"]\n\
             columns = [\n  {{ name = \"id\", type = \"bigint\", {id_gen} }},\n"
        );
        for (i, (name, ty, generator, repeat)) in columns.iter().enumerate() {
            let repeat = if i == 0 { format!(", repeat = {repeat}") } else { String::new() };
            text.push_str(&format!("  {{ name = \"{name}\", type = \"{ty}\", {generator}{repeat} }},\n"));
        }
        text.push_str("]\n\n[[transaction]]\nname = \"T\"\nweight = 100\nparams = [\n");
        for (name, generator) in &params {
            text.push_str(&format!("  {{ name = \"{name}\", {generator} }},\n"));
        }
        text.push_str("]\nstatements = [{ sql = \"SELECT 1\" }]\n");
        text
    }
}

/// Load a parsed file's rows at both ends of each table, and draw its
/// transactions, at `scale`.
fn load_and_draw(spec: &super::Spec, scale: i64) {
    for table in &spec.tables {
        let rows = table.rows.at(scale);
        let made = schema_table(table);
        let head = 0..rows.min(ROWS_AT_EACH_END);
        let tail = (rows - ROWS_AT_EACH_END).max(head.end)..rows;
        for part in [head, tail] {
            let batch = table_rows(table, &made, part.clone(), scale, Rand::new(7));
            assert_eq!(
                batch.values.len() as i64,
                (part.end - part.start) * table.columns.len() as i64
            );
        }
    }
    let workload = FileWorkload::new(spec.clone(), scale);
    let mut terminal = workload.terminal(0, 7);
    for _ in 0..20 {
        terminal.next();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Any text is a workload file or a refusal, without a panic.
    #[test]
    fn any_text_parses_or_is_refused(text in ".{0,300}") {
        let _ = parse("fuzz.toml", &text);
    }

    /// Any file of the workload's shape is refused with its line, or it
    /// loads and runs within its bounds at its default scale and at 1.
    #[test]
    fn any_file_is_refused_or_loads_and_draws(text in file()) {
        let Ok(spec) = parse("fuzz.toml", &text) else { return Ok(()) };
        for scale in [1, spec.default_scale] {
            if spec.beyond_bounds(scale).is_none() {
                load_and_draw(&spec, scale);
            }
        }
    }
}
