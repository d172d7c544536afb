//! A statement's key-value form (`kv = { op = ..., table = ... }`) checked
//! against the file's tables and the statement's own SQL: the form a
//! key-value store (Redis) runs instead of the SQL. Its values are the SQL's
//! `:name` parameters, so the two forms take the same drawn and read values.

use txbench_core::schema::ColumnType;

use super::check::{FileError, Locator, Statement, Table};
use super::model::KvDef;

/// A checked key-value form. Each value is an index into the statement's
/// placeholders (the first one of that name).
#[derive(Debug, Clone, PartialEq)]
pub enum KvForm {
    /// One row's `columns` by key.
    Read {
        /// The table.
        table: String,
        /// The key's placeholder.
        key: usize,
        /// The columns read, in the SQL's order.
        columns: Vec<String>,
    },
    /// Columns of one row set (an update), or a new row (an insert).
    Write {
        /// The table.
        table: String,
        /// The key's placeholder.
        key: usize,
        /// Each column set and its value's placeholder.
        set: Vec<(String, usize)>,
        /// Whether it adds the row.
        insert: bool,
    },
    /// Up to `count` rows in key order from `from`.
    Scan {
        /// The table.
        table: String,
        /// The first key's placeholder.
        from: usize,
        /// The row count's placeholder.
        count: usize,
        /// The columns read.
        columns: Vec<String>,
    },
}

impl KvForm {
    /// The table it reads or writes.
    pub fn table(&self) -> &str {
        match self {
            KvForm::Read { table, .. }
            | KvForm::Write { table, .. }
            | KvForm::Scan { table, .. } => table,
        }
    }
}

/// The key-value form `def` of `statement` (named in errors by `what`).
pub(super) fn check(
    at: &Locator<'_>,
    what: &str,
    def: &toml::Spanned<KvDef>,
    statement: &Statement,
    tables: &[Table],
) -> Result<KvForm, FileError> {
    let span = def.span();
    let def = def.get_ref();
    let err = |span: std::ops::Range<usize>, m: String| at.error(span, format!("{what}: kv {m}"));
    let name = def.table.get_ref();
    let table = tables.iter().find(|t| t.name == *name).ok_or_else(|| {
        err(
            def.table.span(),
            format!("table '{name}' is not a [[table]] of the file"),
        )
    })?;
    if table.primary_key.len() != 1 {
        return Err(err(
            def.table.span(),
            format!("table '{name}' needs a one-column primary key to be a key-value table"),
        ));
    }
    // A value is one of the statement's own parameters.
    let placeholder = |v: &toml::Spanned<String>| {
        let text = v.get_ref();
        let n = text.strip_prefix(':').unwrap_or(text);
        statement.args.iter().position(|a| a == n).ok_or_else(|| {
            err(
                v.span(),
                format!("value '{text}': write ':name' of a parameter the statement's sql uses"),
            )
        })
    };
    let needed = |v: &Option<toml::Spanned<String>>, key: &str| {
        v.as_ref()
            .ok_or_else(|| {
                err(
                    span.clone(),
                    format!("op \"{}\" needs {key}", def.op.get_ref()),
                )
            })
            .and_then(placeholder)
    };
    let column = |c: &str, s: std::ops::Range<usize>| {
        if table.columns.iter().any(|x| x.name == c) {
            Ok(c.to_string())
        } else {
            Err(err(
                s,
                format!("column '{c}' is not a column of table '{name}'"),
            ))
        }
    };
    let columns = || match &def.columns {
        None => Ok(table.columns.iter().map(|c| c.name.clone()).collect()),
        Some(cs) => cs.get_ref().iter().map(|c| column(c, cs.span())).collect(),
    };
    let op = def.op.get_ref().as_str();
    let reads = matches!(op, "read" | "scan");
    if matches!(op, "read" | "scan" | "update" | "insert") && reads != statement.query {
        return Err(err(
            def.op.span(),
            format!(
                "op \"{op}\" {} rows, and the sql {}",
                if reads { "reads" } else { "changes" },
                if statement.query {
                    "reads them"
                } else {
                    "changes them"
                }
            ),
        ));
    }
    let form = match op {
        "read" => KvForm::Read {
            table: name.clone(),
            key: needed(&def.key, "key")?,
            columns: columns()?,
        },
        "update" | "insert" => {
            let set = def
                .set
                .as_ref()
                .ok_or_else(|| err(span.clone(), format!("op \"{op}\" needs set")))?;
            let pk = &table.primary_key[0];
            let values = set
                .get_ref()
                .iter()
                .map(|(c, v)| {
                    if c == pk {
                        return Err(err(
                            set.span(),
                            format!("set names the key '{pk}': the key is key"),
                        ));
                    }
                    let v = toml::Spanned::new(set.span(), v.clone());
                    Ok((column(c, set.span())?, placeholder(&v)?))
                })
                .collect::<Result<Vec<_>, _>>()?;
            KvForm::Write {
                table: name.clone(),
                key: needed(&def.key, "key")?,
                set: values,
                insert: op == "insert",
            }
        }
        "scan" => {
            let key = &table.primary_key[0];
            let integer = table
                .columns
                .iter()
                .any(|c| c.name == *key && matches!(c.ty, ColumnType::Int | ColumnType::BigInt));
            if !integer {
                return Err(err(
                    def.op.span(),
                    format!("op \"scan\" walks integer keys, and '{name}.{key}' is not one"),
                ));
            }
            KvForm::Scan {
                table: name.clone(),
                from: needed(&def.from, "from")?,
                count: needed(&def.count, "count")?,
                columns: columns()?,
            }
        }
        other => {
            return Err(err(
                def.op.span(),
                format!("op \"{other}\" (read, update, insert or scan)"),
            ));
        }
    };
    if let KvForm::Read { columns, .. } | KvForm::Scan { columns, .. } = &form
        && columns.len() < statement.into.len()
    {
        return Err(err(
            span,
            format!(
                "reads {} columns, and into names {}",
                columns.len(),
                statement.into.len()
            ),
        ));
    }
    Ok(form)
}

