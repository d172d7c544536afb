//! `KILL QUERY`: how a MySQL statement in progress is stopped from
//! elsewhere. Dropping the future that awaits it does not: the server runs
//! it to its end.

use std::sync::{Arc, Mutex};

use mysql_async::prelude::Queryable;
use txbench_core::interrupt::{Interrupt, Pending};

use super::{CONNECT_TIMEOUT, Shared, connect};

/// The connection a session has now: its node and the server's id for it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Current {
    pub(super) node: usize,
    pub(super) id: u32,
}

/// A session's interrupt handle: kills the statement of whatever connection
/// the session has now (a reconnect or a failover replaces it), from a
/// connection of its own to the same node.
pub(super) struct MyInterrupt {
    pub(super) shared: Arc<Shared>,
    pub(super) current: Arc<Mutex<Current>>,
}

impl Interrupt for MyInterrupt {
    fn interrupt(&self) -> Pending {
        let current = *self.current.lock().expect("current connection lock");
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            // A node that does not answer has nothing running for us.
            let Ok(mut conn) = connect(&shared.nodes[current.node], CONNECT_TIMEOUT).await else {
                return;
            };
            let _ = conn.query_drop(format!("KILL QUERY {}", current.id)).await;
            let _ = conn.disconnect().await;
        })
    }
}
