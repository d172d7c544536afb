//! What the workload-file tests share: the documented example, and a
//! file's workload loaded and run briefly on any engine.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use txbench_core::Engine;
use txbench_core::driver::{self, RunOptions, WaitMode};
use txbench_workloads::LoadPlan;
use txbench_workloads::custom::{Spec, load, run::FileWorkload};

/// The first TOML block of docs/workload-file.md: its complete example.
pub fn documented_example() -> String {
    let doc = include_str!("../../../../docs/workload-file.md");
    let start = doc.find("```toml\n").unwrap() + "```toml\n".len();
    doc[start..start + doc[start..].find("```").unwrap()].to_string()
}

/// Transfers between account holders, three a unit of the scale: the
/// second is drawn `other_than` the first, so no transfer is a holder's to
/// itself, and at scale 1 every ordered pair of two comes up. Lookups find
/// a holder by a name that is its key in 64 digits, loaded and drawn
/// `width = 64`. Balances are loaded `normal` over [10000, 50000].
pub const TRANSFERS: &str = r#"
[workload]
name = "transfers"
scale = "banks"

[[table]]
name = "holder"
rows_per_scale = 3
primary_key = ["h_id"]
columns = [
  { name = "h_id", type = "bigint", gen = "sequence" },
  { name = "h_name", type = "varchar(64)", gen = "sequence", width = 64 },
  { name = "h_balance", type = "bigint", gen = "normal", min = 10000, max = 50000 },
]

[[table]]
name = "transfer"
rows_per_scale = 0
primary_key = ["t_id"]
columns = [
  { name = "t_id", type = "bigint", gen = "sequence" },
  { name = "t_from", type = "bigint", gen = "key", of = "holder.h_id" },
  { name = "t_to", type = "bigint", gen = "key", of = "holder.h_id" },
]

[[transaction]]
name = "Transfer"
weight = 50
params = [
  { name = "from", gen = "key", of = "holder.h_id" },
  { name = "to", gen = "key", of = "holder.h_id", other_than = "from" },
  { name = "t", gen = "next-key", of = "transfer.t_id" },
]
statements = [
  { sql = "INSERT INTO transfer (t_id, t_from, t_to) VALUES (:t, :from, :to)", expect = "one" },
]

[[transaction]]
name = "Lookup"
weight = 50
read_only = true
params = [{ name = "name", gen = "key", of = "holder.h_id", width = 64 }]
statements = [{ sql = "SELECT h_id FROM holder WHERE h_name = :name", expect = "one" }]

[[invariant]]
name = "no transfer to oneself"
sql = "SELECT t_id FROM transfer WHERE t_from = t_to"
"#;

/// Load `spec` at `scale` (replacing a load already there with `drop`),
/// checking the rows written.
pub async fn load<E: Engine>(engine: &Arc<E>, spec: &Spec, scale: i64, drop: bool) {
    let made = load::make(spec, load::about_of(spec));
    let plan = LoadPlan {
        scale,
        threads: 2,
        seed: 3,
        drop,
        foreign_keys: false,
    };
    let summary = load::load(
        Arc::clone(engine),
        Arc::new(spec.clone()),
        &made,
        &plan,
        Vec::new(),
        Arc::new(AtomicU64::new(0)),
    )
    .await
    .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
    // A table loaded from a query adds its rows to those generated.
    let generated = load::rows_loaded(spec, scale, plan.seed);
    let selects = (spec.tables.iter())
        .any(|t| matches!(t.rows, txbench_workloads::custom::Rows::Selected(_)));
    if selects {
        assert!(
            summary.rows >= generated,
            "{} rows, {generated} generated",
            summary.rows
        );
    } else {
        assert_eq!(summary.rows, generated);
    }
}

/// Drop the tables `spec`'s load made (as `clean` does), so that another
/// file with a table of the same name loads next (Epinions' and
/// Wikipedia's `useracct`).
#[allow(dead_code)]
pub async fn clean<E: Engine>(engine: &Arc<E>, spec: &Spec) {
    let made = load::make(spec, load::about_of(spec));
    let mut session = engine.connect().await.unwrap();
    txbench_workloads::ownership::drop_ours(&mut session, made.meta, made.schema)
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
}

/// Run `spec` at `scale` until `count` transactions have ended, on
/// `(terminals, connections)`, closed loop: a test's counts are then the
/// same on a loaded machine, which only takes longer (two minutes at most).
pub async fn run_until<E: Engine>(
    engine: &Arc<E>,
    spec: &Spec,
    scale: i64,
    sessions: (usize, usize),
    count: u64,
) -> driver::Recording {
    run(
        engine,
        spec,
        scale,
        sessions,
        (Duration::from_secs(120), Some(count)),
    )
    .await
}

/// Run `spec` for `duration`, or until `count` transactions have ended.
async fn run<E: Engine>(
    engine: &Arc<E>,
    spec: &Spec,
    scale: i64,
    (terminals, connections): (usize, usize),
    (duration, count): (Duration, Option<u64>),
) -> driver::Recording {
    let opts = RunOptions {
        duration,
        transactions: count,
        warmup: Duration::ZERO,
        terminals,
        connections,
        wait: WaitMode::None,
        seed: 9,
        retry: Default::default(),
        affinity: false,
        start_at: None,
        grace: Duration::from_secs(2),
        acks: None,
        schedule: Vec::new(),
        open: None,
    };
    let (_running, stop) = tokio::sync::watch::channel(false);
    let workload = Arc::new(FileWorkload::new(spec.clone(), scale));
    driver::run(engine, &workload, &opts, stop, |_| {})
        .await
        .unwrap()
}

/// BenchBase's ResourceStresser with its pauses cut from seconds to
/// milliseconds (`1s` to `1ms`, `2s` to `2ms`), so that a second's run holds
/// hundreds of its transactions: what it sends is the shipped file's.
pub fn resource_stresser_with_short_pauses() -> String {
    let (_, text) = txbench_workloads::custom::benchbase::file("resourcestresser").unwrap();
    let short = text
        .replace("pause_after = \"1s\"", "pause_after = \"1ms\"")
        .replace("pause_after = \"2s\"", "pause_after = \"2ms\"");
    assert_eq!(short.matches("pause_after = \"1ms\"").count(), 2);
    assert_eq!(short.matches("pause_after = \"2ms\"").count(), 2);
    short
}

/// Documents in a `text` column, some of them longer than any varchar
/// (50,000 characters), read and rewritten whole.
pub const DOCUMENTS: &str = r#"
[workload]
name = "documents"
scale = "documents"
default_scale = 100

[[table]]
name = "doc"
rows_per_scale = 1
primary_key = ["id"]
columns = [
  { name = "id", type = "int", gen = "sequence" },
  { name = "body", type = "text", gen = "string", lengths = [[100, 1], [50000, 1]] },
]

[[transaction]]
name = "Read"
weight = 50
read_only = true
params = [{ name = "id", gen = "key", of = "doc.id" }]
statements = [
  { name = "read", sql = "SELECT body FROM doc WHERE id = :id", expect = "one" },
]

[[transaction]]
name = "Rewrite"
weight = 50
params = [
  { name = "id", gen = "key", of = "doc.id" },
  { name = "body", gen = "string", lengths = [[100, 1], [50000, 1]] },
]
statements = [
  { name = "rewrite", sql = "UPDATE doc SET body = :body WHERE id = :id", expect = "one" },
]

[[invariant]]
name = "every document is whole"
sql = "SELECT id FROM doc WHERE length(body) NOT IN (100, 50000)"
"#;
