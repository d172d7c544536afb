//! The population's invariants, which the seven transactions preserve, read in
//! one snapshot: the subscriber ids and numbers, 1..4 access-info rows and
//! special facilities per subscriber with valid types, and at most three call
//! forwardings per facility, at the three start times, each of an existing
//! facility; and the alternative key's own index, where the load wrote it.
//! Distinct types and start times are the tables' primary keys.

use txbench_core::{DbError, Param, Session, TxMode};

use super::schema::sub_nbr;
use crate::conditions::ConditionResult;
use crate::fields::{first, int};

/// One condition and its counting SQL.
struct Condition {
    clause: &'static str,
    text: &'static str,
    sql: &'static str,
}

static CONDITIONS: [Condition; 6] = [
    Condition {
        clause: "access",
        text: "1..4 ACCESS_INFO rows per subscriber",
        sql: "SELECT count(*) FROM subscriber s WHERE \
              (SELECT count(*) FROM access_info a WHERE a.s_id = s.s_id) NOT BETWEEN 1 AND 4",
    },
    Condition {
        clause: "access",
        text: "AI_TYPE in 1..4, S_ID of a subscriber",
        sql: "SELECT count(*) FROM access_info a WHERE a.ai_type NOT BETWEEN 1 AND 4 \
              OR NOT EXISTS (SELECT 1 FROM subscriber s WHERE s.s_id = a.s_id)",
    },
    Condition {
        clause: "facility",
        text: "1..4 SPECIAL_FACILITY rows per subscriber",
        sql: "SELECT count(*) FROM subscriber s WHERE \
              (SELECT count(*) FROM special_facility f WHERE f.s_id = s.s_id) NOT BETWEEN 1 AND 4",
    },
    Condition {
        clause: "facility",
        text: "SF_TYPE in 1..4, IS_ACTIVE 0 or 1, S_ID of a subscriber",
        sql: "SELECT count(*) FROM special_facility f WHERE f.sf_type NOT BETWEEN 1 AND 4 \
              OR f.is_active NOT IN (0, 1) \
              OR NOT EXISTS (SELECT 1 FROM subscriber s WHERE s.s_id = f.s_id)",
    },
    Condition {
        clause: "forward",
        text: "0..3 CALL_FORWARDING rows per facility",
        sql: "SELECT count(*) FROM special_facility f WHERE \
              (SELECT count(*) FROM call_forwarding c \
               WHERE c.s_id = f.s_id AND c.sf_type = f.sf_type) > 3",
    },
    Condition {
        clause: "forward",
        text: "START_TIME in {0, 8, 16}, of an existing facility",
        sql: "SELECT count(*) FROM call_forwarding c WHERE c.start_time NOT IN (0, 8, 16) \
              OR NOT EXISTS (SELECT 1 FROM special_facility f \
                             WHERE f.s_id = c.s_id AND f.sf_type = c.sf_type)",
    },
];

/// The alternative key's own index (`--key-access index`) against the
/// subscribers, where the load wrote one.
static INDEX_CONDITION: Condition = Condition {
    clause: "index",
    text: "SUBSCRIBER_NBR: each subscriber's SUB_NBR once, with its S_ID, and no other",
    sql: "SELECT (SELECT count(*) FROM subscriber s WHERE NOT EXISTS \
              (SELECT 1 FROM subscriber_nbr n WHERE n.sub_nbr = s.sub_nbr AND n.s_id = s.s_id)) \
              + (SELECT count(*) FROM subscriber_nbr n WHERE NOT EXISTS \
              (SELECT 1 FROM subscriber s WHERE s.sub_nbr = n.sub_nbr AND s.s_id = n.s_id))",
};

/// Run every condition in one read-only transaction; `subscribers` is the scale
/// the load recorded, `indexed` whether it wrote the alternative key's index.
pub async fn check<S: Session>(
    session: &mut S,
    subscribers: i64,
    indexed: bool,
) -> Result<Vec<ConditionResult>, DbError> {
    session.begin(TxMode::Snapshot).await?;
    let out = conditions(session, subscribers, indexed).await;
    match out {
        Ok(out) => {
            session.commit().await?;
            Ok(out)
        }
        Err(e) => {
            let _ = session.rollback().await;
            Err(e)
        }
    }
}

async fn conditions<S: Session>(
    session: &mut S,
    subscribers: i64,
    indexed: bool,
) -> Result<Vec<ConditionResult>, DbError> {
    let mut out = Vec::with_capacity(CONDITIONS.len() + 1);
    // The ids are 1..N and each sub_nbr is its id in 15 digits. Zero-padding is
    // spelled differently in every SQL dialect, so the comparison is made here.
    let ids = session
        .query_sql("SELECT s_id, sub_nbr FROM subscriber")
        .await?;
    let ids = (ids.iter())
        .map(|row| {
            let number = row.get(1).and_then(Param::as_str).map(str::trim_end);
            Ok((int(row, 0, "s_id")?, number.map(str::to_string)))
        })
        .collect::<Result<Vec<_>, DbError>>()?;
    out.push(ConditionResult {
        clause: "subscriber",
        text: "S_ID 1..N, each once; SUB_NBR = S_ID in 15 digits",
        violations: subscriber_violations(&ids, subscribers),
    });
    let index = indexed.then_some(&INDEX_CONDITION);
    for c in CONDITIONS.iter().chain(index) {
        let rows = session
            .query_sql(c.sql)
            .await
            .map_err(|e| DbError::new(e.kind, format!("condition '{}': {}", c.text, e.message)))?;
        out.push(ConditionResult {
            clause: c.clause,
            text: c.text,
            violations: int(first(&rows, c.text)?, 0, c.text)?,
        });
    }
    Ok(out)
}

