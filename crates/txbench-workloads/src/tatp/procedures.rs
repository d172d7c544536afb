//! The seven TATP transactions, written once against [`Session`]. A missing row
//! the specification expects (no such access type, inactive facility, duplicate
//! call forwarding, ...) rolls the transaction back and returns
//! [`Outcome::ExpectedRollback`]: counted per type, never an error.

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, ErrorKind, Outcome, Param, Session, TxMode, Written};

use super::constants::{
    DELETE_CALL_FORWARDING, INSERT_CALL_FORWARDING, UPDATE_LOCATION, UPDATE_SUBSCRIBER_DATA,
};

use super::find::{ID_BY_NUMBER, change_every_partition, look_up_first};
use super::input::{Forwarding, TatpInput};
use super::key_access::{Access, KeyAccess};
use super::schema::number;
use super::script_procedures as scripted;
use super::scripts::Scripts;
use crate::fields::{first, int};

static SUBSCRIBER: Statement = Statement::new(
    "get subscriber",
    "SELECT s_id, sub_nbr, bit_1, bit_2, bit_3, bit_4, bit_5, bit_6, bit_7, bit_8, bit_9, bit_10, \
     hex_1, hex_2, hex_3, hex_4, hex_5, hex_6, hex_7, hex_8, hex_9, hex_10, \
     byte2_1, byte2_2, byte2_3, byte2_4, byte2_5, byte2_6, byte2_7, byte2_8, byte2_9, byte2_10, \
     msc_location, vlr_location FROM subscriber WHERE s_id = ?",
);
static NEW_DESTINATION: Statement = Statement::new(
    "get new destination",
    "SELECT cf.numberx FROM special_facility sf, call_forwarding cf \
     WHERE sf.s_id = ? AND sf.sf_type = ? AND sf.is_active = 1 \
     AND cf.s_id = sf.s_id AND cf.sf_type = sf.sf_type \
     AND cf.start_time <= ? AND ? < cf.end_time",
);
static ACCESS_DATA: Statement = Statement::new(
    "get access data",
    "SELECT data1, data2, data3, data4 FROM access_info WHERE s_id = ? AND ai_type = ?",
);
static SET_BIT: Statement = Statement::new(
    "update subscriber bit_1",
    "UPDATE subscriber SET bit_1 = ? WHERE s_id = ?",
);
static SET_DATA_A: Statement = Statement::new(
    "update special facility data_a",
    "UPDATE special_facility SET data_a = ? WHERE s_id = ? AND sf_type = ?",
);
static SET_LOCATION: Statement = Statement::new(
    "update location",
    "UPDATE subscriber SET vlr_location = ? WHERE sub_nbr = ?",
);
static SET_LOCATION_BY_ID: Statement = Statement::new(
    "update location by s_id",
    "UPDATE subscriber SET vlr_location = ? WHERE s_id = ?",
);
static FACILITY_TYPES: Statement = Statement::new(
    "special facility types",
    "SELECT sf_type FROM special_facility WHERE s_id = ?",
);
static INSERT_FORWARDING: Statement = Statement::new(
    "insert call forwarding",
    "INSERT INTO call_forwarding (s_id, sf_type, start_time, end_time, numberx) \
     VALUES (?, ?, ?, ?, ?)",
);
static DELETE_FORWARDING: Statement = Statement::new(
    "delete call forwarding",
    "DELETE FROM call_forwarding WHERE s_id = ? AND sf_type = ? AND start_time = ?",
);

/// Roll back and report the failure the specification expects.
async fn expected_failure<S: Session>(session: &mut S) -> Result<Outcome, DbError> {
    session.rollback().await?;
    Ok(Outcome::ExpectedRollback)
}

/// Commit when `found`, else roll back as an expected failure.
async fn finish<S: Session>(session: &mut S, found: bool) -> Result<Outcome, DbError> {
    if found {
        session.commit().await?;
        Ok(Outcome::Committed)
    } else {
        expected_failure(session).await
    }
}

/// The `s_id` of a subscriber number (the alternative unique key).
async fn subscriber_id<S: Session>(session: &mut S, sub_nbr: &str) -> Result<i64, DbError> {
    let found = session
        .query(&ID_BY_NUMBER, &[Param::Text(sub_nbr)])
        .await?;
    int(first(&found, "subscriber by sub_nbr")?, 0, "s_id")
}

/// The fields each writing type states in [`Written`] when it commits (a
/// subscriber number as the integer it spells). The types keyed by `sub_nbr`
/// state it, not `s_id`: the strategy `try-every-partition` never learns `s_id`.
pub fn ack_fields(txn_type: usize) -> &'static str {
    match txn_type {
        UPDATE_SUBSCRIBER_DATA => "s_id bit_1 sf_type data_a",
        UPDATE_LOCATION => "sub_nbr vlr_location",
        INSERT_CALL_FORWARDING => "sub_nbr sf_type start_time end_time numberx",
        DELETE_CALL_FORWARDING => "sub_nbr sf_type start_time",
        _ => "",
    }
}

