//! Creating and loading tables on MySQL: primary keys with the table, rows
//! streamed with `LOAD DATA LOCAL INFILE` (or, where the server refuses it,
//! multi-row INSERTs of up to [`MAX_PLACEHOLDERS`] values), checks off.

use std::sync::atomic::Ordering;

use mysql_async::Params;
use mysql_async::prelude::Queryable;
use txbench_core::schema::{DeclaredColumn, ForeignKey, Index, TABLE_MARK, Table};
use txbench_core::value::RowBatch;
use txbench_core::{DbError, ErrorKind, Loader, Value};

use super::MySession;
use super::errors::map_err;
use super::load_data;
use super::types::{QUOTE, ddl_type, my_value};

/// Most placeholders in one statement (the protocol's limit is 65,535).
pub const MAX_PLACEHOLDERS: usize = 60_000;

impl Loader for MySession {
    async fn create_table(&mut self, table: &Table) -> Result<(), DbError> {
        let mut columns = table.column_definitions(QUOTE, ddl_type);
        if !table.primary_key.is_empty() {
            columns += &format!(", PRIMARY KEY ({})", table.primary_key_list(QUOTE));
        }
        self.run(&format!(
            "CREATE TABLE {} ({columns}) ENGINE = InnoDB COMMENT = '{TABLE_MARK}'",
            QUOTE.name(table.name)
        ))
        .await
    }

    async fn add_foreign_key(&mut self, key: &ForeignKey) -> Result<(), DbError> {
        self.run(&key.add_sql(QUOTE)).await
    }

    async fn create_index(&mut self, index: &Index) -> Result<(), DbError> {
        self.run(&index.create_sql(QUOTE)).await
    }

    /// Fresh statistics. InnoDB recomputes them in the background once a
    /// tenth of a table changed, at a moment of its choosing: a run started
    /// just after a load found `district` and `stock` still counted empty,
    /// planned full scans that locked every row, and ran 30 times slower
    /// (Payments of 600 ms instead of 15 ms with 16 terminals).
    async fn analyze(&mut self, table: &Table) -> Result<(), DbError> {
        let sql = format!("ANALYZE TABLE {}", QUOTE.name(table.name));
        // The server reports a failure as a row, not as an error.
        let said: Vec<(String, String, String, String)> =
            self.conn.query(&sql).await.map_err(|e| map_err(e, &sql))?;
        match said
            .iter()
            .find(|(_, _, kind, _)| kind.eq_ignore_ascii_case("error"))
        {
            Some((_, _, _, message)) => {
                Err(DbError::new(ErrorKind::Other, format!("{sql}: {message}")))
            }
            None => Ok(()),
        }
    }

    async fn drop_table(&mut self, name: &str) -> Result<(), DbError> {
        // Other tables' foreign keys must not stop the drop.
        self.run("SET foreign_key_checks = 0").await?;
        let dropped = self
            .run(&format!("DROP TABLE IF EXISTS {}", QUOTE.name(name)))
            .await;
        self.run("SET foreign_key_checks = 1").await?;
        dropped
    }

