//! Opening a workload on a session, the same for every workload: its scale is
//! what a txbench server says it serves, what the command asks of an engine
//! that holds no data, or what the load recorded in the database; a scale the
//! command asks for must agree with it.

use txbench_core::{Execution, Session, WholeTransactions};

use crate::error::WorkloadError;
use crate::meta_table::{Loaded, MetaTable};

/// Where an opened workload's scale and recorded constants came from.
#[derive(Debug, Clone, PartialEq)]
pub enum Found {
    /// A txbench server's handshake.
    Served(Vec<(String, String)>),
    /// An engine that holds no data: the command's scale (or the default).
    Nothing,
    /// The load's record in the database.
    Loaded(Loaded),
}

impl Found {
    /// Whether the server said or the load recorded `key`.
    pub fn has(&self, key: &str) -> bool {
        match self {
            Found::Served(served) => served.iter().any(|(k, _)| k == key),
            Found::Nothing => false,
            Found::Loaded(loaded) => loaded.entries.has(key),
        }
    }

    /// The text the server said or the load recorded for `key`.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self {
            Found::Served(served) => served
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str()),
            Found::Nothing => None,
            Found::Loaded(loaded) => loaded.entries.text(key),
        }
    }

    /// An integer the server said or the load recorded (`None` when neither did).
    pub fn int(&self, key: &str) -> Result<Option<i64>, WorkloadError> {
        Ok(match self {
            Found::Served(served) => served
                .iter()
                .find(|(k, _)| k == key)
                .and_then(|(_, v)| v.parse().ok()),
            Found::Nothing => None,
            Found::Loaded(loaded) => loaded.entries.int(key)?,
        })
    }
}

/// What the txbench server behind a session said of its workload in the
/// handshake; `None` for any other session.
pub(crate) fn served_parameters<S: Session>(session: &mut S) -> Option<&[(String, String)]> {
    session
        .whole_transactions()
        .and_then(|whole| whole.served_parameters())
}

/// The value the txbench server behind a session gave `key` in the
/// handshake; `None` for any other session, or a key it did not give.
pub(crate) fn served_value<'s, S: Session>(session: &'s mut S, key: &str) -> Option<&'s str> {
    let served = served_parameters(session)?;
    served
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// The scale of `meta`'s workload on this session, checked against `asked`,
/// and where it was found.
pub async fn find<S: Session>(
    session: &mut S,
    meta: &'static MetaTable,
    asked: Option<i64>,
) -> Result<(i64, Found), WorkloadError> {
    let about = meta.about;
    let agree = |loaded: i64| match asked {
        Some(asked) if asked != loaded => Err(WorkloadError::ScaleMismatch {
            about,
            asked,
            loaded,
        }),
        _ => Ok(()),
    };
    if let Some(served) = served_parameters(session) {
        let get = |key: &str| served.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        match get("workload") {
            Some(name) if name == about.name => {}
            other => {
                return Err(WorkloadError::WrongServer {
                    about,
                    served: other.map_or("an unknown workload".into(), Clone::clone),
                });
            }
        }
        let scale = get(about.scale.unit)
            .and_then(|v| v.parse::<i64>().ok())
            .filter(|&n| n >= 1)
            .ok_or(WorkloadError::Incomplete(about))?;
        agree(scale)?;
        return Ok((scale, Found::Served(served.to_vec())));
    }
    if session.execution() == Execution::Dataless {
        let scale = asked.unwrap_or(about.scale.default);
        if scale < 1 {
            return Err(WorkloadError::BadScale {
                about,
                value: scale,
            });
        }
        return Ok((scale, Found::Nothing));
    }
    let loaded = meta
        .read(session)
        .await?
        .ok_or(WorkloadError::NotLoaded(about))?;
    if !loaded.complete || loaded.scale < 1 {
        return Err(WorkloadError::Incomplete(about));
    }
    agree(loaded.scale)?;
    record_holds(session, meta, &loaded).await?;
    Ok((loaded.scale, Found::Loaded(loaded)))
}

/// Refuse a record that no longer describes the data: a table it names
/// made again by another tool since, or a scale the rows contradict.
pub async fn record_holds<S: Session>(
    session: &mut S,
    meta: &'static MetaTable,
    loaded: &Loaded,
) -> Result<(), WorkloadError> {
    if let Some(table) = crate::ownership::first_replaced(session, meta, &loaded.entries).await? {
        return Err(WorkloadError::Replaced {
            about: meta.about,
            table,
        });
    }
    held_as_recorded(session, meta, loaded.scale).await
}

/// Refuse a record the data contradicts: the rows of the table the scale
/// is counted from against the recorded scale (`pgbench -i -s 3` over
/// txbench's scale 2 would otherwise run scale 2 on scale 3's data).
async fn held_as_recorded<S: Session>(
    session: &mut S,
    meta: &'static MetaTable,
    recorded: i64,
) -> Result<(), WorkloadError> {
    // A sharded key-value store runs scripts, and counts no rows.
    let counts = !meta.count_varies && session.execution() == Execution::Statements;
    let Some(count) = meta.count.filter(|_| counts) else {
        return Ok(());
    };
    let held = MetaTable::counted(session, count).await?;
    if held == recorded {
        return Ok(());
    }
    Err(WorkloadError::StaleRecord {
        about: meta.about,
        recorded,
        held,
        table: meta.data.name,
    })
}
