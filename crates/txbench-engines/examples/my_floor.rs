//! sysbench's oltp_read_write at the floor of what a client can cost: the
//! same twenty round trips a transaction as sysbench (BEGIN, ten point
//! selects, four ranges of 100 rows, an index and a non-index update, a
//! delete and an insert of the same row, COMMIT, each a prepared statement
//! executed in the binary protocol), each on a table drawn uniformly, from
//! one thread polling all its connections, with nothing else: no TLS, no
//! library, rows walked packet by packet and never decoded, nothing
//! recorded. What it costs a transaction is what the kernel costs for those
//! round trips and little more: the floor under any client that sends what
//! sysbench sends.
//!
//!   my_floor HOST:PORT DATABASE CLIENTS SECONDS TABLES TABLE_SIZE [threads]
//!
//! With `threads`, each connection has a thread of its own and blocks on its
//! socket, as sysbench's threads do, instead of one thread polling them all.
//!
//! User root without a password only. Prints the transactions, their rate,
//! and the process's user and system time a transaction (getrusage).

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

mod floor;
use floor::{Rng, fail, number, poll_until, report};

/// sysbench's statements, `{}` the table's number.
const STATEMENTS: [&str; 11] = [
    "BEGIN",
    "SELECT c FROM sbtest{} WHERE id=?",
    "SELECT c FROM sbtest{} WHERE id BETWEEN ? AND ?",
    "SELECT SUM(k) FROM sbtest{} WHERE id BETWEEN ? AND ?",
    "SELECT c FROM sbtest{} WHERE id BETWEEN ? AND ? ORDER BY c",
    "SELECT DISTINCT c FROM sbtest{} WHERE id BETWEEN ? AND ? ORDER BY c",
    "UPDATE sbtest{} SET k=k+1 WHERE id=?",
    "UPDATE sbtest{} SET c=? WHERE id=?",
    "DELETE FROM sbtest{} WHERE id=?",
    "INSERT INTO sbtest{} (id, k, c, pad) VALUES (?, ?, ?, ?)",
    "COMMIT",
];

const BEGIN: usize = 0;
const POINT: usize = 1;
const RANGES: [usize; 4] = [2, 3, 4, 5];
const INDEX_UPDATE: usize = 6;
const NON_INDEX_UPDATE: usize = 7;
const DELETE: usize = 8;
const INSERT: usize = 9;
const COMMIT: usize = 10;

/// A parameter of an execution.
enum Value {
    Int(i64),
    Text(Vec<u8>),
}

/// A connection, its statements' ids by table and kind, the transaction's
/// steps and where it is, and its buffers.
struct Client {
    stream: TcpStream,
    ids: Vec<[u32; STATEMENTS.len()]>,
    steps: Vec<(u32, Vec<Value>)>,
    step: usize,
    reply: Reply,
    /// Statements the server refused (deadlocks, duplicate keys).
    errors: u64,
    out: Vec<u8>,
    input: Vec<u8>,
}

/// Where the answer to an execution is.
#[derive(Clone, Copy)]
enum Reply {
    /// Its first packet not read yet.
    First,
    /// Column definitions left, then their EOF.
    Columns(u64),
    /// Rows until an EOF.
    Rows,
}

/// sysbench's strings, drawn.
trait Digits {
    /// sysbench's c and pad: groups of 11 digits joined by dashes.
    fn digits(&mut self, groups: usize) -> Vec<u8>;
}

