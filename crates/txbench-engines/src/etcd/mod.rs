//! etcd (`etcd://host:port[,host:port...]`), a Raft-replicated key-value
//! store, for key-value workloads (Retwis, YCSB), on the etcd-client crate.
//! Built with the `etcd` feature only: etcd-client's build compiles etcd's
//! protocol definitions with protoc.
//!
//! Sessions are spread over the members round-robin, each with its own
//! connection to one member (as etcd's own benchmark tool spreads its
//! clients); a session whose member dies, or has lost its leader, moves to
//! the next member that answers when the driver reconnects it. Every request
//! requires a leader, so a member cut off from the quorum answers at once
//! rather than waiting out a timeout.
//!
//! Reads are linearizable (etcd's default: served once the member has caught
//! up with the leader's commit index); `?serializable=true` makes them
//! member-local, possibly stale. Transactions are optimistic
//! (the `transaction` module); outside one, a single-record write that
//! gives the whole row is one Txn (the `session` module). The `layout`
//! module says where rows live.

mod layout;
mod session;
mod target;
mod transaction;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use etcd_client::{Certificate, Client, ConnectOptions, Identity, TlsOptions};
use txbench_core::schema::Schema;
use txbench_core::{DbError, Engine, ErrorKind};

pub use session::EtcdSession;
pub use target::{EtcdTarget, TlsFiles};

use crate::redact::redact;

/// How long connecting to a member may take before it counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a request may take: past it the member counts as unavailable
/// (an election after a leader's loss takes about a second by default).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long the compaction after a load may take (a million keys on three
/// members of a 2-core machine take more than the request timeout).
const COMPACTION_TIMEOUT: Duration = Duration::from_secs(600);

/// The etcd engine.
#[derive(Clone)]
pub struct EtcdEngine {
    target: Arc<EtcdTarget>,
    options: ConnectOptions,
    /// The member the next session connects to (modulo their number).
    next: Arc<AtomicUsize>,
}

impl std::fmt::Debug for EtcdEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("EtcdEngine")
            .field(&self.target.display)
            .finish()
    }
}

