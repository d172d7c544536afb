//! The seven TATP transactions, written once against [`Session`]. A missing row
//! the specification expects (no such access type, inactive facility, duplicate
//! call forwarding, ...) rolls the transaction back and returns
//! [`Outcome::ExpectedRollback`]: counted per type, never an error.

use txbench_core::schema::Statement;
use txbench_core::{Call, DbError, ErrorKind, Outcome, Param, Session, TxMode, Written};

use super::constants::{
    DELETE_CALL_FORWARDING, INSERT_CALL_FORWARDING, UPDATE_LOCATION, UPDATE_SUBSCRIBER_DATA,
};

use super::input::TatpInput;
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
static ID_BY_NUMBER: Statement = Statement::new(
    "subscriber by sub_nbr",
    "SELECT s_id FROM subscriber WHERE sub_nbr = ?",
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

/// The fields each writing type states in [`Written`] when it commits
/// (a subscriber number as the integer it spells).
pub fn ack_fields(txn_type: usize) -> &'static str {
    match txn_type {
        UPDATE_SUBSCRIBER_DATA => "s_id bit_1 sf_type data_a",
        UPDATE_LOCATION => "sub_nbr vlr_location",
        INSERT_CALL_FORWARDING => "s_id sf_type start_time end_time numberx",
        DELETE_CALL_FORWARDING => "s_id sf_type start_time",
        _ => "",
    }
}

/// A subscriber number as the integer it spells (they are digits).
fn number(sub_nbr: &str) -> i64 {
    sub_nbr.parse().unwrap_or(-1)
}

/// Execute one transaction, from `begin` to commit or rollback; a write
/// that commits states what it wrote in `written` ([`ack_fields`]).
pub async fn execute<S: Session>(
    session: &mut S,
    input: &TatpInput,
    written: &mut Written,
) -> Result<Outcome, DbError> {
    match *input {
        TatpInput::GetSubscriberData { s_id } => {
            session.begin(TxMode::ReadOnly).await?;
            let found = session.query(&SUBSCRIBER, &[Param::Int(s_id)]).await?;
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
            let found = session.query(&NEW_DESTINATION, &params).await?;
            finish(session, !found.is_empty()).await
        }
        TatpInput::GetAccessData { s_id, ai_type } => {
            session.begin(TxMode::ReadOnly).await?;
            let params = [Param::Int(s_id), Param::Int(ai_type)];
            let found = session.query(&ACCESS_DATA, &params).await?;
            finish(session, !found.is_empty()).await
        }
        TatpInput::UpdateSubscriberData {
            s_id,
            bit_1,
            sf_type,
            data_a,
        } => {
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
                written.committing([s_id, bit_1, sf_type, data_a]);
            }
            finish(session, found).await
        }
        TatpInput::UpdateLocation {
            sub_nbr,
            vlr_location,
        } => {
            session.begin(TxMode::ReadWrite).await?;
            let params = [Param::Int(vlr_location), Param::Text(sub_nbr.as_str())];
            if session.execute(&SET_LOCATION, &params).await? != 1 {
                return Err(DbError::missing(format!("subscriber {}", sub_nbr.as_str())));
            }
            written.committing([number(sub_nbr.as_str()), vlr_location]);
            finish(session, true).await
        }
        TatpInput::InsertCallForwarding {
            sub_nbr,
            sf_type,
            start_time,
            end_time,
            numberx,
        } => {
            session.begin(TxMode::ReadWrite).await?;
            let s_id = subscriber_id(session, sub_nbr.as_str()).await?;
            let types = session.query(&FACILITY_TYPES, &[Param::Int(s_id)]).await?;
            if !types
                .iter()
                .any(|r| r.get(0).and_then(Param::as_i64) == Some(sf_type))
            {
                // The facility does not exist (a foreign-key failure in the spec).
                return expected_failure(session).await;
            }
            let params = [
                Param::Int(s_id),
                Param::Int(sf_type),
                Param::Int(start_time),
                Param::Int(end_time),
                Param::Text(numberx.as_str()),
            ];
            match session.execute(&INSERT_FORWARDING, &params).await {
                Ok(_) => {
                    let numberx = number(numberx.as_str());
                    written.committing([s_id, sf_type, start_time, end_time, numberx]);
                    finish(session, true).await
                }
                // The start time is taken: the duplicate the specification expects.
                Err(e) if e.kind == ErrorKind::Constraint => expected_failure(session).await,
                Err(e) => Err(e),
            }
        }
        TatpInput::DeleteCallForwarding {
            sub_nbr,
            sf_type,
            start_time,
        } => {
            session.begin(TxMode::ReadWrite).await?;
            let s_id = subscriber_id(session, sub_nbr.as_str()).await?;
            let params = [
                Param::Int(s_id),
                Param::Int(sf_type),
                Param::Int(start_time),
            ];
            let deleted = session.execute(&DELETE_FORWARDING, &params).await? == 1;
            if deleted {
                written.committing([s_id, sf_type, start_time]);
            }
            finish(session, deleted).await
        }
    }
}
