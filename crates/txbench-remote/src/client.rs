//! `txbench://host:port`: the client of a txbench transaction server
//! (`txbench serve`), which executes whole transactions next to its database.
//!
//! Sessions share TCP connections, [`SESSIONS_PER_CONNECTION`] to a connection:
//! each connection has a writer task that batches requests into the socket and a
//! reader task that hands each response to the session waiting for its id, so
//! many requests are in flight per connection and answers may come in any order.
//! The wire format is in [`crate::protocol`].
//!
//! With kernel timestamps on ([`RemoteEngine::with_timestamps`]), each
//! connection's socket is stamped ([`txbench_wire`]): a request's frame ends
//! at a known byte offset of those written and its response's at one of those
//! read, so each transaction's time on the wire is the kernel's stamp of the
//! response's last byte arriving less that of the request's last byte leaving.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures_util::stream::SplitStream;
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot};
use tokio_util::codec::{Framed, LengthDelimitedCodec};
use txbench_core::schema::Statement;
use txbench_core::{
    DbError, Engine, ErrorKind, Execution, NoLoader, Outcome, Param, Rows, Session, TxMode,
    TxnInput, WholeTransactions,
};
use txbench_wire::{StampedStream, Wire, WireLog};

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

/// Why a `txbench://` URL is refused; the token is never in its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Another scheme.
    #[error("invalid txbench URL: expected txbench://host:port")]
    NotTxbench,
    /// No host, or no port.
    #[error("invalid txbench URL '{0}': expected txbench://host:port")]
    NoPort(String),
    /// A query option other than the token.
    #[error("invalid txbench URL '{display}': unknown option '{option}' (known: token)")]
    UnknownOption {
        /// The URL without its query.
        display: String,
        /// The option's name.
        option: String,
    },
}

impl RemoteTarget {
    /// Parse `txbench://host:port[?token=T]`.
    pub fn parse(url: &str) -> Result<RemoteTarget, UrlError> {
        let rest = url.strip_prefix("txbench://").ok_or(UrlError::NotTxbench)?;
        let (addr, query) = rest.split_once('?').unwrap_or((rest, ""));
        let addr = addr.trim_end_matches('/');
        let display = format!("txbench://{addr}");
        let port_ok = addr
            .rsplit_once(':')
            .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
        if !port_ok {
            return Err(UrlError::NoPort(display));
        }
        let mut token = std::env::var("TXBENCH_TOKEN")
            .ok()
            .filter(|t| !t.is_empty());
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("token", t)) => token = Some(t.to_string()),
                _ => {
                    let option = pair.split('=').next().unwrap_or(pair).to_string();
                    return Err(UrlError::UnknownOption { display, option });
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
    /// Whether connections read the kernel's timestamps of their bytes.
    timestamps: bool,
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
            timestamps: false,
        }
    }

    /// Stamp every connection's bytes in the kernel, for each transaction's
    /// time on the wire ([`Session::take_wire`]).
    pub fn with_timestamps(mut self, on: bool) -> Self {
        self.timestamps = on;
        self
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
        let fresh = Connection::open(&self.target, self.workload, self.timestamps).await?;
        if slot < connections.len() {
            connections[slot] = Arc::downgrade(&fresh);
        } else {
            connections.resize(slot, Weak::new());
            connections.push(Arc::downgrade(&fresh));
        }
        Ok(fresh)
    }
}

/// A response as its session gets it: how the transaction ended, the
/// server's time, and the time on the wire where the connection is stamped.
type Answer = (Status, u64, Option<Wire>);

/// A session waiting for its response, and the offset of its request's last
/// byte among those written (on a stamped connection).
struct Waiting {
    to: oneshot::Sender<Answer>,
    request_last_byte: Option<u64>,
}

type WaitingById = Arc<Mutex<HashMap<u64, Waiting>>>;

/// One TCP connection to the server, shared by several sessions.
/// Dropping it ends the writer task, which shuts the socket down; the reader
/// task then sees the server close.
struct Connection {
    requests: mpsc::UnboundedSender<bytes::Bytes>,
    waiting: WaitingById,
    next_id: AtomicU64,
    alive: Arc<AtomicBool>,
    parameters: Vec<(String, String)>,
    /// On a stamped connection: the bytes queued for the writer so far (the
    /// next frame's offset), held while a frame is queued so that offsets
    /// follow the queue's order.
    queued: Option<Mutex<u64>>,
}

