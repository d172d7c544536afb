//! The txbench transaction server: clients send whole transactions (the
//! workload's input structs, see [`txbench_remote::protocol`]) and the
//! server executes each with an ordinary engine session, the way a stored
//! procedure or an application tier in front of a database does.
//!
//! * Connections: one task each. It checks the handshake, decodes requests and
//!   queues them; a writer task of its own sends the responses as they finish,
//!   in any order.
//! * Workers: `workers` engine sessions, each on the executor its engine needs
//!   (an OS thread for SQLite, whose writers the engine serialises while WAL
//!   readers run in parallel), taking transactions from one bounded queue.
//! * Nothing a client sends can stop the server: bad frames get `Refused` and
//!   the connection closes; a bad input or a transaction that fails (or panics)
//!   gets an error response, and the worker goes on.
//! * Stopping drains: no new connections or requests, every queued transaction
//!   is answered, then the connections close.

use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use futures_util::{FutureExt, SinkExt, StreamExt};
use serde::de::DeserializeOwned;
use subtle::ConstantTimeEq;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio_util::codec::{Framed, LengthDelimitedCodec};
use txbench_core::{DbError, Engine, ErrorKind, Outcome, Session, Workload, Written, exec};
use txbench_remote::protocol::{self, ClientMessage, MAGIC, ServerMessage, Status, VERSION};

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Sessions executing transactions.
    pub workers: usize,
    /// The token clients must present in the handshake, if any.
    pub token: Option<String>,
    /// What the handshake tells clients: the workload, its scale and constants.
    pub parameters: Vec<(String, String)>,
}

/// What a server did, for its closing line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServeSummary {
    /// Connections accepted.
    pub connections: u64,
    /// Transactions committed.
    pub committed: u64,
    /// Transactions rolled back as the specification expects.
    pub expected_rollbacks: u64,
    /// Transactions that failed, requests that could not be decoded included.
    pub errors: u64,
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    committed: AtomicU64,
    expected_rollbacks: AtomicU64,
    errors: AtomicU64,
}

/// One transaction to execute, and where its response goes.
struct Job<I> {
    id: u64,
    input: I,
    reply: mpsc::UnboundedSender<Bytes>,
}

/// Serve `workload` from `engine` on `listener` until `stop` turns true; then
/// drain and return what was served.
pub async fn serve<E, W>(
    engine: Arc<E>,
    workload: Arc<W>,
    listener: TcpListener,
    opts: ServeOptions,
    mut stop: watch::Receiver<bool>,
) -> Result<ServeSummary, DbError>
where
    E: Engine,
    W: Workload,
    W::Input: DeserializeOwned,
{
    let workers = opts.workers.max(1);
    let counters = Arc::new(Counters::default());
    let (jobs, queue) = async_channel::bounded::<Job<W::Input>>(workers * 64);
    let pool = start_workers(&engine, &workload, workers, &queue, &counters).await?;
    drop(queue);
    let opts = Arc::new(opts);
    let types = workload.transaction_types().len();
    let mut connections = JoinSet::new();
    let mut accept_failures = 0u64;
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        accept_failed(&e, &mut accept_failures).await;
                        continue;
                    }
                };
                counters.connections.fetch_add(1, Ordering::Relaxed);
                connections.spawn(connection::<W::Input>(
                    stream,
                    peer,
                    Arc::clone(&opts),
                    workload.name(),
                    types,
                    jobs.clone(),
                    Arc::clone(&counters),
                    stop.clone(),
                ));
            }
            _ = stop.changed() => break,
        }
        // Reap finished connections as we go.
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    drop(jobs);
    while connections.join_next().await.is_some() {}
    for worker in pool {
        worker.join().await;
    }
    Ok(ServeSummary {
        connections: counters.connections.load(Ordering::Relaxed),
        committed: counters.committed.load(Ordering::Relaxed),
        expected_rollbacks: counters.expected_rollbacks.load(Ordering::Relaxed),
        errors: counters.errors.load(Ordering::Relaxed),
    })
}

/// A worker per session of `engine`, each executing the queued transactions.
async fn start_workers<E: Engine, W: Workload>(
    engine: &Arc<E>,
    workload: &Arc<W>,
    workers: usize,
    queue: &async_channel::Receiver<Job<W::Input>>,
    counters: &Arc<Counters>,
) -> Result<Vec<exec::Spawned<()>>, DbError> {
    let mut pool = Vec::with_capacity(workers);
    for _ in 0..workers {
        let session = engine.connect().await?;
        let worker = work(
            session,
            Arc::clone(workload),
            queue.clone(),
            Arc::clone(counters),
        );
        pool.push(exec::spawn(&**engine, "txbench-serve", worker));
    }
    Ok(pool)
}

