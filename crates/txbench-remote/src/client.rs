//! `txbench://host:port`: the client of a txbench transaction server
//! (`txbench serve`), which executes whole transactions next to its database.
//!
//! Sessions share TCP connections, [`SESSIONS_PER_CONNECTION`] to a connection:
//! each connection has a writer task that batches requests into the socket and a
//! reader task that hands each response to the session waiting for its id, so
//! many requests are in flight per connection and answers may come in any order.
//! The wire format is in [`crate::protocol`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::stream::SplitStream;
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::{Framed, LengthDelimitedCodec};
use txbench_core::schema::Statement;
use txbench_core::{
    DbError, Engine, ErrorKind, Execution, NoLoader, Outcome, Param, Rows, Session, TxMode,
};

use crate::protocol::{self, ClientMessage, MAGIC, ServerMessage, Status, VERSION};

/// Sessions that share one connection before another is opened.
pub const SESSIONS_PER_CONNECTION: usize = 8;

/// A parsed `txbench://` target.
#[derive(Clone, PartialEq, Eq)]
pub struct RemoteTarget {
    /// `host:port`.
    pub addr: String,
    /// The server's token: `?token=` in the URL, else `TXBENCH_TOKEN`.
    token: Option<String>,
    /// The URL without the token, for output.
    pub display: String,
}

/// Shows only the URL without its token, so that no `{:?}` can leak it.
impl std::fmt::Debug for RemoteTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RemoteTarget").field(&self.display).finish()
    }
}

impl RemoteTarget {
    /// Parse `txbench://host:port[?token=T]`.
    pub fn parse(url: &str) -> Result<RemoteTarget, String> {
        let rest = url
            .strip_prefix("txbench://")
            .ok_or_else(|| "invalid txbench URL: expected txbench://host:port".to_string())?;
        let (addr, query) = rest.split_once('?').unwrap_or((rest, ""));
        let addr = addr.trim_end_matches('/');
        let display = format!("txbench://{addr}");
        let port_ok = addr
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
        if !port_ok {
            return Err(format!(
                "invalid txbench URL '{display}': expected txbench://host:port"
            ));
        }
        let mut token = std::env::var("TXBENCH_TOKEN")
            .ok()
            .filter(|t| !t.is_empty());
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("token", t)) => token = Some(t.to_string()),
                _ => {
                    return Err(format!(
                        "invalid txbench URL '{display}': unknown option '{}' (known: token)",
                        pair.split('=').next().unwrap_or(pair)
                    ));
                }
            }
        }
        Ok(RemoteTarget {
            addr: addr.to_string(),
            token,
            display,
        })
    }
}

/// The client engine of a txbench server.
pub struct RemoteEngine {
    target: RemoteTarget,
    /// The workload the client drives, named in the handshake so that a
    /// server serving another one refuses it.
    workload: Option<&'static str>,
    /// Weak: a connection closes when the last session using it is dropped
    /// (a sweep's steps each connect their own sessions).
    connections: tokio::sync::Mutex<Vec<Weak<Connection>>>,
    sessions: AtomicUsize,
}

impl RemoteEngine {
    /// An engine for one server, for `workload` (named in the handshake;
    /// `None`: whatever the server serves).
    pub fn new(target: RemoteTarget, workload: Option<&'static str>) -> Self {
        RemoteEngine {
            target,
            workload,
            connections: tokio::sync::Mutex::new(Vec::new()),
            sessions: AtomicUsize::new(0),
        }
    }

    /// A live connection for session number `n`: shared with its neighbours, a
    /// new one when its slot is empty or its connection died.
    async fn connection(&self, n: usize) -> Result<Arc<Connection>, DbError> {
        let slot = n / SESSIONS_PER_CONNECTION;
        let mut connections = self.connections.lock().await;
        if let Some(c) = connections
            .get(slot)
            .and_then(Weak::upgrade)
            .filter(|c| c.alive())
        {
            return Ok(c);
        }
        let fresh = Connection::open(&self.target, self.workload).await?;
        if slot < connections.len() {
            connections[slot] = Arc::downgrade(&fresh);
        } else {
            connections.resize(slot, Weak::new());
            connections.push(Arc::downgrade(&fresh));
        }
        Ok(fresh)
    }
}

type Waiting = oneshot::Sender<(Status, u64)>;

/// One TCP connection to the server, shared by several sessions.
/// Dropping it ends the writer task, which shuts the socket down; the reader
/// task then sees the server close.
struct Connection {
    requests: mpsc::UnboundedSender<bytes::Bytes>,
    waiting: Arc<Mutex<HashMap<u64, Waiting>>>,
    next_id: AtomicU64,
    alive: Arc<AtomicBool>,
    parameters: Vec<(String, String)>,
}

