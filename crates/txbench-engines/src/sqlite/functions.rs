//! SQL functions PostgreSQL and MariaDB have and SQLite lacks, defined on
//! each connection, so that a workload file's statement means the same on
//! every engine: `md5(text)`, the hash as 32 lowercase hex digits
//! (BenchBase's ResourceStresser makes the server hash a password five times
//! over), and `ascii(text)`, the code of its first character (the
//! CH-benCHmark finds a customer's nation by the first character of the
//! state).

use md5::{Digest, Md5};
use rusqlite::Connection;
use rusqlite::functions::FunctionFlags;
use txbench_core::{DbError, ErrorKind};

/// Define the functions on `conn`.
pub(super) fn define(conn: &Connection) -> Result<(), DbError> {
    let flags = FunctionFlags::SQLITE_UTF8
        | FunctionFlags::SQLITE_DETERMINISTIC
        | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("md5", 1, flags, |ctx| {
        // NULL in, NULL out, as on the servers.
        let text: Option<String> = ctx.get(0)?;
        Ok(text.map(|t| hex(&Md5::digest(t.as_bytes()))))
    })
    .map_err(|e| DbError::new(ErrorKind::Other, format!("defining md5(): {e}")))?;
    conn.create_scalar_function("ascii", 1, flags, |ctx| {
        // The servers' answer: NULL for NULL, 0 for the empty string.
        let text: Option<String> = ctx.get(0)?;
        Ok(text.map(|t| t.chars().next().map_or(0, u32::from)))
    })
    .map_err(|e| DbError::new(ErrorKind::Other, format!("defining ascii(): {e}")))
}

/// `bytes` as lowercase hex digits (md-5 0.11's digest formats no hex, and
/// no hex crate is in the tree for these five lines).
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_is_the_servers_hex_digest() {
        let conn = Connection::open_in_memory().unwrap();
        define(&conn).unwrap();
        let hash: String = conn
            .query_row("SELECT md5(concat('pass', 'wd'))", [], |r| r.get(0))
            .unwrap();
        // PostgreSQL's and MariaDB's SELECT md5('passwd').
        assert_eq!(hash, "76a2173be6393254e72ffa4d6df1030a");
        let null: Option<String> = conn
            .query_row("SELECT md5(NULL)", [], |r| r.get(0))
            .unwrap();
        assert_eq!(null, None);
    }

    #[test]
    fn ascii_is_the_code_of_the_first_character_as_on_the_servers() {
        let conn = Connection::open_in_memory().unwrap();
        define(&conn).unwrap();
        let codes: (i64, i64, i64, Option<i64>) = conn
            .query_row(
                "SELECT ascii('a9'), ascii(substr('Zq', 1, 1)), ascii(''), ascii(NULL)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(codes, (97, 90, 0, None));
    }
}
