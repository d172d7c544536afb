//! Which of a workload's tables are txbench's to drop: the ones its load
//! recorded as created, in the workload's metadata table, as it created
//! them. A table of the same name that a user (or another tool) made is
//! never dropped, and a load refuses to start over it, naming it.
//!
//! The metadata table itself is txbench's by its name: `txbench_` starts
//! it, and a workload file may give no table such a name. A load by an
//! older txbench, which recorded no tables, owned every table of its schema
//! once it completed; an unfinished one is taken as owning none. Loads
//! since mark each table they make ([`txbench_core::schema::TABLE_MARK`]),
//! so a table another tool made again under a recorded name is not taken
//! for txbench's.

use txbench_core::engine::loader_of;
use txbench_core::schema::Schema;
use txbench_core::{DbError, Loader, Param, Session, TxMode, identifier};

use crate::meta_table::{Entries, MetaTable};

/// The prefix of the metadata keys under which a load records the tables
/// it created, one key per table: `created_0`, `created_1`, ... (the value
/// is the table's name, which would not fit in a key).
const CREATED: &str = "created_";

/// A schema's tables as a database holds them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Survey {
    /// Whether the metadata table is there.
    pub meta: bool,
    /// Tables there that txbench's load recorded as created, in creation
    /// order: the record decides, whatever schema the flags or the file
    /// describe now (a load of `--tables 3` owns sbtest1..3 whatever a
    /// later `clean` is told).
    pub ours: Vec<String>,
    /// Tables the record names that another tool made again since (they
    /// lack [`txbench_core::schema::TABLE_MARK`], which the load gave the
    /// table it recorded): never dropped, and the record no longer
    /// describes their data.
    pub replaced: Vec<String>,
    /// The schema's data tables there that it did not create: never dropped
    /// or loaded over.
    pub foreign: Vec<&'static str>,
}

impl Survey {
    /// The tables there a clean leaves: the schema's that txbench did not
    /// create, and those the record names that another tool made again.
    pub fn left(&self) -> Vec<&str> {
        let mut left: Vec<&str> = self.foreign.to_vec();
        for name in &self.replaced {
            if !left.contains(&name.as_str()) {
                left.push(name);
            }
        }
        left
    }
}

/// Which of `schema`'s data tables the database holds, which tables the
/// load's record says txbench created, and whose each one is.
pub async fn survey<S: Session>(
    session: &mut S,
    meta: &MetaTable,
    schema: &Schema,
) -> Result<Survey, DbError> {
    let record = record_of(session, meta).await?;
    let has_meta = record.is_some();
    let data = (schema.tables.iter())
        .filter(|t| t.name != meta.table.name)
        .map(|t| t.name);
    let recorded = named(&record.unwrap_or_default(), data);
    let (ours, replaced) = sort_recorded(loader_of(session)?, meta, recorded).await?;
    let tables = loader_of(session)?;
    let mut foreign = Vec::new();
    for table in schema.tables.iter().filter(|t| t.name != meta.table.name) {
        if !ours.iter().any(|o| o == table.name) && tables.table_exists(table.name).await? {
            foreign.push(table.name);
        }
    }
    Ok(Survey {
        meta: has_meta,
        ours,
        replaced,
        foreign,
    })
}

/// The recorded tables that are there, split into txbench's and those
/// another tool made again since under their names: a load that marks its
/// tables (its metadata table has the mark) marked each, so one without
/// the mark is not the table it recorded.
async fn sort_recorded<L: Loader + ?Sized>(
    tables: &mut L,
    meta: &MetaTable,
    recorded: Vec<String>,
) -> Result<(Vec<String>, Vec<String>), DbError> {
    if recorded.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let marks = tables.marked(meta.table.name).await? == Some(true);
    let (mut ours, mut replaced) = (Vec::new(), Vec::new());
    for name in recorded {
        // A name the record holds that is no identifier was not written by
        // txbench: never act on it.
        if identifier::problem(&name).is_some() || !tables.table_exists(&name).await? {
            continue;
        }
        if marks && tables.marked(&name).await? == Some(false) {
            replaced.push(name);
        } else {
            ours.push(name);
        }
    }
    Ok((ours, replaced))
}

