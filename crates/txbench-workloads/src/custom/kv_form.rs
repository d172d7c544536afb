//! A statement's key-value form (`kv = { op = ..., table = ... }`) checked
//! against the file's tables and the statement's own SQL: the form a
//! key-value store (Redis) runs instead of the SQL. Its values are the SQL's
//! `:name` parameters, so the two forms take the same drawn and read values.

use txbench_core::schema::ColumnType;

use super::errors::{FileError, Locator};
use super::model::KvDef;
use super::spec::{KvForm, Statement, Table};

/// The key-value form `def` of `statement` (named in errors by `what`).
pub(super) fn check(
    at: &Locator<'_>,
    what: &str,
    def: &toml::Spanned<KvDef>,
    statement: &Statement,
    tables: &[Table],
) -> Result<KvForm, FileError> {
    let op = def.get_ref().op.get_ref();
    if op == "ping" {
        return ping(at, what, def, statement);
    }
    if !["read", "update", "insert", "scan"].contains(&op.as_str()) {
        let m = format!("{what}: kv op \"{op}\" (read, update, insert, scan or ping)");
        return Err(at.error(def.get_ref().op.span(), m));
    }
    let Some(named) = &def.get_ref().table else {
        let m = format!("{what}: kv op \"{op}\" needs table");
        return Err(at.error(def.span(), m));
    };
    let name = named.get_ref();
    let Some(table) = tables.iter().find(|t| t.name == *name) else {
        let m = format!("{what}: kv table '{name}' is not a [[table]] of the file");
        return Err(at.error(named.span(), m));
    };
    let form = FormCheck {
        at,
        what,
        span: def.span(),
        def: def.get_ref(),
        statement,
        table,
    };
    if table.primary_key.len() != 1 {
        return Err(form.err(
            named.span(),
            format!("table '{name}' needs a one-column primary key to be a key-value table"),
        ));
    }
    let op = form.def.op.get_ref().as_str();
    form.agrees_with_sql(op)?;
    let checked = match op {
        "read" => KvForm::Read {
            table: name.clone(),
            key: form.needed(&form.def.key, "key")?,
            columns: form.columns()?,
        },
        "update" | "insert" => form.write(op)?,
        // The one op left of those checked above.
        _ => form.scan()?,
    };
    form.reads_enough_for_into(&checked)?;
    Ok(checked)
}

/// A ping, in place of a query that answers one row and does nothing else
/// (NoOp's `SELECT 1`): a round trip and nothing more, so it takes nothing
/// but its op.
fn ping(
    at: &Locator<'_>,
    what: &str,
    def: &toml::Spanned<KvDef>,
    statement: &Statement,
) -> Result<KvForm, FileError> {
    let d = def.get_ref();
    let takes = [
        d.table.is_some(),
        d.key.is_some(),
        d.columns.is_some(),
        d.set.is_some(),
        d.from.is_some(),
        d.count.is_some(),
    ];
    let refusal = if takes.contains(&true) {
        "takes no table, key, columns, set, from or count".to_string()
    } else if !statement.query {
        "answers one row, and the sql changes rows".to_string()
    } else if statement.into.len() > 1 {
        format!(
            "answers one column, and into names {}",
            statement.into.len()
        )
    } else {
        return Ok(KvForm::Ping);
    };
    Err(at.error(def.span(), format!("{what}: kv op \"ping\" {refusal}")))
}

/// One statement's key-value form being checked, against its table and SQL.
struct FormCheck<'a> {
    at: &'a Locator<'a>,
    what: &'a str,
    span: std::ops::Range<usize>,
    def: &'a KvDef,
    statement: &'a Statement,
    table: &'a Table,
}

