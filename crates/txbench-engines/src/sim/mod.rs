//! The simulated engine (`--db 'sim:?service=fixed:4ms&workers=1'`): a server
//! whose truth is known. It answers every workload's transactions without
//! executing them, after a service time drawn from a known distribution, with
//! `workers` of them served at once and the rest queued first come first
//! served. Poisson arrivals against `service=fixed:D&workers=1` make an M/D/1
//! queue, `service=exp:D` an M/M/c one, so what txbench measures can be
//! compared with queueing theory; stalls, outages, errors and outcomes that
//! deviate from the workload's expectations test the checks that should catch
//! them.
//!
//! Like the null engine it holds no data (its sessions are the null engine's
//! [`Dataless`] ones): a load discards its rows, and the workloads take their
//! scale from the command line.

mod config;
mod server;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use txbench_core::workload::Outcome;
use txbench_core::{DbError, Engine, ErrorKind, TxnTypeInfo};

use crate::null::{Answer, Dataless};

pub use config::{Outage, Service, SimConfig, Stall};
use server::{Request, Server};

/// The simulated engine: one server, shared by every session.
pub struct SimEngine {
    config: Arc<SimConfig>,
    server: Arc<Server>,
}

impl SimEngine {
    /// Start the simulated server (its worker threads); the times of its
    /// stalls and outages count from now.
    pub fn new(config: SimConfig) -> Result<SimEngine, DbError> {
        let server = Server::start(&config, 0x5155_4D00).map_err(|e| {
            DbError::new(ErrorKind::Other, format!("sim: starting the server: {e}"))
        })?;
        Ok(SimEngine {
            config: Arc::new(config),
            server: Arc::new(server),
        })
    }
}

/// A session of the simulated engine: a line to the shared server.
pub type SimSession = Dataless<Line>;

/// What a session of the simulated engine holds: the shared server.
pub struct Line {
    server: Arc<Server>,
    config: Arc<SimConfig>,
}

impl Engine for SimEngine {
    type Session = SimSession;
    const BLOCKING: bool = false;

    fn name(&self) -> &'static str {
        "sim"
    }

    fn describe(&self) -> String {
        format!(
            "{} (simulated: answers, executes nothing)",
            self.config.display
        )
    }

    async fn connect(&self) -> Result<SimSession, DbError> {
        Ok(Dataless(Line {
            server: Arc::clone(&self.server),
            config: Arc::clone(&self.config),
        }))
    }
}

impl Answer for Line {
    fn version(&self) -> String {
        format!("simulated ({})", self.config.display)
    }

    async fn answer(&mut self, info: &TxnTypeInfo) -> Result<(Outcome, Duration), DbError> {
        let (reply, answer) = oneshot::channel();
        self.server.submit(Request {
            submitted: std::time::Instant::now(),
            success: self.config.success_of(info.key, info.expected_success),
            reply,
        })?;
        answer
            .await
            .map_err(|_| DbError::new(ErrorKind::Connection, "sim: the server has stopped"))?
    }

    fn reachable(&self) -> Result<(), DbError> {
        if self.server.is_down(std::time::Instant::now()) {
            return Err(server::down());
        }
        Ok(())
    }
}
