//! `--timestamps kernel` on PostgreSQL: the session's socket is opened here
//! and stamped by the kernel ([`txbench_wire`]) before tokio-postgres speaks
//! on it (`Config::connect_raw`), TLS included. A transaction's time on the
//! wire is the sum of its round trips: from the first bytes of each group of
//! statements leaving to the last bytes of their answers arriving, so the
//! client's own time between an answer and its next statement is left out.

use std::sync::{Arc, Mutex};

use tokio_postgres::config::Host;
use tokio_postgres::{Client, Config};
use txbench_core::{DbError, ErrorKind};
use txbench_wire::{Offsets, StampedStream, Wire, WireLog};

/// A session's stamped connection: its log, and where the last take left
/// off.
pub struct Stamped {
    log: Arc<Mutex<WireLog>>,
    mark: Offsets,
}

impl Stamped {
    /// The time on the wire since the last take.
    pub fn take(&mut self) -> Option<Wire> {
        let mut log = self.log.lock().unwrap_or_else(|e| e.into_inner());
        let now = log.offsets();
        let wire = log.round_trips(self.mark, now);
        log.forget_before(now);
        self.mark = now;
        wire
    }
}

/// Open `config`'s (single, TCP) host with a stamped socket, and start
/// tokio-postgres on it with `tls`.
pub async fn connect<T>(config: &Config, tls: T) -> Result<(Client, Stamped), DbError>
where
    T: tokio_postgres::tls::MakeTlsConnect<StampedStream>,
    T::Stream: Send + 'static,
{
    let (Some(Host::Tcp(host)), Some(port)) =
        (config.get_hosts().first(), config.get_ports().first())
    else {
        return Err(DbError::new(
            ErrorKind::Other,
            "kernel timestamps need a TCP host and port",
        ));
    };
    let stream = super::gated::connect_tcp(config, host, *port).await?;
    let stamped = StampedStream::new(stream).map_err(|e| {
        DbError::new(
            ErrorKind::Other,
            format!("{host}:{port}: the socket cannot take kernel timestamps: {e}"),
        )
    })?;
    let log = stamped.log();
    let mut tls = tls;
    let connector = tls.make_tls_connect(host).map_err(|e| {
        DbError::new(
            ErrorKind::Connection,
            format!("TLS for {host}: {}", e.into()),
        )
    })?;
    let (client, connection) = config
        .connect_raw(stamped, connector)
        .await
        .map_err(|e| super::dialect::connect_error(&e))?;
    tokio::spawn(async move { drop(connection.await) });
    let mark = log.lock().unwrap_or_else(|e| e.into_inner()).offsets();
    Ok((client, Stamped { log, mark }))
}
