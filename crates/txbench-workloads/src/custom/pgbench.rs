//! pgbench's built-in scripts as workload files, shipped in the binary, and
//! `txbench pgbench`, the command that runs them: pgbench's tables loaded
//! once (the load recorded in `txbench_pgbench_meta`; data `pgbench -i`
//! made is found by its branches), any of the three scripts run on them.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use txbench_core::result::{Metric, TypeResult};
use txbench_core::schema::{Schema, Table};
use txbench_core::{Engine, Session};

use super::check::parse;
use super::opened::{self, Defined};
use super::run::FileWorkload;
use super::spec::Spec;
use crate::about::{About, RunFlags, Scale};
use crate::benchmark::{Benchmark, MetricBasis};
use crate::bulk::{LoadPlan, LoadSummary};
use crate::capability::Check;
use crate::error::WorkloadError;
use crate::meta_table::MetaTable;
use crate::options::{Choice, Flag, NoOptions, Options, by_name};

/// The command's names and scale: pgbench's scale factor.
pub static ABOUT: About = About {
    name: "pgbench",
    title: "pgbench",
    summary: "pgbench's built-in scripts (tpcb-like, simple-update, select-only) on pgbench's \
              tables, statement for statement, also on data `pgbench -i` made; without a verb, \
              load (if needed), run and report (embedded SQLite by default)",
    load_summary: "Load pgbench's tables as `pgbench -i` does: a branch, 10 tellers and 100,000 \
                   accounts per unit of the scale, an empty history",
    run_summary: "Run one of pgbench's built-in scripts on its tables and report",
    scale: Scale {
        unit: "scale",
        one: "scale",
        short: Some('s'),
        default: 1,
        max: 20_000,
    },
    run_flags: RunFlags {
        terminals: "1 per unit of the scale (pgbench's -c is 1 at any scale)",
        wait_spec: None,
        home: None,
        seed_draws: "the accounts, tellers, branches and deltas",
    },
    required_example: "",
    foreign_keys: None,
};

/// One of pgbench's built-in scripts (`pgbench -b NAME`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Builtin {
    /// TPC-B (sort of): an account, a teller and a branch updated, the
    /// account read, a history row inserted.
    #[default]
    TpcbLike,
    /// `pgbench -N`: the account updated and read, a history row inserted.
    SimpleUpdate,
    /// `pgbench -S`: an account read.
    SelectOnly,
}

impl Builtin {
    /// Its file, checked (a test checks every shipped one).
    fn spec(self) -> Spec {
        let (name, text) = match self {
            Builtin::TpcbLike => ("tpcb-like", include_str!("pgbench/tpcb-like.toml")),
            Builtin::SimpleUpdate => ("simple-update", include_str!("pgbench/simple-update.toml")),
            Builtin::SelectOnly => ("select-only", include_str!("pgbench/select-only.toml")),
        };
        parse(&format!("pgbench/{name}.toml"), text).expect("the shipped files check")
    }
}

/// `txbench pgbench run`'s own flags.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PgbenchRunOptions {
    /// The script.
    pub builtin: Builtin,
}

impl Options for PgbenchRunOptions {
    const FLAGS: &'static [Flag<Self>] = &[Flag {
        long: "builtin",
        help: "The built-in script, as pgbench's -b (-N is simple-update, -S select-only)",
        value_name: "SCRIPT",
        default: Some("tpcb-like"),
        choices: &[
            Choice {
                name: "tpcb-like",
                help: "TPC-B (sort of): update an account, a teller and a branch, read the \
                       account, insert a history row",
            },
            Choice {
                name: "simple-update",
                help: "pgbench -N: update and read an account, insert a history row",
            },
            Choice {
                name: "select-only",
                help: "pgbench -S: read an account",
            },
        ],
        set: |o, v| {
            o.builtin = by_name(v)?;
            Ok(())
        },
    }];
}

/// pgbench's tables and metadata table, the same for every script.
fn tables() -> &'static Defined {
    static TABLES: OnceLock<Defined> = OnceLock::new();
    TABLES.get_or_init(|| Defined::new(Builtin::TpcbLike.spec(), &ABOUT))
}

