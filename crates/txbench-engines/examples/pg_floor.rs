//! pgbench's tpcb-like at the floor of what a client can cost: the same
//! seven round trips a transaction as `pgbench -M prepared` (BEGIN, the five
//! statements, END, each a Bind, Execute and Sync of a statement prepared
//! once), from one thread polling all its connections as `pgbench -j 1`
//! does, with nothing else: no TLS, no library between it and the socket, no
//! latency recorded, parameters drawn by a xorshift and written as text. What
//! it costs a transaction is what the kernel costs for those round trips and
//! little more: the floor under any client that sends what pgbench sends.
//! With `tls` it asks for TLS as libpq's `sslmode=prefer` does, with the
//! rustls configuration txbench's own sessions use, and encrypts each
//! message, nothing more.
//!
//!   pg_floor HOST:PORT DATABASE CLIENTS SECONDS SCALE [tls]
//!
//! Trust authentication only (user postgres). Prints the transactions, their
//! rate, and the process's user and system time a transaction (getrusage).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::{BufMut, BytesMut};
use postgres_protocol::IsNull;
use postgres_protocol::message::backend::Message;
use postgres_protocol::message::frontend;
use txbench_engines::postgres::{SslMode, client_config};

mod floor;
use floor::{Rng, fail, number, poll_until, report};

/// pgbench's tpcb-like, statement by statement, with its parameters' names.
const SCRIPT: [(&str, &[Param]); 7] = [
    ("BEGIN", &[]),
    (
        "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2",
        &[Param::Delta, Param::Aid],
    ),
    (
        "SELECT abalance FROM pgbench_accounts WHERE aid = $1",
        &[Param::Aid],
    ),
    (
        "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2",
        &[Param::Delta, Param::Tid],
    ),
    (
        "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2",
        &[Param::Delta, Param::Bid],
    ),
    (
        "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) \
         VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)",
        &[Param::Tid, Param::Bid, Param::Aid, Param::Delta],
    ),
    ("END", &[]),
];

#[derive(Clone, Copy)]
enum Param {
    Aid,
    Bid,
    Tid,
    Delta,
}

/// One transaction's draws, as pgbench's script draws them.
#[derive(Default)]
struct Draws {
    aid: i64,
    bid: i64,
    tid: i64,
    delta: i64,
}

impl Draws {
    fn draw(rng: &mut Rng, scale: i64) -> Self {
        Draws {
            aid: rng.between(1, 100_000 * scale),
            bid: rng.between(1, scale),
            tid: rng.between(1, 10 * scale),
            delta: rng.between(-5_000, 5_000),
        }
    }

    fn get(&self, p: Param) -> i64 {
        match p {
            Param::Aid => self.aid,
            Param::Bid => self.bid,
            Param::Tid => self.tid,
            Param::Delta => self.delta,
        }
    }
}

/// A connection, the step of its transaction, and its buffers.
struct Client {
    stream: TcpStream,
    /// TLS over the stream, where the server took it.
    tls: Option<rustls::ClientConnection>,
    step: usize,
    draws: Draws,
    out: BytesMut,
    input: BytesMut,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (address, database, clients, seconds, scale, tls) = match &args[..] {
        [_, a, d, c, s, k] => (a, d, c, s, k, None),
        [_, a, d, c, s, k, t] if t == "tls" => (a, d, c, s, k, client_config(SslMode::Prefer)),
        _ => {
            eprintln!("usage: pg_floor HOST:PORT DATABASE CLIENTS SECONDS SCALE [tls]");
            std::process::exit(2);
        }
    };
    let (clients, seconds, scale) = (number(clients), number(seconds), number(scale) as i64);
    let mut all: Vec<Client> = (0..clients)
        .map(|_| connect(address, database, tls.as_ref()).unwrap_or_else(|e| fail(&e)))
        .collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    for c in &mut all {
        c.draws = Draws::draw(&mut rng, scale);
        send_step(c).unwrap_or_else(|e| fail(&e));
    }
    let mut transactions = 0u64;
    let fds: Vec<_> = all.iter().map(|c| c.stream.as_raw_fd()).collect();
    poll_until(end, &fds, |i| {
        let c = &mut all[i];
        if answered(c).unwrap_or_else(|e| fail(&e)) {
            c.step += 1;
            if c.step == SCRIPT.len() {
                transactions += 1;
                c.step = 0;
                c.draws = Draws::draw(&mut rng, scale);
            }
            send_step(c).unwrap_or_else(|e| fail(&e));
        }
    });
    report(transactions, 0, start.elapsed().as_secs_f64());
}