/// The first table the record names that another tool made again since
/// txbench's load, if any: its data is not what the record describes.
pub async fn first_replaced<S: Session>(
    session: &mut S,
    meta: &MetaTable,
    record: &Entries,
) -> Result<Option<String>, DbError> {
    let recorded: Vec<String> = created(record).map(str::to_string).collect();
    let (_, replaced) = sort_recorded(loader_of(session)?, meta, recorded).await?;
    Ok(replaced.into_iter().next())
}

/// Whether the record names `table` as txbench's (a load's `--drop`
/// replaces it): recorded as created, and not made again since.
pub async fn owns<S: Session>(
    session: &mut S,
    meta: &MetaTable,
    table: &str,
) -> Result<bool, DbError> {
    let Some(record) = record_of(session, meta).await? else {
        return Ok(false);
    };
    let recorded: Vec<String> = (named(&record, [table]).into_iter())
        .filter(|name| name == table)
        .collect();
    let (ours, _) = sort_recorded(loader_of(session)?, meta, recorded).await?;
    Ok(!ours.is_empty())
}

/// The load's record, `None` without a metadata table.
async fn record_of<S: Session>(
    session: &mut S,
    meta: &MetaTable,
) -> Result<Option<Entries>, DbError> {
    if !loader_of(session)?.table_exists(meta.table.name).await? {
        return Ok(None);
    }
    meta.entries(session).await.map(Some)
}

/// The tables `record` names as txbench's: those it recorded as created,
/// or, where an older txbench recorded none, every one of `data` once its
/// load completed.
fn named<'a>(record: &Entries, data: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let recorded: Vec<String> = created(record).map(str::to_string).collect();
    if recorded.is_empty() && record.has("complete") {
        return data.into_iter().map(str::to_string).collect();
    }
    recorded
}

/// The tables a load recorded as created, in the order it created them
/// (`created_10` after `created_9`, which the keys' text order would not give).
fn created(entries: &Entries) -> impl Iterator<Item = &str> {
    let mut created: Vec<(u64, &str)> = (entries.with_prefix(CREATED))
        .map(|(k, v)| (k[CREATED.len()..].parse().unwrap_or(u64::MAX), v))
        .collect();
    created.sort_by_key(|(index, _)| *index);
    created.into_iter().map(|(_, name)| name)
}

/// Record that the load created `table`, the `index`th of its schema, in a
/// transaction of its own: from its commit on, the table is txbench's to drop.
pub async fn record_created<S: Session>(
    session: &mut S,
    meta: &MetaTable,
    index: usize,
    table: &str,
) -> Result<(), DbError> {
    let key = format!("{CREATED}{index}");
    session.begin(TxMode::ReadWrite).await?;
    session
        .execute(meta.insert, &[Param::Text(&key), Param::Text(table)])
        .await?;
    session.commit().await
}

/// Drop the tables the record says txbench created, last created first, then
/// the metadata table, so that a drop interrupted at any point leaves a
/// database whose record still names what is left. Tables txbench did not
/// create stay; the survey says which.
pub async fn drop_ours<S: Session>(
    session: &mut S,
    meta: &MetaTable,
    schema: &Schema,
) -> Result<Survey, DbError> {
    let found = survey(session, meta, schema).await?;
    let tables = loader_of(session)?;
    for name in found.ours.iter().rev() {
        tables.drop_table(name).await?;
    }
    if found.meta {
        tables.drop_table(meta.table.name).await?;
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::benchmark::Benchmark;

    /// A recorded name that is no identifier is never dropped: every
    /// built-in table must be one, or a clean would leave it behind.
    #[test]
    fn every_built_in_table_is_a_name_a_clean_acts_on() {
        let schemas = [
            crate::tpcc::Tpcc::schema(),
            crate::ch::Ch::schema(),
            crate::tatp::Tatp::schema(),
            crate::retwis::Retwis::schema(),
        ];
        for table in schemas.iter().flat_map(|s| s.tables) {
            assert_eq!(identifier::problem(table.name), None, "{}", table.name);
        }
    }

    #[test]
    fn recorded_tables_come_in_the_order_they_were_created() {
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"];
        let entries = Entries::of(
            (names.iter().enumerate()).map(|(i, n)| (format!("{CREATED}{i}"), n.to_string())),
        );
        let order: String = created(&entries).collect();
        assert_eq!(order, "abcdefghijkl");
    }
}
