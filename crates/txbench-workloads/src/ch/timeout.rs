//! `--query-timeout`: the server stops a query that runs too long, inside
//! the query's transaction only, so that the TPC-C transactions that later
//! take the same session run unlimited: PostgreSQL's `SET LOCAL
//! statement_timeout` in the transaction. Refused elsewhere: SQLite has no
//! time limit a statement can carry; MySQL's is an optimizer hint placed in
//! the SELECT, which Q15's common table expression leaves no one place for;
//! and MariaDB 10.11.19's server died (signal 11 in
//! `st_join_table::choose_best_splitting`, status KILL_TIMEOUT) when
//! `SET STATEMENT max_statement_time = 0.001 FOR` stopped Q17 while it was
//! being optimized, taking every other test's database with it.

use std::time::Duration;

use txbench_core::schema::Statement;

use super::queries::Dialect;
use crate::error::WorkloadError;

/// The statement each query's transaction runs before the query to hold it
/// to `limit` on the server of `dialect` (whose version string is
/// `version`); the limit refused, naming the server, where it has no safe way
/// to hold one query to it.
pub fn limit_statement(
    dialect: Dialect,
    version: &str,
    limit: Duration,
) -> Result<&'static Statement, WorkloadError> {
    match dialect {
        Dialect::Postgres => Ok(leak(Statement::new(
            "query timeout",
            leak_text(format!(
                "SET LOCAL statement_timeout = {}",
                limit.as_millis().max(1)
            )),
        ))),
        _ => Err(WorkloadError::BadOption(format!(
            "--query-timeout: {version} has no time limit txbench can set on one query \
             safely (PostgreSQL has; MariaDB's crashed the server); run without it"
        ))),
    }
}

/// Kept for the process: statements are `'static`, and a run makes these
/// once, as it opens.
fn leak(statement: Statement) -> &'static Statement {
    Box::leak(Box::new(statement))
}

fn leak_text(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_holds_a_query_to_the_limit_in_its_own_words_or_refuses_it() {
        let pg = limit_statement(
            Dialect::Postgres,
            "PostgreSQL 15.19",
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(pg.sql, "SET LOCAL statement_timeout = 30000");
        for (dialect, version) in [
            (Dialect::Sqlite, "SQLite 3.45 (embedded)"),
            (Dialect::MySql, "8.0.36"),
            (Dialect::MySql, "10.11.19-MariaDB-0+deb12u1"),
        ] {
            let refused = limit_statement(dialect, version, Duration::from_secs(1)).unwrap_err();
            assert!(refused.to_string().contains(version), "{refused}");
        }
    }
}
