//! The validator's tests: every documented mistake refused with its line,
//! and what each setting makes of a file.

use super::*;
use crate::custom::spec::{Expect, Index, ListRead};
use crate::custom::ycsb;

const ORDERS: &str = r#"
[workload]
name = "orders"
scale = "customers"
default_scale = 100

[[table]]
name = "customer"
rows_per_scale = 1
primary_key = ["c_id"]
columns = [
  { name = "c_id", type = "bigint", gen = "sequence" },
  { name = "c_balance", type = "decimal(12,2)", gen = "uniform", min = 0, max = 1000 },
]

[[transaction]]
name = "Pay"
weight = 60
params = [
  { name = "c", gen = "zipfian", of = "customer.c_id", theta = 0.9 },
  { name = "amount", gen = "uniform", min = 1, max = 50 },
]
statements = [
  { name = "balance", sql = "SELECT c_balance FROM customer WHERE c_id = :c", expect = "one-or-none", into = ["c_balance"] },
  { name = "pay", sql = "UPDATE customer SET c_balance = :c_balance - :amount WHERE c_id = :c AND note <> 'a:b' AND x::text = ''", expect = "one" },
  { name = "audit", sql = "SELECT count(*) FROM customer WHERE c_id = :c" },
]

[[transaction]]
name = "Look"
weight = 40
read_only = true
params = [{ name = "c", gen = "key", of = "customer.c_id" }]
statements = [{ sql = "SELECT * FROM customer WHERE c_id = :c", expect = "one" }]

[[invariant]]
name = "no negative balance"
sql = "SELECT c_id FROM customer WHERE c_balance < 0"
"#;

fn mistake(from: &str, to: &str) -> FileError {
    assert!(ORDERS.contains(from), "{from}");
    parse("orders.toml", &ORDERS.replacen(from, to, 1)).expect_err(to)
}

#[test]
fn a_file_becomes_typed_tables_statements_and_invariants() {
    let spec = parse("orders.toml", ORDERS).unwrap();
    assert_eq!(
        (spec.name.as_str(), spec.scale_unit.as_str()),
        ("orders", "customers")
    );
    assert_eq!(spec.tables[0].columns[1].ty, ColumnType::Decimal(12, 2));
    let pay = &spec.transactions[0];
    assert_eq!(pay.share, 0.6);
    assert_eq!(
        pay.params[0].1,
        Generator::Zipfian {
            keys: KeyRange {
                table: "customer".into(),
                column: "c_id".into(),
                start: 1,
                rows: Rows::PerScale(1.0)
            },
            theta: 0.9,
            scrambled: false
        }
    );
    let [read, update, audit] = &pay.statements[..] else {
        panic!("three statements");
    };
    assert!(read.query && read.expect == Expect::OneOrNone);
    // Quoted text and casts keep their colons; parameters become '?'.
    assert_eq!(
        update.sql,
        "UPDATE customer SET c_balance = ? - ? WHERE c_id = ? AND note <> 'a:b' AND x::text = ''"
    );
    assert_eq!(update.args, ["c_balance", "amount", "c"]);
    // The update needs the read's value; the audit needs nothing earlier,
    // so it may go out with the read.
    assert_eq!(update.after, [0]);
    assert!(audit.after.is_empty());
    assert_eq!(spec.transactions[1].statements[0].name, "s1");
    assert_eq!(spec.invariants.len(), 1);
}

#[test]
fn every_mistake_names_the_file_the_line_and_the_key() {
    // Each mistake is reported on the line where it was written.
    for (from, to, named) in [
        (
            "primary_key = [\"c_id\"]",
            "primary_kee = [\"c_id\"]",
            "unknown field `primary_kee`",
        ),
        (
            "gen = \"uniform\", min = 0",
            "gen = \"bell\", min = 0",
            "unknown generator 'bell'",
        ),
        (
            "WHERE c_id = :c AND",
            "WHERE c_id = :d AND",
            "parameter ':d' is not defined",
        ),
        ("weight = 40", "weight = 30", "weights sum to 90, not 100"),
        (
            "type = \"decimal(12,2)\"",
            "type = \"money\"",
            "unknown type 'money'",
        ),
        (
            "of = \"customer.c_id\", theta",
            "of = \"client.c_id\", theta",
            "no table 'client'",
        ),
        (
            "theta = 0.9",
            "theta = 11.0",
            "theta above 0 and at most 10, not 11",
        ),
        (
            "expect = \"one-or-none\"",
            "expect = \"maybe\"",
            "expect = \"maybe\"",
        ),
        (
            "SELECT * FROM customer WHERE c_id = :c\"",
            "DELETE FROM customer WHERE c_id = :c\"",
            "read_only",
        ),
        (
            "gen = \"uniform\", min = 1, max = 50",
            "gen = \"uniform\", min = 1",
            "needs min and max",
        ),
        (
            "name = \"Look\"",
            "name = \"Pay\"",
            "a second transaction named 'Pay'",
        ),
        (
            "weight = 40\n",
            "weight = 40\nexpected_success = 1.5\n",
            "expected_success 1.5 is not a share",
        ),
        (
            "default_scale = 100\n",
            "default_scale = 100\nthink_time = \"soon\"\n",
            "workload.think_time 'soon'",
        ),
    ] {
        let e = mistake(from, to);
        // The line where `to` first differs from `from`.
        let same = from
            .bytes()
            .zip(to.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let at = ORDERS.find(from).unwrap() + from[..same].rfind('\n').map_or(0, |n| n + 1);
        let line = ORDERS[..at].matches('\n').count() + 1;
        assert_eq!(e.file, "orders.toml");
        assert_eq!(e.line, line, "{to}: {e}");
        assert!(e.to_string().contains(named), "{to}: {e}");
        assert!(
            e.to_string().starts_with(&format!("orders.toml:{line}: ")),
            "{e}"
        );
    }
}

/// The first TOML block of docs/workload-file.md.
fn documented_example() -> &'static str {
    let doc = include_str!("../../../../../docs/workload-file.md");
    let start = doc.find("```toml\n").expect("a toml block") + "```toml\n".len();
    &doc[start..start + doc[start..].find("```").unwrap()]
}

