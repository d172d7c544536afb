//! The population's invariants, which the seven transactions preserve, read in
//! one snapshot: the subscriber ids and numbers, 1..4 access-info rows and
//! special facilities per subscriber with valid types, and at most three call
//! forwardings per facility, at the three start times, each of an existing
//! facility; and the alternative key's own index, where the load wrote it.
//! Distinct types and start times are the tables' primary keys.

use std::collections::HashSet;

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

/// The condition a partition's check script counts after the SQL ones (in
/// their order, [`super::scripts`]): each partition's own index of `sub_nbr`.
static PARTITION_INDEX: (&str, &str) = (
    "index",
    "each partition's SUB_NBR index: its subscribers' numbers, each to its S_ID, and no other",
);

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
    let mut counts = [0i64; CONDITIONS.len() + 1];
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
        (CONDITIONS.iter())
            .map(|c| (c.clause, c.text))
            .chain([PARTITION_INDEX])
            .zip(counts)
            .map(|((clause, text), violations)| ConditionResult {
                clause,
                text,
                violations,
            }),
    );
    out.push(ConditionResult {
        clause: INDEX_CONDITION.clause,
        text: INDEX_CONDITION.text,
        violations: index_violations(&ids, &numbers),
    });
    Ok(out)
}

/// The alternative key's own hash (`numbers`: each entry's number and
/// `s_id`, from every partition) against the subscribers (`ids`), as
/// [`INDEX_CONDITION`] counts them: subscribers without their entry, entries
/// without their subscriber, and an entry's second copy (SQL's primary key
/// makes one impossible; partitions' hashes each hold a number once, but two
/// partitions can both hold it).
fn index_violations(ids: &[(i64, Option<String>)], numbers: &[(String, Option<i64>)]) -> i64 {
    let subscribers: HashSet<(&str, i64)> = (ids.iter())
        .filter_map(|(s_id, number)| Some((number.as_deref()?, *s_id)))
        .collect();
    let entries: HashSet<(&str, i64)> = (numbers.iter())
        .filter_map(|(number, s_id)| Some((number.as_str(), (*s_id)?)))
        .collect();
    let without_entry = (ids.iter())
        .filter(|(s_id, number)| {
            !number
                .as_deref()
                .is_some_and(|n| entries.contains(&(n, *s_id)))
        })
        .count();
    let mut seen = HashSet::with_capacity(numbers.len());
    let without_subscriber_or_again = (numbers.iter())
        .filter(|(number, s_id)| {
            let entry = s_id.map(|s| (number.as_str(), s));
            !entry.is_some_and(|e| subscribers.contains(&e) && seen.insert(e))
        })
        .count();
    (without_entry + without_subscriber_or_again) as i64
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alternative_keys_hash_is_held_against_the_subscribers() {
        let ids: Vec<(i64, Option<String>)> = (1..=3).map(|s| (s, Some(sub_nbr(s)))).collect();
        let mut numbers: Vec<(String, Option<i64>)> =
            (1..=3).map(|s| (sub_nbr(s), Some(s))).collect();
        assert_eq!(index_violations(&ids, &numbers), 0);
        // A wrong s_id counts twice (its subscriber lacks it, it lacks its
        // subscriber); a missing entry once, as in SQL.
        numbers[0].1 = Some(2);
        numbers.pop();
        assert_eq!(index_violations(&ids, &numbers), 3);
        // A right entry twice (in two partitions' hashes): the copy counts.
        numbers.push((sub_nbr(2), Some(2)));
        assert_eq!(index_violations(&ids, &numbers), 4);
    }
}
