//! TATP's four writes in the script form ([`super::scripts`]): each
//! transaction by `s_id` is one script, atomic on its subscriber's partition,
//! so there is nothing to roll back; a script that finds what TATP expects
//! to be missing changes nothing and answers 0. (The reads are the SQL
//! form's with the scripts' statements: [`super::procedures`].)

use txbench_core::schema::Statement;
use txbench_core::{DbError, ErrorKind, Outcome, Param, Session, Written};

use super::find::{change_every_partition, look_up_first};
use super::input::Forwarding;
use super::key_access::{Access, KeyAccess};
use super::schema::number;
use super::scripts::{PartitionScripts, Scripts};

/// Committed when the transaction found what it needed, else the rollback
/// TATP expects (the script changed nothing).
fn committed_if(found: bool) -> Outcome {
    if found {
        Outcome::Committed
    } else {
        Outcome::ExpectedRollback
    }
}

/// Update-Subscriber-Data (`s_id`, `bit_1`, `sf_type`, `data_a`): one
/// script, both changes or neither.
pub async fn update_subscriber_data<S: Session>(
    session: &mut S,
    scripts: &'static Scripts,
    row: [i64; 4],
    written: &mut Written,
) -> Result<Outcome, DbError> {
    let params = row.map(Param::Int);
    let changed = session.execute(&scripts.subscriber_data, &params).await? == 1;
    if changed {
        written.committing(row);
    }
    Ok(committed_if(changed))
}

/// Update-Location: the subscriber's new `vlr_location`.
pub async fn update_location<S: Session>(
    session: &mut S,
    access: &Access,
    scripts: &'static Scripts,
    sub_nbr: &str,
    vlr_location: i64,
    written: &mut Written,
) -> Result<Outcome, DbError> {
    let mut params = [Param::Null, Param::Int(vlr_location)];
    let change: Change = (&scripts.update_location, |p: &'static PartitionScripts| {
        &p.update_location
    });
    if by_number(session, access, scripts, sub_nbr, change, &mut params).await? != 1 {
        return Err(DbError::missing(format!("subscriber {sub_nbr}")));
    }
    written.committing([number(sub_nbr), vlr_location]);
    Ok(Outcome::Committed)
}

/// Insert-Call-Forwarding: 0 rows when the facility is missing or the start
/// time taken (both failures TATP expects).
pub async fn insert_call_forwarding<S: Session>(
    session: &mut S,
    access: &Access,
    scripts: &'static Scripts,
    f: &Forwarding<'_>,
    written: &mut Written,
) -> Result<Outcome, DbError> {
    let mut params = [
        Param::Null,
        Param::Int(f.sf_type),
        Param::Int(f.start_time),
        Param::Int(f.end_time),
        Param::Text(f.numberx),
    ];
    let change: Change = (
        &scripts.insert_forwarding,
        |p: &'static PartitionScripts| &p.insert_forwarding,
    );
    let inserted = by_number(session, access, scripts, f.sub_nbr, change, &mut params).await? == 1;
    if inserted {
        let (sub_nbr, numberx) = (number(f.sub_nbr), number(f.numberx));
        written.committing([sub_nbr, f.sf_type, f.start_time, f.end_time, numberx]);
    }
    Ok(committed_if(inserted))
}

/// Delete-Call-Forwarding (`sf_type`, `start_time`): 0 rows when there was
/// none.
pub async fn delete_call_forwarding<S: Session>(
    session: &mut S,
    access: &Access,
    scripts: &'static Scripts,
    sub_nbr: &str,
    [sf_type, start_time]: [i64; 2],
    written: &mut Written,
) -> Result<Outcome, DbError> {
    let mut params = [Param::Null, Param::Int(sf_type), Param::Int(start_time)];
    let change: Change = (
        &scripts.delete_forwarding,
        |p: &'static PartitionScripts| &p.delete_forwarding,
    );
    let deleted = by_number(session, access, scripts, sub_nbr, change, &mut params).await? == 1;
    if deleted {
        written.committing([number(sub_nbr), sf_type, start_time]);
    }
    Ok(committed_if(deleted))
}

/// A change keyed by `sub_nbr`: its script by `s_id`, and its script by
/// `sub_nbr` on a partition.
type Change = (
    &'static Statement,
    fn(&'static PartitionScripts) -> &'static Statement,
);

/// Rows `change` changed: its script on the subscriber's partition once its
/// `s_id` is found as the strategy says, or, with `try-every-partition`, its
/// script by number on every partition at once. `params[0]` is the
/// subscriber's place, filled in here.
async fn by_number<'a, S: Session>(
    session: &mut S,
    access: &Access,
    scripts: &'static Scripts,
    sub_nbr: &'a str,
    (by_id, on_partition): Change,
    params: &mut [Param<'a>],
) -> Result<u64, DbError> {
    if access.strategy == KeyAccess::TryEveryPartition {
        params[0] = Param::Text(sub_nbr);
        return change_every_partition(session, &scripts.partitions, on_partition, params).await;
    }
    let Some(s_id) = look_up_first(session, sub_nbr, access).await? else {
        let strategy = access.strategy.name();
        return Err(DbError::new(
            ErrorKind::Other,
            format!("--key-access {strategy}: not a strategy of the script form"),
        ));
    };
    params[0] = Param::Int(s_id);
    session.execute(by_id, params).await
}
