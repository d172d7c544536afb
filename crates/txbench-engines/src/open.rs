//! Engines build themselves: the `--db` URLs and the engine options a command
//! asks for become an engine here, and an engine that cannot honour an option
//! refuses it by name instead of dropping it. The command's work is then run
//! with the engine as an [`AnyEngine`] ([`WithEngine`]), so that each command
//! is compiled once, not once per engine; each engine's own code is compiled
//! once, and its sessions are called through one indirection.

use std::future::Future;
use std::sync::Arc;

use thiserror::Error;
use txbench_core::any_engine::AnyEngine;
use txbench_core::{DbError, Isolation, RoundTrips, Timestamps};

use crate::file_lock::{FileLock, Holders};
use crate::target::Target;
use crate::target_error::TargetError;

/// Settings of an engine beyond its URL, as a command asks for them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// The transactions' isolation level; `None`: the database's own.
    pub isolation: Option<Isolation>,
    /// Statements pipelined, or one per round trip.
    pub round_trips: RoundTrips,
    /// Whether the sessions read the kernel's timestamps of their bytes.
    pub timestamps: Timestamps,
    /// Other processes of the same sharded run may use the same embedded
    /// database file (each shard's process holds its lock shared).
    pub shared_by_shards: bool,
    /// The workload the command drives: a txbench server is told it in the
    /// handshake and refuses it when it serves another.
    pub workload: Option<&'static str>,
}

/// A command's work with an engine, whichever the URL names.
pub trait WithEngine {
    /// What the work gives back.
    type Output;
    /// Do the work with `engine`: every engine as one type, so that the
    /// work is compiled once, not once per engine (see [`AnyEngine`]).
    fn with(self, engine: Arc<AnyEngine>) -> impl Future<Output = Self::Output>;
}