/// Connect (TLS where asked and the server takes it), start up (trust),
/// prepare the script's statements; the socket non-blocking after.
fn connect(
    address: &str,
    database: &str,
    tls: Option<&Arc<rustls::ClientConfig>>,
) -> io::Result<Client> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let tls = match tls {
        Some(config) => start_tls(&mut stream, config)?,
        None => None,
    };
    let mut c = Client {
        stream,
        tls,
        step: 0,
        draws: Draws::default(),
        out: BytesMut::new(),
        input: BytesMut::new(),
    };
    frontend::startup_message([("user", "postgres"), ("database", database)], &mut c.out)?;
    flush(&mut c)?;
    while !answered(&mut c)? {}
    for (i, (sql, _)) in SCRIPT.iter().enumerate() {
        frontend::parse(&format!("s{i}"), sql, [], &mut c.out)?;
    }
    frontend::sync(&mut c.out);
    flush(&mut c)?;
    while !answered(&mut c)? {}
    c.stream.set_nonblocking(true)?;
    Ok(c)
}

/// Write the client's step: Bind (text parameters), Execute, Sync.
fn send_step(c: &mut Client) -> io::Result<()> {
    let (_, params) = SCRIPT[c.step];
    let draws = &c.draws;
    let name = format_name(c.step);
    frontend::bind(
        "",
        name,
        [],
        params.iter().map(|p| draws.get(*p)),
        |v, buf| {
            buf.put_slice(itoa(v, &mut [0; 24]));
            Ok(IsNull::No)
        },
        [],
        &mut c.out,
    )
    .map_err(|_| io::Error::other("bind"))?;
    frontend::execute("", 0, &mut c.out)?;
    frontend::sync(&mut c.out);
    flush(c)
}

fn format_name(step: usize) -> &'static str {
    ["s0", "s1", "s2", "s3", "s4", "s5", "s6"][step]
}

/// `v` in decimal, in `buf`.
fn itoa(v: i64, buf: &mut [u8; 24]) -> &[u8] {
    let mut i = buf.len();
    let mut n = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    &buf[i..]
}

/// Write the buffered messages (encrypted first, with TLS).
fn flush(c: &mut Client) -> io::Result<()> {
    if let Some(tls) = &mut c.tls {
        tls.writer().write_all(&c.out)?;
        c.out.clear();
        while tls.wants_write() {
            match tls.write_tls(&mut c.stream) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
                Err(e) => return Err(e),
            }
        }
        return Ok(());
    }
    let mut written = 0;
    while written < c.out.len() {
        match c.stream.write(&c.out[written..]) {
            Ok(n) => written += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::yield_now(),
            Err(e) => return Err(e),
        }
    }
    c.out.clear();
    Ok(())
}

/// Read once from the socket into the input (decrypted, with TLS); false
/// if nothing had come.
fn fill(c: &mut Client) -> io::Result<bool> {
    let Some(tls) = &mut c.tls else {
        let mut chunk = [0u8; 8192];
        return match c.stream.read(&mut chunk) {
            Ok(0) => Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                c.input.extend_from_slice(&chunk[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) => Err(e),
        };
    };
    match tls.read_tls(&mut c.stream) {
        Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
        Err(e) => return Err(e),
    }
    tls.process_new_packets().map_err(io::Error::other)?;
    let mut chunk = [0u8; 8192];
    loop {
        match tls.reader().read(&mut chunk) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => c.input.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(true),
            Err(e) => return Err(e),
        }
    }
}

/// Read what has come; whether the answer ended (ReadyForQuery).
fn answered(c: &mut Client) -> io::Result<bool> {
    loop {
        if !fill(c)? {
            return Ok(false);
        }
        while let Some(message) = Message::parse(&mut c.input)? {
            match message {
                Message::ReadyForQuery(_) => return Ok(true),
                Message::ErrorResponse(_) => {
                    return Err(io::Error::other("the server answered an error"));
                }
                Message::AuthenticationOk
                | Message::ParameterStatus(_)
                | Message::BackendKeyData(_)
                | Message::ParseComplete
                | Message::BindComplete
                | Message::DataRow(_)
                | Message::CommandComplete(_)
                | Message::NoticeResponse(_) => {}
                _ => {
                    return Err(io::Error::other(
                        "an unexpected message (trust authentication only)",
                    ));
                }
            }
        }
    }
}

/// Ask for TLS (SSLRequest); on the server's yes, the handshake, done
/// before the socket turns non-blocking.
fn start_tls(
    stream: &mut TcpStream,
    config: &Arc<rustls::ClientConfig>,
) -> io::Result<Option<rustls::ClientConnection>> {
    stream.write_all(&[0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])?;
    let mut answer = [0u8; 1];
    stream.read_exact(&mut answer)?;
    if answer[0] != b'S' {
        return Ok(None);
    }
    let name = rustls::pki_types::ServerName::try_from("localhost").map_err(io::Error::other)?;
    let mut tls =
        rustls::ClientConnection::new(Arc::clone(config), name).map_err(io::Error::other)?;
    while tls.is_handshaking() {
        tls.complete_io(stream)?;
    }
    Ok(Some(tls))
}
