//! MySQL's errors in txbench's kinds: conflicts the driver retries, lost
//! connections, and the rest.

use txbench_core::{DbError, ErrorKind};

pub(super) fn server_error_kind(code: u16) -> ErrorKind {
    match code {
        // Deadlock (and Galera's certification failure), lock wait timeout.
        1213 | 1205 => ErrorKind::Conflict,
        // Duplicate key, foreign key violations, NULL into NOT NULL.
        1062 | 1451 | 1452 | 1048 | 1586 => ErrorKind::Constraint,
        // Galera node not ready (WSREP), server gone / lost during a query,
        // connection killed, server shutdown, too many connections.
        1047 | 2006 | 2013 | 1927 | 1053 | 1040 => ErrorKind::Connection,
        // Refused credentials or database access: not a lost connection, so no
        // reconnecting and retrying, a plain failure.
        1045 | 1044 => ErrorKind::Other,
        // Data too long, out of range, bad value.
        1406 | 1264 | 1366 | 1292 => ErrorKind::Data,
        _ => ErrorKind::Other,
    }
}

pub(super) fn map_err(e: mysql_async::Error, context: &str) -> DbError {
    let (kind, message) = match &e {
        mysql_async::Error::Server(s) => (
            server_error_kind(s.code),
            format!("ERROR {} ({}): {}", s.code, s.state, s.message),
        ),
        mysql_async::Error::Io(_) | mysql_async::Error::Driver(_) => {
            (ErrorKind::Connection, e.to_string())
        }
        _ => (ErrorKind::Other, e.to_string()),
    };
    let error = DbError::new(kind, format!("{context}: {message}"));
    match &e {
        mysql_async::Error::Server(s) => error.with_code(format!("MySQL {}", s.code)),
        _ => error,
    }
}

/// What names a statement in an error: its words before the first
/// parenthesis (`CREATE TABLE \`usertable\``), not its columns, which a
/// wide table has by the thousand.
pub(super) fn statement_head(sql: &str) -> &str {
    sql.split_once('(').map_or(sql, |(head, _)| head).trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_is_named_by_its_head() {
        assert_eq!(
            statement_head("CREATE TABLE `t` (`a` INT, `b` INT) ENGINE = InnoDB"),
            "CREATE TABLE `t`"
        );
        assert_eq!(statement_head("COMMIT"), "COMMIT");
    }
}
