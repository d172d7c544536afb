//! A reproduction, without txbench, of a MariaDB Galera fault
//! (docs/durability.md, "A Galera node's prepared statements"): a
//! brute-force abort that lands while the server prepares a statement
//! (COM_STMT_PREPARE) is lost. The prepare answers OK, the transaction it was
//! part of has been rolled back, and the next statement starts a new
//! transaction, which the client then commits as if it were the old one.
//!
//! ```sh
//! scripts/galera-cluster.sh up
//! cargo run --release -p txbench-engines --example galera_prepare_abort -- \
//!     mysql://root@127.0.0.1:3307/test mysql://root@127.0.0.1:3308/test \
//!     mysql://root@127.0.0.1:3309/test 60
//! ```
//!
//! Clients A, on the first node, each loop: UPDATE the hot row (w.ytd + 1);
//! prepare (anew each time) and run a SELECT ... FOR UPDATE of rows of their
//! own, ten times; INSERT a row into h; COMMIT. Clients B, on the other
//! nodes, update the hot row now and then, so that their write sets abort A's
//! transactions on the first node. Each A that commits adds 1 to w.ytd and one
//! row to h, both or neither: at the end w.ytd = count(h) = A's commits. Exit
//! 0 when that holds, 1 when it does not (the split is printed). With
//! `--text` (after SECONDS), the same statements go in the text protocol
//! (COM_QUERY), and the transactions hold.

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder};

/// Statements each A prepares anew in every transaction: the windows in
/// which an abort can land during a prepare.
const PREPARES: usize = 10;
const A_CLIENTS: i64 = 4;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: galera_prepare_abort NODE1_URL NODE2_URL NODE3_URL [SECONDS [--text]]");
        std::process::exit(2);
    }
    let seconds: u64 = args.get(3).map_or(60, |s| s.parse().expect("seconds"));
    // The control: the same statements in the text protocol.
    let text = args.get(4).is_some_and(|a| a == "--text");
    // No statement cache: every prep() is a COM_STMT_PREPARE.
    let opts = |url: &str| -> Opts {
        OptsBuilder::from_opts(Opts::from_url(url).expect("a mysql:// URL"))
            .stmt_cache_size(0)
            .into()
    };
    let mut admin = Conn::new(opts(&args[0])).await.expect("node 1");
    admin
        .query_drop(
            "DROP TABLE IF EXISTS w, h, items; \
             CREATE TABLE w (id INT PRIMARY KEY, ytd INT, other INT); \
             CREATE TABLE h (id INT AUTO_INCREMENT PRIMARY KEY, amt INT); \
             CREATE TABLE items (id INT PRIMARY KEY, n INT); \
             INSERT INTO w VALUES (1, 0, 0); \
             INSERT INTO items SELECT seq, 0 FROM seq_1_to_100",
        )
        .await
        .expect("tables");
    tokio::time::sleep(Duration::from_secs(1)).await;
    let until = Instant::now() + Duration::from_secs(seconds);
    let a: Vec<_> = (0..A_CLIENTS)
        .map(|k| tokio::spawn(a_client(opts(&args[0]), k, until, text)))
        .collect();
    let b: Vec<_> = args[1..3]
        .iter()
        .map(|url| tokio::spawn(b_client(opts(url), until)))
        .collect();
    let (mut committed, mut failed) = (0, 0);
    for task in a {
        let (ok, err) = task.await.expect("client A");
        committed += ok;
        failed += err;
    }
    for task in b {
        task.await.expect("client B");
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let ytd: i64 = admin
        .query_first("SELECT ytd FROM w")
        .await
        .unwrap()
        .unwrap();
    let rows: i64 = admin
        .query_first("SELECT COUNT(*) FROM h")
        .await
        .unwrap()
        .unwrap();
    let whole = ytd == rows && rows == committed;
    println!(
        "A committed {committed}, failed {failed}; w.ytd {ytd}, rows in h {rows}: {}",
        if whole {
            "consistent".to_string()
        } else {
            format!(
                "SPLIT: {} rows of h committed without their update",
                rows - ytd
            )
        }
    );
    std::process::exit(if whole { 0 } else { 1 });
}

/// Client A: its transactions, until `until`; how many committed and failed.
async fn a_client(opts: Opts, k: i64, until: Instant, text: bool) -> (i64, i64) {
    let mut conn = Conn::new(opts).await.expect("client A");
    conn.query_drop("SET autocommit = 0").await.unwrap();
    let items: Vec<i64> = (1..=15).map(|i| i + 15 * k).collect();
    let lock = format!(
        "SELECT id, n FROM items WHERE id IN ({}) FOR UPDATE",
        vec!["?"; items.len()].join(", ")
    );
    let (mut ok, mut failed) = (0, 0);
    while Instant::now() < until {
        match a_transaction(&mut conn, &lock, &items, text).await {
            Ok(()) => ok += 1,
            Err(_) => {
                failed += 1;
                conn.query_drop("ROLLBACK").await.unwrap();
            }
        }
    }
    (ok, failed)
}

async fn a_transaction(
    conn: &mut Conn,
    lock: &str,
    items: &[i64],
    text: bool,
) -> mysql_async::Result<()> {
    conn.query_drop("UPDATE w SET ytd = ytd + 1 WHERE id = 1")
        .await?;
    for _ in 0..PREPARES {
        if text {
            // The same statement in the text protocol (COM_QUERY).
            let values: Vec<String> = items.iter().map(i64::to_string).collect();
            let sql = lock.replace(&vec!["?"; items.len()].join(", "), &values.join(", "));
            let _: Vec<(i64, i64)> = conn.query(sql).await?;
        } else {
            let stmt = conn.prep(lock).await?;
            let _: Vec<(i64, i64)> = conn.exec(&stmt, items.to_vec()).await?;
            conn.close(stmt).await?;
        }
    }
    conn.query_drop("INSERT INTO h (amt) VALUES (1)").await?;
    conn.query_drop("COMMIT").await
}

/// Client B: updates of the hot row through another node, until `until`.
async fn b_client(opts: Opts, until: Instant) {
    let mut conn = Conn::new(opts).await.expect("client B");
    while Instant::now() < until {
        let _ = conn
            .query_drop("UPDATE w SET other = other + 1 WHERE id = 1")
            .await;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}
