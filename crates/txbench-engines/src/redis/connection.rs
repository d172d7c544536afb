//! A session's own connection to a Redis server: each request is written
//! and its answer read on the session's task, one request at a time.
//!
//! The redis crate's async connection is multiplexed: many callers share it,
//! so every request goes through a channel to a task of the connection's own
//! and its answer back through another, a hand-off on each side of every
//! round trip. A session never shares its connection (WATCH belongs to it),
//! and with YCSB's single-record operations that hand-off was a fifth of the
//! client's CPU an operation (bench/RESULTS.md, 2026-12-04). The redis crate
//! writes every command; the answers are parsed by redis-protocol, in place
//! (a value is a range of the bytes read until it becomes the redis crate's
//! [`Value`]), where the redis crate's streaming parser was a third of the
//! client's CPU. A caller may read an answer straight into what it keeps
//! ([`Connection::answer`]): an HMGET's row becomes the statement's result
//! with no value or string per field in between.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::time::Duration;

use futures_util::FutureExt;
use redis::aio::ConnectionLike;
use redis::{Cmd, ConnectionAddr, ConnectionInfo, Pipeline, RedisError, RedisFuture, Value};
use redis_protocol::resp2::decode::decode_range;
use redis_protocol::resp2::types::RangeFrame;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A byte stream to the server: TCP, or a Unix socket.
trait Stream: AsyncRead + AsyncWrite + Send + Unpin {}
impl<S: AsyncRead + AsyncWrite + Send + Unpin> Stream for S {}

/// Room for bytes from the server: a read takes what has arrived, many
/// answers at once.
const READ_BUFFER: usize = 64 * 1024;

/// One session's connection.
pub struct Connection {
    stream: Pin<Box<dyn Stream>>,
    /// Bytes read: the answers not yet parsed are from `parsed` on.
    input: Vec<u8>,
    parsed: usize,
    /// The encoded request, its buffer kept between requests.
    out: Vec<u8>,
    db: i64,
    /// How long an answer may take.
    response_timeout: Duration,
    /// A request was started and not finished (its future dropped, or it
    /// failed midway): what the stream holds next is not known, so the
    /// connection is lost for any later request.
    broken: bool,
}

impl Connection {
    /// Connect to the server `info` names within `connect_timeout`, and log
    /// in and select its database as it says.
    pub async fn open(
        info: &ConnectionInfo,
        connect_timeout: Duration,
        response_timeout: Duration,
    ) -> Result<Connection, RedisError> {
        let stream = tokio::time::timeout(connect_timeout, connect(info.addr()))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connecting timed out"))??;
        let settings = info.redis_settings();
        let mut conn = Connection {
            stream,
            input: Vec::with_capacity(READ_BUFFER),
            parsed: 0,
            out: Vec::new(),
            db: settings.db(),
            response_timeout,
            broken: false,
        };
        if let Some(password) = settings.password() {
            let mut auth = redis::cmd("AUTH");
            if let Some(user) = settings.username() {
                auth.arg(user);
            }
            let () = auth.arg(password).query_async(&mut conn).await?;
        }
        if settings.db() != 0 {
            let () = redis::cmd("SELECT")
                .arg(settings.db())
                .query_async(&mut conn)
                .await?;
        }
        Ok(conn)
    }

    /// Start a request: refused on a connection an earlier one left
    /// broken, and broken itself until [`Connection::finish`] (an error
    /// midway, a timeout or a dropped future leaves it so).
    fn start(&mut self) -> Result<(), RedisError> {
        if self.broken {
            return Err(lost("an earlier request on it did not finish"));
        }
        self.broken = true;
        Ok(())
    }

    /// Write the encoded request.
    async fn send(&mut self) -> Result<(), RedisError> {
        Ok(self.stream.write_all(&self.out).await?)
    }

    /// End a request whose answers were all read.
    fn finish(&mut self) {
        self.parsed_all();
        self.broken = false;
    }

    /// The next answer, read as far as it takes.
    async fn next_answer(&mut self) -> Result<Value, RedisError> {
        self.next_answer_as(value_of).await?
    }

