//! The HTTP side of `--metrics-listen`: `GET /metrics` answers the run's
//! figures as OpenMetrics text; anything else is 404. Served by hyper on the
//! run's runtime, a task per connection; a scrape costs the run one lock
//! while its snapshot is copied.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode, header};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::Live;
use crate::failure::Failure;

/// The content type of OpenMetrics text, as Prometheus asks for it.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Listen on `addr` and serve `live` until the process ends; the address
/// bound (the port chosen, when 0 was asked).
pub async fn start(addr: SocketAddr, live: Arc<Live>) -> Result<SocketAddr, Failure> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::failed_because(e, format!("--metrics-listen {addr}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| Failure::failed_because(e, format!("--metrics-listen {addr}")))?;
    tokio::spawn(async move {
        loop {
            // A failed accept (out of descriptors) must not end the endpoint.
            let Ok((stream, _)) = listener.accept().await else {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                continue;
            };
            let live = Arc::clone(&live);
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    std::future::ready(Ok::<_, Infallible>(answer(&live, &request)))
                });
                // A scraper that hangs up mid-answer is its own business.
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(bound)
}

/// The answer to one request.
fn answer(live: &Live, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    let reply = |status, kind: &str, body: String| {
        let mut r = Response::new(Full::new(Bytes::from(body)));
        *r.status_mut() = status;
        if let Ok(v) = header::HeaderValue::from_str(kind) {
            r.headers_mut().insert(header::CONTENT_TYPE, v);
        }
        r
    };
    if request.uri().path() != "/metrics" {
        return reply(
            StatusCode::NOT_FOUND,
            "text/plain",
            "txbench serves /metrics only\n".into(),
        );
    }
    let snapshot = live.lock().clone();
    match super::families::encode(snapshot) {
        Ok(text) => reply(StatusCode::OK, OPENMETRICS, text),
        Err(_) => reply(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain",
            "the metrics could not be encoded\n".into(),
        ),
    }
}
