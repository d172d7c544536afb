//! Names of tables and columns as a workload file gives them: identifiers,
//! never SQL. A name is checked against [`PATTERN`] and the words the SQL
//! engines reserve, and engines quote every name they put in DDL (the
//! [`Quote`] of their dialect), so no name can end one statement and start
//! another, whatever slips past a check.

use std::fmt;

/// The names a file may give, as its documentation states them.
pub const PATTERN: &str =
    "a lowercase letter or '_', then lowercase letters, digits or '_', at most 63 characters";

/// The longest name: PostgreSQL's limit (MariaDB's is 64).
pub const MAX_LEN: usize = 63;

/// What is wrong with `name` as a table's or a column's name, or `None` when
/// it is one: it matches [`PATTERN`] and is no engine's reserved word.
///
/// Lowercase only, because PostgreSQL folds an unquoted name to lowercase:
/// a table created as `"Users"` would not be the `Users` of a statement.
pub fn problem(name: &str) -> Option<String> {
    let mut chars = name.chars();
    let Some(first) = chars.next() else {
        return Some("an empty name".into());
    };
    let starts_well = first.is_ascii_lowercase() || first == '_';
    let rest_well = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !starts_well || !rest_well || name.len() > MAX_LEN {
        return Some(format!("'{}' is not a name: {PATTERN}", printable(name)));
    }
    if is_reserved(name) {
        return Some(format!(
            "'{name}' is a reserved word of SQL (PostgreSQL, MariaDB or MySQL): choose another name"
        ));
    }
    None
}

/// Whether `word` (lowercase) is reserved by one of the SQL engines.
pub fn is_reserved(word: &str) -> bool {
    RESERVED.binary_search(&word).is_ok()
}

/// A name cut short and with control characters escaped, for a message.
fn printable(name: &str) -> String {
    let shown: String = name.chars().take(80).flat_map(char::escape_debug).collect();
    if name.chars().count() > 80 {
        format!("{shown}...")
    } else {
        shown
    }
}

/// How an engine's dialect quotes a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    /// `"name"`: standard SQL (PostgreSQL, SQLite).
    Double,
    /// `` `name` ``: MySQL and MariaDB.
    Backtick,
}

impl Quote {
    /// `name` quoted, its quote character doubled inside.
    pub fn name(self, name: &str) -> Quoted<'_> {
        Quoted { quote: self, name }
    }

    /// The names quoted and joined by ", ".
    pub fn list<'a>(self, names: impl IntoIterator<Item = &'a str>) -> String {
        let quoted: Vec<String> = names
            .into_iter()
            .map(|n| self.name(n).to_string())
            .collect();
        quoted.join(", ")
    }

    fn char(self) -> char {
        match self {
            Quote::Double => '"',
            Quote::Backtick => '`',
        }
    }
}

/// A name as its engine quotes it (formatted on display, not allocated).
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a> {
    quote: Quote,
    name: &'a str,
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let q = self.quote.char();
        write!(f, "{q}")?;
        for c in self.name.chars() {
            if c == q {
                write!(f, "{q}")?;
            }
            write!(f, "{c}")?;
        }
        write!(f, "{q}")
    }
}

