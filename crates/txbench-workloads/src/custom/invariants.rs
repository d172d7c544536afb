//! A workload file's invariants held against a database: each query names
//! the rows that break it, so a consistent database returns none.

use txbench_core::{DbError, Session, TxMode};

use super::spec::Spec;
use crate::conditions::ConditionResult;

/// Run every invariant of `spec` in one snapshot; each result counts the
/// rows its query returned. A query the database refuses is an error naming
/// the invariant.
pub async fn check<S: Session>(
    session: &mut S,
    spec: &Spec,
) -> Result<Vec<ConditionResult>, DbError> {
    session.begin(TxMode::Snapshot).await?;
    let mut out = Vec::with_capacity(spec.invariants.len());
    for (name, sql) in &spec.invariants {
        let rows = match session.query_sql(sql).await {
            Ok(rows) => rows,
            Err(e) => {
                session.rollback().await?;
                return Err(DbError::new(
                    e.kind,
                    format!("invariant '{name}': {}", e.message),
                ));
            }
        };
        out.push(ConditionResult {
            // The results keep the file's words for the process's life.
            clause: super::keep_text(name.clone()),
            text: super::keep_text(sql.clone()),
            violations: rows.len() as i64,
        });
    }
    session.rollback().await?;
    Ok(out)
}