impl EtcdEngine {
    /// An engine for a parsed target (its TLS files read now, so that a
    /// missing one is named before any work).
    pub fn new(target: EtcdTarget) -> Result<EtcdEngine, DbError> {
        let mut options = ConnectOptions::new()
            .with_connect_timeout(CONNECT_TIMEOUT)
            .with_timeout(REQUEST_TIMEOUT)
            .with_require_leader(true);
        if let Some((user, password)) = &target.user {
            options = options.with_user(user.clone(), password.clone());
        }
        if let Some(files) = &target.tls {
            options = options.with_tls(tls_options(files)?);
        }
        Ok(EtcdEngine {
            target: Arc::new(target),
            options,
            next: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// A client of the member after the last one a session took.
    async fn connect_next(&self) -> Result<(Client, usize), DbError> {
        let endpoints = &self.target.endpoints;
        let first = self.next.fetch_add(1, Ordering::Relaxed);
        self.connect_from(first % endpoints.len()).await
    }

    /// A client of the first member from `start` on (round the list) that
    /// answers; the last one's error when none does.
    async fn connect_from(&self, start: usize) -> Result<(Client, usize), DbError> {
        let endpoints = &self.target.endpoints;
        let mut last = None;
        for i in (0..endpoints.len()).map(|i| (start + i) % endpoints.len()) {
            match self.connect_member(i).await {
                Ok(client) => return Ok((client, i)),
                Err(e) => last = Some(e),
            }
        }
        Err(last.expect("a target has an endpoint"))
    }

    /// A client of member `i`, once it answered a status request.
    async fn connect_member(&self, i: usize) -> Result<Client, DbError> {
        self.connect_member_waiting(i, REQUEST_TIMEOUT).await
    }

    /// A client of member `i` whose requests may take up to `timeout`.
    async fn connect_member_waiting(&self, i: usize, timeout: Duration) -> Result<Client, DbError> {
        let endpoint = &self.target.endpoints[i];
        let named = |e: etcd_client::Error| {
            let mut err = classify(e);
            err.message = redact(&format!(
                "connecting to etcd at {endpoint}: {}",
                err.message
            ));
            err
        };
        let options = self.options.clone().with_timeout(timeout);
        let mut client = Client::connect([endpoint], Some(options))
            .await
            .map_err(named)?;
        client.status().await.map_err(named)?;
        Ok(client)
    }
}

/// The TLS settings of `files`, read from disk.
fn tls_options(files: &TlsFiles) -> Result<TlsOptions, DbError> {
    let read = |path: &std::path::Path| {
        std::fs::read(path).map_err(|e| {
            DbError::new(
                ErrorKind::Other,
                format!("etcd TLS: cannot read {}: {e}", path.display()),
            )
        })
    };
    let mut tls = TlsOptions::new().ca_certificate(Certificate::from_pem(read(&files.ca)?));
    if let Some((cert, key)) = &files.identity {
        tls = tls.identity(Identity::from_pem(read(cert)?, read(key)?));
    }
    Ok(tls)
}

impl Engine for EtcdEngine {
    fn key_value_only(&self) -> bool {
        true
    }

    type Session = EtcdSession;
    const BLOCKING: bool = false;

    fn can_hold(&self, schema: &Schema) -> Result<(), DbError> {
        crate::kv_store::can_hold(session::ENGINE, schema)
    }

    fn name(&self) -> &'static str {
        "etcd"
    }

    fn describe(&self) -> String {
        self.target.display.clone()
    }

    async fn connect(&self) -> Result<EtcdSession, DbError> {
        let (client, member) = self.connect_next().await?;
        Ok(EtcdSession::new(self.clone(), client, member))
    }
}

/// Map an etcd-client error into txbench's classification:
///
/// * unreachable, leaderless, timed out or overloaded: the member is
///   unavailable (the driver reconnects, to the next member, and retries);
/// * a snapshot revision compacted away, or not yet applied by a member
///   behind the leader: a conflict, retried with a new snapshot;
/// * anything else (a refused request, a full database) stays itself.
fn classify(e: etcd_client::Error) -> DbError {
    use etcd_client::Error;
    use tonic::Code;
    let kind = match &e {
        Error::TransportError(_) | Error::IoError(_) => ErrorKind::Connection,
        Error::GRpcStatus(s) => match s.code() {
            Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled | Code::Unknown => {
                ErrorKind::Connection
            }
            Code::ResourceExhausted if !s.message().contains("space") => ErrorKind::Connection,
            Code::OutOfRange => ErrorKind::Conflict,
            _ => ErrorKind::Other,
        },
        _ => ErrorKind::Other,
    };
    DbError::new(kind, redact(&e.to_string()))
}

/// Whether `e` is an answer of the server whose message says `what`: "future
/// revision" (a member behind the snapshot), "compacted" (a revision
/// compacted away).
fn status_says(e: &etcd_client::Error, what: &str) -> bool {
    matches!(e, etcd_client::Error::GRpcStatus(s) if s.message().contains(what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use etcd_client::Error;
    use tonic::{Code, Status};

    #[test]
    fn unavailable_members_and_stale_snapshots_are_retried_as_such() {
        let status = |code, msg: &str| Error::GRpcStatus(Status::new(code, msg));
        for (e, kind) in [
            (
                status(Code::Unavailable, "etcdserver: no leader"),
                ErrorKind::Connection,
            ),
            (
                status(Code::Unavailable, "etcdserver: leader changed"),
                ErrorKind::Connection,
            ),
            (
                status(Code::DeadlineExceeded, "deadline"),
                ErrorKind::Connection,
            ),
            (
                status(Code::ResourceExhausted, "etcdserver: too many requests"),
                ErrorKind::Connection,
            ),
            (
                status(
                    Code::ResourceExhausted,
                    "etcdserver: mvcc: database space exceeded",
                ),
                ErrorKind::Other,
            ),
            (
                status(
                    Code::OutOfRange,
                    "etcdserver: mvcc: required revision has been compacted",
                ),
                ErrorKind::Conflict,
            ),
            (
                status(
                    Code::InvalidArgument,
                    "etcdserver: too many operations in txn request",
                ),
                ErrorKind::Other,
            ),
            (
                status(Code::PermissionDenied, "etcdserver: permission denied"),
                ErrorKind::Other,
            ),
        ] {
            let shown = e.to_string();
            assert_eq!(classify(e).kind, kind, "{shown}");
        }
        assert!(status_says(
            &status(
                Code::OutOfRange,
                "etcdserver: mvcc: required revision is a future revision"
            ),
            "future revision"
        ));
    }
}
