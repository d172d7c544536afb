//! One round trip with one Sync: a BEGIN, prepared statements and a COMMIT
//! (or ROLLBACK) written together, each as Bind and Execute of a statement
//! the session prepared (BEGIN and COMMIT too, as pgbench's `-M prepared`
//! does: the server parses none of them again), and a single Sync after them,
//! so PostgreSQL answers them in one write. Sent on the socket's turn
//! ([`super::gate`]).
//!
//! A statement that fails makes the server skip the rest up to the Sync
//! (the COMMIT too), and the transaction it began stays open and aborted
//! until the session rolls it back: nothing of a failed round trip commits.

use bytes::BytesMut;
use fallible_iterator::FallibleIterator;
use postgres_protocol::IsNull;
use postgres_protocol::message::backend::{ErrorResponseBody, Message};
use postgres_protocol::message::frontend;
use tokio_postgres::types::{ToSql, Type};
use txbench_core::{Call, CallKind, DbError, ErrorKind, Reply, Rows};

use super::dialect;
use super::gate::Gate;
use super::types::{PgParam, decode};

/// A statement prepared under a name of the session's own (tokio-postgres
/// keeps its statements' names to itself), with the types tokio-postgres
/// learnt for it.
#[derive(Clone)]
pub(super) struct Prepared {
    /// Its name on the server.
    pub name: std::sync::Arc<str>,
    /// tokio-postgres's statement of the same text: its parameter and
    /// column types.
    pub statement: tokio_postgres::Statement,
}

/// A transaction's BEGIN, COMMIT or ROLLBACK prepared under a name of the
/// session's own.
#[derive(Clone)]
pub(super) struct Control {
    /// Its text, which names it in an error.
    pub sql: &'static str,
    /// Its name on the server.
    pub name: std::sync::Arc<str>,
}

/// What a round trip sends: an optional BEGIN, the calls with their prepared
/// statements, an optional end (COMMIT or ROLLBACK).
pub(super) struct Request<'a> {
    pub begin: Option<&'a Control>,
    pub calls: &'a [(Prepared, &'a Call<'a>)],
    pub end: Option<&'a Control>,
}

/// The answer: each call's reply, or the first error; and whether a
/// transaction is still open after it (ReadyForQuery's status).
pub(super) struct Answer {
    pub replies: Result<Vec<Reply>, DbError>,
    pub in_transaction: bool,
}

/// A session's buffers for its round trips, kept from one to the next: a
/// round trip allocates none of its own.
#[derive(Default)]
pub(super) struct Buffers {
    /// The request's messages.
    out: BytesMut,
    /// The answer's bytes as they arrive.
    input: BytesMut,
}

/// Send `request` on `gate` and read its answer whole.
pub(super) async fn send(
    gate: &Gate,
    buffers: &mut Buffers,
    request: &Request<'_>,
) -> Result<Answer, DbError> {
    buffers.out.clear();
    encode(request, &mut buffers.out)?;
    exchange(gate, buffers, request).await
}

/// Prepare `sql` as `name`, its parameters of `types`, in a round trip; an
/// error says it was preparing `what`.
pub(super) async fn parse(
    gate: &Gate,
    buffers: &mut Buffers,
    name: &str,
    sql: &str,
    types: &[Type],
    what: &str,
) -> Result<(), DbError> {
    buffers.out.clear();
    let out = &mut buffers.out;
    frontend::parse(name, sql, types.iter().map(Type::oid), out).map_err(bad_request)?;
    frontend::sync(out);
    let none = Request {
        begin: None,
        calls: &[],
        end: None,
    };
    let answer = exchange(gate, buffers, &none).await;
    answer
        .and_then(|a| a.replies.map(drop))
        .map_err(|e| DbError {
            message: format!("preparing {what}: {}", e.message),
            ..e
        })
}

