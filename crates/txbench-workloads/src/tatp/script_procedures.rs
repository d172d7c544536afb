//! The seven TATP transactions in the script form ([`super::scripts`]): each
//! transaction by `s_id` is one script, atomic on its subscriber's partition,
//! so there is nothing to begin, commit or roll back; a script that finds what
//! TATP expects to be missing changes nothing and answers 0 (or no rows).

use txbench_core::{Call, DbError, Outcome, Param, Reply, Session, Written};

use super::input::TatpInput;
use super::key_access::{Access, KeyAccess};
use super::schema::number;
use super::scripts::{PartitionScripts, Scripts};
use crate::fields::{first, int};

/// Execute one transaction as the strategy in `access` says; a write that
/// commits states what it wrote in `written`.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &TatpInput,
    written: &mut Written,
    access: &Access,
    scripts: &'static Scripts,
) -> Result<Outcome, DbError> {
    match *input {
        TatpInput::GetSubscriberData { s_id } => {
            let found = session
                .query(&scripts.subscriber, &[Param::Int(s_id)])
                .await?;
            first(&found, "subscriber")?;
            Ok(Outcome::Committed)
        }
        TatpInput::GetNewDestination {
            s_id,
            sf_type,
            start_time,
            end_time,
        } => {
            let params = [
                Param::Int(s_id),
                Param::Int(sf_type),
                Param::Int(start_time),
                Param::Int(end_time),
            ];
            let found = session.query(&scripts.new_destination, &params).await?;
            Ok(committed_if(!found.is_empty()))
        }
        TatpInput::GetAccessData { s_id, ai_type } => {
            let params = [Param::Int(s_id), Param::Int(ai_type)];
            let found = session.query(&scripts.access_data, &params).await?;
            Ok(committed_if(!found.is_empty()))
        }
        TatpInput::UpdateSubscriberData {
            s_id,
            bit_1,
            sf_type,
            data_a,
        } => {
            let params = [
                Param::Int(s_id),
                Param::Int(bit_1),
                Param::Int(sf_type),
                Param::Int(data_a),
            ];
            let changed = session.execute(&scripts.subscriber_data, &params).await? == 1;
            if changed {
                written.committing([s_id, bit_1, sf_type, data_a]);
            }
            Ok(committed_if(changed))
        }
        TatpInput::UpdateLocation {
            sub_nbr,
            vlr_location,
        } => {
            let sub_nbr = sub_nbr.as_str();
            let change = By {
                script: |s: &'static Scripts| &s.update_location,
                on_partition: |p: &'static PartitionScripts| &p.update_location,
                rest: &[Param::Int(vlr_location)],
            };
            if change.run(session, access, scripts, sub_nbr).await? != 1 {
                return Err(DbError::missing(format!("subscriber {sub_nbr}")));
            }
            written.committing([number(sub_nbr), vlr_location]);
            Ok(Outcome::Committed)
        }
        TatpInput::InsertCallForwarding {
            sub_nbr,
            sf_type,
            start_time,
            end_time,
            numberx,
        } => {
            let (sub_nbr, numberx) = (sub_nbr.as_str(), numberx.as_str());
            let change = By {
                script: |s: &'static Scripts| &s.insert_forwarding,
                on_partition: |p: &'static PartitionScripts| &p.insert_forwarding,
                rest: &[
                    Param::Int(sf_type),
                    Param::Int(start_time),
                    Param::Int(end_time),
                    Param::Text(numberx),
                ],
            };
            // 0: no such facility, or the start time taken (both expected).
            let inserted = change.run(session, access, scripts, sub_nbr).await? == 1;
            if inserted {
                let (sub_nbr, numberx) = (number(sub_nbr), number(numberx));
                written.committing([sub_nbr, sf_type, start_time, end_time, numberx]);
            }
            Ok(committed_if(inserted))
        }
        TatpInput::DeleteCallForwarding {
            sub_nbr,
            sf_type,
            start_time,
        } => {
            let sub_nbr = sub_nbr.as_str();
            let change = By {
                script: |s: &'static Scripts| &s.delete_forwarding,
                on_partition: |p: &'static PartitionScripts| &p.delete_forwarding,
                rest: &[Param::Int(sf_type), Param::Int(start_time)],
            };
            let deleted = change.run(session, access, scripts, sub_nbr).await? == 1;
            if deleted {
                written.committing([number(sub_nbr), sf_type, start_time]);
            }
            Ok(committed_if(deleted))
        }
    }
}

/// Committed when the transaction found what it needed, else the rollback
/// TATP expects (the script changed nothing).
fn committed_if(found: bool) -> Outcome {
    if found {
        Outcome::Committed
    } else {
        Outcome::ExpectedRollback
    }
}

/// A change keyed by `sub_nbr`: its script by `s_id`, its script by
/// `sub_nbr` on a partition, and its arguments after the subscriber.
struct By<'a> {
    script: fn(&'static Scripts) -> &'static txbench_core::schema::Statement,
    on_partition: fn(&'static PartitionScripts) -> &'static txbench_core::schema::Statement,
    rest: &'a [Param<'a>],
}

impl By<'_> {
    /// Rows changed: on the subscriber's partition once its `s_id` is found,
    /// or, with `try-every-partition`, on every partition at once by number.
    async fn run<S: Session>(
        &self,
        session: &mut S,
        access: &Access,
        scripts: &'static Scripts,
        sub_nbr: &str,
    ) -> Result<u64, DbError> {
        if access.strategy == KeyAccess::TryEveryPartition {
            let params: Vec<Param> = std::iter::once(Param::Text(sub_nbr))
                .chain(self.rest.iter().copied())
                .collect();
            let calls: Vec<Call> = (scripts.partitions.iter())
                .map(|p| Call::execute((self.on_partition)(p), &params))
                .collect();
            let replies = session.pipeline(&calls).await?;
            return Ok(replies.iter().map(Reply::affected).sum());
        }
        let s_id = find(session, access, scripts, sub_nbr).await?;
        let params: Vec<Param> = std::iter::once(Param::Int(s_id))
            .chain(self.rest.iter().copied())
            .collect();
        session.execute((self.script)(scripts), &params).await
    }
}

/// `s_id` of `sub_nbr`: from the alternative key's own hash (`index`), or
/// asked of every partition's index at once (`every-partition`).
async fn find<S: Session>(
    session: &mut S,
    access: &Access,
    scripts: &'static Scripts,
    sub_nbr: &str,
) -> Result<i64, DbError> {
    let key = [Param::Text(sub_nbr)];
    let replies = match access.strategy {
        KeyAccess::Index => vec![Reply::Rows(
            session.query(&scripts.find_in_index, &key).await?,
        )],
        KeyAccess::EveryPartition => {
            let calls: Vec<Call> = (scripts.partitions.iter())
                .map(|p| Call::query(&p.find, &key))
                .collect();
            session.pipeline(&calls).await?
        }
        other => {
            return Err(DbError::new(
                txbench_core::ErrorKind::Other,
                format!(
                    "--key-access {}: not a strategy of the script form",
                    other.name()
                ),
            ));
        }
    };
    match replies
        .iter()
        .filter_map(Reply::rows)
        .find_map(|rows| rows.iter().next())
    {
        Some(row) => int(row, 0, "s_id"),
        None => Err(DbError::missing(format!("subscriber {sub_nbr}"))),
    }
}
