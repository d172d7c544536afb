//! Finding a subscriber by `sub_nbr` before its transaction, and statements
//! sent to every partition at once: the same mechanism in both of TATP's
//! forms (SQL statements, or scripts on a sharded key-value store), the
//! statements taken from the form the run's [`Access`] holds.

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, Param, Reply, Session, TxMode};

use super::key_access::{Access, KeyAccess};
use crate::fields::int;

/// `s_id` by `sub_nbr` in the subscriber table.
pub static ID_BY_NUMBER: Statement = Statement::new(
    "subscriber by sub_nbr",
    "SELECT s_id FROM subscriber WHERE sub_nbr = ?",
);
/// `s_id` by `sub_nbr` in the alternative key's own index.
static FIND_IN_INDEX: Statement = Statement::new(
    "s_id by sub_nbr in subscriber_nbr",
    "SELECT s_id FROM subscriber_nbr WHERE sub_nbr = ?",
);

/// `s_id` of `sub_nbr` found before the transaction, in a read-only
/// transaction of its own sent with its commit, where the strategy finds it
/// so (`lookup`, `index`, `every-partition`): one query, or one per partition.
pub async fn look_up_first<S: Session>(
    session: &mut S,
    sub_nbr: &str,
    access: &Access,
) -> Result<Option<i64>, DbError> {
    let key = [Param::Text(sub_nbr)];
    let (one, every);
    let calls: &[Call] = match (access.strategy, access.scripts) {
        (KeyAccess::Lookup, _) => {
            one = [Call::query(&ID_BY_NUMBER, &key)];
            &one
        }
        (KeyAccess::Index, scripts) => {
            let find = scripts.map_or(&FIND_IN_INDEX, |s| &s.find_in_index);
            one = [Call::query(find, &key)];
            &one
        }
        (KeyAccess::EveryPartition, None) => {
            every = on_every_partition(access.statements, |p| &p.find, &key, Call::query);
            &every
        }
        (KeyAccess::EveryPartition, Some(scripts)) => {
            every = on_every_partition(&scripts.partitions, |p| &p.find, &key, Call::query);
            &every
        }
        (KeyAccess::Single | KeyAccess::TryEveryPartition | KeyAccess::ServerSide, _) => {
            return Ok(None);
        }
    };
    session.begin(TxMode::ReadOnly).await?;
    let replies = session.pipeline_and_commit(calls).await?;
    let found = replies
        .iter()
        .filter_map(|r| r.rows())
        .find_map(|rows| rows.iter().next());
    match found {
        Some(row) => int(row, 0, "s_id").map(Some),
        None => Err(DbError::missing(format!("subscriber {sub_nbr}"))),
    }
}

/// The statement `pick` chooses of every partition, each with `params`, as
/// calls to send together.
pub fn on_every_partition<'a, P>(
    partitions: &'static [P],
    pick: impl Fn(&'static P) -> &'static Statement,
    params: &'a [Param<'a>],
    call: fn(&'static Statement, &'a [Param<'a>]) -> Call<'a>,
) -> Vec<Call<'a>> {
    partitions.iter().map(|p| call(pick(p), params)).collect()
}

/// The rows the statement `pick` chooses changed on every partition, sent
/// together (in the transaction under way, on a database).
pub async fn change_every_partition<S: Session, P>(
    session: &mut S,
    partitions: &'static [P],
    pick: impl Fn(&'static P) -> &'static Statement,
    params: &[Param<'_>],
) -> Result<u64, DbError> {
    let calls = on_every_partition(partitions, pick, params, Call::execute);
    let replies = session.pipeline(&calls).await?;
    Ok(replies.iter().map(Reply::affected).sum())
}