#[test]
fn the_documented_example_is_a_valid_file() {
    let spec = parse("orders.toml", documented_example()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(spec.tables.len(), 2);
    assert_eq!(spec.think_secs, 0.01);
    let pay = &spec.transactions[0];
    let after: Vec<&[usize]> = pay.statements.iter().map(|s| &s.after[..]).collect();
    // debit needs balance's value; record needs nothing earlier.
    assert_eq!(after, [&[][..], &[0][..], &[][..]]);
}

/// The documented example with `from` made `to`, and why it is refused.
fn documented_mistake(from: &str, to: &str) -> FileError {
    let example = documented_example();
    assert!(example.contains(from), "{from}");
    parse("orders.toml", &example.replacen(from, to, 1)).unwrap_err()
}

/// The example with `from` made `to` is refused, saying `says`, on a line.
fn assert_refused_with_line(from: &str, to: &str, says: &str) {
    let e = documented_mistake(from, to);
    assert!(e.to_string().contains(says), "{to}: {e}");
    assert_ne!(e.line, 0, "{e}");
}

/// The messages docs/workload-file.md shows are the ones these mistakes
/// in its example give.
#[test]
fn the_documented_mistakes_are_the_messages_given() {
    let doc = include_str!("../../../../../docs/workload-file.md");
    let mut messages = Vec::new();
    for (from, to) in [
        (
            "primary_key = [\"c_id\"]\ncolumns = [\n  { name = \"c_id\", type = \"bigint\", gen = \"sequence\" },\n  { name = \"c_name\"",
            "primary_kee = [\"c_id\"]\ncolumns = [\n  { name = \"c_id\", type = \"bigint\", gen = \"sequence\" },\n  { name = \"c_name\"",
        ),
        ("c_balance - :amount", "c_balance - :d"),
        ("weight = 40", "weight = 30"),
        ("gen = \"uniform\", min = 0", "gen = \"bell\", min = 0"),
        ("name = \"payment\"", "name = \"order\""),
    ] {
        messages.push(documented_mistake(from, to).to_string());
    }
    for m in &messages {
        assert!(
            doc.contains(m.as_str()),
            "docs/workload-file.md lacks: {m}\n{messages:#?}"
        );
    }
}

/// Names that are SQL, or that no engine takes, are refused before any
/// database is touched, each with the value named.
#[test]
fn names_that_are_not_identifiers_are_refused_by_name() {
    for (from, to, says) in [
        (
            "name = \"payment\"",
            "name = \"ht_x (a int); DROP TABLE ht_victim; CREATE TABLE ht_y\"",
            "a table's name: 'ht_x (a int); DROP TABLE ht_victim; CREATE TABLE ht_y' is not a name",
        ),
        (
            "name = \"payment\"",
            "name = \"s s\"",
            "a table's name: 's s' is not a name",
        ),
        (
            "name = \"payment\"",
            "name = \"\"",
            "a table's name: an empty name",
        ),
        (
            "name = \"payment\"",
            "name = \"txbench_x\"",
            "'txbench_x': names starting with 'txbench_' are txbench's own",
        ),
        (
            "{ name = \"p_amount\"",
            "{ name = \"p_amount int); DROP TABLE x; --\"",
            "column 'p_amount int); DROP TABLE x; --': 'p_amount int); DROP TABLE x; --' is not a name",
        ),
        (
            "{ name = \"p_amount\"",
            "{ name = \"p_id\"",
            "table 'payment': a second column named 'p_id'",
        ),
        (
            "{ name = \"p_amount\"",
            "{ name = \"Amount\"",
            "'Amount' is not a name",
        ),
        (
            "{ name = \"p_amount\"",
            "{ name = \"order\"",
            "column 'order': 'order' is a reserved word",
        ),
        (
            "primary_key = [\"c_id\"]",
            "primary_key = [\"c_id\", \"c_id\"]",
            "table 'customer': primary_key names 'c_id' twice",
        ),
        ("varchar(16)", "varchar(0)", "unknown type 'varchar(0)'"),
        (
            "decimal(12,2)",
            "decimal(2,12)",
            "unknown type 'decimal(2,12)'",
        ),
        (
            "{ name = \"c_balance\"",
            "{ name = \"f{i}\", repeat = 5000",
            "column 'f{i}': repeat = 5000, more than a table's 1000 columns",
        ),
    ] {
        assert_refused_with_line(from, to, says);
    }
}

/// Tables loaded empty, grouping sequences and the table the scale of
/// another tool's data comes from: what no load can draw from, and a
/// table whose row count is not the scale, are refused by name.
#[test]
fn empty_tables_grouping_sequences_and_scale_tables_are_checked() {
    let customer = "name = \"customer\"\nrows_per_scale = 1";
    let c_id = "{ name = \"c_id\", type = \"bigint\", gen = \"sequence\" }";
    for (from, to, says) in [
        (
            customer,
            "name = \"customer\"\nrows_per_scale = 0",
            "of = \"customer.c_id\": table 'customer' is loaded empty: it has no keys to draw",
        ),
        (
            c_id,
            "{ name = \"c_id\", type = \"bigint\", gen = \"sequence\", per = 0 }",
            "column 'c_id': per = 0: a value stands in 1 row or more",
        ),
        (
            c_id,
            "{ name = \"c_id\", type = \"bigint\", gen = \"sequence\", per = 2 }",
            "'c_id' repeats each value (per), so its values are not keys",
        ),
        (
            "default_scale = 100",
            "default_scale = 100\nscale_from = \"payment\"",
            "workload.scale_from 'payment': its rows_per_scale is 10, so its row count is not the scale (it needs rows_per_scale 1)",
        ),
        (
            "default_scale = 100",
            "default_scale = 100\nscale_from = \"nowhere\"",
            "workload.scale_from 'nowhere': no such table",
        ),
        (
            c_id,
            "{ name = \"c_id\", type = \"bigint\", nullable = true, gen = \"sequence\" }",
            "primary_key names 'c_id', which is nullable: a key's columns hold no NULL",
        ),
        (
            c_id,
            "{ name = \"c_id\", type = \"bigint\", gen = \"null\" }",
            "column 'c_id': gen = \"null\" needs nullable = true",
        ),
    ] {
        assert_refused_with_line(from, to, says);
    }
    // A history loaded empty, without a key, and a grouping column.
    let history = "[[table]]\nname = \"history\"\nrows_per_scale = 0\nprimary_key = []\ncolumns = [\n  { name = \"h_c_id\", type = \"bigint\", gen = \"sequence\", per = 10 },\n  { name = \"h_at\", type = \"timestamp\", gen = \"now\" },\n]\n\n[[transaction]]";
    let text = documented_example().replacen("[[transaction]]", history, 1);
    let text = text.replacen(
        "default_scale = 100",
        "default_scale = 100\nscale_from = \"customer\"",
        1,
    );
    let spec = parse("orders.toml", &text).unwrap();
    let table = spec.tables.iter().find(|t| t.name == "history").unwrap();
    assert_eq!(
        (table.rows.clone(), table.primary_key.len()),
        (Rows::PerScale(0.0), 0)
    );
    assert_eq!(
        table.columns[0].generator,
        Generator::Sequence { start: 1, per: 10 }
    );
    assert_eq!(spec.scale_from.as_deref(), Some("customer"));
}

/// `list` and `add`'s `times` and `plus`: what each takes, and the
/// mistakes refused on their line.
#[test]
fn lists_and_sums_of_parameters_are_checked() {
    let amount = "{ name = \"amount\", gen = \"uniform\", min = 1, max = 50 }";
    let phone = "{ name = \"amount\", gen = \"add\", to = \"c\", times = 3, plus = \"c\" }";
    let spec = parse(
        "orders.toml",
        &documented_example().replacen(amount, phone, 1),
    )
    .unwrap();
    assert_eq!(
        spec.transactions[0].params[2].1,
        Generator::Add(crate::custom::Sum {
            to: 0,
            times: 3,
            value: 0,
            plus: Some(0)
        })
    );
    let listed = "{ name = \"amount\", gen = \"list\", values = [5, 10, 20] }";
    let spec = parse(
        "orders.toml",
        &documented_example().replacen(amount, listed, 1),
    )
    .unwrap();
    let values = [5, 10, 20].map(toml::Value::Integer).to_vec();
    assert_eq!(spec.transactions[0].params[2].1, Generator::List(values));
    for (to, says) in [
        (
            "{ name = \"amount\", gen = \"list\", values = [] }",
            "values: 0 of them; a list has 1 to 100000",
        ),
        (
            "{ name = \"amount\", gen = \"list\", values = [1, \"a\"] }",
            "values: all integers or all strings",
        ),
        ("{ name = \"amount\", gen = \"list\" }", "values = [...]"),
        (
            "{ name = \"amount\", gen = \"add\", to = \"c\", times = 2, plus = \"nope\" }",
            "plus = \"nope\" is not a parameter listed before it",
        ),
        (
            "{ name = \"amount\", gen = \"add\", to = \"c\" }",
            "an integer value or plus",
        ),
    ] {
        assert_refused_with_line(amount, to, says);
    }
}

/// `rows = N`: a table of N rows at any scale, whose keys a parameter
/// draws from N of them; one of `rows` and `rows_per_scale`, no more.
#[test]
fn a_table_of_fixed_rows_has_them_at_every_scale() {
    let customer = "name = \"customer\"\nrows_per_scale = 1";
    let text = documented_example().replacen(customer, "name = \"customer\"\nrows = 286", 1);
    let spec = parse("orders.toml", &text).unwrap();
    let table = spec.tables.iter().find(|t| t.name == "customer").unwrap();
    assert_eq!(table.rows, Rows::Fixed(286));
    assert_eq!((table.rows.at(1), table.rows.at(1_000_000)), (286, 286));
    let pay = &spec.transactions[0];
    let drawn = pay.params.iter().find_map(|(_, g)| g.keys_of()).unwrap();
    assert_eq!(
        (drawn.table.as_str(), drawn.rows.clone()),
        ("customer", Rows::Fixed(286))
    );
    for (to, says) in [
        (
            "name = \"customer\"\nrows_per_scale = 1\nrows = 5",
            "table 'customer': rows and rows_per_scale: give one of them",
        ),
        (
            "name = \"customer\"",
            "table 'customer': how many rows? rows_per_scale = N (a unit of the scale) or rows = N (at any scale)",
        ),
        (
            "name = \"customer\"\nrows = -1",
            "table 'customer': rows -1 must be 0 or more",
        ),
    ] {
        assert_refused_with_line(customer, to, says);
    }
}

#[test]
fn skewed_keys_patterns_sums_indexes_and_autocommit_are_checked() {
    let c = "{ name = \"c\", gen = \"zipfian\", of = \"customer.c_id\", theta = 0.9 }";
    let amount = "{ name = \"amount\", gen = \"uniform\", min = 1, max = 50 }";
    let balance = "{ name = \"c_balance\", type = \"decimal(12,2)\", gen = \"uniform\", min = 0, max = 1000 }";
    let key = "primary_key = [\"c_id\"]";
    for (from, to, says) in [
        (
            c,
            "{ name = \"c\", gen = \"pareto\", of = \"customer.c_id\", h = 1.5 }",
            "parameter 'c': h 1.5 is not between 0 and 1",
        ),
        (
            c,
            "{ name = \"c\", gen = \"special\", of = \"customer.c_id\", percent = 0 }",
            "percent 0 is not above 0 and at most 100",
        ),
        (
            c,
            "{ name = \"c\", gen = \"special\", of = \"customer.c_id\", resolution = 100 }",
            "resolution 100 is not from 0 to below 100",
        ),
        (
            c,
            "{ name = \"c\", gen = \"gaussian\", of = \"customer.c_id\", iterations = 0 }",
            "iterations 0 is not from 1 to 1000",
        ),
        (
            c,
            "{ name = \"c\", gen = \"gaussian\" }",
            "gen = \"gaussian\" needs of = \"table.column\"",
        ),
        (
            amount,
            "{ name = \"amount\", gen = \"pattern\" }",
            "gen = \"pattern\" needs pattern",
        ),
        (
            amount,
            "{ name = \"amount\", gen = \"normal\", min = 1 }",
            "parameter 'amount': gen = \"normal\" needs min and max",
        ),
        (
            amount,
            "{ name = \"amount\", gen = \"add\", to = \"nothing\", value = 1 }",
            "parameter 'amount': to = \"nothing\" is not a parameter listed before it",
        ),
        (
            amount,
            "{ name = \"amount\", gen = \"add\", to = \"c\" }",
            "gen = \"add\" needs an integer value",
        ),
        (
            balance,
            "{ name = \"c_balance\", type = \"decimal(12,2)\", gen = \"add\", to = \"c_id\", value = 1 }",
            "column 'c_balance': gen = \"add\" adds to an earlier parameter",
        ),
        (
            amount,
            "{ name = \"amount\", gen = \"key\", of = \"customer.c_id\", other_than = \"nothing\" }",
            "parameter 'amount': other_than = \"nothing\" is not a parameter listed before it",
        ),
        (
            amount,
            "{ name = \"amount\", gen = \"key\", of = \"payment.p_id\", other_than = \"c\" }",
            "other_than = \"c\" draws no key of payment.p_id, which this one draws",
        ),
        (
            amount,
            "{ name = \"amount\", gen = \"zipfian\", of = \"customer.c_id\", other_than = \"c\" }",
            "other_than is a setting of gen = \"key\", not of gen = \"zipfian\"",
        ),
        (
            balance,
            "{ name = \"c_balance\", type = \"decimal(12,2)\", gen = \"key\", of = \"customer.c_id\", other_than = \"c_id\" }",
            "column 'c_balance': other_than leaves out an earlier parameter's key",
        ),
        (
            key,
            "primary_key = [\"c_id\"]\nindexes = [{ name = \"c_idx\", columns = [\"nope\"] }]",
            "table 'customer' index 'c_idx': columns names 'nope', which is not a column",
        ),
        (
            key,
            "primary_key = [\"c_id\"]\nindexes = [{ name = \"order\", columns = [\"c_name\"] }]",
            "table 'customer': an index's name: 'order' is a reserved word",
        ),
    ] {
        assert_refused_with_line(from, to, says);
    }
    let text = documented_example()
            .replacen(c, "{ name = \"c\", gen = \"special\", of = \"customer.c_id\" }", 1)
            .replacen(amount, "{ name = \"amount\", gen = \"add\", to = \"c\", value = 99 }", 1)
            .replacen("{ name = \"p\", gen = \"next-key\", of = \"payment.p_id\" }", "{ name = \"p\", gen = \"key\", of = \"customer.c_id\", other_than = \"c\" }", 1)
            .replacen(key, "primary_key = [\"c_id\"]\nindexes = [{ name = \"c_by_name\", columns = [\"c_name\"] }]", 1)
            .replacen("read_only = true", "read_only = true\nautocommit = true", 1);
    let spec = parse("orders.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let pay = &spec.transactions[0];
    assert!(matches!(
        &pay.params[0].1,
        Generator::Special { iterations: 12, percent, resolution, .. } if *percent == 1.0 && *resolution == 75.0
    ));
    assert_eq!(
        pay.params[2].1,
        Generator::Add(crate::custom::Sum {
            to: 0,
            times: 1,
            value: 99,
            plus: None
        })
    );
    assert!(
        matches!(&pay.params[1].1, Generator::OtherKey { other_than: 0, keys } if keys.column == "c_id")
    );
    assert_eq!(
        spec.tables[0].indexes,
        [Index {
            name: "c_by_name".to_string(),
            columns: vec!["c_name".to_string()],
            unique: false
        }]
    );
    assert!(!pay.autocommit && spec.transactions[1].autocommit);
    // A second index of one name, in another table, is refused there.
    let twice = text.replacen(
        "primary_key = [\"p_id\"]",
        "primary_key = [\"p_id\"]\nindexes = [{ name = \"c_by_name\", columns = [\"p_c_id\"] }]",
        1,
    );
    let e = parse("orders.toml", &twice).unwrap_err();
    assert!(
        e.to_string().contains("a second index named 'c_by_name'"),
        "{e}"
    );
}

/// `width` writes a sequence's or a key's integer as zero-padded text:
/// BenchBase's SmallBank names its customers so. Where it does not fit,
/// or on another generator, it is refused with the file, and a scale
/// whose keys outgrow the column is refused before a load.
#[test]
fn padded_keys_are_text_of_their_width_where_they_fit() {
    let name = "{ name = \"c_name\", type = \"varchar(16)\", gen = \"string\", min_length = 8, max_length = 16 }";
    let c = "{ name = \"c\", gen = \"zipfian\", of = \"customer.c_id\", theta = 0.9 }";
    let text = documented_example()
        .replacen(
            name,
            "{ name = \"c_name\", type = \"varchar(6)\", gen = \"sequence\", width = 6 }",
            1,
        )
        .replacen(
            c,
            "{ name = \"c\", gen = \"key\", of = \"customer.c_id\", width = 6 }",
            1,
        );
    let spec = parse("orders.toml", &text).unwrap_or_else(|e| panic!("{e}"));
    let padded = |g: &Generator| matches!(g, Generator::Padded { width: 6, .. });
    assert!(padded(&spec.tables[0].columns[1].generator));
    assert!(padded(&spec.transactions[0].params[0].1));
    // One customer a unit of the scale: the millionth has 7 digits.
    assert_eq!(spec.beyond_bounds(999_999), None);
    let grown = spec.beyond_bounds(1_000_000).unwrap_or_default();
    assert!(
        grown.contains("column 'c_name': numbers of up to 7 characters do not fit varchar(6)"),
        "{grown}"
    );
    for (from, to, says) in [
        (
            name,
            "{ name = \"c_name\", type = \"varchar(4)\", gen = \"sequence\", width = 6 }",
            "column 'c_name': text of up to 6 characters does not fit varchar(4)",
        ),
        (
            name,
            "{ name = \"c_name\", type = \"bigint\", gen = \"sequence\", width = 6 }",
            "column 'c_name': text in a column of a number or time type",
        ),
        (
            name,
            "{ name = \"c_name\", type = \"varchar(16)\", gen = \"uniform\", min = 1, max = 9, width = 6 }",
            "width is a setting of gen = \"sequence\" and gen = \"key\", not of gen = \"uniform\"",
        ),
        (
            name,
            "{ name = \"c_name\", type = \"varchar(16)\", gen = \"sequence\", width = 0 }",
            "width 0: digits from 1 to",
        ),
        (
            "{ name = \"p\", gen = \"next-key\", of = \"payment.p_id\" }",
            "{ name = \"p\", gen = \"key\", of = \"customer.c_id\", other_than = \"c\", width = 6 }",
            "other_than draws an integer key: it takes no width",
        ),
    ] {
        assert_refused_with_line(from, to, says);
    }
}

/// What MariaDB's load would change silently (and PostgreSQL refuse
/// mid-load) is refused with the file, naming the column and the type.
#[test]
fn values_a_column_cannot_hold_are_refused_with_the_line() {
    let balance = "gen = \"uniform\", min = 0, max = 1000";
    for (from, to, says) in [
        (
            balance,
            "gen = \"constant\", value = \"hello\"",
            "column 'c_balance': text in a column of a number or time type",
        ),
        (
            "{ name = \"c_id\", type = \"bigint\"",
            "{ name = \"c_id\", type = \"int\", min = 0, max = 9223372036854775807, gen = \"uniform\" }, { name = \"c_x\", type = \"bigint\"",
            "values up to 9223372036854775807 do not fit an int",
        ),
        (
            "type = \"varchar(16)\", gen = \"string\", min_length = 8, max_length = 16",
            "type = \"char(5)\", gen = \"string\", length = 50",
            "text of up to 50 characters does not fit char(5)",
        ),
        (
            balance,
            "gen = \"uniform\", min = 0, max = 10000000000",
            "10000000000 does not fit decimal(12,2)",
        ),
    ] {
        assert_refused_with_line(from, to, says);
    }
}

/// The issue's numbers that grew without bound, aborted or wrapped are
/// refused with the bound they pass.
#[test]
fn bounds_are_named() {
    let name_gen = "gen = \"string\", min_length = 8, max_length = 16";
    for (from, to, says) in [
        (
            "{ name = \"amount\", gen = \"uniform\", min = 1, max = 50 }",
            "{ name = \"amount\", gen = \"string\", length = 1000000000 }",
            "strings of 1000000000 characters, longer than 1048576, the longest a text column takes",
        ),
        (
            name_gen,
            "gen = \"string\", length = 8, repeat = 1000000000",
            "repeat = 1000000000, more than a table's 1000 columns",
        ),
        (
            "rows_per_scale = 1 ",
            "rows_per_scale = 1e15 ",
            "rows_per_scale 1000000000000000 must be 0 or more and at most 1e10",
        ),
        (
            "gen = \"uniform\", min = 1, max = 50 },\n]",
            "gen = \"nurand\", a = -1, min = 1, max = 50 },\n]",
            "nurand's a, min and max must be from 0 to 2147483647",
        ),
    ] {
        assert_refused_with_line(from, to, says);
    }
    for (from, to, says) in [
        (
            "default_scale = 100 ",
            "default_scale = 1000000000000 ",
            "workload.default_scale 1000000000000: the tables would hold 1.100e13 rows, more than the 1e10",
        ),
        (
            "terminals_per_scale = 0.1 ",
            "terminals_per_scale = 1000000 ",
            "terminals_per_scale 1000000 makes 1.000e8 terminals, more than 1e7",
        ),
        (
            "{ name = \"c_id\", type = \"bigint\", gen = \"sequence\" }",
            "{ name = \"c_id\", type = \"bigint\", gen = \"sequence\", min = 9223372036854775800 }",
            "table 'customer' column 'c_id': 100 keys from 9223372036854775800 go past the largest integer",
        ),
    ] {
        let e = documented_mistake(from, to);
        assert!(e.to_string().contains(says), "{to}: {e}");
    }
}

#[test]
fn the_ycsb_core_workloads_are_files_of_the_format() {
    for (letter, text) in ycsb::CORE {
        let spec = parse(&format!("ycsb-{letter}.toml"), text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(spec.name, "ycsb");
        let table = &spec.tables[0];
        // ycsb_key and field0..field9 of 100 characters.
        assert_eq!(table.columns.len(), 11);
        assert_eq!(table.columns[10].name, "field9");
        assert_eq!(
            table.columns[10].generator,
            Generator::Text { min: 100, max: 100 }
        );
        let total: f64 = spec.transactions.iter().map(|t| t.share).sum();
        assert!((total - 1.0).abs() < 1e-9);
    }
    let mix = |l| -> Vec<(String, f64)> {
        parse("y", ycsb::file(l).unwrap())
            .unwrap()
            .transactions
            .into_iter()
            .map(|t| (t.name, t.share))
            .collect()
    };
    assert_eq!(mix('a'), [("Read".into(), 0.5), ("Update".into(), 0.5)]);
    assert_eq!(mix('b'), [("Read".into(), 0.95), ("Update".into(), 0.05)]);
    assert_eq!(mix('c'), [("Read".into(), 1.0)]);
    assert_eq!(mix('d'), [("Read".into(), 0.95), ("Insert".into(), 0.05)]);
    assert_eq!(mix('e'), [("Scan".into(), 0.95), ("Insert".into(), 0.05)]);
    assert_eq!(
        mix('f'),
        [("Read".into(), 0.5), ("Read-Modify-Write".into(), 0.5)]
    );
    let d = parse("d", ycsb::file('d').unwrap()).unwrap();
    assert!(matches!(
        d.transactions[0].params[0].1,
        Generator::Latest { theta: 0.99, .. }
    ));
    let a = parse("a", ycsb::file('a').unwrap()).unwrap();
    assert!(matches!(
        a.transactions[0].params[0].1,
        Generator::Zipfian {
            theta: 0.99,
            scrambled: true,
            ..
        }
    ));
    assert!(ycsb::file('g').is_none());
}

/// A file of users and the follows each draws (`for_each`).
const DRAWN: &str = crate::custom::drawn_rows::tests::FOLLOWS;

#[test]
fn a_table_of_drawn_rows_is_checked_for_what_only_it_may_hold() {
    let spec = parse("f.toml", DRAWN).unwrap();
    let Rows::ForEach(each) = &spec.tables[1].rows else {
        panic!("{:?}", spec.tables[1].rows);
    };
    assert_eq!((each.parent.table.as_str(), each.count.min), ("users", 1));
    assert_eq!(each.count.theta, Some(1.75));
    let f2 = &spec.tables[1].columns[2];
    assert_eq!(
        f2.distinct,
        Some(crate::custom::Distinct {
            other_than: Some(1)
        })
    );
    for (from, to, message) in [
        (
            "for_each = \"users.uid\"",
            "for_each = \"users.uid\"\nrows = 5",
            "for_each draws its rows: it takes no rows or rows_per_scale",
        ),
        ("for_each = \"users.uid\"\n", "", "rows_each needs for_each"),
        (
            "rows_each = { gen = \"zipfian\", min = 1, max = 50, theta = 1.75 }\n",
            "",
            "for_each needs rows_each",
        ),
        (
            "for_each = \"users.uid\"",
            "for_each = \"follows.f1\"",
            "table 'follows' draws its rows",
        ),
        (
            "max = 50,",
            "max = 5000000,",
            "min and max from 0 to 1000000",
        ),
        ("max = 50,", "", "give max or max_per_scale"),
        (
            "gen = \"zipfian\", min = 1",
            "gen = \"pareto\", min = 1",
            "uniform, zipfian or histogram",
        ),
        (
            "other_than = \"f1\"",
            "other_than = \"f3\"",
            "other_than = \"f3\" is not a column before it",
        ),
        (
            "distinct = true, ",
            "",
            "other_than in a table of for_each needs distinct = true",
        ),
        (
            "theta = 1.75, distinct",
            "theta = 1.75, width = 8, distinct",
            "a distinct column draws integer keys",
        ),
        (
            "{ name = \"u\", gen = \"key\", of = \"users.uid\" }",
            "{ name = \"u\", gen = \"key\", of = \"follows.f1\" }",
            "table 'follows' draws its rows (for_each) or selects them (from)",
        ),
        (
            "{ name = \"u\", gen = \"key\", of = \"users.uid\" }",
            "{ name = \"u\", gen = \"parent\" }",
            "gen = \"parent\" is the key a row of a for_each table is made for",
        ),
        (
            "columns = [{ name = \"uid\", type = \"int\", gen = \"sequence\" }]",
            "columns = [{ name = \"uid\", type = \"int\", gen = \"sequence\" }, { name = \"k\", type = \"int\", gen = \"key\", of = \"users.uid\", distinct = true }]",
            "distinct belongs to a table of for_each",
        ),
    ] {
        assert_refused_with(DRAWN, from, to, message);
    }
}

/// `text` with `from` changed to `to` (once) is refused, the message
/// saying `message`.
fn assert_refused_with(text: &str, from: &str, to: &str, message: &str) {
    let changed = text.replacen(from, to, 1);
    assert_ne!(changed, text, "{from}");
    let e = parse("f.toml", &changed).expect_err(message);
    assert!(e.to_string().contains(message), "{message}: {e}");
}

#[test]
fn lists_selected_tables_and_length_histograms_are_checked_where_written() {
    let twitter = crate::custom::benchbase::file("twitter").unwrap().1;
    let spec = parse("t.toml", twitter).unwrap();
    assert!(matches!(&spec.tables[2].rows, Rows::Selected(q) if q == "SELECT f2, f1 FROM follows"));
    assert_eq!(
        spec.after_load,
        [(
            "each user's email is their name at tweeter.com".to_string(),
            "UPDATE user_profiles SET email = concat(name, '@tweeter.com')".to_string()
        )]
    );
    let names = &spec.transactions[2].statements[1];
    assert_eq!(names.lists, ["follower"]);
    assert_eq!(names.args.len(), 20);
    assert_eq!(names.sql.matches('?').count(), 20);
    for (from, to, message) in [
        (
            "{ name = \"f1\", type = \"int\" },",
            "{ name = \"f1\", type = \"int\", gen = \"sequence\" },",
            "the table's from query gives its values: it takes no gen",
        ),
        (
            "from = \"SELECT f2, f1 FROM follows\"",
            "from = \"SELECT f2, f1 FROM follows\"\nrows = 3",
            "from loads the query's rows",
        ),
        (
            "{ name = \"id\", type = \"bigint\", gen = \"sequence\" },",
            "{ name = \"id\", type = \"bigint\" },",
            "column 'id': no gen",
        ),
        ("rows = 20 }", "rows = 0 }", "into_list rows = 0: 1 to 1000"),
        (
            "lengths = [\n    [1, 2]",
            "length = 3, lengths = [\n    [1, 2]",
            "lengths gives every length",
        ),
        (
            "[140, 15701]",
            "[20000, 15701]",
            "text of up to 20000 characters does not fit char(140)",
        ),
        (
            "{ name = \"tweetid\", gen = \"key\", of = \"tweets.id\" }",
            "{ name = \"tweetid\", gen = \"key\", of = \"followers.f1\" }",
            "selects them (from), so its keys are not known",
        ),
        (
            "sql = \"UPDATE user_profiles SET email = concat(name, '@tweeter.com')\"",
            "sql = \"SELECT email FROM user_profiles\"",
            "after_load 'each user's email is their name at tweeter.com': a query changes no row",
        ),
        (
            "SET email = concat(name, '@tweeter.com')\"",
            "SET email = concat(name, :domain)\"",
            "':domain': an after_load statement takes no parameters",
        ),
    ] {
        assert_refused_with(twitter, from, to, message);
    }
}

#[test]
fn repeats_pauses_and_homes_are_checked_where_written() {
    let stresser = crate::custom::benchbase::file("resourcestresser")
        .unwrap()
        .1;
    let spec = parse("r.toml", stresser).unwrap();
    let io2 = &spec.transactions[3];
    assert_eq!((io2.name.as_str(), io2.repeat), ("IO2", 50));
    assert!(matches!(
        io2.params[0].1,
        Generator::Uniform {
            min: 0,
            max: 99,
            home_step: 100
        }
    ));
    let contention2 = &spec.transactions[5];
    assert_eq!(
        contention2.statements[0].pause_after,
        Some(std::time::Duration::from_secs(2))
    );
    for (from, to, message) in [
        (
            "repeat = 50",
            "repeat = 0",
            "transaction 'IO2': repeat 0: from 1 to 1000",
        ),
        (
            "repeat = 50",
            "repeat = 1001",
            "repeat 1001: from 1 to 1000",
        ),
        (
            "pause_after = \"2s\"",
            "pause_after = \"soon\"",
            "pause_after 'soon'",
        ),
        (
            "pause_after = \"2s\"",
            "pause_after = \"2h\"",
            "pause_after '2h': at most 1m",
        ),
        (
            "min = 0, max = 99, home_step = 100",
            "min = 0, max = 99, home_step = 0",
            "home_step 0: from 1",
        ),
        (
            "{ name = \"lo\", gen = \"key\", of = \"locktable.empid\" }",
            "{ name = \"lo\", gen = \"key\", of = \"locktable.empid\", home_step = 10 }",
            "home_step is a setting of gen = \"uniform\", not of gen = \"key\"",
        ),
        (
            "{ name = \"flag1\", type = \"int\", gen = \"uniform\", min = -2147483648, max = 2147483647 }",
            "{ name = \"flag1\", type = \"int\", gen = \"uniform\", min = 0, max = 9, home_step = 10 }",
            "home_step is a parameter's: a column has no terminal",
        ),
    ] {
        assert_refused_with(stresser, from, to, message);
    }
}

/// Pages whose title is a function of their id, and a read of one.
const SEEDED: &str = r#"
[workload]
name = "seeded"
scale = "pages"

[[table]]
name = "page"
rows_per_scale = 10
primary_key = ["page_id"]
columns = [
  { name = "page_id", type = "int", gen = "sequence" },
  { name = "title", type = "varchar(12)", gen = "string", length = 12, seeded_by = "page_id" },
]

[[transaction]]
name = "Read"
weight = 100
params = [
  { name = "page", gen = "key", of = "page.page_id" },
  { name = "title", gen = "string", length = 12, seeded_by = "page" },
]
statements = [{ sql = "SELECT 1 FROM page WHERE page_id = :page AND title = :title" }]
"#;

#[test]
fn a_seeded_value_names_an_earlier_integer_and_draws_values_not_keys() {
    let spec = parse("s.toml", SEEDED).unwrap();
    let title = &spec.tables[0].columns[1].generator;
    assert!(
        matches!(title, Generator::Seeded { by: 0, .. }),
        "{title:?}"
    );
    assert!(matches!(
        spec.transactions[0].params[1].1,
        Generator::Seeded { by: 0, .. }
    ));
    for (from, to, message) in [
        (
            "length = 12, seeded_by = \"page\"",
            "length = 12, seeded_by = \"later\"",
            "parameter 'title': seeded_by = \"later\": not one listed before it",
        ),
        (
            "length = 12, seeded_by = \"page_id\"",
            "length = 12, seeded_by = \"title\"",
            "column 'title': seeded_by = \"title\": not one listed before it",
        ),
        (
            "of = \"page.page_id\" }",
            "of = \"page.page_id\", seeded_by = \"x\" }",
            "gen = \"key\" draws keys, rows or times",
        ),
        (
            "{ name = \"page\", gen = \"key\", of = \"page.page_id\" },",
            "{ name = \"page\", gen = \"key\", of = \"page.page_id\" },\n  { name = \"t\", gen = \"string\", length = 3 },\n  { name = \"u\", gen = \"uniform\", min = 1, max = 2, seeded_by = \"t\" },",
            "seeded_by = \"t\": it draws no integer",
        ),
    ] {
        assert_refused_with(SEEDED, from, to, message);
    }
}

#[test]
fn histograms_are_pairs_of_integers_whose_weights_add_up() {
    let text = SEEDED.replace(
        "{ name = \"title\", type = \"varchar(12)\", gen = \"string\", length = 12, seeded_by = \"page_id\" },",
        "{ name = \"ns\", type = \"int\", gen = \"histogram\", values = [[0, 6], [1, 3]] },",
    );
    let spec = parse("h.toml", &text).unwrap();
    assert_eq!(
        spec.tables[0].columns[1].generator,
        Generator::Histogram(vec![(0, 6), (1, 3)])
    );
    for (from, to, message) in [
        (
            "values = [[0, 6], [1, 3]]",
            "values = [[0, 6], [1]]",
            "each a [value, weight] of two integers",
        ),
        (
            "values = [[0, 6], [1, 3]]",
            "values = [[0, 0], [1, 0]]",
            "weights must add up to more than 0",
        ),
        (
            "values = [[0, 6], [1, 3]]",
            "values = [[0, -1], [1, 3]]",
            "the weight 0 or more",
        ),
        (
            "values = [[0, 6], [1, 3]]",
            "values = []",
            "a histogram has 1 to",
        ),
    ] {
        assert_refused_with(&text, from, to, message);
    }
    let drawn = crate::custom::benchbase::file("epinions").unwrap().1;
    let rows_each = "rows_each = { gen = \"zipfian\", min = 1, max_per_scale = 0.25, theta = 1.8 }";
    assert!(drawn.contains(rows_each));
    for (to, message) in [
        (
            "rows_each = { gen = \"histogram\", values = [[1, 3], [2, 1]] }",
            "",
        ),
        (
            "rows_each = { gen = \"histogram\", min = 1, values = [[1, 3]] }",
            "a histogram's counts are its values: it takes no min",
        ),
        (
            "rows_each = { gen = \"histogram\", values = [[-1, 3]] }",
            "counts from 0 to 1000000",
        ),
        (
            "rows_each = { gen = \"uniform\", min = 1, max = 3, values = [[1, 3]] }",
            "values is a setting of a histogram",
        ),
    ] {
        let changed = drawn.replacen(rows_each, to, 1);
        match (parse("e.toml", &changed), message) {
            (Ok(spec), "") => {
                let each = spec.tables.iter().find_map(|t| match &t.rows {
                    Rows::ForEach(each) => Some(each),
                    _ => None,
                });
                assert_eq!(each.unwrap().count.mean(1), 1.25);
            }
            (Ok(_), message) => panic!("accepted, not refused with {message}"),
            (Err(e), message) => assert!(
                !message.is_empty() && e.to_string().contains(message),
                "{message}: {e}"
            ),
        }
    }
}

#[test]
fn a_suffix_follows_seeded_text_with_its_integer_once() {
    let text = SEEDED.replace(
        "length = 12, seeded_by = \"page\" }",
        "length = 12, seeded_by = \"page\", suffix = \" [{}]\" }",
    );
    let spec = parse("s.toml", &text).unwrap();
    let Generator::Seeded { suffix, .. } = &spec.transactions[0].params[1].1 else {
        panic!("not seeded");
    };
    assert_eq!(
        suffix.as_ref().unwrap(),
        &(" [".to_string(), "]".to_string())
    );
    for (to, message) in [
        (
            "length = 12, suffix = \" [{}]\" }",
            "suffix follows a seeded_by value, and this has none",
        ),
        (
            "length = 12, seeded_by = \"page\", suffix = \"-\" }",
            "suffix \"-\": no {} for the integer",
        ),
        (
            "length = 12, seeded_by = \"page\", suffix = \"{}{}\" }",
            "suffix \"{}{}\": one {} at most",
        ),
    ] {
        assert_refused_with(SEEDED, "length = 12, seeded_by = \"page\" }", to, message);
    }
    // After an integer, a suffix would make text of a number.
    let numbered = SEEDED.replace(
        "{ name = \"title\", gen = \"string\", length = 12, seeded_by = \"page\" }",
        "{ name = \"n\", gen = \"uniform\", min = 1, max = 9, seeded_by = \"page\", suffix = \"{}\" }",
    );
    let refused = parse("s.toml", &numbered).unwrap_err().to_string();
    assert!(
        refused.contains("it follows text, and this draws none"),
        "{refused}"
    );
}

#[test]
fn instead_is_a_parameter_s_value_of_its_kind_in_a_share_of_the_draws() {
    let from = "{ name = \"page\", gen = \"key\", of = \"page.page_id\" }";
    let text = SEEDED.replace(
        from,
        "{ name = \"page\", gen = \"key\", of = \"page.page_id\", instead = { value = 0, percent = 26 } }",
    );
    let spec = parse("s.toml", &text).unwrap();
    assert!(matches!(
        &spec.transactions[0].params[0].1,
        Generator::Instead { percent, .. } if *percent == 26.0
    ));
    for (to, message) in [
        (
            "{ name = \"page\", gen = \"key\", of = \"page.page_id\", instead = { value = \"x\", percent = 26 } }",
            "instead: value \"x\" is not of the kind gen = \"key\" draws",
        ),
        (
            "{ name = \"page\", gen = \"key\", of = \"page.page_id\", instead = { value = 0, percent = 0 } }",
            "instead: percent 0: above 0, at most 100",
        ),
        (
            "{ name = \"page\", gen = \"next-key\", of = \"page.page_id\", instead = { value = 0, percent = 5 } }",
            "instead: gen = \"next-key\" is not drawn alone",
        ),
    ] {
        assert_refused_with(SEEDED, from, to, message);
    }
    assert_refused_with(
        SEEDED,
        "{ name = \"page_id\", type = \"int\", gen = \"sequence\" }",
        "{ name = \"page_id\", type = \"int\", gen = \"sequence\", instead = { value = 0, percent = 5 } }",
        "column 'page_id': instead is a parameter's",
    );
}

#[test]
fn when_names_one_value_defined_before_its_statement() {
    let from =
        "statements = [{ sql = \"SELECT 1 FROM page WHERE page_id = :page AND title = :title\" }]";
    let text = SEEDED.replace(
        from,
        "statements = [\n  { sql = \"SELECT title FROM page WHERE page_id = :page\", into = [\"t\"] },\n  { sql = \"SELECT 1 FROM page WHERE page_id = :page\", when = { param = \"page\", equals = 1 } },\n  { sql = \"SELECT 2 FROM page WHERE page_id = :page\", when = { param = \"t\", equals = 0 } },\n]",
    );
    let spec = parse("s.toml", &text).unwrap();
    let statements = &spec.transactions[0].statements;
    assert_eq!(statements[1].when, Some(("page".to_string(), 1)));
    // A drawn value needs no reply; a read one waits for its statement's.
    assert_eq!(
        (statements[1].after.clone(), statements[2].after.clone()),
        (vec![], vec![0])
    );
    assert_refused_with(
        SEEDED,
        from,
        "statements = [{ sql = \"SELECT 1 FROM page WHERE page_id = :page\", when = { param = \"later\", equals = 1 } }]",
        "when = { param = \"later\" }: not defined by params or an earlier statement's into",
    );
}

#[test]
fn an_insert_s_key_may_follow_rows_drawn_for_each_key_of_another_table() {
    // follows' n numbers its rows, drawn for each user.
    let with_insert = format!(
        "{}\n[[transaction]]\nname = \"Add\"\nweight = 1\nparams = [{{ name = \"k\", gen = \"next-key\", of = \"follows.n\" }}]\nstatements = [{{ sql = \"SELECT :k\" }}]\n",
        DRAWN.replace("weight = 100", "weight = 99")
    );
    let spec = parse("d.toml", &with_insert).unwrap();
    let add = spec.transactions.last().unwrap();
    assert!(
        matches!(&add.params[0].1, Generator::NextKey(keys) if keys.table == "follows" && keys.start == 0)
    );
    let drawing = with_insert.replace("gen = \"next-key\"", "gen = \"key\"");
    let refused = parse("d.toml", &drawing).unwrap_err().to_string();
    assert!(refused.contains("draws its rows (for_each)"), "{refused}");
}

#[test]
fn seats_checks_unique_indexes_none_expected_and_branches_on_a_list() {
    let (path, text) = crate::custom::benchbase::file("seats").unwrap();
    let spec = parse(&path, text).unwrap();
    let table = |name: &str| spec.tables.iter().find(|t| t.name == name).unwrap();
    assert!(table("reservation").indexes[0].unique);
    assert!(table("customer").indexes[0].unique);
    let by_time = &table("flight").indexes[0];
    assert!(!by_time.unique);
    // Not unique, an index is recorded as it was before indexes could be
    // (the load's shape digest is of this text).
    assert_eq!(
        format!("{by_time:?}"),
        format!(
            "{:?}",
            (
                "f_depart_time_idx".to_string(),
                vec!["f_depart_time".to_string()]
            )
        )
    );
    let statements = |name: &str| {
        let t = spec.transactions.iter().find(|t| t.name == name).unwrap();
        &t.statements
    };
    assert_eq!(statements("NewReservation")[2].expect, Expect::None);
    // FindFlights' direct search goes when the nearby query read no
    // airport: it compares the list's length, after that query.
    let flights = &statements("FindFlights")[2];
    assert_eq!(flights.when, Some((ListRead::length("near"), 0)));
    assert!(flights.after.contains(&1));
}

#[test]
fn inserted_keys_are_a_key_parameter_s() {
    let text = crate::custom::benchbase::file("auctionmark").unwrap().1;
    let spec = parse("auctionmark.toml", text).unwrap();
    let get_item = spec
        .transactions
        .iter()
        .find(|t| t.name == "GetItem")
        .unwrap();
    assert!(matches!(&get_item.params[0].1, Generator::KeyOrInserted(k) if k.table == "item"));
    let param = "{ name = \"i\", gen = \"key\", of = \"item.i_id\", inserted = true }";
    for (to, message) in [
        (
            "{ name = \"i\", gen = \"uniform\", min = 1, max = 9, inserted = true }",
            "inserted is a setting of gen = \"key\", not of gen = \"uniform\"",
        ),
        (
            "{ name = \"i\", gen = \"key\", of = \"item.i_id\", inserted = true, width = 9 }",
            "inserted = true draws any integer key: it takes no width or other_than",
        ),
        (
            "{ name = \"i\", gen = \"key\", of = \"item.i_id\", inserted = true, other_than = \"i\" }",
            "inserted = true draws any integer key: it takes no width or other_than",
        ),
    ] {
        let changed = text.replacen(param, to, 1);
        let e = parse("auctionmark.toml", &changed).unwrap_err().to_string();
        assert!(e.contains(message), "{e}");
    }
    // A column: a load inserts nothing.
    let column = "{ name = \"uw_i_id\", type = \"bigint\", gen = \"key\", of = \"item.i_id\", distinct = true }";
    let changed = text.replacen(
        column,
        "{ name = \"uw_i_id\", type = \"bigint\", gen = \"key\", of = \"item.i_id\", inserted = true }",
        1,
    );
    let e = parse("auctionmark.toml", &changed).unwrap_err().to_string();
    assert!(e.contains("a parameter's, not a column's"), "{e}");
}
