//! A connection's socket shared by tokio-postgres's connection task and the
//! session's own round trips ([`super::round_trip`]), one at a time.
//!
//! Why the session writes some requests itself: tokio-postgres ends every
//! request with a Sync, and PostgreSQL flushes its answer at each Sync, so a
//! transaction of seven statements sent together comes back in seven writes,
//! each a wake-up and a read of the client's (10 TCP segments a pgbench
//! transaction, against 2 for pgbench's own `\startpipeline`). tokio-postgres
//! has no request without one (rust-postgres issue #1213). The session's round
//! trips end with one Sync, as libpq's pipeline mode and JDBC's batches do.
//!
//! A round trip takes the socket for its turn: the connection task's reads
//! and writes wait until the turn ends, so nothing of the turn's answer
//! reaches it. A turn must not begin while a request of tokio-postgres's is
//! unanswered, and some are sent unasked (a dropped statement's Close): so
//! the gate notes whether tokio-postgres has written since it was last known
//! quiet, and the session then first awaits a request of tokio-postgres's
//! own, answered after all before it ([`Gate::is_quiet`]).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use bytes::BytesMut;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_util::either::Either;

/// The socket under the gate: TCP, or TLS over TCP.
pub(super) type Socket = Either<TcpStream, TlsStream<TcpStream>>;

/// One end of the shared socket: tokio-postgres's (an [`AsyncRead`] and
/// [`AsyncWrite`]), or the session's, which takes turns.
#[derive(Clone)]
pub(super) struct Gate {
    shared: Arc<Mutex<Shared>>,
}

struct Shared {
    socket: Socket,
    /// A turn of the session's holds the socket.
    held: bool,
    /// A turn ended before its answer was read whole: the bytes on the
    /// connection are out of step, and both ends see it lost.
    broken: bool,
    /// The connection task, waiting for the turn to end.
    parked: Option<Waker>,
    /// tokio-postgres has written since it was last known to have nothing
    /// unanswered.
    written: bool,
}

impl Gate {
    pub(super) fn new(socket: Socket) -> Self {
        Gate {
            shared: Arc::new(Mutex::new(Shared {
                socket,
                held: false,
                broken: false,
                parked: None,
                written: true,
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether tokio-postgres has had nothing to write since
    /// [`Gate::quiet_now`]: nothing of its can be unanswered.
    pub(super) fn is_quiet(&self) -> bool {
        !self.lock().written
    }

    /// tokio-postgres's last request has been answered, and with it all
    /// before it (it answers in order): nothing of its is unanswered.
    pub(super) fn quiet_now(&self) {
        self.lock().written = false;
    }

    /// The socket for the session's round trip, until the turn is finished
    /// (or dropped, which leaves the connection lost).
    pub(super) fn turn(&self) -> io::Result<Turn<'_>> {
        let mut shared = self.lock();
        if shared.broken {
            return Err(out_of_step());
        }
        shared.held = true;
        Ok(Turn {
            gate: self,
            finished: false,
        })
    }
}

fn out_of_step() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "the connection is out of step: a round trip was abandoned before its answer",
    )
}

/// The session's hold on the socket for one round trip.
pub(super) struct Turn<'a> {
    gate: &'a Gate,
    finished: bool,
}

impl Turn<'_> {
    /// Write all of `buf` and flush it.
    pub(super) async fn write_all(&mut self, mut buf: &[u8]) -> io::Result<()> {
        while !buf.is_empty() {
            let n = std::future::poll_fn(|cx| {
                Pin::new(&mut self.gate.lock().socket).poll_write(cx, buf)
            })
            .await?;
            if n == 0 {
                return Err(io::ErrorKind::WriteZero.into());
            }
            buf = &buf[n..];
        }
        std::future::poll_fn(|cx| Pin::new(&mut self.gate.lock().socket).poll_flush(cx)).await
    }

    /// Read what has arrived onto the end of `buf`; 0 at the end of the stream.
    pub(super) async fn read_buf(&mut self, buf: &mut BytesMut) -> io::Result<usize> {
        buf.reserve(4096);
        std::future::poll_fn(|cx| {
            tokio_util::io::poll_read_buf(Pin::new(&mut self.gate.lock().socket), cx, buf)
        })
        .await
    }

    /// The answer was read whole: the connection task may read again.
    pub(super) fn finish(mut self) {
        self.finished = true;
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        let mut shared = self.gate.lock();
        shared.held = false;
        shared.broken |= !self.finished;
        if let Some(waker) = shared.parked.take() {
            waker.wake();
        }
    }
}

impl Shared {
    /// What tokio-postgres's side gets while it may not use the socket: an
    /// error once the connection is out of step, a wait during a turn.
    fn wait_for_turn<T>(&mut self, cx: &Context<'_>) -> Option<Poll<io::Result<T>>> {
        if self.broken {
            return Some(Poll::Ready(Err(out_of_step())));
        }
        if self.held {
            self.parked = Some(cx.waker().clone());
            return Some(Poll::Pending);
        }
        None
    }
}

impl AsyncRead for Gate {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut shared = self.lock();
        if let Some(wait) = shared.wait_for_turn(cx) {
            return wait;
        }
        Pin::new(&mut shared.socket).poll_read(cx, buf)
    }
}

impl AsyncWrite for Gate {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut shared = self.lock();
        if let Some(wait) = shared.wait_for_turn(cx) {
            return wait;
        }
        shared.written = true;
        Pin::new(&mut shared.socket).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.lock().socket).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.lock().socket).poll_shutdown(cx)
    }
}
