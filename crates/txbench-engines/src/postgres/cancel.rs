//! PostgreSQL's cancel request: how a statement in progress is stopped from
//! elsewhere. Dropping the future that awaits it does not: the backend runs
//! on (a `pg_sleep` outlived the txbench that sent it).

use std::sync::{Arc, Mutex};

use tokio::net::TcpStream;
use tokio_postgres::tls::MakeTlsConnect;
use tokio_postgres::{CancelToken, NoTls};
use tokio_postgres_rustls::MakeRustlsConnect;
use txbench_core::interrupt::{Interrupt, Pending};

/// What a cancel request for one connection needs.
pub(super) struct Canceller {
    token: CancelToken,
    /// The server's address, for a connection made on a socket of txbench's
    /// own (kernel timestamps), whose token does not know it.
    raw_to: Option<(String, u16)>,
    tls: Option<MakeRustlsConnect>,
}

impl Canceller {
    pub(super) fn new(
        token: CancelToken,
        raw_to: Option<(String, u16)>,
        tls: Option<MakeRustlsConnect>,
    ) -> Self {
        Canceller { token, raw_to, tls }
    }

    /// Send the request; a failure (the server gone, say) leaves nothing to
    /// stop, so it is not reported.
    async fn cancel(&self) {
        let Some((host, port)) = &self.raw_to else {
            let _ = match &self.tls {
                None => self.token.cancel_query(NoTls).await,
                Some(tls) => self.token.cancel_query(tls.clone()).await,
            };
            return;
        };
        let Ok(stream) = TcpStream::connect((host.as_str(), *port)).await else {
            return;
        };
        let _ = match &self.tls {
            None => self.token.cancel_query_raw(stream, NoTls).await,
            Some(tls) => {
                match MakeTlsConnect::<TcpStream>::make_tls_connect(&mut tls.clone(), host) {
                    Ok(connector) => self.token.cancel_query_raw(stream, connector).await,
                    Err(_) => return,
                }
            }
        };
    }
}

/// A session's interrupt handle: cancels whatever connection the session
/// has now (a reconnect replaces it).
pub(super) struct PgInterrupt {
    pub(super) current: Arc<Mutex<Arc<Canceller>>>,
}

impl Interrupt for PgInterrupt {
    fn interrupt(&self) -> Pending {
        let canceller = Arc::clone(&self.current.lock().expect("canceller lock"));
        Box::pin(async move { canceller.cancel().await })
    }
}