/// A worker: execute queued transactions on one session until the queue closes.
async fn work<S: Session, W: Workload>(
    mut session: S,
    workload: Arc<W>,
    queue: async_channel::Receiver<Job<W::Input>>,
    counters: Arc<Counters>,
) {
    // What a transaction wrote stays on this side: the protocol carries no
    // acknowledged-work log (a client asking for one is refused).
    let mut written = Written::new();
    while let Ok(job) = queue.recv().await {
        let started = Instant::now();
        written.clear();
        let run = workload.execute_displayed(&mut session, &job.input, &mut written);
        let attempt = AssertUnwindSafe(run).catch_unwind().await;
        let mut output = Vec::new();
        let status = match attempt {
            Ok(Ok((Outcome::Committed, shown))) => {
                counters.committed.fetch_add(1, Ordering::Relaxed);
                output = shown;
                Status::Committed
            }
            Ok(Ok((Outcome::ExpectedRollback, shown))) => {
                counters.expected_rollbacks.fetch_add(1, Ordering::Relaxed);
                output = shown;
                Status::ExpectedRollback
            }
            Ok(Err(e)) => {
                recover(&mut session, e.kind).await;
                failed(&counters, e.kind, e.message)
            }
            Err(_) => {
                // The procedure panicked: its session's state is unknown.
                recover(&mut session, ErrorKind::Connection).await;
                failed(
                    &counters,
                    ErrorKind::Other,
                    "the transaction panicked on the server".into(),
                )
            }
        };
        let response = ServerMessage::Response {
            id: job.id,
            status,
            server_us: started.elapsed().as_micros() as u64,
            output,
        };
        // A client that went away no longer wants the answer.
        let _ = job.reply.send(protocol::encode(&response));
    }
}

/// Put a session back in order after a failed transaction.
async fn recover<S: Session>(session: &mut S, kind: ErrorKind) {
    if kind == ErrorKind::Connection {
        // Retried once a second until the database is back.
        while session.reconnect().await.is_err() {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    } else {
        let _ = session.rollback().await;
    }
}

fn failed(counters: &Counters, kind: ErrorKind, message: String) -> Status {
    counters.errors.fetch_add(1, Ordering::Relaxed);
    Status::Error {
        kind: kind.name().to_string(),
        message,
    }
}

/// After a failed accept (out of file handles, say), wait before the next: the
/// listener stays ready, and accepting again at once would spin a core. Said
/// once, not once a try.
async fn accept_failed(e: &std::io::Error, failures: &mut u64) {
    if *failures == 0 {
        // Not eprintln!, which panics on an unwritable stderr and would end
        // the accept loop with it.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "txbench serve: accepting a connection failed: {e} (trying again every {} ms)",
            ACCEPT_BACKOFF.as_millis()
        );
    }
    *failures += 1;
    tokio::time::sleep(ACCEPT_BACKOFF).await;
}

/// How long the server waits after a failed accept.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Why a handshake is refused, if it is.
fn refusal(hello: &ClientMessage, opts: &ServeOptions, workload: &str) -> Option<String> {
    let ClientMessage::Hello {
        magic,
        version,
        workload: wanted,
        token,
    } = hello
    else {
        return Some("the first message must be Hello".into());
    };
    if *magic != MAGIC {
        return Some("not a txbench client (bad magic)".into());
    }
    if *version != VERSION {
        return Some(format!(
            "protocol version {version} is not supported (this server speaks {VERSION})"
        ));
    }
    if let Some(expected) = &opts.token {
        // In constant time, so that response times do not reveal how much of
        // a guess was right.
        let given = token.as_deref().unwrap_or_default();
        if !bool::from(expected.as_bytes().ct_eq(given.as_bytes())) {
            return Some("bad or missing token".into());
        }
    }
    match wanted {
        Some(w) if w != workload => Some(format!("this server serves {workload}, not {w}")),
        _ => None,
    }
}