impl Digits for Rng {
    fn digits(&mut self, groups: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(groups * 12);
        for g in 0..groups {
            if g > 0 {
                out.push(b'-');
            }
            for _ in 0..11 {
                out.push(b'0' + self.below(10) as u8);
            }
        }
        out
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (address, database, clients, seconds, tables, size, threads) = match &args[..] {
        [_, a, d, c, s, t, n] => (a, d, c, s, t, n, false),
        [_, a, d, c, s, t, n, m] if m == "threads" => (a, d, c, s, t, n, true),
        _ => {
            eprintln!(
                "usage: my_floor HOST:PORT DATABASE CLIENTS SECONDS TABLES TABLE_SIZE [threads]"
            );
            std::process::exit(2);
        }
    };
    let (clients, seconds) = (number(clients), number(seconds));
    let (tables, size) = (number(tables) as usize, number(size) as i64);
    let mut all: Vec<Client> = (0..clients)
        .map(|_| connect(address, database, tables).unwrap_or_else(|e| fail(&e)))
        .collect();
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let (transactions, errors) = if threads {
        on_threads(all, end, tables, size)
    } else {
        polled(&mut all, end, tables, size)
    };
    report(transactions, errors, start.elapsed().as_secs_f64());
}

/// Every client on one thread, polling their sockets; the transactions done
/// and the statements refused.
fn polled(all: &mut [Client], end: Instant, tables: usize, size: i64) -> (u64, u64) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for c in all.iter_mut() {
        plan(c, &mut rng, tables, size);
        send_step(c).unwrap_or_else(|e| fail(&e));
    }
    let mut transactions = 0u64;
    let fds: Vec<_> = all.iter().map(|c| c.stream.as_raw_fd()).collect();
    poll_until(end, &fds, |i| {
        let c = &mut all[i];
        if answered(c).unwrap_or_else(|e| fail(&e)) {
            c.step += 1;
            if c.step == c.steps.len() {
                transactions += 1;
                plan(c, &mut rng, tables, size);
            }
            send_step(c).unwrap_or_else(|e| fail(&e));
        }
    });
    (transactions, all.iter().map(|c| c.errors).sum())
}

/// Each client on a thread of its own, blocking on its socket; the
/// transactions done and the statements refused.
fn on_threads(all: Vec<Client>, end: Instant, tables: usize, size: i64) -> (u64, u64) {
    let handles: Vec<_> = all
        .into_iter()
        .enumerate()
        .map(|(i, mut c)| {
            std::thread::spawn(move || {
                c.stream.set_nonblocking(false).unwrap_or_else(|e| fail(&e));
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1) << 32);
                let mut transactions = 0u64;
                while Instant::now() < end {
                    plan(&mut c, &mut rng, tables, size);
                    while c.step < c.steps.len() {
                        send_step(&mut c).unwrap_or_else(|e| fail(&e));
                        while !answered(&mut c).unwrap_or_else(|e| fail(&e)) {}
                        c.step += 1;
                    }
                    transactions += 1;
                }
                (transactions, c.errors)
            })
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("a client thread"))
        .fold((0, 0), |(t, e), (t1, e1)| (t + t1, e + e1))
}

/// The next transaction's steps, drawn as sysbench's oltp_read_write draws
/// them (uniform ids, ranges of 100, a table drawn for each statement).
fn plan(c: &mut Client, rng: &mut Rng, tables: usize, size: i64) {
    let mut steps = std::mem::take(&mut c.steps);
    steps.clear();
    let table = |rng: &mut Rng| &c.ids[rng.below(tables as u64) as usize];
    steps.push((table(rng)[BEGIN], vec![]));
    for _ in 0..10 {
        let id = rng.between(1, size);
        steps.push((table(rng)[POINT], vec![Value::Int(id)]));
    }
    for kind in RANGES {
        let low = rng.between(1, size - 99);
        let range = vec![Value::Int(low), Value::Int(low + 99)];
        steps.push((table(rng)[kind], range));
    }
    let id = rng.between(1, size);
    steps.push((table(rng)[INDEX_UPDATE], vec![Value::Int(id)]));
    let id = rng.between(1, size);
    let text = rng.digits(10);
    steps.push((
        table(rng)[NON_INDEX_UPDATE],
        vec![Value::Text(text), Value::Int(id)],
    ));
    // The delete and the insert of the same row on the same table.
    let id = rng.between(1, size);
    let both = table(rng);
    steps.push((both[DELETE], vec![Value::Int(id)]));
    let k = rng.between(1, size);
    let (text, pad) = (rng.digits(10), rng.digits(5));
    steps.push((
        both[INSERT],
        vec![
            Value::Int(id),
            Value::Int(k),
            Value::Text(text),
            Value::Text(pad),
        ],
    ));
    steps.push((table(rng)[COMMIT], vec![]));
    c.steps = steps;
    c.step = 0;
}