/// Words reserved by PostgreSQL 15 (reserved, and reserved but usable as a
/// function or type), MariaDB 10.11 or MySQL 8.0, lowercase and sorted. A
/// name among them would need quoting in every statement the file writes,
/// each engine its own way; the file is told to choose another.
const RESERVED: &[&str] = &[
    "accessible",
    "add",
    "all",
    "alter",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asensitive",
    "asymmetric",
    "authorization",
    "before",
    "between",
    "bigint",
    "binary",
    "blob",
    "both",
    "by",
    "call",
    "cascade",
    "case",
    "cast",
    "change",
    "char",
    "character",
    "check",
    "collate",
    "collation",
    "column",
    "concurrently",
    "condition",
    "constraint",
    "continue",
    "convert",
    "create",
    "cross",
    "cube",
    "cume_dist",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "cursor",
    "database",
    "databases",
    "day_hour",
    "day_microsecond",
    "day_minute",
    "day_second",
    "dec",
    "decimal",
    "declare",
    "default",
    "deferrable",
    "delayed",
    "delete",
    "delete_domain_id",
    "dense_rank",
    "desc",
    "describe",
    "deterministic",
    "distinct",
    "distinctrow",
    "div",
    "do",
    "do_domain_ids",
    "double",
    "drop",
    "dual",
    "each",
    "else",
    "elseif",
    "empty",
    "enclosed",
    "end",
    "escaped",
    "except",
    "exists",
    "exit",
    "explain",
    "false",
    "fetch",
    "first_value",
    "float",
    "float4",
    "float8",
    "for",
    "force",
    "foreign",
    "freeze",
    "from",
    "full",
    "fulltext",
    "function",
    "general",
    "generated",
    "get",
    "grant",
    "group",
    "grouping",
    "groups",
    "having",
    "high_priority",
    "hour_microsecond",
    "hour_minute",
    "hour_second",
    "if",
    "ignore",
    "ignore_domain_ids",
    "ignore_server_ids",
    "ilike",
    "in",
    "index",
    "infile",
    "initially",
    "inner",
    "inout",
    "insensitive",
    "insert",
    "int",
    "int1",
    "int2",
    "int3",
    "int4",
    "int8",
    "integer",
    "intersect",
    "interval",
    "into",
    "io_after_gtids",
    "io_before_gtids",
    "is",
    "isnull",
    "iterate",
    "join",
    "json_table",
    "key",
    "keys",
    "kill",
    "lag",
    "last_value",
    "lateral",
    "lead",
    "leading",
    "leave",
    "left",
    "like",
    "limit",
    "linear",
    "lines",
    "load",
    "localtime",
    "localtimestamp",
    "lock",
    "long",
    "longblob",
    "longtext",
    "loop",
    "low_priority",
    "manual",
    "master_bind",
    "master_heartbeat_period",
    "master_ssl_verify_server_cert",
    "match",
    "maxvalue",
    "mediumblob",
    "mediumint",
    "mediumtext",
    "middleint",
    "minute_microsecond",
    "minute_second",
    "mod",
    "modifies",
    "natural",
    "no_write_to_binlog",
    "not",
    "notnull",
    "nth_value",
    "ntile",
    "null",
    "numeric",
    "of",
    "offset",
    "on",
    "only",
    "optimize",
    "optimizer_costs",
    "option",
    "optionally",
    "or",
    "order",
    "out",
    "outer",
    "outfile",
    "over",
    "overlaps",
    "page_checksum",
    "parallel",
    "parse_vcol_expr",
    "partition",
    "percent_rank",
    "placing",
    "position",
    "precision",
    "primary",
    "procedure",
    "purge",
    "qualify",
    "range",
    "rank",
    "read",
    "read_write",
    "reads",
    "real",
    "recursive",
    "ref_system_id",
    "references",
    "regexp",
    "release",
    "rename",
    "repeat",
    "replace",
    "require",
    "resignal",
    "restrict",
    "return",
    "returning",
    "revoke",
    "right",
    "rlike",
    "row",
    "row_number",
    "rows",
    "schema",
    "schemas",
    "second_microsecond",
    "select",
    "sensitive",
    "separator",
    "session_user",
    "set",
    "show",
    "signal",
    "similar",
    "slow",
    "smallint",
    "some",
    "spatial",
    "specific",
    "sql",
    "sql_big_result",
    "sql_calc_found_rows",
    "sql_small_result",
    "sqlexception",
    "sqlstate",
    "sqlwarning",
    "ssl",
    "starting",
    "stats_auto_recalc",
    "stats_persistent",
    "stats_sample_pages",
    "stored",
    "straight_join",
    "symmetric",
    "system",
    "system_user",
    "table",
    "tablesample",
    "terminated",
    "then",
    "tinyblob",
    "tinyint",
    "tinytext",
    "to",
    "trailing",
    "trigger",
    "true",
    "undo",
    "union",
    "unique",
    "unlock",
    "unsigned",
    "update",
    "usage",
    "use",
    "user",
    "using",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "values",
    "varbinary",
    "varchar",
    "varcharacter",
    "variadic",
    "varying",
    "verbose",
    "virtual",
    "when",
    "where",
    "while",
    "window",
    "with",
    "write",
    "xor",
    "year_month",
    "zerofill",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserved_words_are_sorted_for_the_binary_search() {
        assert!(RESERVED.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn plain_names_pass() {
        for name in ["usertable", "ycsb_key", "field9", "_private", "w_ytd"] {
            assert_eq!(problem(name), None, "{name}");
        }
        assert_eq!(problem(&"a".repeat(MAX_LEN)), None);
    }

    #[test]
    fn names_that_are_sql_are_refused_by_name() {
        let injection = "ht_x (a int); DROP TABLE ht_victim; CREATE TABLE ht_y";
        for (name, said) in [
            (
                injection,
                "'ht_x (a int); DROP TABLE ht_victim; CREATE TABLE ht_y' is not a name",
            ),
            ("s s", "'s s' is not a name"),
            ("", "an empty name"),
            ("a\"b", "'a\\\"b' is not a name"),
            ("Users", "'Users' is not a name"),
            ("9lives", "'9lives' is not a name"),
            ("order", "'order' is a reserved word"),
            ("key", "'key' is a reserved word"),
        ] {
            let problem = problem(name).expect(name);
            assert!(problem.starts_with(said), "{name}: {problem}");
        }
        assert!(problem(&"a".repeat(MAX_LEN + 1)).is_some());
    }

    #[test]
    fn quoting_doubles_the_quote_inside() {
        assert_eq!(Quote::Double.name("a\"b").to_string(), "\"a\"\"b\"");
        assert_eq!(Quote::Backtick.name("a`b").to_string(), "`a``b`");
        assert_eq!(Quote::Double.list(["a", "b"]), "\"a\", \"b\"");
    }
}