/// Write the messages of `request` (in `buffers.out`) and read the answer
/// whole.
async fn exchange(
    gate: &Gate,
    buffers: &mut Buffers,
    request: &Request<'_>,
) -> Result<Answer, DbError> {
    let mut turn = gate.turn().map_err(lost)?;
    turn.write_all(&buffers.out).await.map_err(lost)?;
    let mut reader = Reader::new(request);
    let input = &mut buffers.input;
    // A whole answer ends at its ReadyForQuery: nothing is left over.
    input.clear();
    loop {
        while let Some(message) = Message::parse(input).map_err(lost)? {
            if let Some(answer) = reader.take(message)? {
                turn.finish();
                return Ok(answer);
            }
        }
        if turn.read_buf(input).await.map_err(lost)? == 0 {
            return Err(lost(std::io::ErrorKind::UnexpectedEof.into()));
        }
    }
}

/// The request's messages: Bind and Execute of BEGIN, of each call (binary
/// parameters and results) and of COMMIT; one Sync.
fn encode(request: &Request<'_>, buf: &mut BytesMut) -> Result<(), DbError> {
    let control = |control: &Control, buf: &mut BytesMut| -> Result<(), DbError> {
        bind(buf, &control.name, &[], &[])?;
        frontend::execute("", 0, buf).map_err(bad_request)
    };
    if let Some(begin) = request.begin {
        control(begin, buf)?;
    }
    for (prepared, call) in request.calls {
        let types = prepared.statement.params();
        bind(buf, &prepared.name, types, call.params)?;
        frontend::execute("", 0, buf).map_err(bad_request)?;
    }
    if let Some(end) = request.end {
        control(end, buf)?;
    }
    frontend::sync(buf);
    Ok(())
}

/// Bind of the unnamed portal to `statement`, `params` as `types` say.
fn bind(
    buf: &mut BytesMut,
    statement: &str,
    types: &[Type],
    params: &[txbench_core::Param<'_>],
) -> Result<(), DbError> {
    if types.len() != params.len() {
        return Err(DbError::new(
            ErrorKind::Other,
            format!(
                "statement {statement} takes {} parameters, given {}",
                types.len(),
                params.len()
            ),
        ));
    }
    let mut failed = None;
    let result = frontend::bind(
        "",
        statement,
        [1],
        params.iter().zip(types),
        |(param, ty), out| match PgParam(*param).to_sql_checked(ty, out) {
            Ok(tokio_postgres::types::IsNull::Yes) => Ok(IsNull::Yes),
            Ok(tokio_postgres::types::IsNull::No) => Ok(IsNull::No),
            Err(e) => {
                failed = Some(format!("binding {param:?} as {ty}: {e}"));
                Ok(IsNull::Yes)
            }
        },
        [1],
        buf,
    );
    if let Some(why) = failed {
        return Err(DbError::new(ErrorKind::Other, why));
    }
    result.map_err(|_| DbError::new(ErrorKind::Other, "a parameter is too long to bind"))
}

fn bad_request(e: std::io::Error) -> DbError {
    DbError::new(ErrorKind::Other, format!("encoding a request: {e}"))
}

fn lost(e: std::io::Error) -> DbError {
    DbError::new(ErrorKind::Connection, format!("connection lost: {e}"))
}

/// Reads the answer's messages in order, item by item (BEGIN, calls, COMMIT).
struct Reader<'a> {
    request: &'a Request<'a>,
    /// Items whose answers have ended (CommandComplete).
    done: usize,
    replies: Vec<Reply>,
    rows: Option<Rows>,
    error: Option<DbError>,
}

impl<'a> Reader<'a> {
    fn new(request: &'a Request<'a>) -> Self {
        Reader {
            request,
            done: 0,
            replies: Vec::with_capacity(request.calls.len()),
            rows: None,
            error: None,
        }
    }