/// Connect, authenticate (root, no password), prepare every statement on
/// every table; the socket non-blocking after.
fn connect(address: &str, database: &str, tables: usize) -> io::Result<Client> {
    let stream = TcpStream::connect(address)?;
    stream.set_nodelay(true)?;
    let mut c = Client {
        stream,
        ids: Vec::new(),
        steps: Vec::new(),
        step: 0,
        reply: Reply::First,
        errors: 0,
        out: Vec::new(),
        input: Vec::new(),
    };
    let _greeting = read_packet(&mut c)?;
    let mut response = Vec::new();
    // Long password, connect with a database, protocol 4.1, transactions,
    // secure connection, plugin authentication.
    let capabilities: u32 = 0x1 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x80000;
    response.extend_from_slice(&capabilities.to_le_bytes());
    response.extend_from_slice(&(16u32 << 20).to_le_bytes());
    response.push(45); // utf8mb4_general_ci
    response.extend_from_slice(&[0; 23]);
    response.extend_from_slice(b"root\0");
    response.push(0); // an empty password's empty answer
    response.extend_from_slice(database.as_bytes());
    response.push(0);
    response.extend_from_slice(b"mysql_native_password\0");
    write_packet(&mut c.out, 1, &response);
    flush(&mut c)?;
    let mut answer = read_packet(&mut c)?;
    if answer.first() == Some(&0xFE) {
        // An authentication switch: the empty password's empty answer again.
        write_packet(&mut c.out, 3, &[]);
        flush(&mut c)?;
        answer = read_packet(&mut c)?;
    }
    if answer.first() != Some(&0) {
        return Err(server_error("authenticating", &answer));
    }
    for table in 1..=tables {
        let mut ids = [0u32; STATEMENTS.len()];
        for (kind, sql) in STATEMENTS.iter().enumerate() {
            ids[kind] = prepare(&mut c, &sql.replace("{}", &table.to_string()))?;
        }
        c.ids.push(ids);
    }
    c.stream.set_nonblocking(true)?;
    Ok(c)
}

/// COM_STMT_PREPARE: the statement's id, its definitions read past.
fn prepare(c: &mut Client, sql: &str) -> io::Result<u32> {
    let mut payload = vec![0x16];
    payload.extend_from_slice(sql.as_bytes());
    write_packet(&mut c.out, 0, &payload);
    flush(c)?;
    let ok = read_packet(c)?;
    if ok.first() != Some(&0) || ok.len() < 12 {
        return Err(server_error(sql, &ok));
    }
    let id = u32::from_le_bytes([ok[1], ok[2], ok[3], ok[4]]);
    let columns = u16::from_le_bytes([ok[5], ok[6]]);
    let params = u16::from_le_bytes([ok[7], ok[8]]);
    for count in [params, columns] {
        if count > 0 {
            // The definitions and their EOF.
            for _ in 0..=count {
                read_packet(c)?;
            }
        }
    }
    Ok(id)
}

