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
//! * Nothing a client does can exhaust the server (docs/reliability.md):
//!   at most [`ServeOptions::max_connections`] connections (more are refused
//!   at once), requests of at most [`MAX_REQUEST`] bytes buffered only as
//!   their bytes arrive and completed within [`FRAME_DEADLINE`] of their
//!   first, and at most [`MAX_OUTSTANDING`] unanswered requests a
//!   connection: a client that does not read its replies is not read either.
//! * Stopping drains: no new connections or requests, every queued transaction
//!   is answered, then the connections close; a connection not closed within
//!   [`ServeOptions::grace`] (its client reads nothing) is dropped.

use std::net::SocketAddr;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::{Bytes, BytesMut};
use futures_util::{FutureExt, SinkExt, StreamExt};
use serde::de::DeserializeOwned;
use subtle::ConstantTimeEq;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio_util::codec::{Decoder, Framed, FramedRead, FramedWrite, LengthDelimitedCodec};
use tokio_util::task::AbortOnDropHandle;
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
    /// Connections served at once; one more is refused and closed.
    pub max_connections: usize,
    /// How long a stop waits for connections to take their last answers.
    pub grace: Duration,
}

/// The longest request frame the server reads (a transaction's input).
pub const MAX_REQUEST: usize = 64 * 1024;

/// The most requests of one connection queued or executing whose replies
/// are not yet written: past it the server reads no more of that connection.
pub const MAX_OUTSTANDING: usize = 256;

/// How long a request frame may take to arrive once its first byte has: a
/// client trickling a frame is closed after at most twice this.
pub const FRAME_DEADLINE: Duration = Duration::from_secs(10);

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
    reply: mpsc::OwnedPermit<Bytes>,
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
                // Reap finished connections before counting the open ones.
                while connections.try_join_next().is_some() {}
                if connections.len() >= opts.max_connections {
                    tokio::spawn(refuse_full(stream, opts.max_connections));
                    continue;
                }
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
    }
    drop(listener);
    drop(jobs);
    let drained = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(opts.grace, drained).await.is_err() {
        // A client that reads nothing holds its connection's writer: end it.
        connections.shutdown().await;
    }
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
        // Its place in the connection's replies was reserved with the
        // request: sending never waits. A client that went away no longer
        // wants the answer.
        job.reply.send(protocol::encode(&response));
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

/// Refuse a connection past the cap, saying why, without waiting on it.
async fn refuse_full(stream: TcpStream, max: usize) {
    let mut framed = Framed::new(stream, protocol::codec());
    let reason = format!("the server serves {max} connections already (--max-connections)");
    let _ = tokio::time::timeout(Duration::from_secs(1), framed.send(refuse(reason))).await;
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
    let (read, write) = stream.into_split();
    let mut frames = FramedRead::new(read, RequestCodec(protocol::codec()));
    let mut sink = FramedWrite::new(write, protocol::codec());
    if !handshake((&mut frames, &mut sink), peer, &opts, workload).await {
        return;
    }
    let (reply, replies) = mpsc::channel::<Bytes>(MAX_OUTSTANDING);
    // Ended with the connection: a stop past its grace drops the connection
    // of a client that reads nothing, and the writer blocked on it with it.
    let mut writer = AbortOnDropHandle::new(tokio::spawn(protocol::write_frames(sink, replies)));
    let requests = Requests {
        workload,
        types,
        counters,
    };
    loop {
        // A place for the reply first: a client that reads nothing fills
        // them, and is then not read either.
        let permit = tokio::select! {
            permit = reply.clone().reserve_owned() => permit,
            _ = stop.changed() => break,
        };
        let Ok(permit) = permit else { break };
        let frame = tokio::select! {
            frame = next_frame(&mut frames) => frame,
            _ = stop.changed() => break,
        };
        let frame = match frame {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => {
                permit.send(refuse(format!("bad frame: {e}")));
                break;
            }
            None => break,
        };
        match requests.job::<I>(&frame, permit) {
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
    drop((requests, reply));
    let _ = (&mut writer).await;
}

/// The next request frame: none while the connection is idle between
/// frames, however long, but a frame begun must end within
/// [`FRAME_DEADLINE`] (counted from the first look that found it begun).
async fn next_frame<R: tokio::io::AsyncRead + Unpin>(
    frames: &mut RequestFrames<R>,
) -> Option<Result<BytesMut, std::io::Error>> {
    loop {
        let begun = !frames.read_buffer().is_empty();
        match tokio::time::timeout(FRAME_DEADLINE, frames.next()).await {
            Ok(frame) => return frame,
            Err(_) if begun => {
                return Some(Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!(
                        "a request frame took more than {} s",
                        FRAME_DEADLINE.as_secs()
                    ),
                )));
            }
            Err(_) => continue,
        }
    }
}