fn lost(target: &str, what: impl std::fmt::Display) -> DbError {
    DbError::new(ErrorKind::Connection, format!("{target}: {what}"))
}

/// Send Hello, naming the workload, and read the server's answer: its
/// parameters when it welcomes a client of this protocol version, and the
/// bytes the Hello and the Welcome took (written, read).
async fn handshake<S: AsyncRead + AsyncWrite + Unpin>(
    framed: &mut Framed<S, LengthDelimitedCodec>,
    target: &RemoteTarget,
    workload: Option<&'static str>,
) -> Result<(Vec<(String, String)>, (u64, u64)), DbError> {
    let who = &target.display;
    let hello = ClientMessage::Hello {
        magic: MAGIC,
        version: VERSION,
        workload: workload.map(String::from),
        token: target.token.clone(),
    };
    let hello = protocol::encode(&hello);
    let written = FRAME_HEADER + hello.len() as u64;
    framed.send(hello).await.map_err(|e| lost(who, e))?;
    let frame = tokio::time::timeout(Duration::from_secs(10), framed.next())
        .await
        .map_err(|_| lost(who, "no handshake within 10 s"))?
        .ok_or_else(|| lost(who, "the server closed the connection during the handshake"))?
        .map_err(|e| lost(who, e))?;
    let read = FRAME_HEADER + frame.len() as u64;
    match protocol::decode::<ServerMessage>(&frame) {
        Ok(ServerMessage::Welcome {
            version,
            parameters,
            ..
        }) if version == VERSION => Ok((parameters, (written, read))),
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

/// The bytes of a frame's length prefix, as offsets count them.
const FRAME_HEADER: u64 = protocol::FRAME_HEADER as u64;

/// The reader: each response to the session waiting for its id, until the
/// connection ends; then every waiting session wakes with an error. On a
/// stamped connection (`wire`), `read` counts the bytes read so far, so that
/// each response's last byte is found among the stamped reads.
async fn read_responses<S: AsyncRead + AsyncWrite>(
    mut stream: SplitStream<Framed<S, LengthDelimitedCodec>>,
    waiting: WaitingById,
    alive: Arc<AtomicBool>,
    (wire, mut read): (Option<Arc<Mutex<WireLog>>>, u64),
) {
    while let Some(Ok(frame)) = stream.next().await {
        read += FRAME_HEADER + frame.len() as u64;
        match protocol::decode::<ServerMessage>(&frame) {
            Ok(ServerMessage::Response {
                id,
                status,
                server_us,
                ..
            }) => {
                let waiter = waiting.lock().expect("waiting lock").remove(&id);
                if let Some(w) = waiter {
                    let on_wire = wire
                        .as_ref()
                        .zip(w.request_last_byte)
                        .and_then(|(log, sent)| {
                            log.lock().expect("wire log lock").exchange(sent, read - 1)
                        });
                    let _ = w.to.send((status, server_us, on_wire));
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

    /// Connect, stamp the socket if asked, shake hands, and start the
    /// writer and reader tasks.
    async fn open(
        target: &RemoteTarget,
        workload: Option<&'static str>,
        timestamps: bool,
    ) -> Result<Arc<Connection>, DbError> {
        let who = &target.display;
        let stream =
            tokio::time::timeout(Duration::from_secs(10), TcpStream::connect(&target.addr))
                .await
                .map_err(|_| lost(who, "no answer within 10 s"))?
                .map_err(|e| lost(who, e))?;
        stream.set_nodelay(true).map_err(|e| lost(who, e))?;
        if !timestamps {
            return Connection::start(stream, target, workload, None).await;
        }
        // Before the first byte: the kernel's byte offsets count from it.
        let stamped = StampedStream::new(stream).map_err(|e| {
            DbError::new(
                ErrorKind::Other,
                format!("{who}: the socket cannot take kernel timestamps: {e}"),
            )
        })?;
        let log = stamped.log();
        Connection::start(stamped, target, workload, Some(log)).await
    }

    async fn start<S: AsyncRead + AsyncWrite + Send + Unpin + 'static>(
        stream: S,
        target: &RemoteTarget,
        workload: Option<&'static str>,
        wire: Option<Arc<Mutex<WireLog>>>,
    ) -> Result<Arc<Connection>, DbError> {
        let mut framed = Framed::new(stream, protocol::codec());
        let (parameters, (written, read)) = handshake(&mut framed, target, workload).await?;
        let (sink, stream) = framed.split();
        let (requests, outgoing) = mpsc::unbounded_channel::<bytes::Bytes>();
        let conn = Arc::new(Connection {
            requests,
            waiting: Arc::new(Mutex::new(HashMap::new())),
            next_id: AtomicU64::new(1),
            alive: Arc::new(AtomicBool::new(true)),
            parameters,
            queued: wire.is_some().then(|| Mutex::new(written)),
        });
        tokio::spawn(protocol::write_frames(sink, outgoing));
        let (waiting, alive) = (Arc::clone(&conn.waiting), Arc::clone(&conn.alive));
        tokio::spawn(read_responses(stream, waiting, alive, (wire, read)));
        Ok(conn)
    }

    /// Send one request and wait for its response.
    async fn call(&self, who: &str, txn_type: usize, input: Vec<u8>) -> Result<Answer, DbError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let request = ClientMessage::Request {
            id,
            txn_type: u16::try_from(txn_type).map_err(|_| {
                DbError::new(ErrorKind::Other, format!("transaction type {txn_type}"))
            })?,
            input,
        };
        let rx = self.queue(id, protocol::encode(&request)).ok_or_else(|| {
            self.waiting.lock().expect("waiting lock").remove(&id);
            lost(who, "the connection to the server is closed")
        })?;
        rx.await
            .map_err(|_| lost(who, "the server closed the connection"))
    }

    /// Queue a request's frame for the writer, its session waiting for the
    /// answer; `None` when the connection is closed.
    fn queue(&self, id: u64, frame: bytes::Bytes) -> Option<oneshot::Receiver<Answer>> {
        let (to, rx) = oneshot::channel();
        // Held until the frame is queued: offsets follow the queue's order.
        let mut queued = self.queued.as_ref().map(|q| q.lock().expect("queue lock"));
        let request_last_byte = queued
            .as_deref()
            .map(|q| q + FRAME_HEADER + frame.len() as u64 - 1);
        let waiting = Waiting {
            to,
            request_last_byte,
        };
        self.waiting
            .lock()
            .expect("waiting lock")
            .insert(id, waiting);
        // After the insert: a reader that died before it cleared the map first.
        if !self.alive() || self.requests.send(frame).is_err() {
            return None;
        }
        if let (Some(q), Some(last)) = (queued.as_deref_mut(), request_last_byte) {
            *q = last + 1;
        }
        Some(rx)
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
            timestamps: self.timestamps,
            wire: None,
        })
    }
}

/// A session on a txbench server: it runs whole transactions, nothing else.
pub struct RemoteSession {
    conn: Arc<Connection>,
    target: RemoteTarget,
    workload: Option<&'static str>,
    timestamps: bool,
    /// The last transaction's time on the wire, until taken.
    wire: Option<Wire>,
}

fn statements_refused() -> DbError {
    DbError::new(
        ErrorKind::Other,
        "a txbench server runs whole transactions only: load and check its database \
         through the database's own URL (or let `txbench serve` load it)",
    )
}

/// The server runs each transaction whole: the client sends its input.
impl WholeTransactions for RemoteSession {
    async fn run_transaction(
        &mut self,
        txn_type: usize,
        _info: &txbench_core::TxnTypeInfo,
        input: TxnInput<'_>,
    ) -> Result<(Outcome, Duration), DbError> {
        let bytes = postcard::to_stdvec(input)
            .map_err(|e| DbError::new(ErrorKind::Other, format!("encoding the input: {e}")))?;
        let (status, server_us, wire) = self
            .conn
            .call(&self.target.display, txn_type, bytes)
            .await?;
        self.wire = wire;
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
}

impl Session for RemoteSession {
    const EXECUTION: Execution = Execution::ServedTransactions;
    /// Tables are the server's: a load goes through the database's own URL,
    /// or `txbench serve` makes it.
    type Loader = NoLoader;
    type Whole = Self;

    fn loader(&mut self) -> Option<&mut NoLoader> {
        None
    }

    fn whole_transactions(&mut self) -> Option<&mut Self> {
        Some(self)
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

    fn take_wire(&mut self) -> Option<Wire> {
        self.wire.take()
    }

    async fn reconnect(&mut self) -> Result<(), DbError> {
        // A connection of its own: the shared one is gone.
        self.conn = Connection::open(&self.target, self.workload, self.timestamps).await?;
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
            assert!(e.to_string().contains("txbench"), "{bad}: {e}");
        }
    }
}