    /// The next answer, read as far as it takes, and what `convert` makes
    /// of it: a conversion that fails has still read its answer whole, so
    /// the connection goes on.
    async fn next_answer_as<T>(
        &mut self,
        mut convert: impl FnMut(&RangeFrame, &[u8]) -> Result<T, RedisError>,
    ) -> Result<Result<T, RedisError>, RedisError> {
        loop {
            let unparsed = &self.input[self.parsed..];
            let decoded = decode_range(unparsed)
                .map_err(|e| protocol(&format!("an answer that is not RESP2 ({e})")))?;
            if let Some((frame, length)) = decoded {
                let value = convert(&frame, unparsed);
                self.parsed += length;
                return Ok(value);
            }
            self.read_more().await?;
        }
    }

    /// Send `cmd` and read its one answer as `convert` makes it of the
    /// answer's frame and the bytes its ranges are of: a caller can read
    /// the answer straight into what it keeps, with no value of the redis
    /// crate's in between (making those took a fifth of the client's user
    /// time on YCSB's reads).
    pub async fn answer<T>(
        &mut self,
        cmd: &Cmd,
        convert: impl FnMut(&RangeFrame, &[u8]) -> Result<T, RedisError>,
    ) -> Result<T, RedisError> {
        self.out.clear();
        cmd.write_packed_command(&mut self.out);
        self.start()?;
        let timeout = self.response_timeout;
        let answer = within(timeout, async {
            self.send().await?;
            self.next_answer_as(convert).await
        })
        .await?;
        self.finish();
        answer
    }

    /// Read what has arrived after the bytes not yet parsed: one read,
    /// waiting for it, then what else has arrived without waiting, until the
    /// unparsed bytes have doubled. An answer is parsed from its start each
    /// time, so a long one (a whole table's MGET) is parsed a few times as it
    /// arrives, not once for every read.
    async fn read_more(&mut self) -> Result<(), RedisError> {
        self.input.drain(..self.parsed);
        self.parsed = 0;
        let incomplete = self.input.len();
        self.read_once().await?;
        while self.input.len() < 2 * incomplete {
            match self.read_once().now_or_never() {
                Some(read) => read?,
                None => break,
            }
        }
        Ok(())
    }

    /// One read into the buffer, with room for at least as much as it holds.
    async fn read_once(&mut self) -> Result<(), RedisError> {
        let room = READ_BUFFER.max(self.input.len());
        if self.input.capacity() - self.input.len() < room / 4 {
            self.input.reserve(room);
        }
        if self.stream.read_buf(&mut self.input).await? == 0 {
            return Err(lost("the server closed it"));
        }
        Ok(())
    }

    /// Forget the answers parsed; a buffer a long answer grew goes back to
    /// its usual size.
    fn parsed_all(&mut self) {
        self.input.drain(..self.parsed);
        self.parsed = 0;
        if self.input.capacity() > 16 * READ_BUFFER {
            self.input.shrink_to(READ_BUFFER);
        }
    }
}

/// A row of texts and nils of `frame`, whose ranges are of `bytes`;
/// anything else (an error, another shape, a field that is not UTF-8) as
/// the redis crate converts it, its errors included.
pub fn row_of(frame: &RangeFrame, bytes: &[u8]) -> Result<Vec<Option<String>>, RedisError> {
    let cell = |f: &RangeFrame| match text_of(f, bytes) {
        Some(text) => Ok(text.map(str::to_owned)),
        None => converted(f, bytes),
    };
    match frame {
        RangeFrame::Array(cells) => cells.iter().map(cell).collect(),
        other => converted(other, bytes),
    }
}

/// A field of an answer, `frame`, as text or nil, if it is either: a bulk
/// string of UTF-8 text (of `bytes`), or nil.
pub fn text_of<'b>(frame: &RangeFrame, bytes: &'b [u8]) -> Option<Option<&'b str>> {
    match frame {
        RangeFrame::Null => Some(None),
        RangeFrame::BulkString((start, end)) => {
            std::str::from_utf8(&bytes[*start..*end]).ok().map(Some)
        }
        _ => None,
    }
}

/// `frame` as the redis crate's query converts an answer to `T`.
fn converted<T: redis::FromRedisValue>(frame: &RangeFrame, bytes: &[u8]) -> Result<T, RedisError> {
    Ok(redis::from_redis_value(
        value_of(frame, bytes)?.extract_error()?,
    )?)
}

