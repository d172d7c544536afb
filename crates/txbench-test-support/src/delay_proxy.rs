//! A TCP proxy that holds every byte for a link's one-way delay, each way,
//! in order: a network's latency where the kernel has no netem qdisc. It runs
//! on a thread of its own, inside a network namespace when one is named, so
//! that it listens as that host (scripts/hosts.sh).

use std::fs::File;
use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::thread::JoinHandle;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// A link's one-way delay: `delay` give or take up to `jitter`, uniformly.
/// Tokio's timer wakes on whole milliseconds, so bytes arrive up to 1 ms
/// later than that.
#[derive(Debug, Clone, Copy)]
pub struct Link {
    /// The mean one-way delay.
    pub delay: Duration,
    /// The most a delay differs from `delay`.
    pub jitter: Duration,
}

/// A running proxy; stopped when dropped.
pub struct DelayProxy {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl DelayProxy {
    /// Listen on `listen`, inside the network namespace `netns` (its name
    /// under /run/netns) when given, and forward each connection to `target`
    /// (reached from the same namespace) over `link`.
    pub fn start(
        netns: Option<&str>,
        listen: SocketAddr,
        target: SocketAddr,
        link: Link,
    ) -> io::Result<DelayProxy> {
        let namespace = netns
            .map(|n| File::open(format!("/run/netns/{n}")))
            .transpose()?;
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let (stop, stopped) = oneshot::channel();
        let thread = std::thread::spawn(move || {
            let listener = namespace
                .as_ref()
                .map_or(Ok(()), enter)
                .and_then(|()| std::net::TcpListener::bind(listen));
            match listener {
                Ok(l) => {
                    let _ = ready_tx.send(Ok(()));
                    serve(l, target, link, stopped);
                }
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                }
            }
        });
        ready_rx
            .recv()
            .map_err(|_| io::Error::other("the proxy's thread ended"))??;
        Ok(DelayProxy {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for DelayProxy {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Move this thread into the network namespace `namespace`: sockets it
/// makes from now on are that host's.
fn enter(namespace: &File) -> io::Result<()> {
    // SAFETY: setns(2) on a descriptor we hold open; it changes only this
    // thread's network namespace.
    if unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Accept until `stopped`, each connection forwarded on a task of its own.
fn serve(
    listener: std::net::TcpListener,
    target: SocketAddr,
    link: Link,
    stopped: oneshot::Receiver<()>,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for the proxy");
    runtime.block_on(async move {
        listener
            .set_nonblocking(true)
            .expect("a nonblocking listener");
        let listener = TcpListener::from_std(listener).expect("a tokio listener");
        let accepting = async {
            let mut seed = 0;
            while let Ok((client, _)) = listener.accept().await {
                seed += 2;
                tokio::spawn(forward(client, target, link, seed));
            }
        };
        tokio::select! {
            _ = stopped => {}
            () = accepting => {}
        }
    });
}

/// Forward one connection both ways, each on its link; the client's
/// connection closes when the target cannot be reached.
async fn forward(client: TcpStream, target: SocketAddr, link: Link, seed: u64) {
    let Ok(server) = TcpStream::connect(target).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = server.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::join!(
        delayed(client_read, server_write, link, seed),
        delayed(server_read, client_write, link, seed + 1),
    );
}

/// Copy `from` to `to`, each chunk written when its delay is over, in the
/// order read; `to` shut down once `from` ends and the last chunk is out.
async fn delayed(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, link: Link, seed: u64) {
    let (chunks, mut due) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let reading = async move {
        let mut jitter = Jitter::new(link, seed);
        let mut last = Instant::now();
        let mut buf = vec![0u8; 64 * 1024];
        while let Ok(n @ 1..) = from.read(&mut buf).await {
            // Never before the chunk read earlier: a link keeps order.
            last = last.max(Instant::now() + jitter.next());
            if chunks.send((last, buf[..n].to_vec())).is_err() {
                break;
            }
        }
    };
    let writing = async move {
        while let Some((at, chunk)) = due.recv().await {
            tokio::time::sleep_until(at).await;
            if to.write_all(&chunk).await.is_err() {
                break;
            }
        }
        let _ = to.shutdown().await;
    };
    tokio::join!(reading, writing);
}

/// One-way delays drawn uniformly from `delay ± jitter`.
struct Jitter {
    link: Link,
    rng: Xoshiro256PlusPlus,
}

impl Jitter {
    fn new(link: Link, seed: u64) -> Self {
        Jitter {
            link,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
        }
    }

    fn next(&mut self) -> Duration {
        let (d, j) = (self.link.delay, self.link.jitter.min(self.link.delay));
        if j.is_zero() {
            return d;
        }
        d - j + Duration::from_nanos(self.rng.random_range(0..=2 * j.as_nanos() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_stay_within_the_jitter() {
        let link = Link {
            delay: Duration::from_millis(1),
            jitter: Duration::from_micros(250),
        };
        let mut j = Jitter::new(link, 7);
        let drawn: Vec<Duration> = (0..1000).map(|_| j.next()).collect();
        assert!(drawn.iter().all(|d| (750..=1250).contains(&d.as_micros())));
        assert!(drawn.iter().any(|d| d.as_micros() < 900));
        assert!(drawn.iter().any(|d| d.as_micros() > 1100));
    }

    #[test]
    fn bytes_arrive_in_order_after_the_delay_each_way() {
        let echo = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let target = echo.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut s, _) = echo.accept().unwrap();
            let mut r = s.try_clone().unwrap();
            std::io::copy(&mut r, &mut s).unwrap();
        });
        let link = Link {
            delay: Duration::from_millis(20),
            jitter: Duration::from_millis(5),
        };
        let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let listen = free.local_addr().unwrap();
        drop(free);
        let _proxy = DelayProxy::start(None, listen, target, link).unwrap();
        let mut c = std::net::TcpStream::connect(listen).unwrap();
        let sent: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let started = std::time::Instant::now();
        let writer = {
            let mut c = c.try_clone().unwrap();
            let sent = sent.clone();
            std::thread::spawn(move || std::io::Write::write_all(&mut c, &sent).unwrap())
        };
        let mut got = vec![0u8; sent.len()];
        std::io::Read::read_exact(&mut c, &mut got).unwrap();
        writer.join().unwrap();
        assert_eq!(got, sent, "every byte, in order");
        // There and back, each at least 15 ms: a loaded machine only adds.
        assert!(started.elapsed() >= Duration::from_millis(30));
    }
}
