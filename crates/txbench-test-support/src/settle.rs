//! Waiting for what a server does after it has answered the client.

use std::time::{Duration, Instant};

/// `count` asked every 50 ms until it answers 0 or `limit` has passed; its
/// last answer. For a server's work that follows its answer (a cancelled
/// statement's backend leaving it after sending the error, a backend whose
/// client has gone exiting), with a limit far below what a failure would
/// take (a statement left to run its hour).
pub async fn until_zero(limit: Duration, mut count: impl AsyncFnMut() -> i64) -> i64 {
    let until = Instant::now() + limit;
    loop {
        let n = count().await;
        if n == 0 || Instant::now() > until {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