/// A connection's requests, as frames.
type RequestFrames<R> = FramedRead<R, RequestCodec>;

/// A connection's replies, as frames.
type ReplyFrames = FramedWrite<OwnedWriteHalf, LengthDelimitedCodec>;

/// The protocol's frames as the server reads requests: at most
/// [`MAX_REQUEST`] bytes, and none reserved before they arrive (the
/// length codec reserves a frame's announced length at its header, so a
/// client announcing 1 MB and sending 1 KB cost the server 1 MB).
struct RequestCodec(LengthDelimitedCodec);

impl Decoder for RequestCodec {
    type Item = BytesMut;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<BytesMut>, std::io::Error> {
        let Some(header) = src.get(..protocol::FRAME_HEADER) else {
            return Ok(None);
        };
        let length = u32::from_be_bytes(header.try_into().expect("a 4-byte header")) as usize;
        if length > MAX_REQUEST {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("a request of {length} bytes: at most {MAX_REQUEST}"),
            ));
        }
        if src.len() < protocol::FRAME_HEADER + length {
            return Ok(None);
        }
        self.0.decode(src)
    }
}

/// A refusal, as the client reads it before the connection closes.
fn refuse(reason: String) -> Bytes {
    protocol::encode(&ServerMessage::Refused { reason })
}

/// Read the client's Hello and answer it: Welcome, or Refused (and false)
/// for a client of another workload, a bad token or a frame that is not a
/// Hello; false too for a client silent for 10 s.
async fn handshake(
    (frames, sink): (&mut RequestFrames<OwnedReadHalf>, &mut ReplyFrames),
    peer: SocketAddr,
    opts: &ServeOptions,
    workload: &'static str,
) -> bool {
    let hello = match tokio::time::timeout(Duration::from_secs(10), frames.next()).await {
        Ok(Some(Ok(frame))) => protocol::decode::<ClientMessage>(&frame),
        // Silent, closed, or a frame the codec refused (over the limit).
        _ => return false,
    };
    let refusal = match &hello {
        Ok(hello) => refusal(hello, opts, workload),
        Err(e) => Some(e.to_string()),
    };
    if let Some(reason) = refusal {
        let _ = sink.send(refuse(format!("{peer}: {reason}"))).await;
        return false;
    }
    let welcome = ServerMessage::Welcome {
        version: VERSION,
        workload: workload.to_string(),
        parameters: opts.parameters.clone(),
    };
    sink.send(protocol::encode(&welcome)).await.is_ok()
}

/// What a connection does with its client's requests.
struct Requests {
    workload: &'static str,
    types: usize,
    counters: Arc<Counters>,
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
    fn job<I: DeserializeOwned>(
        &self,
        frame: &BytesMut,
        reply: mpsc::OwnedPermit<Bytes>,
    ) -> Next<I> {
        let (id, txn_type, input) = match protocol::decode::<ClientMessage>(frame) {
            Ok(ClientMessage::Request {
                id,
                txn_type,
                input,
            }) => (id, txn_type, input),
            Ok(ClientMessage::Hello { .. }) => {
                reply.send(refuse("Hello after the handshake".into()));
                return Next::Close;
            }
            Err(e) => {
                reply.send(refuse(e.to_string()));
                return Next::Close;
            }
        };
        let (workload, types) = (self.workload, self.types);
        if usize::from(txn_type) >= types {
            self.bad_input(
                reply,
                id,
                format!("transaction type {txn_type}: {workload} has {types}"),
            );
            return Next::Answered;
        }
        match postcard::from_bytes::<I>(&input) {
            Ok(input) => Next::Job(Job { id, input, reply }),
            Err(e) => {
                self.bad_input(reply, id, format!("undecodable {workload} input: {e}"));
                Next::Answered
            }
        }
    }

    /// Answer request `id` with an error of kind "other", counted.
    fn bad_input(&self, reply: mpsc::OwnedPermit<Bytes>, id: u64, message: String) {
        let response = ServerMessage::Response {
            id,
            status: failed(&self.counters, ErrorKind::Other, message),
            server_us: 0,
            output: Vec::new(),
        };
        reply.send(protocol::encode(&response));
    }
}
