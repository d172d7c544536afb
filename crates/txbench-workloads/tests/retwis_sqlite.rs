//! Retwis on embedded SQLite: the key table loads through the shared bulk loader,
//! and the procedures read and write what each transaction's operations name.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::keys::KeyChooser;
use txbench_core::rng::Rand;
use txbench_core::{Engine, Outcome, Session, Written};
use txbench_engines::sqlite::{SqliteConfig, SqliteEngine};
use txbench_workloads::bulk;
use txbench_workloads::retwis::generate::{generate, units};
use txbench_workloads::retwis::input::{GET_TIMELINE, Op, input, next_type};
use txbench_workloads::retwis::{meta, procedures, schema};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_load_and_transactions_touch_what_they_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("retwis.db");
    let engine =
        Arc::new(SqliteEngine::new(SqliteConfig::parse(path.to_str().unwrap()).unwrap()).unwrap());
    let (keys, value_size) = (25_000u64, 64usize);
    let session = engine.connect().await.unwrap();
    let session = bulk::create_tables(&*engine, session, &meta::META, &schema::SCHEMA, false, None)
        .await
        .unwrap();
    let session = bulk::write_population(
        &engine,
        session,
        &schema::SCHEMA,
        units(keys),
        move |_, chunk| vec![generate(5, keys, value_size, chunk)],
        2,
        Arc::new(AtomicU64::new(0)),
    )
    .await
    .unwrap();
    let mut s = bulk::finish_tables::<SqliteEngine>(&engine, session, &schema::SCHEMA, 2, false)
        .await
        .unwrap();
    let count = s
        .query_sql("SELECT count(*), min(k), max(k), min(length(v)), max(length(v)) FROM retwis_kv")
        .await
        .unwrap();
    let row: Vec<i64> = count
        .row(0)
        .unwrap()
        .values()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(row, vec![25_000, 1, 25_000, 64, 64]);

    // 20,000 transactions of the mix, Zipf 0.99: every one commits on one
    // session, and exactly the keys that were put hold the new value.
    let chooser = KeyChooser::new(keys, 0.99).unwrap();
    let mut rng = Rand::new(3);
    let mut written = std::collections::BTreeSet::new();
    let new_value = "x".repeat(value_size);
    for _ in 0..20_000 {
        let t = next_type(&mut rng);
        let inp = input(&mut rng, &chooser, t);
        for op in &inp.ops {
            if let Op::Put(k) = op {
                written.insert(*k);
            }
        }
        assert_eq!(t == GET_TIMELINE, inp.read_only());
        let outcome = procedures::execute(&mut s, &inp, &new_value, &mut Written::new())
            .await
            .unwrap();
        assert_eq!(outcome, Outcome::Committed);
    }
    let changed = s
        .query_sql(&format!(
            "SELECT count(*) FROM retwis_kv WHERE v = '{new_value}'"
        ))
        .await
        .unwrap();
    assert_eq!(
        changed.row(0).unwrap().get(0).unwrap().as_i64().unwrap(),
        written.len() as i64
    );
    // Skew: the hottest key was written, and far fewer distinct keys than puts.
    assert!(written.contains(&1));
    assert!(
        written.len() < 15_000,
        "{} distinct keys written",
        written.len()
    );

    // A key outside the table is a data error, and the transaction is not committed.
    let missing = txbench_workloads::retwis::input::RetwisInput {
        txn_type: 1,
        ops: vec![Op::Put(2), Op::Get(keys + 1)],
    };
    let err = procedures::execute(&mut s, &missing, "y", &mut Written::new())
        .await
        .unwrap_err();
    assert!(err.message.contains("missing row"), "{err}");
    s.rollback().await.unwrap();
    let two = s
        .query_sql("SELECT v FROM retwis_kv WHERE k = 2")
        .await
        .unwrap();
    assert_ne!(two.row(0).unwrap().get(0).unwrap().as_str().unwrap(), "y");
}