/// A built-in script, as `txbench pgbench` runs it.
pub type Pgbench = FileWorkload<PgbenchScript>;

/// The marker of [`Pgbench`].
#[derive(Debug)]
pub enum PgbenchScript {}

impl Benchmark for Pgbench {
    const ABOUT: &'static About = &ABOUT;
    type Definition = NoOptions;
    type LoadOptions = NoOptions;
    type RunOptions = PgbenchRunOptions;

    fn schema() -> &'static Schema {
        tables().made.schema
    }

    fn meta() -> &'static MetaTable {
        tables().made.meta
    }

    async fn load<E: Engine>(
        engine: Arc<E>,
        plan: &LoadPlan,
        _options: &NoOptions,
        rows_done: Arc<AtomicU64>,
    ) -> Result<LoadSummary, WorkloadError> {
        tables().load(engine, plan, rows_done).await
    }

    fn expected_rows(scale: i64) -> u64 {
        super::load::rows(&tables().spec, scale)
    }

    async fn open<S: Session>(
        session: &mut S,
        asked: Option<i64>,
        _seed: u64,
        options: &PgbenchRunOptions,
    ) -> Result<Self, WorkloadError> {
        // A server runs the statements of the script it serves: the
        // client's must be the same.
        let builtin = options.builtin;
        if let Some(served) = crate::opening::served_value(session, "builtin")
            && served != options_name(builtin)
        {
            return Err(WorkloadError::BadOption(format!(
                "--builtin {}: the txbench server serves pgbench's {served}",
                options_name(builtin)
            )));
        }
        tables().open(session, asked, |_| Ok(builtin.spec())).await
    }

    fn check() -> Option<Check> {
        Some(Check {
            summary: "Check TPC-B's balances: the accounts' add up to the history's deltas, the \
                      tellers' to the branches'",
            run: |session, _loaded| Box::pin(tables().check(session)),
        })
    }

    /// None: a file's tables are checked as it opens, before its
    /// statements are prepared (`Defined::open`).
    fn run_tables(&self) -> Vec<&'static Table> {
        Vec::new()
    }

    fn title(&self) -> String {
        self.spec().title.clone()
    }

    fn scale(&self) -> i64 {
        FileWorkload::scale(self)
    }

    type Parameters = opened::FileParameters;

    fn parameters(&self) -> opened::FileParameters {
        opened::parameters(self)
    }

    fn served_parameters(&self) -> Vec<(String, String)> {
        let builtin = self.spec().title.trim_start_matches("pgbench ").to_string();
        vec![
            ("workload".to_string(), ABOUT.name.to_string()),
            (ABOUT.scale.unit.to_string(), self.scale().to_string()),
            ("builtin".to_string(), builtin),
        ]
    }

    /// Transactions a second, as pgbench's tps counts them.
    fn metrics(types: &[TypeResult], measured_secs: f64, _basis: MetricBasis) -> Vec<Metric> {
        vec![opened::throughput(types, measured_secs, "tps")]
    }
}

/// A script's name as its flag and the results spell it.
fn options_name(b: Builtin) -> String {
    txbench_core::settings::name_of(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_script_checks_and_shares_the_tables_of_one_load() {
        let tables = Builtin::TpcbLike.spec().tables;
        for b in [
            Builtin::TpcbLike,
            Builtin::SimpleUpdate,
            Builtin::SelectOnly,
        ] {
            let spec = b.spec();
            assert_eq!(spec.tables, tables, "{b:?}");
            assert_eq!(spec.title, format!("pgbench {}", options_name(b)));
        }
    }

    #[test]
    fn every_choice_the_help_shows_is_taken_and_recorded_by_its_name() {
        for choice in PgbenchRunOptions::FLAGS[0].choices {
            let mut options = PgbenchRunOptions::default();
            (PgbenchRunOptions::FLAGS[0].set)(&mut options, choice.name).unwrap();
            assert_eq!(options_name(options.builtin), choice.name);
        }
    }
}