/// One client connection: handshake, then requests until it closes or the
/// server stops.
#[allow(clippy::too_many_arguments)]
async fn connection<I: DeserializeOwned + Send + 'static>(
    stream: TcpStream,
    peer: SocketAddr,
    opts: Arc<ServeOptions>,
    workload: &'static str,
    types: usize,
    jobs: async_channel::Sender<Job<I>>,
    counters: Arc<Counters>,
    mut stop: watch::Receiver<bool>,
) {
    let _ = stream.set_nodelay(true);
    let mut framed = Framed::new(stream, protocol::codec());
    if !handshake(&mut framed, peer, &opts, workload).await {
        return;
    }
    let (sink, mut frames) = framed.split();
    let (reply, replies) = mpsc::unbounded_channel::<Bytes>();
    let writer = tokio::spawn(protocol::write_frames(sink, replies));
    let requests = Requests {
        workload,
        types,
        counters,
        reply,
    };
    loop {
        let frame = tokio::select! {
            frame = frames.next() => frame,
            _ = stop.changed() => break,
        };
        let frame = match frame {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => {
                let _ = requests.reply.send(refuse(format!("bad frame: {e}")));
                break;
            }
            None => break,
        };
        match requests.job::<I>(&frame) {
            Next::Job(job) => {
                if jobs.send(job).await.is_err() {
                    break;
                }
            }
            Next::Answered => {}
            Next::Close => break,
        }
    }
    // Answers to queued transactions still go out; then the writer closes.
    drop(requests);
    let _ = writer.await;
}

/// A refusal, as the client reads it before the connection closes.
fn refuse(reason: String) -> Bytes {
    protocol::encode(&ServerMessage::Refused { reason })
}

/// Read the client's Hello and answer it: Welcome, or Refused (and false)
/// for a client of another workload, a bad token or a frame that is not a
/// Hello; false too for a client silent for 10 s.
async fn handshake(
    framed: &mut Framed<TcpStream, LengthDelimitedCodec>,
    peer: SocketAddr,
    opts: &ServeOptions,
    workload: &'static str,
) -> bool {
    let hello = match tokio::time::timeout(Duration::from_secs(10), framed.next()).await {
        Ok(Some(Ok(frame))) => protocol::decode::<ClientMessage>(&frame),
        // Silent, closed, or a frame the codec refused (over the limit).
        _ => return false,
    };
    let refusal = match &hello {
        Ok(hello) => refusal(hello, opts, workload),
        Err(e) => Some(e.to_string()),
    };
    if let Some(reason) = refusal {
        let _ = framed.send(refuse(format!("{peer}: {reason}"))).await;
        return false;
    }
    let welcome = ServerMessage::Welcome {
        version: VERSION,
        workload: workload.to_string(),
        parameters: opts.parameters.clone(),
    };
    framed.send(protocol::encode(&welcome)).await.is_ok()
}

/// What a connection does with its client's requests.
struct Requests {
    workload: &'static str,
    types: usize,
    counters: Arc<Counters>,
    reply: mpsc::UnboundedSender<Bytes>,
}

/// What to do after a frame.
enum Next<I> {
    /// Queue the transaction for a worker.
    Job(Job<I>),
    /// The frame was answered (a bad input): read the next.
    Answered,
    /// A protocol error, answered with a refusal: close the connection.
    Close,
}

impl Requests {
    /// The job a request frame asks for, or the answer to a bad one.
    fn job<I: DeserializeOwned>(&self, frame: &BytesMut) -> Next<I> {
        let (id, txn_type, input) = match protocol::decode::<ClientMessage>(frame) {
            Ok(ClientMessage::Request {
                id,
                txn_type,
                input,
            }) => (id, txn_type, input),
            Ok(ClientMessage::Hello { .. }) => {
                let _ = self.reply.send(refuse("Hello after the handshake".into()));
                return Next::Close;
            }
            Err(e) => {
                let _ = self.reply.send(refuse(e.to_string()));
                return Next::Close;
            }
        };
        let (workload, types) = (self.workload, self.types);
        if usize::from(txn_type) >= types {
            self.bad_input(
                id,
                format!("transaction type {txn_type}: {workload} has {types}"),
            );
            return Next::Answered;
        }
        match postcard::from_bytes::<I>(&input) {
            Ok(input) => Next::Job(Job {
                id,
                input,
                reply: self.reply.clone(),
            }),
            Err(e) => {
                self.bad_input(id, format!("undecodable {workload} input: {e}"));
                Next::Answered
            }
        }
    }

    /// Answer request `id` with an error of kind "other", counted.
    fn bad_input(&self, id: u64, message: String) {
        let response = ServerMessage::Response {
            id,
            status: failed(&self.counters, ErrorKind::Other, message),
            server_us: 0,
            output: Vec::new(),
        };
        let _ = self.reply.send(protocol::encode(&response));
    }
}