impl FormCheck<'_> {
    fn err(&self, span: std::ops::Range<usize>, m: String) -> FileError {
        self.at.error(span, format!("{}: kv {m}", self.what))
    }

    /// A value: one of the statement's own parameters.
    fn placeholder(&self, v: &toml::Spanned<String>) -> Result<usize, FileError> {
        let text = v.get_ref();
        let n = text.strip_prefix(':').unwrap_or(text);
        self.statement
            .args
            .iter()
            .position(|a| a == n)
            .ok_or_else(|| {
                self.err(
                    v.span(),
                    format!(
                        "value '{text}': write ':name' of a parameter the statement's sql uses"
                    ),
                )
            })
    }

    /// The value the op needs under `key`.
    fn needed(&self, v: &Option<toml::Spanned<String>>, key: &str) -> Result<usize, FileError> {
        let v = v.as_ref().ok_or_else(|| {
            self.err(
                self.span.clone(),
                format!("op \"{}\" needs {key}", self.def.op.get_ref()),
            )
        })?;
        self.placeholder(v)
    }

    fn column(&self, c: &str, span: std::ops::Range<usize>) -> Result<String, FileError> {
        if self.table.columns.iter().any(|x| x.name == c) {
            Ok(c.to_string())
        } else {
            let m = format!(
                "column '{c}' is not a column of table '{}'",
                self.table.name
            );
            Err(self.err(span, m))
        }
    }

    /// The columns read: those named, else all of the table's.
    fn columns(&self) -> Result<Vec<String>, FileError> {
        match &self.def.columns {
            None => Ok(self.table.columns.iter().map(|c| c.name.clone()).collect()),
            Some(cs) => cs
                .get_ref()
                .iter()
                .map(|c| self.column(c, cs.span()))
                .collect(),
        }
    }

    /// An op that reads goes with SQL that reads, one that writes with SQL
    /// that writes.
    fn agrees_with_sql(&self, op: &str) -> Result<(), FileError> {
        let reads = matches!(op, "read" | "scan");
        if !matches!(op, "read" | "scan" | "update" | "insert") || reads == self.statement.query {
            return Ok(());
        }
        Err(self.err(
            self.def.op.span(),
            format!(
                "op \"{op}\" {} rows, and the sql {}",
                if reads { "reads" } else { "changes" },
                if self.statement.query {
                    "reads them"
                } else {
                    "changes them"
                }
            ),
        ))
    }

    /// An update or an insert: each column set, the key not among them.
    fn write(&self, op: &str) -> Result<KvForm, FileError> {
        let set = self
            .def
            .set
            .as_ref()
            .ok_or_else(|| self.err(self.span.clone(), format!("op \"{op}\" needs set")))?;
        let pk = &self.table.primary_key[0];
        let values = set
            .get_ref()
            .iter()
            .map(|(c, v)| {
                if c == pk {
                    let m = format!("set names the key '{pk}': the key is key");
                    return Err(self.err(set.span(), m));
                }
                let v = toml::Spanned::new(set.span(), v.clone());
                Ok((self.column(c, set.span())?, self.placeholder(&v)?))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(KvForm::Write {
            table: self.table.name.clone(),
            key: self.needed(&self.def.key, "key")?,
            set: values,
            insert: op == "insert",
        })
    }

    /// A scan, which walks integer keys.
    fn scan(&self) -> Result<KvForm, FileError> {
        let (name, key) = (&self.table.name, &self.table.primary_key[0]);
        let integer = self
            .table
            .columns
            .iter()
            .any(|c| c.name == *key && matches!(c.ty, ColumnType::Int | ColumnType::BigInt));
        if !integer {
            return Err(self.err(
                self.def.op.span(),
                format!("op \"scan\" walks integer keys, and '{name}.{key}' is not one"),
            ));
        }
        Ok(KvForm::Scan {
            table: name.clone(),
            from: self.needed(&self.def.from, "from")?,
            count: self.needed(&self.def.count, "count")?,
            columns: self.columns()?,
        })
    }

    /// A read gives at least the columns the statement's `into` keeps.
    fn reads_enough_for_into(&self, form: &KvForm) -> Result<(), FileError> {
        if let KvForm::Read { columns, .. } | KvForm::Scan { columns, .. } = form
            && columns.len() < self.statement.into.len()
        {
            return Err(self.err(
                self.span.clone(),
                format!(
                    "reads {} columns, and into names {}",
                    columns.len(),
                    self.statement.into.len()
                ),
            ));
        }
        Ok(())
    }
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
        // A ping takes nothing but its op.
        let ping = r#"{ sql = "SELECT 1 AS one", kv = { op = "ping" } }"#;
        let spec = parse("kv.toml", &file(ping)).unwrap();
        assert_eq!(spec.transactions[0].statements[0].kv, Some(KvForm::Ping));
        assert!(spec.key_value());
        // Without a form the workload is not a key-value one.
        let plain = r#"{ sql = "SELECT a FROM t WHERE k = :key" }"#;
        assert!(!parse("kv.toml", &file(plain)).unwrap().key_value());
    }

    #[test]
    fn mistakes_are_refused_naming_the_line_and_the_key() {
        let cases = [
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "get", table = "t", key = ":key" } }"#,
                "op \"get\" (read, update, insert, scan or ping)",
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
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "read", key = ":key" } }"#,
                "op \"read\" needs table",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "get", key = ":key" } }"#,
                "op \"get\" (read, update, insert, scan or ping)",
            ),
            (
                r#"{ sql = "SELECT a FROM t WHERE k = :key", kv = { op = "ping", table = "t" } }"#,
                "op \"ping\" takes no table, key, columns, set, from or count",
            ),
            (
                r#"{ sql = "UPDATE t SET a = 1 WHERE k = :key", kv = { op = "ping" } }"#,
                "op \"ping\" answers one row, and the sql changes rows",
            ),
            (r#"{ sql = "SELECT 1", kv = { op = "ping" } }"#, ""),
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
