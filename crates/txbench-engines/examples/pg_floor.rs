//! pgbench's tpcb-like at the floor of what a client can cost: the same
//! seven round trips a transaction as `pgbench -M prepared` (BEGIN, the five
//! statements, END, each a Bind, Execute and Sync of a statement prepared
//! once), from one thread polling all its connections as `pgbench -j 1`
//! does, with nothing else: no TLS, no library between it and the socket, no
//! latency recorded, parameters drawn by a xorshift and written as text. What
//! it costs a transaction is what the kernel costs for those round trips and
//! little more: the floor under any client that sends what pgbench sends.
//!
//!   pg_floor HOST:PORT DATABASE CLIENTS SECONDS SCALE
//!
//! Trust authentication only (user postgres). Prints the transactions, their
//! rate, and the process's user and system time a transaction (getrusage).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use bytes::{BufMut, BytesMut};
use postgres_protocol::IsNull;
use postgres_protocol::message::backend::Message;
use postgres_protocol::message::frontend;

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
    fn draw(rng: &mut u64, scale: i64) -> Self {
        let mut next = |n: i64| {
            // xorshift64: enough for a floor, and costs nothing.
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            (*rng % n as u64) as i64
        };
        Draws {
            aid: 1 + next(100_000 * scale),
            bid: 1 + next(scale),
            tid: 1 + next(10 * scale),
            delta: next(10_001) - 5_000,
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
    step: usize,
    draws: Draws,
    out: BytesMut,
    input: BytesMut,
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, address, database, clients, seconds, scale] = &args[..] else {
        eprintln!("usage: pg_floor HOST:PORT DATABASE CLIENTS SECONDS SCALE");
        std::process::exit(2);
    };
    let number = |s: &str| -> u64 {
        s.parse().unwrap_or_else(|_| {
            eprintln!("pg_floor: not a number: {s}");
            std::process::exit(2)
        })
    };
    let (clients, seconds, scale) = (number(clients), number(seconds), number(scale) as i64);
    let mut all: Vec<Client> = (0..clients)
        .map(|_| connect(address, database).unwrap_or_else(|e| fail(&e)))
        .collect();
    let mut rng = 0x9E37_79B9_7F4A_7C15_u64;
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    for c in &mut all {
        c.draws = Draws::draw(&mut rng, scale);
        send_step(c).unwrap_or_else(|e| fail(&e));
    }
    let mut transactions = 0u64;
    let mut fds: Vec<libc::pollfd> = all
        .iter()
        .map(|c| libc::pollfd {
            fd: c.stream.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    while Instant::now() < end {
        // SAFETY: fds is a valid array of pollfd of its length.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 1000) };
        if n < 0 {
            fail(&io::Error::last_os_error());
        }
        for (c, fd) in all.iter_mut().zip(&mut fds) {
            if fd.revents == 0 {
                continue;
            }
            fd.revents = 0;
            if answered(c).unwrap_or_else(|e| fail(&e)) {
                c.step += 1;
                if c.step == SCRIPT.len() {
                    transactions += 1;
                    c.step = 0;
                    c.draws = Draws::draw(&mut rng, scale);
                }
                send_step(c).unwrap_or_else(|e| fail(&e));
            }
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    // SAFETY: getrusage writes the struct it is given.
    let usage = unsafe {
        let mut u: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut u);
        u
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let per = |s: f64| s * 1e6 / transactions.max(1) as f64;
    println!(
        "transactions {transactions} in {elapsed:.2} s, {:.0} tps, client CPU a transaction: user {:.0} us, system {:.0} us, total {:.0} us",
        transactions as f64 / elapsed,
        per(secs(usage.ru_utime)),
        per(secs(usage.ru_stime)),
        per(secs(usage.ru_utime) + secs(usage.ru_stime)),
    );
}

fn fail(e: &io::Error) -> ! {
    eprintln!("pg_floor: {e}");
    std::process::exit(1)
}

/// Connect, start up (trust), prepare the script's statements; the socket
/// non-blocking after.
fn connect(address: &str, database: &str) -> io::Result<Client> {
    let stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let mut c = Client {
        stream,
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

fn flush(c: &mut Client) -> io::Result<()> {
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

/// Read what has come; whether the answer ended (ReadyForQuery).
fn answered(c: &mut Client) -> io::Result<bool> {
    let mut chunk = [0u8; 8192];
    loop {
        match c.stream.read(&mut chunk) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => c.input.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) => return Err(e),
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