fn lost(target: &str, what: impl std::fmt::Display) -> DbError {
    DbError::new(ErrorKind::Connection, format!("{target}: {what}"))
}

/// Send Hello, naming the workload, and read the server's answer: its
/// parameters when it welcomes a client of this protocol version.
async fn handshake(
    framed: &mut Framed<TcpStream, LengthDelimitedCodec>,
    target: &RemoteTarget,
    workload: Option<&'static str>,
) -> Result<Vec<(String, String)>, DbError> {
    let who = &target.display;
    let hello = ClientMessage::Hello {
        magic: MAGIC,
        version: VERSION,
        workload: workload.map(String::from),
        token: target.token.clone(),
    };
    framed
        .send(protocol::encode(&hello))
        .await
        .map_err(|e| lost(who, e))?;
    let frame = tokio::time::timeout(Duration::from_secs(10), framed.next())
        .await
        .map_err(|_| lost(who, "no handshake within 10 s"))?
        .ok_or_else(|| lost(who, "the server closed the connection during the handshake"))?
        .map_err(|e| lost(who, e))?;
    match protocol::decode::<ServerMessage>(&frame) {
        Ok(ServerMessage::Welcome {
            version,
            parameters,
            ..
        }) if version == VERSION => Ok(parameters),
        Ok(ServerMessage::Welcome { version, .. }) => Err(DbError::new(
            ErrorKind::Other,
            format!("{who} speaks protocol version {version}; this txbench speaks {VERSION}"),
        )),
        // Refused (bad token, other version): not worth reconnecting for.
        Ok(ServerMessage::Refused { reason }) => Err(DbError::new(
            ErrorKind::Other,
            format!("{who} refused: {reason}"),
        )),
        Ok(other) => Err(lost(who, format!("unexpected handshake answer {other:?}"))),
        Err(e) => Err(lost(who, e)),
    }
}

/// The reader: each response to the session waiting for its id, until the
/// connection ends; then every waiting session wakes with an error.
async fn read_responses(
    mut stream: SplitStream<Framed<TcpStream, LengthDelimitedCodec>>,
    waiting: Arc<Mutex<HashMap<u64, Waiting>>>,
    alive: Arc<AtomicBool>,
) {
    while let Some(Ok(frame)) = stream.next().await {
        match protocol::decode::<ServerMessage>(&frame) {
            Ok(ServerMessage::Response {
                id,
                status,
                server_us,
                ..
            }) => {
                let waiter = waiting.lock().expect("waiting lock").remove(&id);
                if let Some(w) = waiter {
                    let _ = w.send((status, server_us));
                }
            }
            _ => break,
        }
    }
    // Dropping the senders wakes every waiting session with an error.
    alive.store(false, Ordering::SeqCst);
    waiting.lock().expect("waiting lock").clear();
}

impl Connection {
    fn alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Connect, shake hands, and start the writer and reader tasks.
    async fn open(
        target: &RemoteTarget,
        workload: Option<&'static str>,
    ) -> Result<Arc<Connection>, DbError> {
        let who = &target.display;
        let stream =
            tokio::time::timeout(Duration::from_secs(10), TcpStream::connect(&target.addr))
                .await
                .map_err(|_| lost(who, "no answer within 10 s"))?
                .map_err(|e| lost(who, e))?;
        stream.set_nodelay(true).map_err(|e| lost(who, e))?;
        let mut framed = Framed::new(stream, protocol::codec());
        let parameters = handshake(&mut framed, target, workload).await?;
        let (sink, stream) = framed.split();
        let (requests, outgoing) = mpsc::unbounded_channel::<bytes::Bytes>();
        let conn = Arc::new(Connection {
            requests,
            waiting: Arc::new(Mutex::new(HashMap::new())),
            next_id: AtomicU64::new(1),
            alive: Arc::new(AtomicBool::new(true)),
            parameters,
        });
        tokio::spawn(protocol::write_frames(sink, outgoing));
        let (waiting, alive) = (Arc::clone(&conn.waiting), Arc::clone(&conn.alive));
        tokio::spawn(read_responses(stream, waiting, alive));
        Ok(conn)
    }