/// The redis crate's value of `frame`, whose ranges are of `bytes`.
fn value_of(frame: &RangeFrame, bytes: &[u8]) -> Result<Value, RedisError> {
    let text = |(start, end): (usize, usize)| &bytes[start..end];
    Ok(match frame {
        RangeFrame::BulkString(range) => Value::BulkString(text(*range).to_vec()),
        RangeFrame::Array(frames) => Value::Array(
            frames
                .iter()
                .map(|f| value_of(f, bytes))
                .collect::<Result<_, _>>()?,
        ),
        RangeFrame::Integer(i) => Value::Int(*i),
        RangeFrame::Null => Value::Nil,
        RangeFrame::SimpleString(range) if text(*range) == b"OK" => Value::Okay,
        RangeFrame::SimpleString(range) => {
            Value::SimpleString(String::from_utf8_lossy(text(*range)).into_owned())
        }
        // Rare: the redis crate makes its error of the line itself (from the
        // `-` before the range to the CRLF after it), with its kind and code.
        RangeFrame::Error((start, end)) => redis::parse_redis_value(&bytes[start - 1..end + 2])?,
    })
}

impl ConnectionLike for Connection {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        Box::pin(self.answer(cmd, value_of))
    }

    /// The answers from `offset` on of a pipeline's (a transaction's MULTI
    /// and QUEUED ones before it are read and passed over; a server error
    /// among them, a command the server refused to queue, fails the
    /// transaction, as the redis crate's own connections have it).
    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        Box::pin(async move {
            self.out = pipeline.get_packed_pipeline();
            self.start()?;
            let timeout = self.response_timeout;
            let (refused, answers) = within(timeout, async {
                self.send().await?;
                let mut refused = None;
                for _ in 0..offset {
                    if let Value::ServerError(e) = self.next_answer().await? {
                        refused.get_or_insert(e);
                    }
                }
                let mut answers = Vec::with_capacity(count);
                for _ in 0..count {
                    answers.push(self.next_answer().await?);
                }
                Ok((refused, answers))
            })
            .await?;
            self.finish();
            match refused {
                Some(e) => Err(e.into()),
                None => Ok(answers),
            }
        })
    }

    fn get_db(&self) -> i64 {
        self.db
    }
}

async fn connect(addr: &ConnectionAddr) -> Result<Pin<Box<dyn Stream>>, RedisError> {
    match addr {
        ConnectionAddr::Tcp(host, port) => {
            let tcp = tokio::net::TcpStream::connect((host.as_str(), *port)).await?;
            // A request is one write; waiting to fill a segment only delays it.
            tcp.set_nodelay(true)?;
            Ok(Box::pin(tcp))
        }
        #[cfg(unix)]
        ConnectionAddr::Unix(path) => Ok(Box::pin(tokio::net::UnixStream::connect(path).await?)),
        other => Err(RedisError::from(io::Error::new(
            io::ErrorKind::Unsupported,
            format!("txbench connects to Redis over TCP or a Unix socket, not {other}"),
        ))),
    }
}

/// `work` within `timeout`, or a timeout error.
async fn within<T>(
    timeout: Duration,
    work: impl Future<Output = Result<T, RedisError>>,
) -> Result<T, RedisError> {
    tokio::time::timeout(timeout, work)
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "no answer in time"))?
}

/// An answer the connection cannot read: the stream is no longer known.
fn protocol(what: &str) -> RedisError {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string()).into()
}

