//! The key-value table in which a workload's load records its scale, seed and
//! constants (`txbench_meta` for TPC-C, `txbench_tatp_meta` for TATP,
//! `txbench_retwis_meta` for Retwis), read and written the same way for all.

use std::collections::BTreeMap;
use std::ops::Bound;

use txbench_core::engine::loader_of;
use txbench_core::schema::{Statement, Table};
use txbench_core::{DbError, ErrorKind, Loader, Param, Session, TxMode};

use crate::about::About;

/// The metadata tables of the built-in workloads, by workload. A workload
/// file's record is `txbench_<name>_meta` ([`file_record`]), so a file may
/// take none of these workloads' names: it would read and write their record.
pub const BUILT_IN_RECORDS: &[(&str, &str)] = &[
    ("tpcc", "txbench_meta"),
    ("ch", "txbench_ch_meta"),
    ("tatp", "txbench_tatp_meta"),
    ("retwis", "txbench_retwis_meta"),
];

/// The metadata table of the workload file named `name`.
pub fn file_record(name: &str) -> String {
    format!("txbench_{}_meta", name.replace('-', "_"))
}

/// The built-in workload whose record a file named `name` would share.
pub fn built_in_sharing(name: &str) -> Option<&'static str> {
    let record = file_record(name);
    BUILT_IN_RECORDS
        .iter()
        .find(|(_, table)| *table == record)
        .map(|(workload, _)| *workload)
}

/// Where a workload records its load, and how to tell data another tool loaded.
#[derive(Debug)]
pub struct MetaTable {
    /// The workload.
    pub about: &'static About,
    /// The metadata table.
    pub table: &'static Table,
    /// The workload's main data table: present without the metadata table, it
    /// is data another tool loaded (or a load interrupted before its record).
    pub data: &'static Table,
    /// `INSERT INTO <table> (m_key, m_value) VALUES (?, ?)`.
    pub insert: &'static Statement,
    /// `SELECT m_key, m_value FROM <table>`.
    pub select: &'static Statement,
    /// Counts the scale of data another tool loaded (`SELECT count(*) FROM
    /// warehouse`); `None` where such data is taken for an interrupted load.
    pub count: Option<&'static Statement>,
    /// Whether a run inserts into or deletes from the table `count` counts
    /// (sysbench's oltp_insert and oltp_delete): its rows then say nothing
    /// of whether another tool loaded over the record.
    pub count_varies: bool,
}

/// What is loaded in a database.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The scale (warehouses, subscribers, keys).
    pub scale: i64,
    /// The load's seed, when txbench loaded it.
    pub seed: Option<u64>,
    /// Whether the load finished (false: it was interrupted).
    pub complete: bool,
    /// Every entry recorded, for the workload's own (TPC-C's C-Load constants).
    pub entries: Entries,
}

/// The entries of a metadata table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entries {
    table: &'static str,
    map: BTreeMap<String, String>,
}

impl Entries {
    /// An integer entry; a value that is not one is a data error naming it.
    pub fn int(&self, key: &str) -> Result<Option<i64>, DbError> {
        self.map
            .get(key)
            .map(|v| {
                v.parse::<i64>().map_err(|_| {
                    DbError::new(
                        ErrorKind::Data,
                        format!("{}: bad value '{v}' for '{key}'", self.table),
                    )
                })
            })
            .transpose()
    }