    /// The call whose answer comes now, if the item now is a call.
    fn call(&self) -> Option<&'a (Prepared, &'a Call<'a>)> {
        let first = usize::from(self.request.begin.is_some());
        self.done
            .checked_sub(first)
            .and_then(|i| self.request.calls.get(i))
    }

    /// Take one message; the answer once ReadyForQuery has come.
    fn take(&mut self, message: Message) -> Result<Option<Answer>, DbError> {
        match message {
            Message::ParseComplete | Message::BindComplete => {}
            Message::NoticeResponse(_)
            | Message::ParameterStatus(_)
            | Message::NotificationResponse(_) => {}
            Message::DataRow(row) => {
                let Some((prepared, _)) = self.call() else {
                    return Err(unexpected("a row"));
                };
                let columns = prepared.statement.columns();
                let rows = self.rows.get_or_insert_with(|| Rows::new(columns.len()));
                let buffer = row.buffer();
                let mut ranges = row.ranges();
                for column in columns {
                    let range = ranges
                        .next()
                        .map_err(lost)?
                        .ok_or_else(|| unexpected("a short row"))?;
                    rows.push(decode(column.type_(), range.map(|r| &buffer[r]))?);
                }
            }
            Message::CommandComplete(body) => {
                let affected = body
                    .tag()
                    .map_err(lost)?
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse().ok());
                self.complete(affected.unwrap_or(0));
            }
            Message::EmptyQueryResponse => self.complete(0),
            Message::ErrorResponse(body) => {
                let context = match self.call() {
                    Some((_, call)) => call.stmt.name,
                    None if self.done == 0 && self.request.begin.is_some() => "BEGIN",
                    None => self.request.end.map_or("the round trip", |end| end.sql),
                };
                self.error.get_or_insert(server_error(&body, context)?);
            }
            Message::ReadyForQuery(body) => {
                let in_transaction = body.status() != b'I';
                let replies = match self.error.take() {
                    Some(e) => Err(e),
                    None if self.replies.len() == self.request.calls.len() => {
                        Ok(std::mem::take(&mut self.replies))
                    }
                    None => Err(unexpected("an answer short of its statements")),
                };
                return Ok(Some(Answer {
                    replies,
                    in_transaction,
                }));
            }
            other => {
                let what = format!("a message out of turn ({})", message_name(&other));
                return Err(unexpected(&what));
            }
        }
        Ok(None)
    }

    /// The item now has ended, `affected` rows changed.
    fn complete(&mut self, affected: u64) {
        if let Some((prepared, call)) = self.call() {
            self.replies.push(match call.kind {
                CallKind::Query => Reply::Rows(
                    self.rows
                        .take()
                        .unwrap_or_else(|| Rows::new(prepared.statement.columns().len())),
                ),
                CallKind::Execute => Reply::Affected(affected),
            });
        }
        self.done += 1;
    }
}

fn unexpected(what: &str) -> DbError {
    DbError::new(
        ErrorKind::Connection,
        format!("PostgreSQL sent {what}: the connection is out of step"),
    )
}

/// The server's error, as tokio-postgres's are described and classified.
fn server_error(body: &ErrorResponseBody, context: &str) -> Result<DbError, DbError> {
    let (mut severity, mut code, mut message) = (String::new(), String::new(), String::new());
    let mut fields = body.fields();
    while let Some(field) = fields.next().map_err(lost)? {
        let value = || String::from_utf8_lossy(field.value_bytes()).into_owned();
        match field.type_() {
            b'V' => severity = value(),
            b'S' if severity.is_empty() => severity = value(),
            b'C' => code = value(),
            b'M' => message = value(),
            _ => {}
        }
    }
    Ok(dialect::server_error(context, &severity, &code, &message))
}

/// A message's name, for an error that names what came out of turn.
fn message_name(message: &Message) -> &'static str {
    match message {
        Message::RowDescription(_) => "RowDescription",
        Message::NoData => "NoData",
        Message::ParameterDescription(_) => "ParameterDescription",
        Message::PortalSuspended => "PortalSuspended",
        Message::CloseComplete => "CloseComplete",
        Message::CopyInResponse(_) => "CopyInResponse",
        Message::CopyOutResponse(_) => "CopyOutResponse",
        _ => "another",
    }
}