/// The error of a connection that can no longer be used.
fn lost(why: &str) -> RedisError {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        format!("connection lost: {why}"),
    )
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use redis::IntoConnectionInfo;

    /// Every kind of RESP2 answer becomes the value the redis crate's own
    /// parser makes of it; an error keeps its kind (a script not loaded is
    /// loaded and run again on NOSCRIPT), and a half-read answer waits.
    #[test]
    fn answers_become_the_redis_crates_values() {
        let bytes: &[u8] =
            b"*5\r\n$2\r\nab\r\n$-1\r\n:7\r\n+OK\r\n+QUEUED\r\n-NOSCRIPT No matching script\r\n";
        let (frame, used) = decode_range(bytes).unwrap().unwrap();
        let array = Value::Array(vec![
            Value::BulkString(b"ab".to_vec()),
            Value::Nil,
            Value::Int(7),
            Value::Okay,
            Value::SimpleString("QUEUED".into()),
        ]);
        assert_eq!(value_of(&frame, bytes).unwrap(), array);
        assert_eq!(redis::parse_redis_value(&bytes[..used]).unwrap(), array);
        let rest = &bytes[used..];
        let (frame, _) = decode_range(rest).unwrap().unwrap();
        let Value::ServerError(e) = value_of(&frame, rest).unwrap() else {
            panic!("not an error");
        };
        assert_eq!(e.kind(), Some(redis::ServerErrorKind::NoScript));
        assert_eq!(e.details(), Some("No matching script"));
        assert!(decode_range(&bytes[..used - 1]).unwrap().is_none());
    }

    /// An HMGET's answer becomes the row the redis crate's query would make
    /// of it; an error answer, or a field that is not UTF-8, fails as the
    /// crate fails it.
    #[test]
    fn a_row_is_what_the_redis_crate_would_make_of_the_answer() {
        let row = |bytes: &[u8]| {
            let (frame, _) = decode_range(bytes).unwrap().unwrap();
            let crates: Result<Vec<Option<String>>, RedisError> = redis::parse_redis_value(bytes)
                .and_then(|v| Ok(redis::from_redis_value(v.extract_error()?)?));
            (row_of(&frame, bytes), crates)
        };
        let (ours, crates) = row(b"*4\r\n$2\r\nab\r\n$-1\r\n:7\r\n$0\r\n\r\n");
        let text = |s: &str| Some(s.to_string());
        assert_eq!(ours.unwrap(), vec![text("ab"), None, text("7"), text("")]);
        assert_eq!(crates.unwrap(), vec![text("ab"), None, text("7"), text("")]);
        for failing in [
            &b"*2\r\n$1\r\na\r\n$2\r\n\xff\xfe\r\n"[..],
            b"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
        ] {
            let (ours, crates) = row(failing);
            let (ours, crates) = (ours.unwrap_err(), crates.unwrap_err());
            assert_eq!(ours.kind(), crates.kind());
            assert_eq!(ours.code(), crates.code());
            assert!(!ours.is_io_error(), "{ours}");
        }
    }

    /// A row that cannot be made has still been read whole: the next
    /// request on the connection reads its own answer.
    #[tokio::test]
    async fn a_row_that_cannot_be_made_leaves_the_connection_usable() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = [0u8; 256];
            for answer in [&b"*1\r\n$2\r\n\xff\xfe\r\n"[..], b"*1\r\n$2\r\nok\r\n"] {
                let _ = socket.read(&mut request).await.unwrap();
                socket.write_all(answer).await.unwrap();
            }
        });
        let info = format!("redis://127.0.0.1:{port}/0")
            .into_connection_info()
            .unwrap();
        let wait = Duration::from_secs(30);
        let mut conn = Connection::open(&info, wait, wait).await.unwrap();
        let hmget = || redis::cmd("HMGET").arg("k").arg("f").to_owned();
        assert!(conn.answer(&hmget(), row_of).await.is_err());
        assert_eq!(
            conn.answer(&hmget(), row_of).await.unwrap(),
            vec![Some("ok".to_string())]
        );
        server.await.unwrap();
    }

    /// A server that takes the connection and never answers: the request
    /// times out, and the next one is refused rather than reading the first
    /// one's answer as its own.
    #[tokio::test]
    async fn a_request_left_unfinished_loses_the_connection() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let silent = tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            std::future::pending::<()>().await;
            drop(socket);
        });
        let info = format!("redis://127.0.0.1:{port}/0")
            .into_connection_info()
            .unwrap();
        let wait = Duration::from_millis(50);
        let mut conn = Connection::open(&info, Duration::from_secs(5), wait)
            .await
            .unwrap();
        let ping = || redis::cmd("PING");
        let err = ping().query_async::<String>(&mut conn).await.unwrap_err();
        assert!(err.is_io_error(), "{err}");
        let err = ping().query_async::<String>(&mut conn).await.unwrap_err();
        assert!(err.to_string().contains("connection lost"), "{err}");
        silent.abort();
    }
}
