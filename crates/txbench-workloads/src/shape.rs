//! A run's tables as the database declares them, checked against the
//! workload's before the run: a `pgbench_accounts` whose `aid` is text ran
//! at 0 tps with 26,000 binding errors, and a `pgbench_history` with an
//! extra NOT NULL column failed every insert, both with exit 0.

use txbench_core::engine::loader_of;
use txbench_core::schema::{ColumnType, DeclaredColumn, Table};
use txbench_core::{Execution, Loader, Session};

use crate::error::WorkloadError;
use crate::meta_table::MetaTable;

/// What a declared type holds, as far as binding a value to it goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Integer,
    Number,
    Text,
    Time,
    /// A type this check does not know: taken as it is.
    Other,
}

/// The family of a type as PostgreSQL, MySQL or SQLite names it, in any
/// case (SQLite's rules of affinity: a name with `int` is an integer, with
/// `char`, `clob` or `text` text).
fn declared_family(type_name: &str) -> Family {
    let t = type_name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if has(&["int"]) {
        Family::Integer
    } else if has(&["char", "clob", "text"]) {
        Family::Text
    } else if has(&["numeric", "decimal", "real", "double", "float"]) {
        Family::Number
    } else if has(&["timestamp", "datetime", "date", "time"]) {
        Family::Time
    } else {
        Family::Other
    }
}

/// The families a workload's column may be declared as.
fn fits(ty: ColumnType, declared: Family) -> bool {
    match (ty, declared) {
        (_, Family::Other) => true,
        (ColumnType::Int | ColumnType::BigInt, family) => family == Family::Integer,
        (ColumnType::Decimal(..), family) => matches!(family, Family::Number | Family::Integer),
        (ColumnType::Char(_) | ColumnType::Varchar(_) | ColumnType::Text, family) => {
            family == Family::Text
        }
        // SQLite keeps a time as an integer (txbench's own loads) or text.
        (ColumnType::Timestamp, family) => {
            matches!(family, Family::Time | Family::Text | Family::Integer)
        }
    }
}

/// What is wrong with `declared` as the workload's `table`, if anything.
fn problem(table: &Table, declared: &[DeclaredColumn]) -> Option<String> {
    for column in table.columns {
        let Some(found) = declared
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(column.name))
        else {
            return Some(format!("has no column {}", column.name));
        };
        if !fits(column.ty, declared_family(&found.type_name)) {
            return Some(format!(
                "declares {} as {}, where the workload writes {:?}",
                column.name, found.type_name, column.ty
            ));
        }
    }
    let extra = (declared.iter()).filter(|d| d.required).find(|d| {
        !table
            .columns
            .iter()
            .any(|c| d.name.eq_ignore_ascii_case(c.name))
    })?;
    Some(format!(
        "has a column {} that must be given a value (NOT NULL, no default), which the workload does not write",
        extra.name
    ))
}

/// Check each of `tables` the database holds against the
/// workload's, refusing the first that cannot run it, named with what is
/// wrong. Engines that declare no columns (key-value stores) hold only
/// txbench's own tables, and are not checked.
pub async fn check<S: Session>(
    session: &mut S,
    meta: &'static MetaTable,
    tables: &[&'static Table],
) -> Result<(), WorkloadError> {
    if session.execution() != Execution::Statements {
        return Ok(());
    }
    for table in tables {
        let Some(declared) = loader_of(session)?.columns(table.name).await? else {
            return Ok(());
        };
        // A table not there (a partitioned load's parts) is the load's to say.
        if declared.is_empty() {
            continue;
        }
        if let Some(problem) = problem(table, &declared) {
            // Only a table txbench's record owns is a `--drop`'s to
            // replace; another's stays until its owner drops it.
            let ours = crate::ownership::owns(session, meta, table.name).await?;
            return Err(WorkloadError::Shape {
                about: meta.about,
                table: table.name,
                problem,
                ours,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::schema::Column;

    fn declared(name: &str, type_name: &str, required: bool) -> DeclaredColumn {
        DeclaredColumn {
            name: name.into(),
            type_name: type_name.into(),
            required,
        }
    }

    static ACCOUNTS: Table = Table {
        name: "pgbench_accounts",
        columns: &[
            Column::new("aid", ColumnType::Int),
            Column::new("filler", ColumnType::Char(84)),
        ],
        primary_key: &["aid"],
    };

    #[test]
    fn each_engines_names_of_a_fitting_table_pass() {
        for (int, text) in [
            ("integer", "character"),
            ("int(11)", "char(84)"),
            ("INTEGER", "CHAR(84)"),
            ("bigint", "character varying"),
        ] {
            let d = [declared("aid", int, true), declared("filler", text, false)];
            assert_eq!(problem(&ACCOUNTS, &d), None, "{int} {text}");
        }
    }

    #[test]
    fn a_text_key_a_missing_column_and_an_extra_required_one_are_named() {
        let text_key = [
            declared("aid", "text", true),
            declared("filler", "char(84)", false),
        ];
        assert!(
            problem(&ACCOUNTS, &text_key)
                .unwrap()
                .contains("declares aid as text")
        );
        let missing = [declared("aid", "integer", true)];
        assert_eq!(
            problem(&ACCOUNTS, &missing).unwrap(),
            "has no column filler"
        );
        let extra = [
            declared("aid", "integer", true),
            declared("filler", "char(84)", false),
            declared("note", "text", true),
        ];
        assert!(
            problem(&ACCOUNTS, &extra)
                .unwrap()
                .contains("column note that must be given")
        );
        let optional = [
            declared("aid", "integer", true),
            declared("filler", "char(84)", false),
            declared("note", "text", false),
        ];
        assert_eq!(problem(&ACCOUNTS, &optional), None);
    }
}
