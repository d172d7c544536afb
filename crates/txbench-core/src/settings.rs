//! How a run was set up, as its results record it: typed, one record that
//! `summary.json` keeps and `config.toml` is written from, and that a merge
//! reads back (the scale its shards drove together, their waits) instead of
//! parsing strings.
//!
//! A leaf of the result model: the driver takes its value types (the wait
//! mode, the arrival process, the pacing) from here, never the reverse.

use serde::{Deserialize, Serialize};

use crate::engine::{Isolation, RoundTrips, Timestamps};

/// Whether terminals apply the specification's keying and think times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WaitMode {
    /// Back to back: the next transaction as soon as the last one is done.
    None,
    /// Keying time before and think time after each transaction, as specified.
    Spec,
}

/// How arrivals are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    /// Exponential gaps: a Poisson process.
    Poisson,
    /// Gaps uniform in [0, 2 / rate].
    Uniform,
    /// Every gap exactly 1 / rate.
    Fixed,
}

/// How a dispatcher waits for its next arrival.
///
/// A thread that sleeps costs a wake-up per arrival and sends through a
/// cross-thread hand-off; a task that yields costs a core however low the rate,
/// but hands each job to a session on its own thread. Which is better depends
/// on the rate: above [`SPIN_FROM_RATE`](crate::driver::SPIN_FROM_RATE)
/// per dispatcher the gaps are shorter than a wake-up costs, and sleeping saves
/// nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pacing {
    /// Sleep below `SPIN_FROM_RATE` per dispatcher, spin from there.
    Auto,
    /// A thread of its own per dispatcher, sleeping until each arrival.
    Sleep,
    /// A task of the driver's runtime per dispatcher, yielding until each arrival.
    Spin,
}

/// Whether a multi-node run keeps each terminal's work on one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Affinity {
    /// Sessions spread over the nodes in turn and take any terminal's work.
    Off,
    /// Each terminal's work on the node of its home (warehouse).
    Warehouse,
}

/// A workload's scale: its unit, as its flag names it, and how many.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scale {
    /// "warehouses", "subscribers", "keys".
    pub unit: String,
    /// How many of them the database holds.
    pub value: i64,
}

/// How the load was offered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Load {
    /// Terminals, each starting its next transaction when the last is done.
    Closed,
    /// Transactions started on a schedule whatever the database does.
    Open {
        /// Offered transactions per second (under a schedule, its mean over
        /// the measurement window).
        rate: f64,
        /// The rate schedule as `--rate` takes it, when the rate varies.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        schedule: Option<String>,
        /// The arrival process.
        arrival: Arrival,
        /// How the dispatchers waited for arrivals, as asked.
        pacing: Pacing,
        /// Most transactions waiting in the client; `None`: no limit.
        queue_limit: Option<u64>,
    },
}

/// A run's settings as it resolved them (defaults that depend on the database
/// and the workload made explicit).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// The workload's scale.
    pub scale: Scale,
    /// The workload's own run options, by name (Retwis's `zipf`).
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub options: serde_json::Map<String, serde_json::Value>,
    /// The measurement interval (seconds); with `transactions`, the most it
    /// could last.
    pub duration_secs: f64,
    /// The transaction count that ends the window, if one was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions: Option<u64>,
    /// The warm-up before it (seconds).
    pub warmup_secs: f64,
    /// Closed-loop terminals (open loop: the streams the arrivals draw from).
    pub terminals: usize,
    /// Database sessions.
    pub connections: usize,
    /// How the number of sessions was reached.
    pub connections_sizing: String,
    /// Keying and think times.
    pub wait: WaitMode,
    /// The seed every random stream of the run derives from.
    pub seed: u64,
    /// Closed or open loop.
    pub load: Load,
    /// Retries of a conflicting transaction before it counts as an error.
    pub max_retries: u32,
    /// How long after the window the run waited for the transactions due in it.
    pub grace_secs: f64,
    /// Node affinity of a multi-node run.
    pub affinity: Affinity,
    /// The isolation level asked for; `None`: the database's own.
    pub isolation: Option<Isolation>,
    /// Statements pipelined, or one per round trip (results written before
    /// the setting existed were pipelined).
    #[serde(default)]
    pub round_trips: RoundTrips,
    /// Whether the kernel's timestamps of the wire were read too (results
    /// written before the setting existed read none).
    #[serde(default)]
    pub timestamps: Timestamps,
    /// Database nodes the sessions were spread over.
    pub nodes: usize,
    /// This process's shard, 0-based.
    pub shard_index: u32,
    /// Processes the run was split across.
    pub shards: u32,
    /// The agreed start time (RFC 3339), for shards started together.
    pub start_at: Option<String>,
}