    /// An entry's text.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.map.get(key).map(String::as_str)
    }

    /// Whether an entry is there.
    pub fn has(&self, key: &str) -> bool {
        self.map.contains_key(key)
    }

    /// The entries whose keys start with `prefix`, in key order.
    pub fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.map
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(move |(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

#[cfg(test)]
impl Entries {
    /// Entries as a record would hold them.
    pub(crate) fn of(pairs: impl IntoIterator<Item = (String, String)>) -> Entries {
        Entries {
            table: "a test's record",
            map: pairs.into_iter().collect(),
        }
    }
}

impl MetaTable {
    /// Record a finished load of `scale` from `seed`, with the workload's own
    /// entries, in one transaction. `complete` is written last: its presence
    /// says the load finished.
    pub async fn write<S: Session>(
        &self,
        session: &mut S,
        scale: i64,
        seed: u64,
        own: &[(&str, String)],
    ) -> Result<(), DbError> {
        let common = [
            ("workload", self.about.name.to_string()),
            (self.about.scale.unit, scale.to_string()),
            ("seed", seed.to_string()),
            ("txbench_version", env!("CARGO_PKG_VERSION").to_string()),
        ];
        let complete = [("complete", "1".to_string())];
        session.begin(TxMode::ReadWrite).await?;
        for (k, v) in common
            .iter()
            .map(|(k, v)| (*k, v))
            .chain(own.iter().map(|(k, v)| (*k, v)))
            .chain(complete.iter().map(|(k, v)| (*k, v)))
        {
            session
                .execute(self.insert, &[Param::Text(k), Param::Text(v)])
                .await?;
        }
        session.commit().await
    }

    /// Read what is loaded; `None` when nothing of the workload is there.
    pub async fn read<S: Session>(&self, session: &mut S) -> Result<Option<Loaded>, DbError> {
        let tables = loader_of(session)?;
        let has_meta = tables.table_exists(self.table.name).await?;
        let has_data = tables.table_exists(self.data.name).await?;
        if !has_meta && !has_data {
            return Ok(None);
        }
        if !has_meta {
            return self.loaded_elsewhere(session).await.map(Some);
        }
        let entries = self.entries(session).await?;
        Ok(Some(Loaded {
            scale: entries.int(self.about.scale.unit)?.unwrap_or(0),
            seed: entries.int("seed")?.map(|s| s as u64),
            complete: entries.has("complete"),
            entries,
        }))
    }

    /// Every entry of the metadata table (which must be there).
    pub async fn entries<S: Session>(&self, session: &mut S) -> Result<Entries, DbError> {
        let rows = session.query(self.select, &[]).await?;
        let map = rows
            .iter()
            .filter_map(|r| {
                Some((
                    r.get(0)?.as_str()?.to_string(),
                    r.get(1)?.as_str()?.to_string(),
                ))
            })
            .collect();
        Ok(Entries {
            table: self.table.name,
            map,
        })
    }

    /// The rows `count` counts.
    pub async fn counted<S: Session>(
        session: &mut S,
        count: &'static Statement,
    ) -> Result<i64, DbError> {
        let rows = session.query(count, &[]).await?;
        Ok(rows.row(0).and_then(|r| r.get(0)?.as_i64()).unwrap_or(0))
    }

    /// Data without txbench's record: loaded by another tool (its scale is
    /// what the main table holds), or, where that cannot be told, a load
    /// interrupted before its record was made.
    async fn loaded_elsewhere<S: Session>(&self, session: &mut S) -> Result<Loaded, DbError> {
        let scale = match self.count {
            Some(count) => Self::counted(session, count).await?,
            None => 0,
        };
        Ok(Loaded {
            scale,
            seed: None,
            complete: scale > 0,
            entries: Entries::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmark::Benchmark;

    #[test]
    fn the_built_in_records_are_the_built_in_workloads_own() {
        let records = [
            (crate::tpcc::Tpcc::ABOUT.name, crate::tpcc::Tpcc::meta()),
            (crate::ch::Ch::ABOUT.name, crate::ch::Ch::meta()),
            (crate::tatp::Tatp::ABOUT.name, crate::tatp::Tatp::meta()),
            (
                crate::retwis::Retwis::ABOUT.name,
                crate::retwis::Retwis::meta(),
            ),
        ];
        for (name, meta) in records {
            assert!(
                BUILT_IN_RECORDS.contains(&(name, meta.table.name)),
                "{name} records its loads in {}, which BUILT_IN_RECORDS lacks",
                meta.table.name
            );
        }
        assert_eq!(BUILT_IN_RECORDS.len(), 4);
    }

    #[test]
    fn a_file_named_like_a_built_in_would_share_its_record_and_no_other_does() {
        for (name, table) in BUILT_IN_RECORDS.iter().filter(|(n, _)| *n != "tpcc") {
            assert_eq!(file_record(name), *table);
            assert_eq!(built_in_sharing(name), Some(*name));
        }
        for name in ["tpcc", "ycsb", "pgbench", "tatp-2", "smallbank", "meta"] {
            assert_eq!(built_in_sharing(name), None, "{name}");
        }
    }
}