/// The statement of a read in the run's form: `sql`, or the script `script`
/// picks where the run is in scripts (on a sharded key-value store, whose
/// transactions begin and commit at no cost, so the reads are the same).
fn in_form(
    access: &Access,
    sql: &'static Statement,
    script: fn(&'static Scripts) -> &'static Statement,
) -> &'static Statement {
    access.scripts.map_or(sql, script)
}

/// Execute one transaction, from `begin` to commit or rollback, the types
/// keyed by `sub_nbr` finding their subscriber as `access` says; a write
/// that commits states what it wrote in `written` ([`ack_fields`]). The
/// writes of the script form are [`scripted`]'s.
pub async fn execute<S: Session>(
    session: &mut S,
    input: &TatpInput,
    written: &mut Written,
    access: &Access,
) -> Result<Outcome, DbError> {
    match *input {
        TatpInput::GetSubscriberData { s_id } => {
            session.begin(TxMode::ReadOnly).await?;
            let read = in_form(access, &SUBSCRIBER, |s| &s.subscriber);
            let found = session.query(read, &[Param::Int(s_id)]).await?;
            first(&found, "subscriber")?;
            finish(session, true).await
        }
        TatpInput::GetNewDestination {
            s_id,
            sf_type,
            start_time,
            end_time,
        } => {
            session.begin(TxMode::ReadOnly).await?;
            let params = [
                Param::Int(s_id),
                Param::Int(sf_type),
                Param::Int(start_time),
                Param::Int(end_time),
            ];
            let read = in_form(access, &NEW_DESTINATION, |s| &s.new_destination);
            let found = session.query(read, &params).await?;
            finish(session, !found.is_empty()).await
        }
        TatpInput::GetAccessData { s_id, ai_type } => {
            session.begin(TxMode::ReadOnly).await?;
            let params = [Param::Int(s_id), Param::Int(ai_type)];
            let read = in_form(access, &ACCESS_DATA, |s| &s.access_data);
            let found = session.query(read, &params).await?;
            finish(session, !found.is_empty()).await
        }
        TatpInput::UpdateSubscriberData {
            s_id,
            bit_1,
            sf_type,
            data_a,
        } => {
            let row = [s_id, bit_1, sf_type, data_a];
            update_subscriber_data(session, row, written, access).await
        }
        TatpInput::UpdateLocation {
            sub_nbr,
            vlr_location,
        } => update_location(session, sub_nbr.as_str(), vlr_location, written, access).await,
        TatpInput::InsertCallForwarding {
            sub_nbr,
            sf_type,
            start_time,
            end_time,
            numberx,
        } => {
            let forwarding = Forwarding {
                sub_nbr: sub_nbr.as_str(),
                sf_type,
                start_time,
                end_time,
                numberx: numberx.as_str(),
            };
            insert_call_forwarding(session, &forwarding, written, access).await
        }
        TatpInput::DeleteCallForwarding {
            sub_nbr,
            sf_type,
            start_time,
        } => {
            let row = [sf_type, start_time];
            delete_call_forwarding(session, sub_nbr.as_str(), row, written, access).await
        }
    }
}

/// Update-Subscriber-Data (`s_id`, `bit_1`, `sf_type`, `data_a`): the
/// subscriber's bit and its facility's data, both or neither.
async fn update_subscriber_data<S: Session>(
    session: &mut S,
    row: [i64; 4],
    written: &mut Written,
    access: &Access,
) -> Result<Outcome, DbError> {
    if let Some(scripts) = access.scripts {
        return scripted::update_subscriber_data(session, scripts, row, written).await;
    }
    let [s_id, bit_1, sf_type, data_a] = row;
    session.begin(TxMode::ReadWrite).await?;
    let bit = [Param::Int(bit_1), Param::Int(s_id)];
    let data = [Param::Int(data_a), Param::Int(s_id), Param::Int(sf_type)];
    let replies = session
        .pipeline(&[
            Call::execute(&SET_BIT, &bit),
            Call::execute(&SET_DATA_A, &data),
        ])
        .await?;
    if replies[0].affected() != 1 {
        return Err(DbError::missing(format!("subscriber {s_id}")));
    }
    // No such facility: the subscriber's change is undone with it.
    let found = replies[1].affected() == 1;
    if found {
        written.committing(row);
    }
    finish(session, found).await
}

/// The subscriber's `s_id` in a transaction by `sub_nbr`: looked up before
/// it began where the strategy does that, else read inside it (TATP's text).
async fn subscriber_in<S: Session>(
    session: &mut S,
    sub_nbr: &str,
    looked_up: Option<i64>,
) -> Result<i64, DbError> {
    match looked_up {
        Some(s_id) => Ok(s_id),
        None => subscriber_id(session, sub_nbr).await,
    }
}