/// Why no engine could be built.
#[derive(Debug, Error)]
pub enum OpenError {
    /// A `--db` URL that could not be understood.
    #[error(transparent)]
    Url(#[from] TargetError),
    /// An option the engine cannot honour, named with its value.
    #[error("--{option} {value}: {why}")]
    Refused {
        /// The option's flag.
        option: &'static str,
        /// The value asked for.
        value: &'static str,
        /// Why this engine cannot honour it.
        why: &'static str,
    },
    /// Another txbench uses the embedded database file.
    #[error(transparent)]
    Lock(#[from] crate::file_lock::LockError),
    /// A side database (`--analytic-db`) that cannot be beside the run's.
    #[error("{0}")]
    Side(String),
    /// The database could not be opened: the engine's message, with what
    /// to do where its code says (credentials refused, no such database).
    #[error("{}", opening_failed(.0))]
    Db(DbError),
}

impl From<DbError> for OpenError {
    fn from(e: DbError) -> Self {
        OpenError::Db(e)
    }
}

/// The codes of credentials the server refused.
const REFUSED_CREDENTIALS: [&str; 4] = [
    "MySQL 1045",
    "MySQL 1044",
    "SQLSTATE 28P01",
    "SQLSTATE 28000",
];
/// The codes of a database that does not exist.
const NO_SUCH_DATABASE: [&str; 2] = ["MySQL 1049", "SQLSTATE 3D000"];

/// Whether the server said the database asked for does not exist.
pub fn is_no_such_database(e: &DbError) -> bool {
    e.code
        .as_deref()
        .is_some_and(|c| NO_SUCH_DATABASE.contains(&c))
}

/// Why opening failed, with what to do where the database's code says.
fn opening_failed(e: &DbError) -> String {
    explained(e).unwrap_or_else(|| e.to_string())
}

/// An error whose code says the `--db` URL is wrong (credentials refused,
/// no such database), in words that say what to do; `None` for the rest.
pub fn explained(e: &DbError) -> Option<String> {
    let code = e.code.as_deref()?;
    let what = if REFUSED_CREDENTIALS.contains(&code) {
        "the server refused the user or password the --db URL gives"
    } else if NO_SUCH_DATABASE.contains(&code) {
        "no such database: `load` creates it"
    } else {
        return None;
    };
    Some(format!("{}: {what}", e.message))
}

impl OpenError {
    /// Whether the server said the `--db` URL's database does not exist.
    pub fn is_no_such_database(&self) -> bool {
        matches!(self, OpenError::Db(e) if is_no_such_database(e))
    }

    /// Whether the command asked for something that cannot be (a bad URL, an
    /// option the engine refuses): exit 2 rather than 1.
    pub fn is_usage(&self) -> bool {
        match self {
            OpenError::Url(_) | OpenError::Refused { .. } | OpenError::Side(_) => true,
            // A server's refusal (credentials, no such database) is the
            // server's answer: a failure, explained (see [`explained`]).
            OpenError::Db(_) | OpenError::Lock(_) => false,
        }
    }
}

/// Which isolation levels an engine honours, and why not the others.
struct Levels {
    honoured: &'static [Isolation],
    otherwise: &'static str,
}

const EVERY_LEVEL: Levels = Levels {
    honoured: &[
        Isolation::ReadCommitted,
        Isolation::RepeatableRead,
        Isolation::Serializable,
    ],
    otherwise: "",
};

fn levels(target: &Target) -> Levels {
    match target {
        Target::Postgres(_) | Target::Mysql(_) | Target::MysqlCluster(_) => EVERY_LEVEL,
        Target::Sqlite(_) => Levels {
            honoured: &[Isolation::Serializable],
            otherwise: "SQLite runs every transaction serializable",
        },
        Target::Null => Levels {
            honoured: &[],
            otherwise: "the null engine executes nothing, at no isolation level",
        },
        Target::Redis(_) => Levels {
            honoured: &[],
            otherwise: "Redis runs optimistic WATCH/MULTI/EXEC transactions, which have no \
                        isolation levels",
        },
        Target::RedisCluster(_) => Levels {
            honoured: &[],
            otherwise: "Redis Cluster runs each script atomically on one partition, which has no \
                        isolation levels",
        },
        Target::Remote(_) => Levels {
            honoured: &[],
            otherwise: "a txbench server runs transactions at the level it was started with: \
                        give --isolation to `txbench serve`",
        },
        Target::Sim(_) => Levels {
            honoured: &[],
            otherwise: "the simulated engine (sim:) has no isolation levels",
        },
        #[cfg(feature = "etcd")]
        Target::Etcd(_) => Levels {
            honoured: &[],
            otherwise: "etcd runs optimistic transactions on its revisions (serializable), \
                        which have no levels to choose",
        },
    }
}

/// Why an engine has no round trips to count one statement at a time;
/// `None` for the network engines that do.
fn without_round_trips(target: &Target) -> Option<&'static str> {
    match target {
        Target::Postgres(_) | Target::Mysql(_) | Target::MysqlCluster(_) => None,
        Target::Sqlite(_) => {
            Some("SQLite is embedded: every statement is a call, none a round trip")
        }
        Target::Null | Target::Sim(_) => Some("this engine executes no statements"),
        Target::Redis(_) => {
            Some("Redis runs each transaction as one WATCH/MULTI/EXEC exchange of its commands")
        }
        Target::RedisCluster(_) => {
            Some("Redis Cluster runs each transaction as scripts, one request per partition")
        }
        Target::Remote(_) => Some(
            "a txbench server runs whole transactions: its round trips to its database are its own",
        ),
        #[cfg(feature = "etcd")]
        Target::Etcd(_) => {
            Some("etcd runs each transaction as its reads and one Txn request at commit")
        }
    }
}

/// Why an engine's sessions cannot give the kernel's timestamps of their
/// bytes; `None` for those that can.
fn without_kernel_timestamps(target: &Target) -> Option<&'static str> {
    match target {
        // Every PostgreSQL host is TCP (the URL refuses sockets).
        Target::Postgres(_) | Target::Remote(_) => None,
        Target::Mysql(_) | Target::MysqlCluster(_) => Some(
            "the MySQL driver (mysql_async) opens its own sockets and takes no stream of \
             txbench's, so its bytes cannot be stamped",
        ),
        Target::Redis(_) | Target::RedisCluster(_) => Some(
            "txbench's Redis sessions use the redis crate's own connections, which take no \
             stream of txbench's",
        ),
        Target::Sqlite(_) => Some("SQLite is embedded: nothing goes over a wire"),
        Target::Null | Target::Sim(_) => Some("this engine sends nothing over a wire"),
        #[cfg(feature = "etcd")]
        Target::Etcd(_) => Some("etcd's gRPC client (tonic) opens its own connections"),
    }
}