    /// Send one request and wait for its response.
    async fn call(
        &self,
        who: &str,
        txn_type: usize,
        input: Vec<u8>,
    ) -> Result<(Status, u64), DbError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().expect("waiting lock").insert(id, tx);
        // After the insert: a reader that died before it cleared the map first.
        if !self.alive() {
            self.waiting.lock().expect("waiting lock").remove(&id);
            return Err(lost(who, "the connection to the server is closed"));
        }
        let request = ClientMessage::Request {
            id,
            txn_type: u16::try_from(txn_type).map_err(|_| {
                DbError::new(ErrorKind::Other, format!("transaction type {txn_type}"))
            })?,
            input,
        };
        if self.requests.send(protocol::encode(&request)).is_err() {
            self.waiting.lock().expect("waiting lock").remove(&id);
            return Err(lost(who, "the connection to the server is closed"));
        }
        rx.await
            .map_err(|_| lost(who, "the server closed the connection"))
    }
}

impl Engine for RemoteEngine {
    type Session = RemoteSession;
    const BLOCKING: bool = false;

    fn name(&self) -> &'static str {
        "txbench"
    }

    fn describe(&self) -> String {
        self.target.display.clone()
    }

    async fn connect(&self) -> Result<RemoteSession, DbError> {
        let n = self.sessions.fetch_add(1, Ordering::Relaxed);
        Ok(RemoteSession {
            conn: self.connection(n).await?,
            target: self.target.clone(),
            workload: self.workload,
        })
    }
}

/// A session on a txbench server: it runs whole transactions, nothing else.
pub struct RemoteSession {
    conn: Arc<Connection>,
    target: RemoteTarget,
    workload: Option<&'static str>,
}

fn statements_refused() -> DbError {
    DbError::new(
        ErrorKind::Other,
        "a txbench server runs whole transactions only: load and check its database \
         through the database's own URL (or let `txbench serve` load it)",
    )
}

impl Session for RemoteSession {
    const EXECUTION: Execution = Execution::ServedTransactions;
    /// Tables are the server's: a load goes through the database's own URL,
    /// or `txbench serve` makes it.
    type Loader = NoLoader;

    fn loader(&mut self) -> Option<&mut NoLoader> {
        None
    }

    async fn run_transaction<I: serde::Serialize + Sync>(
        &mut self,
        txn_type: usize,
        _info: &txbench_core::TxnTypeInfo,
        input: &I,
    ) -> Result<(Outcome, Duration), DbError> {
        let bytes = postcard::to_stdvec(input)
            .map_err(|e| DbError::new(ErrorKind::Other, format!("encoding the input: {e}")))?;
        let (status, server_us) = self
            .conn
            .call(&self.target.display, txn_type, bytes)
            .await?;
        let server = Duration::from_micros(server_us);
        match status {
            Status::Committed => Ok((Outcome::Committed, server)),
            Status::ExpectedRollback => Ok((Outcome::ExpectedRollback, server)),
            Status::Error { kind, message } => Err(DbError::new(
                ErrorKind::from_name(&kind),
                format!("server: {message}"),
            )),
        }
    }

    fn served_parameters(&self) -> Option<&[(String, String)]> {
        Some(&self.conn.parameters)
    }

    async fn server_version(&mut self) -> Result<String, DbError> {
        let p = &self.conn.parameters;
        let get = |k: &str| p.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
        Ok(format!(
            "txbench server {} on {}",
            get("txbench_version").unwrap_or("?"),
            get("server_version").unwrap_or("?")
        ))
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        // A connection of its own: the shared one is gone.
        self.conn = Connection::open(&self.target, self.workload).await?;
        Ok(())
    }

    async fn begin(&mut self, _: TxMode) -> Result<(), DbError> {
        Err(statements_refused())
    }
    async fn commit(&mut self) -> Result<(), DbError> {
        Err(statements_refused())
    }
    async fn rollback(&mut self) -> Result<(), DbError> {
        // Nothing is open on this side: the server ends its own transactions.
        Ok(())
    }
    async fn query(&mut self, _: &'static Statement, _: &[Param<'_>]) -> Result<Rows, DbError> {
        Err(statements_refused())
    }
    async fn execute(&mut self, _: &'static Statement, _: &[Param<'_>]) -> Result<u64, DbError> {
        Err(statements_refused())
    }
    async fn query_sql(&mut self, _: &str) -> Result<Rows, DbError> {
        Err(statements_refused())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_need_host_and_port_and_hide_the_token() {
        let t = RemoteTarget::parse("txbench://127.0.0.1:7077?token=s3cret").unwrap();
        assert_eq!(t.addr, "127.0.0.1:7077");
        assert_eq!(t.token.as_deref(), Some("s3cret"));
        assert!(!t.display.contains("s3cret"));
        for bad in [
            "txbench://127.0.0.1",
            "txbench://:7077",
            "txbench://h:99999",
            "txbench://h:1?x=1",
        ] {
            let e = RemoteTarget::parse(bad).unwrap_err();
            assert!(e.contains("txbench"), "{bad}: {e}");
        }
    }
}