/// Update-Location: the subscriber's new `vlr_location`.
async fn update_location<S: Session>(
    session: &mut S,
    sub_nbr: &str,
    vlr_location: i64,
    written: &mut Written,
    access: &Access,
) -> Result<Outcome, DbError> {
    if let Some(scripts) = access.scripts {
        return scripted::update_location(session, access, scripts, sub_nbr, vlr_location, written)
            .await;
    }
    let looked_up = look_up_first(session, sub_nbr, access).await?;
    session.begin(TxMode::ReadWrite).await?;
    let by_number = [Param::Int(vlr_location), Param::Text(sub_nbr)];
    let changed = match (looked_up, access.strategy) {
        (Some(s_id), _) => {
            let by_id = [Param::Int(vlr_location), Param::Int(s_id)];
            session.execute(&SET_LOCATION_BY_ID, &by_id).await?
        }
        (None, KeyAccess::TryEveryPartition) => {
            change_every_partition(
                session,
                access.statements,
                |p| &p.update_location,
                &by_number,
            )
            .await?
        }
        (None, _) => session.execute(&SET_LOCATION, &by_number).await?,
    };
    if changed != 1 {
        return Err(DbError::missing(format!("subscriber {sub_nbr}")));
    }
    written.committing([number(sub_nbr), vlr_location]);
    finish(session, true).await
}

/// Insert-Call-Forwarding: a forwarding of the subscriber's facility of the
/// type, where it has one (an expected failure where it has none, or where
/// the start time is taken).
async fn insert_call_forwarding<S: Session>(
    session: &mut S,
    f: &Forwarding<'_>,
    written: &mut Written,
    access: &Access,
) -> Result<Outcome, DbError> {
    if let Some(scripts) = access.scripts {
        return scripted::insert_call_forwarding(session, access, scripts, f, written).await;
    }
    let looked_up = look_up_first(session, f.sub_nbr, access).await?;
    session.begin(TxMode::ReadWrite).await?;
    let inserted = if access.strategy == KeyAccess::TryEveryPartition {
        // Each partition inserts where it holds the subscriber's facility.
        let params = [
            Param::Int(f.start_time),
            Param::Int(f.end_time),
            Param::Text(f.numberx),
            Param::Text(f.sub_nbr),
            Param::Int(f.sf_type),
        ];
        change_every_partition(
            session,
            access.statements,
            |p| &p.insert_forwarding,
            &params,
        )
        .await
        .map(|n| n == 1)
    } else {
        let s_id = subscriber_in(session, f.sub_nbr, looked_up).await?;
        let types = session.query(&FACILITY_TYPES, &[Param::Int(s_id)]).await?;
        if !types
            .iter()
            .any(|r| r.get(0).and_then(Param::as_i64) == Some(f.sf_type))
        {
            // The facility does not exist (a foreign-key failure in the spec).
            return expected_failure(session).await;
        }
        let params = [
            Param::Int(s_id),
            Param::Int(f.sf_type),
            Param::Int(f.start_time),
            Param::Int(f.end_time),
            Param::Text(f.numberx),
        ];
        session
            .execute(&INSERT_FORWARDING, &params)
            .await
            .map(|n| n == 1)
    };
    match inserted {
        Ok(true) => {
            let (numberx, sub_nbr) = (number(f.numberx), number(f.sub_nbr));
            written.committing([sub_nbr, f.sf_type, f.start_time, f.end_time, numberx]);
            finish(session, true).await
        }
        // No partition holds the subscriber's facility of the type.
        Ok(false) => expected_failure(session).await,
        // The start time is taken: the duplicate the specification expects.
        Err(e) if e.kind == ErrorKind::Constraint => expected_failure(session).await,
        Err(e) => Err(e),
    }
}

/// Delete-Call-Forwarding: the subscriber's forwarding of the facility type
/// and start time, where there is one (an expected failure where not).
async fn delete_call_forwarding<S: Session>(
    session: &mut S,
    sub_nbr: &str,
    [sf_type, start_time]: [i64; 2],
    written: &mut Written,
    access: &Access,
) -> Result<Outcome, DbError> {
    if let Some(scripts) = access.scripts {
        let row = [sf_type, start_time];
        return scripted::delete_call_forwarding(session, access, scripts, sub_nbr, row, written)
            .await;
    }
    let looked_up = look_up_first(session, sub_nbr, access).await?;
    session.begin(TxMode::ReadWrite).await?;
    let deleted = if access.strategy == KeyAccess::TryEveryPartition {
        let params = [
            Param::Int(sf_type),
            Param::Int(start_time),
            Param::Text(sub_nbr),
        ];
        change_every_partition(
            session,
            access.statements,
            |p| &p.delete_forwarding,
            &params,
        )
        .await?
    } else {
        let s_id = subscriber_in(session, sub_nbr, looked_up).await?;
        let params = [
            Param::Int(s_id),
            Param::Int(sf_type),
            Param::Int(start_time),
        ];
        session.execute(&DELETE_FORWARDING, &params).await?
    };
    if deleted == 1 {
        written.committing([number(sub_nbr), sf_type, start_time]);
    }
    finish(session, deleted == 1).await
}