/// Refuse the options `target`'s engine cannot honour, naming them.
fn refuse_unhonoured(target: &Target, options: &EngineOptions) -> Result<(), OpenError> {
    let levels = levels(target);
    if let Some(level) = options.isolation.filter(|l| !levels.honoured.contains(l)) {
        return Err(OpenError::Refused {
            option: "isolation",
            value: level.name(),
            why: levels.otherwise,
        });
    }
    // Settings beyond the default, each honoured or refused by the engine:
    // (flag, asked, the value asked, why this engine cannot).
    let beyond_default = [
        (
            "round-trips",
            options.round_trips == RoundTrips::Statement,
            RoundTrips::Statement.name(),
            without_round_trips(target),
        ),
        (
            "timestamps",
            options.timestamps == Timestamps::Kernel,
            Timestamps::Kernel.name(),
            without_kernel_timestamps(target),
        ),
    ];
    match beyond_default
        .into_iter()
        .find(|(_, asked, _, why)| *asked && why.is_some())
    {
        Some((option, _, value, Some(why))) => Err(OpenError::Refused { option, value, why }),
        _ => Ok(()),
    }
}

/// Build the engine `urls` name with `options`, and do `work` with it. An
/// SQLite file is locked against other txbench processes until the work is
/// done (shared with the run's other shards when `options` says so).
pub async fn with_engine<W: WithEngine>(
    urls: &[String],
    options: &EngineOptions,
    work: W,
) -> Result<W::Output, OpenError> {
    let target = Target::parse_all(urls)?;
    refuse_unhonoured(&target, options)?;
    let isolation = options.isolation;
    // Held until the work is done with the file.
    let mut _lock = None;
    let engine = match target {
        Target::Sqlite(config) => {
            let holders = if options.shared_by_shards {
                Holders::Shards
            } else {
                Holders::Alone
            };
            let path = config.path.clone();
            // Opened first: a file that cannot be opened (read-only, damaged)
            // is named as such rather than by its lock file's failure.
            let engine = crate::sqlite::SqliteEngine::new(config)?;
            _lock = path
                .as_deref()
                .map(|p| FileLock::acquire(p, holders).map_err(OpenError::Lock))
                .transpose()?;
            AnyEngine::new(engine)
        }
        Target::Postgres(target) => {
            let engine = crate::postgres::PgEngine::new(target, isolation)
                .with_round_trips(options.round_trips)
                .with_timestamps(options.timestamps);
            AnyEngine::new(engine)
        }
        Target::Mysql(target) => {
            let engine = crate::mysql::MyEngine::new(vec![target], isolation)
                .with_round_trips(options.round_trips);
            AnyEngine::new(engine)
        }
        Target::MysqlCluster(nodes) => {
            let engine =
                crate::mysql::MyEngine::new(nodes, isolation).with_round_trips(options.round_trips);
            AnyEngine::new(engine)
        }
        Target::Null => AnyEngine::new(crate::null::NullEngine),
        Target::Redis(target) => {
            let engine = crate::redis::RedisEngine::new(target)?;
            AnyEngine::new(engine)
        }
        Target::RedisCluster(target) => {
            let engine = crate::redis_cluster::RedisClusterEngine::new(target)?;
            AnyEngine::new(engine)
        }
        Target::Remote(target) => {
            let engine = txbench_remote::RemoteEngine::new(target, options.workload)
                .with_timestamps(options.timestamps == Timestamps::Kernel);
            AnyEngine::new(engine)
        }
        Target::Sim(config) => {
            let engine = crate::sim::SimEngine::new(config)?;
            AnyEngine::new(engine)
        }
        #[cfg(feature = "etcd")]
        Target::Etcd(target) => {
            let engine = crate::etcd::EtcdEngine::new(target)?;
            AnyEngine::new(engine)
        }
    };
    Ok(work.with(Arc::new(engine)).await)
}