    async fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        self.sent = true;
        let n: Option<i64> = self
            .conn
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.tables \
                 WHERE table_schema = DATABASE() AND table_name = ?",
                (name,),
            )
            .await
            .map_err(|e| map_err(e, "table_exists"))?;
        self.end_implicit().await?;
        Ok(n.unwrap_or(0) > 0)
    }

    async fn marked(&mut self, table: &str) -> Result<Option<bool>, DbError> {
        self.sent = true;
        let comment: Option<String> = self
            .conn
            .exec_first(
                "SELECT CAST(table_comment AS CHAR) FROM information_schema.tables \
                 WHERE table_schema = DATABASE() AND table_name = ?",
                (table,),
            )
            .await
            .map_err(|e| map_err(e, "marked"))?;
        self.end_implicit().await?;
        Ok(Some(comment.as_deref() == Some(TABLE_MARK)))
    }

    async fn columns(&mut self, table: &str) -> Result<Option<Vec<DeclaredColumn>>, DbError> {
        self.sent = true;
        let rows: Vec<(String, String, i64)> = self
            .conn
            .exec(
                "SELECT CAST(column_name AS CHAR), CAST(column_type AS CHAR), \
                 is_nullable = 'NO' AND column_default IS NULL \
                 AND extra NOT LIKE '%auto_increment%' AND extra NOT LIKE '%GENERATED%' \
                 FROM information_schema.columns \
                 WHERE table_schema = DATABASE() AND table_name = ?",
                (table,),
            )
            .await
            .map_err(|e| map_err(e, "columns"))?;
        self.end_implicit().await?;
        Ok(Some(
            (rows.into_iter())
                .map(|(name, ty, required)| DeclaredColumn {
                    name,
                    type_name: ty,
                    required: required != 0,
                })
                .collect(),
        ))
    }

    async fn insert_batch(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        if !self.shared.local_infile_refused.load(Ordering::Relaxed) {
            self.sent = true;
            // The stream is made when the server asks for the file: the
            // future that makes it only holds the encoded batch.
            let data = load_data::encode(batch);
            self.conn
                .set_infile_handler(async move { Ok(load_data::infile(data)) });
            match self.conn.query_drop(load_data::statement(table)).await {
                Ok(()) => {
                    self.refuse_warnings(table).await?;
                    return self.end_implicit().await;
                }
                Err(mysql_async::Error::Server(e)) if LOCAL_INFILE_REFUSED.contains(&e.code) => {
                    self.shared
                        .local_infile_refused
                        .store(true, Ordering::Relaxed);
                }
                Err(e) => return Err(map_err(e, table.name)),
            }
        }
        self.insert_rows(table, batch).await
    }

    async fn begin_bulk_load(&mut self) -> Result<(), DbError> {
        self.run("SET unique_checks = 0, foreign_key_checks = 0")
            .await
    }

    async fn end_bulk_load(&mut self) -> Result<(), DbError> {
        self.run("SET unique_checks = 1, foreign_key_checks = 1")
            .await
    }

    /// On Galera, a transaction is one write set that every node certifies
    /// and applies whole: a load's 250,000-row transactions held the cluster's
    /// commit order for tens of seconds while the other nodes applied them,
    /// and a run started just after the load stalled behind them.
    fn most_rows_per_commit(&self) -> Option<u64> {
        self.on_galera.then_some(GALERA_ROWS_PER_COMMIT)
    }
}

/// Rows per load transaction on Galera: a few MB of write set.
const GALERA_ROWS_PER_COMMIT: u64 = 10_000;

/// What servers answer to `LOAD DATA LOCAL` when `local_infile` is off:
/// MariaDB's "not allowed with this MariaDB version" (1148) and MySQL 8's
/// "loading local data is disabled" (3948).
const LOCAL_INFILE_REFUSED: [u16; 2] = [1148, 3948];

impl MySession {
    /// A load that warned changed a value: `LOAD DATA LOCAL` turns every
    /// error into a warning (the server cannot stop the client's stream), so
    /// text loaded into a number became 0, a number too large was clamped, a
    /// long string was cut. The load stops with the server's first warning;
    /// nothing is ever loaded other than as written.
    async fn refuse_warnings(&mut self, table: &Table) -> Result<(), DbError> {
        let count = self.conn.get_warnings();
        if count == 0 {
            return Ok(());
        }
        let first: Option<(String, u32, String)> = self
            .conn
            .query_first("SHOW WARNINGS LIMIT 1")
            .await
            .map_err(|e| map_err(e, table.name))?;
        let said = first.map_or_else(String::new, |(_, code, message)| {
            format!(": {message} ({code})")
        });
        Err(DbError::new(
            ErrorKind::Data,
            format!(
                "{}: the server changed {count} value(s) as it loaded them{said}; \
                 a load writes exactly what it generates, so it stopped",
                table.name
            ),
        ))
    }

    /// Multi-row INSERTs, for servers that refuse `LOAD DATA LOCAL`.
    async fn insert_rows(&mut self, table: &Table, batch: &RowBatch) -> Result<(), DbError> {
        let cols = table.columns.len();
        let per_statement = (MAX_PLACEHOLDERS / cols).max(1);
        let row_marks = format!("({})", vec!["?"; cols].join(","));
        let rows: Vec<&[Value]> = batch.rows().collect();
        for chunk in rows.chunks(per_statement) {
            let sql = format!(
                "INSERT INTO {} ({}) VALUES {}",
                QUOTE.name(table.name),
                table.column_list(QUOTE),
                vec![row_marks.as_str(); chunk.len()].join(",")
            );
            let values: Vec<mysql_async::Value> = chunk
                .iter()
                .flat_map(|row| row.iter().map(|v| my_value(&v.as_param())))
                .collect();
            // Prepared through the driver's cache: every full chunk reuses one.
            self.conn
                .exec_drop(sql, Params::Positional(values))
                .await
                .map_err(|e| map_err(e, table.name))?;
            self.refuse_warnings(table).await?;
        }
        self.sent = true;
        self.end_implicit().await
    }
}
