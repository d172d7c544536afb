//! Connecting on a socket of txbench's own, behind a [`Gate`]: TCP, the TLS
//! negotiation PostgreSQL asks for (SSLRequest, then rustls), and
//! tokio-postgres's startup and authentication on top, so that the session
//! shares the socket with tokio-postgres ([`super::gate`]).

use std::sync::Arc;
use std::time::Duration;

use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_postgres::config::{Host, TargetSessionAttrs};
use tokio_postgres::{Client, Config, NoTls, SimpleQueryMessage};
use tokio_rustls::TlsConnector;
use tokio_util::either::Either;
use txbench_core::{DbError, ErrorKind};

use super::gate::{Gate, Socket};
use super::url::SslMode;

/// A connection made here: its client, the gate it shares, and the
/// server's address (its cancel requests go there).
pub(super) struct Gated {
    pub client: Client,
    pub gate: Gate,
    pub address: (String, u16),
}

/// Connect to `config`'s TCP host with TLS as `ssl` says; `None` for a host
/// that is not TCP (a Unix socket), which tokio-postgres connects itself.
pub(super) async fn connect(
    config: &Config,
    ssl: SslMode,
    tls: Option<&Arc<ClientConfig>>,
) -> Result<Option<Gated>, DbError> {
    let (Some(Host::Tcp(host)), Some(&port)) =
        (config.get_hosts().first(), config.get_ports().first())
    else {
        return Ok(None);
    };
    let tcp = connect_tcp(config, host, port).await?;
    let socket = match tls {
        Some(tls) if ssl != SslMode::Disable => negotiate(tcp, host, ssl, tls).await?,
        _ => Either::Left(tcp),
    };
    let gate = Gate::new(socket);
    // TLS, where there is any, is below the gate: tokio-postgres talks plain
    // protocol on it. Its cancel token keeps "prefer", so a cancel request
    // (on a socket of its own) asks for TLS again.
    let mut config = config.clone();
    config.ssl_mode(match ssl {
        SslMode::Disable => tokio_postgres::config::SslMode::Disable,
        _ => tokio_postgres::config::SslMode::Prefer,
    });
    let (client, connection) = config
        .connect_raw(gate.clone(), NoTls)
        .await
        .map_err(|e| super::dialect::connect_error(&e))?;
    tokio::spawn(async move { drop(connection.await) });
    session_attrs_hold(&client, &config).await?;
    Ok(Some(Gated {
        client,
        gate,
        address: (host.clone(), port),
    }))
}

/// A TCP connection to `host:port` within `config`'s connect timeout (30 s
/// where it sets none), Nagle's algorithm off.
pub(super) async fn connect_tcp(
    config: &Config,
    host: &str,
    port: u16,
) -> Result<TcpStream, DbError> {
    let lost =
        |e: std::io::Error| DbError::new(ErrorKind::Connection, format!("{host}:{port}: {e}"));
    let timeout = config
        .get_connect_timeout()
        .copied()
        .unwrap_or(Duration::from_secs(30));
    let tcp = tokio::time::timeout(timeout, TcpStream::connect((host, port)))
        .await
        .map_err(|_| lost(std::io::ErrorKind::TimedOut.into()))?
        .map_err(lost)?;
    tcp.set_nodelay(true).map_err(lost)?;
    Ok(tcp)
}

/// PostgreSQL's SSLRequest, then the TLS handshake if the server agrees; a
/// server that refuses leaves plain TCP under `prefer` and an error otherwise.
async fn negotiate(
    mut tcp: TcpStream,
    host: &str,
    ssl: SslMode,
    tls: &Arc<ClientConfig>,
) -> Result<Socket, DbError> {
    let failed =
        |what: String| DbError::new(ErrorKind::Connection, format!("TLS for {host}: {what}"));
    let mut request = bytes::BytesMut::new();
    postgres_protocol::message::frontend::ssl_request(&mut request);
    tcp.write_all(&request)
        .await
        .map_err(|e| failed(e.to_string()))?;
    let mut answer = [0u8];
    tcp.read_exact(&mut answer)
        .await
        .map_err(|e| failed(e.to_string()))?;
    if answer[0] != b'S' {
        return match ssl {
            SslMode::Prefer => Ok(Either::Left(tcp)),
            _ => Err(failed("the server does not support TLS".into())),
        };
    }
    let name = ServerName::try_from(host.to_string()).map_err(|e| failed(e.to_string()))?;
    let stream = TlsConnector::from(Arc::clone(tls))
        .connect(name, tcp)
        .await
        .map_err(|e| failed(e.to_string()))?;
    Ok(Either::Right(stream))
}

/// `target_session_attrs`, checked as tokio-postgres checks it on the
/// connections it makes (`connect_raw` does not): a server that is read only
/// (a standby) refused for `read-write`, one that writes for `read-only`.
async fn session_attrs_hold(client: &Client, config: &Config) -> Result<(), DbError> {
    let wanted = config.get_target_session_attrs();
    if wanted == TargetSessionAttrs::Any {
        return Ok(());
    }
    let messages = client
        .simple_query("SHOW transaction_read_only")
        .await
        .map_err(|e| super::dialect::connect_error(&e))?;
    let read_only = messages.iter().find_map(|m| match m {
        SimpleQueryMessage::Row(row) => row.get(0).map(|v| v == "on"),
        _ => None,
    });
    let refused = match (wanted, read_only) {
        (TargetSessionAttrs::ReadWrite, Some(true)) => "the database does not allow writes",
        (TargetSessionAttrs::ReadOnly, Some(false)) => "the database is not read only",
        _ => return Ok(()),
    };
    Err(DbError::new(ErrorKind::Connection, refused))
}
