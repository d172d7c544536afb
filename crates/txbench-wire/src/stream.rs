//! A TCP stream whose every read and write is stamped by the kernel: reads
//! go through `recvmsg` for their receive timestamps, and after each read
//! the transmit timestamps waiting on the error queue are taken. A read is
//! where they are needed (the sends it answers were stamped before it
//! arrived), and a connection that is answered reads as often as it writes,
//! so the queue holds no more than the sends between two reads.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;

use crate::log::WireLog;
use crate::socket;

/// A TCP stream with kernel timestamps, feeding the [`WireLog`] it shares.
pub struct StampedStream {
    io: TcpStream,
    log: Arc<Mutex<WireLog>>,
    control: Vec<u8>,
}

impl StampedStream {
    /// Turn timestamps on for a connected stream that has sent nothing yet;
    /// an error when the socket cannot stamp (not Linux, not a socket that
    /// supports SO_TIMESTAMPING).
    pub fn new(io: TcpStream) -> io::Result<StampedStream> {
        socket::enable(&io)?;
        Ok(StampedStream {
            io,
            log: Arc::default(),
            control: vec![0; socket::CONTROL_SPACE],
        })
    }

    /// The log this stream feeds.
    pub fn log(&self) -> Arc<Mutex<WireLog>> {
        Arc::clone(&self.log)
    }

    fn lock(&self) -> MutexGuard<'_, WireLog> {
        // A panic elsewhere while holding it leaves numbers, not invariants.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl AsyncRead for StampedStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            ready!(this.io.poll_read_ready(cx))?;
            let (io, control) = (&this.io, &mut this.control);
            let unfilled = buf.initialize_unfilled();
            match io.try_io(Interest::READABLE, || {
                socket::read_stamped(io, unfilled, control)
            }) {
                Ok((n, stamp)) => {
                    buf.advance(n);
                    let mut log = this.log.lock().unwrap_or_else(|e| e.into_inner());
                    // Transmit stamps first: the sends this read answers
                    // were stamped before it arrived. A failure to read them
                    // loses stamps, never the connection.
                    let _ = socket::drain_error_queue(&this.io, &mut this.control, &mut log);
                    log.read(n, stamp);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for StampedStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let n = ready!(Pin::new(&mut this.io).poll_write(cx, buf))?;
        this.lock().wrote(n);
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}