/// The conditions a partition's check script counts, in its order
/// ([`super::scripts`]): the SQL conditions', and each partition's own index
/// of `sub_nbr`.
static SCRIPT_CONDITIONS: [(&str, &str); 7] = [
    (CONDITIONS[0].clause, CONDITIONS[0].text),
    (CONDITIONS[1].clause, CONDITIONS[1].text),
    (CONDITIONS[2].clause, CONDITIONS[2].text),
    (CONDITIONS[3].clause, CONDITIONS[3].text),
    (CONDITIONS[4].clause, CONDITIONS[4].text),
    (CONDITIONS[5].clause, CONDITIONS[5].text),
    (
        "index",
        "each partition's SUB_NBR index: its subscribers' numbers, each to its S_ID, and no other",
    ),
];

/// The invariants on a sharded key-value store loaded in `partitions`: one
/// check script per partition (each atomic there; the store has no snapshot
/// across partitions, so check a store at rest), the subscribers and the
/// alternative key's own hash compared across partitions here.
pub async fn check_scripts<S: Session>(
    session: &mut S,
    subscribers: i64,
    partitions: u32,
) -> Result<Vec<ConditionResult>, DbError> {
    let scripts = super::scripts::scripts(partitions);
    let mut counts = [0i64; SCRIPT_CONDITIONS.len()];
    let mut ids = Vec::with_capacity(subscribers.max(0) as usize);
    let mut numbers = Vec::with_capacity(subscribers.max(0) as usize);
    for p in &scripts.partitions {
        let rows = session.query(&p.check, &[]).await?;
        for row in rows.iter() {
            match row.get(0).and_then(Param::as_str) {
                Some("count") => {
                    let i = int(row, 1, "condition")?;
                    let slot = usize::try_from(i - 1).ok().and_then(|i| counts.get_mut(i));
                    if let Some(count) = slot {
                        *count += int(row, 2, "violations")?;
                    }
                }
                Some("subscriber") => {
                    let number = row.get(2).and_then(Param::as_str).map(str::to_string);
                    ids.push((int(row, 1, "s_id")?, number));
                }
                Some("nbr") => {
                    let number = row.get(1).and_then(Param::as_str).unwrap_or("");
                    numbers.push((number.to_string(), row.get(2).and_then(Param::as_i64)));
                }
                _ => {
                    return Err(DbError::new(
                        txbench_core::ErrorKind::Data,
                        "check: an unknown row",
                    ));
                }
            }
        }
    }
    let mut out = vec![ConditionResult {
        clause: "subscriber",
        text: "S_ID 1..N, each once; SUB_NBR = S_ID in 15 digits",
        violations: subscriber_violations(&ids, subscribers),
    }];
    out.extend(
        SCRIPT_CONDITIONS
            .iter()
            .zip(counts)
            .map(|((clause, text), violations)| ConditionResult {
                clause,
                text,
                violations,
            }),
    );
    // The alternative key's own hash, placed by the number: each
    // subscriber's number once, with its s_id, and no other.
    let mut by_number: std::collections::HashMap<&str, (Option<i64>, u32)> =
        std::collections::HashMap::with_capacity(numbers.len());
    for (number, s_id) in &numbers {
        let entry = by_number.entry(number.as_str()).or_insert((*s_id, 0));
        entry.1 += 1;
    }
    let mut index_bad = numbers.len() as i64 - ids.len() as i64;
    for (s_id, number) in &ids {
        let found = number.as_deref().and_then(|n| by_number.get(n));
        index_bad += i64::from(found != Some(&(Some(*s_id), 1)));
    }
    out.push(ConditionResult {
        clause: INDEX_CONDITION.clause,
        text: INDEX_CONDITION.text,
        violations: index_bad.max(0),
    });
    Ok(out)
}

/// Subscribers out of 1..N, given twice or not at all, or whose number is
/// not their id in 15 digits.
fn subscriber_violations(ids: &[(i64, Option<String>)], subscribers: i64) -> i64 {
    let mut bad = 0i64;
    let mut seen = vec![0u32; subscribers.max(0) as usize + 1];
    for (s_id, number) in ids {
        let in_range = (1..=subscribers).contains(s_id);
        if in_range {
            seen[*s_id as usize] += 1;
        }
        bad += i64::from(!in_range || number.as_deref() != Some(sub_nbr(*s_id).as_str()));
    }
    bad + seen[1..].iter().map(|&n| i64::from(n != 1)).sum::<i64>()
}