#[cfg(test)]
mod tests {
    use super::super::check::parse;
    use super::*;

    /// A file of one table and a transaction of `statement` (a TOML inline
    /// table), on line 9.
    fn file(statement: &str) -> String {
        format!(
            r#"[workload]
name = "kv"
scale = "rows"
[[table]]
name = "t"
rows_per_scale = 10
primary_key = ["k"]
columns = [{{ name = "k", type = "bigint", gen = "sequence" }}, {{ name = "a", type = "int", gen = "uniform", min = 1, max = 9 }}, {{ name = "b", type = "varchar(10)", gen = "string", length = 10 }}]
[[transaction]]
name = "T"
weight = 100
params = [{{ name = "key", gen = "key", of = "t.k" }}, {{ name = "v", gen = "uniform", min = 1, max = 9 }}]
statements = [{statement}]
"#
        )
    }

    fn error(statement: &str) -> String {
        parse("kv.toml", &file(statement)).unwrap_err().to_string()
    }

    #[test]
    fn each_op_takes_the_statements_own_parameters() {
        let read = r#"{ sql = "SELECT b, a FROM t WHERE k = :key", kv = { op = "read", table = "t", key = ":key", columns = ["b", "a"] } }"#;
        let spec = parse("kv.toml", &file(read)).unwrap();
        assert_eq!(
            spec.transactions[0].statements[0].kv,
            Some(KvForm::Read {
                table: "t".into(),
                key: 0,
                columns: vec!["b".into(), "a".into()],
            })
        );
        assert!(spec.key_value());
        // The value's placeholder is the SQL's second.
        let update = r#"{ sql = "UPDATE t SET a = :v WHERE k = :key", kv = { op = "update", table = "t", key = ":key", set = { a = ":v" } } }"#;
        let spec = parse("kv.toml", &file(update)).unwrap();
        assert_eq!(
            spec.transactions[0].statements[0].kv,
            Some(KvForm::Write {
                table: "t".into(),
                key: 1,
                set: vec![("a".into(), 0)],
                insert: false,
            })
        );
        // Without a form the workload is not a key-value one.
        let plain = r#"{ sql = "SELECT a FROM t WHERE k = :key" }"#;
        assert!(!parse("kv.toml", &file(plain)).unwrap().key_value());
    }

    #[test]
    fn mistakes_are_refused_naming_the_line_and_the_key() {
        let cases = [
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "get", table = "t", key = ":key" } }"#,
                "op \"get\" (read, update, insert or scan)",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "read", table = "u", key = ":key" } }"#,
                "table 'u' is not a [[table]] of the file",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "read", table = "t", key = ":key", columns = ["z"] } }"#,
                "column 'z' is not a column of table 't'",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "read", table = "t", key = ":v" } }"#,
                "value ':v': write ':name' of a parameter the statement's sql uses",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "update", table = "t", key = ":key", set = { a = ":key" } } }"#,
                "op \"update\" changes rows, and the sql reads them",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "read", table = "t" } }"#,
                "op \"read\" needs key",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE b = :key", kv = { op = "scan", table = "t", from = ":key", count = ":key", columns = ["b"] } }"#,
                "",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "read", table = "t", key = ":key", colums = ["a"] } }"#,
                "unknown field `colums`",
            ),
        ];
        for (statement, expected) in cases {
            if expected.is_empty() {
                assert!(parse("kv.toml", &file(statement)).is_ok(), "{statement}");
                continue;
            }
            let e = error(statement);
            assert!(e.starts_with("kv.toml:13: "), "{e}");
            assert!(e.contains(expected), "{e} should say {expected}");
        }
    }
}