/// Build the engine `urls` name and, when `side` names one, the side
/// database beside it ([`AnyEngine::beside`]: the analytical terminals' own,
/// `--analytic-db`), both with `options`, and do `work` with them. The side
/// must be a database of the same engine (a replica): a session of another
/// engine would run under the first one's rules (an embedded engine's
/// threads), so another is refused as bad input.
pub async fn with_engines<W: WithEngine>(
    urls: &[String],
    side: &[String],
    options: &EngineOptions,
    work: W,
) -> Result<W::Output, OpenError> {
    if side.is_empty() {
        return with_engine(urls, options, work).await;
    }
    with_engine(
        urls,
        options,
        First {
            side,
            options,
            work,
        },
    )
    .await?
}

/// The first engine built, the side still to build.
struct First<'a, W> {
    side: &'a [String],
    options: &'a EngineOptions,
    work: W,
}

impl<W: WithEngine> WithEngine for First<'_, W> {
    type Output = Result<W::Output, OpenError>;
    async fn with(self, first: Arc<AnyEngine>) -> Self::Output {
        let beside = Beside {
            first,
            work: self.work,
        };
        with_engine(self.side, self.options, beside).await?
    }
}

/// Both engines built: the work with the first carrying the side.
struct Beside<W> {
    first: Arc<AnyEngine>,
    work: W,
}

impl<W: WithEngine> WithEngine for Beside<W> {
    type Output = Result<W::Output, OpenError>;
    async fn with(self, side: Arc<AnyEngine>) -> Self::Output {
        use txbench_core::Engine;
        if side.name() != self.first.name() {
            return Err(OpenError::Side(format!(
                "--analytic-db {}: the analytics run on a database of the run's own engine ({}), \
                 a replica of it, not on {}",
                side.describe(),
                self.first.name(),
                side.name()
            )));
        }
        // Each was built for this work alone and is held nowhere else.
        let (Some(first), Some(side)) = (Arc::into_inner(self.first), Arc::into_inner(side)) else {
            return Err(OpenError::Side(
                "the engines were shared before the run".into(),
            ));
        };
        Ok(self.work.with(Arc::new(first.beside(side))).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::Engine;

    /// Work that only says which engine it was given.
    struct Name;
    impl WithEngine for Name {
        type Output = &'static str;
        async fn with(self, engine: Arc<AnyEngine>) -> &'static str {
            engine.name()
        }
    }

    fn open(url: &str, isolation: Option<Isolation>) -> Result<&'static str, OpenError> {
        let options = EngineOptions {
            isolation,
            ..EngineOptions::default()
        };
        pollster::block_on(with_engine(&[url.to_string()], &options, Name))
    }

    #[test]
    fn each_url_builds_its_engine() {
        assert_eq!(open("sqlite::memory:", None).unwrap(), "sqlite");
        assert_eq!(open("null:", None).unwrap(), "null");
    }

    #[test]
    fn an_isolation_level_an_engine_cannot_honour_is_refused_by_name() {
        for (url, level) in [
            ("null:", Isolation::ReadCommitted),
            ("redis://127.0.0.1:6379", Isolation::Serializable),
            ("txbench://127.0.0.1:7077", Isolation::RepeatableRead),
            ("sim:?service=fixed:1ms", Isolation::Serializable),
            ("sqlite::memory:", Isolation::ReadCommitted),
        ] {
            let e = open(url, Some(level)).unwrap_err();
            assert!(e.is_usage(), "{url}: {e}");
            assert!(
                e.to_string()
                    .starts_with(&format!("--isolation {}: ", level.name())),
                "{url}: {e}"
            );
        }
        assert_eq!(
            open("sqlite::memory:", Some(Isolation::Serializable)).unwrap(),
            "sqlite"
        );
    }

    #[test]
    fn one_statement_per_round_trip_is_refused_where_there_are_none() {
        let statement = EngineOptions {
            round_trips: RoundTrips::Statement,
            ..EngineOptions::default()
        };
        for url in [
            "sqlite::memory:",
            "null:",
            "sim:?service=fixed:1ms",
            "redis://127.0.0.1:6379",
            "txbench://127.0.0.1:7077",
        ] {
            let e =
                pollster::block_on(with_engine(&[url.to_string()], &statement, Name)).unwrap_err();
            assert!(e.is_usage(), "{url}: {e}");
            assert!(
                e.to_string().starts_with("--round-trips statement: "),
                "{url}: {e}"
            );
        }
    }

    #[test]
    fn a_bad_url_is_a_usage_error() {
        assert!(open("oracle://x", None).unwrap_err().is_usage());
    }
}