/// COM_STMT_EXECUTE of the client's step: its parameters bound with their
/// types (integers as BIGINT, text as strings), none NULL.
fn send_step(c: &mut Client) -> io::Result<()> {
    let (id, params) = &c.steps[c.step];
    let mut payload = Vec::with_capacity(64);
    payload.push(0x17);
    payload.extend_from_slice(&id.to_le_bytes());
    payload.push(0); // no cursor
    payload.extend_from_slice(&1u32.to_le_bytes());
    if !params.is_empty() {
        payload.extend(std::iter::repeat_n(0, params.len().div_ceil(8)));
        payload.push(1); // types follow
        for p in params {
            payload.extend_from_slice(match p {
                Value::Int(_) => &[0x08, 0],
                Value::Text(_) => &[0xFE, 0],
            });
        }
        for p in params {
            match p {
                Value::Int(v) => payload.extend_from_slice(&v.to_le_bytes()),
                Value::Text(t) => {
                    // Shorter than 251 bytes: a one-byte length.
                    payload.push(t.len() as u8);
                    payload.extend_from_slice(t);
                }
            }
        }
    }
    write_packet(&mut c.out, 0, &payload);
    c.reply = Reply::First;
    flush(c)
}

fn write_packet(out: &mut Vec<u8>, sequence: u8, payload: &[u8]) {
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes()[..3]);
    out.push(sequence);
    out.extend_from_slice(payload);
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

/// Read once from the socket into the input; false if nothing had come.
fn fill(c: &mut Client) -> io::Result<bool> {
    let mut chunk = [0u8; 16384];
    match c.stream.read(&mut chunk) {
        Ok(0) => Err(io::ErrorKind::UnexpectedEof.into()),
        Ok(n) => {
            c.input.extend_from_slice(&chunk[..n]);
            Ok(true)
        }
        Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
        Err(e) => Err(e),
    }
}

/// The next whole packet's payload in the input, taken out of it.
fn take_packet(c: &mut Client) -> Option<Vec<u8>> {
    let len = packet_len(&c.input)?;
    let payload = c.input[4..4 + len].to_vec();
    c.input.drain(..4 + len);
    Some(payload)
}

fn packet_len(input: &[u8]) -> Option<usize> {
    if input.len() < 4 {
        return None;
    }
    let len = u32::from_le_bytes([input[0], input[1], input[2], 0]) as usize;
    (input.len() >= 4 + len).then_some(len)
}

/// A packet, blocking (the setup's).
fn read_packet(c: &mut Client) -> io::Result<Vec<u8>> {
    loop {
        if let Some(p) = take_packet(c) {
            return Ok(p);
        }
        fill(c)?;
    }
}

/// Read what has come and walk the answer's packets without decoding them;
/// whether the answer ended (an OK, or a result set's closing EOF).
fn answered(c: &mut Client) -> io::Result<bool> {
    loop {
        let mut at = 0;
        let mut done = false;
        while let Some(len) = packet_len(&c.input[at..]) {
            let payload = &c.input[at + 4..at + 4 + len];
            at += 4 + len;
            let eof = payload.first() == Some(&0xFE) && len < 9;
            c.reply = match c.reply {
                Reply::First => match payload.first() {
                    Some(0x00) => {
                        done = true;
                        Reply::First
                    }
                    Some(0xFF) => {
                        // sysbench ignores deadlocks and duplicate keys and goes on;
                        // so does the floor, counting them, with the COMMIT next.
                        c.errors += 1;
                        c.step = c.steps.len() - 2;
                        done = true;
                        Reply::First
                    }
                    // A column count under 251: one byte.
                    Some(&n) => Reply::Columns(u64::from(n)),
                    None => return Err(io::Error::other("an empty packet")),
                },
                Reply::Columns(0) if eof => Reply::Rows,
                Reply::Columns(n) => Reply::Columns(n.saturating_sub(1)),
                Reply::Rows if eof => {
                    done = true;
                    Reply::First
                }
                Reply::Rows if payload.first() == Some(&0xFF) => {
                    return Err(server_error("reading rows", payload));
                }
                Reply::Rows => Reply::Rows,
            };
            if done {
                break;
            }
        }
        c.input.drain(..at);
        if done {
            return Ok(true);
        }
        if !fill(c)? {
            return Ok(false);
        }
    }
}

fn server_error(what: &str, packet: &[u8]) -> io::Error {
    let message = packet
        .get(9..)
        .map(String::from_utf8_lossy)
        .unwrap_or_default();
    io::Error::other(format!("{what}: {message}"))
}
