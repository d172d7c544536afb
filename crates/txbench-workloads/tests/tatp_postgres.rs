//! TATP's alternative-key strategies on PostgreSQL, whole and in hash
//! partitions: each strategy's transactions keyed by sub_nbr change the
//! subscriber the number names, and only it (Update-Location's location,
//! Insert- and Delete-Call-Forwarding's row), fail as TATP expects where the
//! facility or the forwarding is missing, and leave the population's
//! invariants (the index among them) holding. Makes a database of its own
//! and drops it. Needs TXBENCH_TEST_POSTGRES_URL; skips with a notice
//! otherwise.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use txbench_core::{Engine, Outcome, Session, Written};
use txbench_engines::postgres::{PgEngine, PgSession, PgTarget};
use txbench_workloads::LoadPlan;
use txbench_workloads::tatp::input::{Digits, TatpInput};
use txbench_workloads::tatp::key_access::{Access, KeyAccess};
use txbench_workloads::tatp::load::load;
use txbench_workloads::tatp::{check, procedures};

use txbench_test_support::service::from_env as server_url;

/// The URL with its database replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, _) = url.rsplit_once('/').expect("a database in the URL");
    format!("{base}/{name}")
}

async fn int(s: &mut PgSession, sql: &str) -> i64 {
    let rows = s.query_sql(sql).await.unwrap();
    rows.row(0)
        .and_then(|r| r.get(0))
        .and_then(|v| v.as_i64())
        .unwrap_or_else(|| panic!("no integer from {sql}"))
}

async fn run(s: &mut PgSession, access: &Access, input: TatpInput) -> Outcome {
    procedures::execute(s, &input, &mut Written::new(), access)
        .await
        .unwrap()
}

/// Every transaction keyed by sub_nbr, with `access`, on subscriber `s_id`.
async fn the_sub_nbr_transactions_change_their_subscriber(
    s: &mut PgSession,
    access: &Access,
    s_id: i64,
) {
    let what = access.strategy.name();
    // Update-Location: the location of the subscriber the number names, and
    // of no other.
    let location = 900_000_000 + s_id;
    let moved = TatpInput::UpdateLocation {
        sub_nbr: Digits::of(s_id as u64),
        vlr_location: location,
    };
    assert_eq!(run(s, access, moved).await, Outcome::Committed, "{what}");
    let at = format!("SELECT s_id FROM subscriber WHERE vlr_location = {location}");
    assert_eq!(int(s, &at).await, s_id, "{what}");
    let count = format!("SELECT count(*) FROM subscriber WHERE vlr_location = {location}");
    assert_eq!(int(s, &count).await, 1, "{what}");

    // A facility type the subscriber has and one it lacks.
    let present = int(
        s,
        &format!("SELECT min(sf_type) FROM special_facility WHERE s_id = {s_id}"),
    )
    .await;
    let types = format!("SELECT count(*) FROM special_facility WHERE s_id = {s_id}");
    let absent = if int(s, &types).await < 4 {
        let mut absent = None;
        for t in 1..=4 {
            let has = format!(
                "SELECT count(*) FROM special_facility WHERE s_id = {s_id} AND sf_type = {t}"
            );
            if int(s, &has).await == 0 {
                absent = Some(t);
                break;
            }
        }
        absent
    } else {
        None
    };
    s.query_sql(&format!(
        "DELETE FROM call_forwarding WHERE s_id = {s_id} AND sf_type = {present}"
    ))
    .await
    .unwrap();
    let insert = |sf_type| TatpInput::InsertCallForwarding {
        sub_nbr: Digits::of(s_id as u64),
        sf_type,
        start_time: 8,
        end_time: 13,
        numberx: Digits::of(555_000 + s_id as u64),
    };
    assert_eq!(
        run(s, access, insert(present)).await,
        Outcome::Committed,
        "{what}"
    );
    let inserted = format!(
        "SELECT s_id FROM call_forwarding WHERE numberx = '{:015}'",
        555_000 + s_id
    );
    assert_eq!(int(s, &inserted).await, s_id, "{what}");
    assert_eq!(
        run(s, access, insert(present)).await,
        Outcome::ExpectedRollback,
        "{what}: the start time is taken"
    );
    if let Some(absent) = absent {
        assert_eq!(
            run(s, access, insert(absent)).await,
            Outcome::ExpectedRollback,
            "{what}: no such facility"
        );
    }
    let delete = TatpInput::DeleteCallForwarding {
        sub_nbr: Digits::of(s_id as u64),
        sf_type: present,
        start_time: 8,
    };
    assert_eq!(
        run(s, access, delete.clone()).await,
        Outcome::Committed,
        "{what}"
    );
    let left =
        format!("SELECT count(*) FROM call_forwarding WHERE s_id = {s_id} AND sf_type = {present}");
    assert_eq!(int(s, &left).await, 0, "{what}");
    assert_eq!(
        run(s, access, delete).await,
        Outcome::ExpectedRollback,
        "{what}: nothing left to delete"
    );
}

/// Each strategy on a load in `partitions` (0: whole tables) of `engine`.
async fn every_strategy(engine: &Arc<PgEngine>, partitions: u32) {
    let plan = LoadPlan {
        scale: 2_000,
        threads: 2,
        seed: 5,
        drop: true,
        foreign_keys: true,
    };
    load(
        Arc::clone(engine),
        &plan,
        partitions,
        Arc::new(AtomicU64::new(0)),
    )
    .await
    .unwrap();
    let mut s = engine.connect().await.unwrap();
    let strategies = KeyAccess::ALL
        .into_iter()
        .filter(|k| *k != KeyAccess::ServerSide);
    for (i, strategy) in strategies.enumerate() {
        let access = Access::new(strategy, partitions);
        // A subscriber of its own per strategy, spread over the partitions.
        let s_id = 101 + 397 * i as i64;
        the_sub_nbr_transactions_change_their_subscriber(&mut s, &access, s_id).await;
    }
    let failed: Vec<_> = check::check(&mut s, 2_000, true)
        .await
        .unwrap()
        .into_iter()
        .filter(|c| !c.passed())
        .map(|c| (c.text, c.violations))
        .collect();
    assert!(failed.is_empty(), "partitions {partitions}: {failed:?}");
}

#[test]
fn every_strategy_changes_its_subscriber_on_postgres_whole_and_partitioned() {
    let Some(url) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let name = format!("txbench_tatp_keys_{}", std::process::id());
    let engine = Arc::new(PgEngine::new(
        PgTarget::parse(&with_database(&url, &name)).unwrap(),
        None,
    ));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(engine.create_database()).unwrap();
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        rt.block_on(async {
            every_strategy(&engine, 0).await;
            every_strategy(&engine, 4).await;
        })
    }));
    drop(engine);
    rt.block_on(async {
        let admin = PgEngine::new(PgTarget::parse(&url).unwrap(), None);
        let mut s = admin.connect().await.unwrap();
        s.query_sql(&format!("DROP DATABASE {name} WITH (FORCE)"))
            .await
            .unwrap();
    });
    if let Err(panic) = ran {
        std::panic::resume_unwind(panic);
    }
}