impl RunSettings {
    /// The settings as (name, value) rows for tables of settings (the HTML
    /// report, `compare`), in the order a reader wants them.
    pub fn rows(&self) -> Vec<(String, String)> {
        let mut rows = vec![(self.scale.unit.clone(), self.scale.value.to_string())];
        rows.extend(self.options.iter().map(|(k, v)| (k.clone(), plain(v))));
        rows.extend([
            ("terminals".to_string(), self.terminals.to_string()),
            ("connections".into(), self.connections.to_string()),
            ("connections_sizing".into(), self.connections_sizing.clone()),
            ("wait".into(), self.wait_name()),
            ("seed".into(), self.seed.to_string()),
            ("duration_secs".into(), self.duration_secs.to_string()),
            (
                "transactions".into(),
                self.transactions.map_or("none".into(), |n| n.to_string()),
            ),
            ("warmup_secs".into(), self.warmup_secs.to_string()),
            ("load".into(), self.load_text()),
            ("max_retries".into(), self.max_retries.to_string()),
            ("grace_secs".into(), self.grace_secs.to_string()),
            ("affinity".into(), name_of(&self.affinity)),
            (
                "isolation".into(),
                self.isolation.map_or("default", Isolation::name).into(),
            ),
            ("round_trips".into(), self.round_trips.name().into()),
            ("timestamps".into(), self.timestamps.name().into()),
            ("nodes".into(), self.nodes.to_string()),
            ("shards".into(), self.shards.to_string()),
            ("shard_index".into(), self.shard_index.to_string()),
            (
                "start_at".into(),
                self.start_at.clone().unwrap_or_else(|| "none".into()),
            ),
        ]);
        rows
    }

    /// "none" or "spec".
    pub fn wait_name(&self) -> String {
        name_of(&self.wait)
    }

    /// "closed", or "open 100/s poisson".
    pub fn load_text(&self) -> String {
        match &self.load {
            Load::Closed => "closed".into(),
            Load::Open {
                schedule: Some(schedule),
                arrival,
                ..
            } => format!("open '{schedule}' {}", name_of(arrival)),
            Load::Open { rate, arrival, .. } => format!("open {rate}/s {}", name_of(arrival)),
        }
    }
}

/// A setting's name as its flag and the results spell it ("poisson").
pub fn name_of<T: Serialize>(value: &T) -> String {
    plain(&serde_json::to_value(value).unwrap_or_default())
}

/// A JSON value as a reader writes it: strings without quotes.
fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> RunSettings {
        RunSettings {
            scale: Scale {
                unit: "warehouses".into(),
                value: 4,
            },
            options: serde_json::Map::new(),
            duration_secs: 60.0,
            transactions: None,
            warmup_secs: 5.0,
            terminals: 40,
            connections: 40,
            connections_sizing: "--connections".into(),
            wait: WaitMode::None,
            seed: 7,
            load: Load::Open {
                rate: 250.0,
                schedule: None,
                arrival: Arrival::Poisson,
                pacing: Pacing::Auto,
                queue_limit: None,
            },
            max_retries: 5,
            grace_secs: 5.0,
            affinity: Affinity::Off,
            isolation: Some(Isolation::RepeatableRead),
            round_trips: RoundTrips::Statement,
            timestamps: Timestamps::Kernel,
            nodes: 1,
            shard_index: 0,
            shards: 1,
            start_at: None,
        }
    }

    #[test]
    fn settings_read_back_as_written() {
        let s = settings();
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains(r#""load":{"kind":"open","rate":250.0,"arrival":"poisson""#));
        assert!(json.contains(r#""isolation":"repeatable-read""#));
        assert!(json.contains(r#""round_trips":"statement""#));
        assert_eq!(serde_json::from_str::<RunSettings>(&json).unwrap(), s);
        // Results written before the setting existed were pipelined.
        let older = json.replace(r#""round_trips":"statement","#, "");
        let read = serde_json::from_str::<RunSettings>(&older).unwrap();
        assert_eq!(read.round_trips, RoundTrips::Pipelined);
    }

    #[test]
    fn rows_name_the_scale_by_its_unit_and_the_load_in_words() {
        let rows = settings().rows();
        assert_eq!(rows[0], ("warehouses".into(), "4".into()));
        let get = |k: &str| rows.iter().find(|(n, _)| n == k).unwrap().1.clone();
        assert_eq!(get("load"), "open 250/s poisson");
        assert_eq!(get("isolation"), "repeatable-read");
        assert_eq!(get("affinity"), "off");
        assert_eq!(get("start_at"), "none");
    }
}
