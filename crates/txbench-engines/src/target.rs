//! Database URLs: which engine, and its connection settings.

use crate::mysql::MyTarget;
use crate::postgres::PgTarget;
use crate::redact::redact;
use crate::sqlite::SqliteConfig;
use crate::target_error::TargetError;

/// A database to run against, parsed from a `--db` URL.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// Embedded SQLite: `sqlite::memory:` or `sqlite:path.db` (with `?key=value` options).
    Sqlite(SqliteConfig),
    /// A PostgreSQL-wire database: `postgres://user:password@host:port,host2/db?sslmode=...`.
    Postgres(PgTarget),
    /// A MySQL-wire database: `mysql://user:password@host:port/database`.
    Mysql(MyTarget),
    /// The nodes of a MySQL-wire cluster (several `--db` URLs).
    MysqlCluster(Vec<MyTarget>),
    /// `null:`: executes nothing (measures txbench's own ceiling).
    Null,
    /// `txbench://host:port`: a txbench transaction server.
    Remote(txbench_remote::RemoteTarget),
    /// `redis://host:port/n`: Redis, for key-value workloads.
    Redis(crate::redis::RedisTarget),
    /// `redis-cluster://host:port[,host:port...]`: a Redis Cluster, for a
    /// workload's script form.
    RedisCluster(crate::redis_cluster::RedisClusterTarget),
    /// `sim:?service=fixed:4ms&workers=1...`: a simulated server of known latency.
    Sim(crate::sim::SimConfig),
    /// `etcd://host:port[,host:port...]`: an etcd cluster, for key-value workloads.
    #[cfg(feature = "etcd")]
    Etcd(crate::etcd::EtcdTarget),
}

impl Target {
    /// Parse a database URL.
    pub fn parse(url: &str) -> Result<Target, TargetError> {
        let (scheme, rest) = url.split_once(':').ok_or_else(|| {
            TargetError(format!(
                "invalid database URL '{url}': expected a scheme such as 'sqlite::memory:' or 'sqlite:path.db'"
            ))
        })?;
        match scheme {
            "sqlite" => SqliteConfig::parse(rest).map(Target::Sqlite),
            "null" if rest.is_empty() => Ok(Target::Null),
            "null" => Err(TargetError(format!(
                "invalid database URL '{url}': the null engine takes no settings, write 'null:'"
            ))),
            "postgres" | "postgresql" => PgTarget::parse(url).map(Target::Postgres),
            "mysql" | "mariadb" => {
                MyTarget::parse(&url.replacen("mariadb:", "mysql:", 1)).map(Target::Mysql)
            }
            "txbench" => txbench_remote::RemoteTarget::parse(url)
                .map(Target::Remote)
                .map_err(|e| TargetError(e.to_string())),
            "redis" => crate::redis::RedisTarget::parse(url).map(Target::Redis),
            "redis-cluster" => {
                crate::redis_cluster::RedisClusterTarget::parse(url).map(Target::RedisCluster)
            }
            "sim" => crate::sim::SimConfig::parse(rest).map(Target::Sim),
            #[cfg(feature = "etcd")]
            "etcd" => crate::etcd::EtcdTarget::parse(url).map(Target::Etcd),
            #[cfg(not(feature = "etcd"))]
            "etcd" => Err(TargetError(format!(
                "'{}': this txbench was built without etcd: build it with `--features etcd` \
                 (which needs protoc: Debian's protobuf-compiler)",
                redact(url)
            ))),
            other => Err(TargetError(format!(
                "invalid database URL '{}': unknown scheme '{other}' (known: sqlite, postgres, mysql, redis, redis-cluster, etcd, txbench, sim, null)",
                redact(url)
            ))),
        }
    }
}

impl Target {
    /// Parse one or more URLs of one database: several are the nodes of a
    /// cluster (PostgreSQL-wire or MySQL-wire), over which sessions are spread.
    pub fn parse_all(urls: &[String]) -> Result<Target, TargetError> {
        let mut targets = urls
            .iter()
            .map(|u| Target::parse(u))
            .collect::<Result<Vec<_>, _>>()?;
        if targets.len() <= 1 {
            return targets
                .pop()
                .ok_or_else(|| TargetError("no database URL given (--db)".into()));
        }
        let mut rest = targets.split_off(1);
        match targets.pop().expect("one left") {
            Target::Postgres(mut first) => {
                for t in rest.drain(..) {
                    match t {
                        Target::Postgres(t) if t.ssl == first.ssl => {
                            first.hosts.extend(t.hosts);
                            first.display = format!("{} {}", first.display, t.display);
                        }
                        Target::Postgres(t) => {
                            return Err(TargetError(format!(
                                "{}: every --db of one run needs the same sslmode",
                                t.display
                            )));
                        }
                        other => return Err(mixed(&other)),
                    }
                }
                Ok(Target::Postgres(first))
            }
            Target::Mysql(first) => {
                let mut nodes = vec![first];
                for t in rest.drain(..) {
                    match t {
                        Target::Mysql(t) => nodes.push(t),
                        other => return Err(mixed(&other)),
                    }
                }
                Ok(Target::MysqlCluster(nodes))
            }
            Target::Sqlite(_)
            | Target::Null
            | Target::MysqlCluster(_)
            | Target::Remote(_)
            | Target::Redis(_)
            | Target::Sim(_) => Err(TargetError(
                "only PostgreSQL-wire and MySQL-wire databases take several --db URLs".into(),
            )),
            Target::RedisCluster(_) => Err(TargetError(
                "a Redis Cluster is one --db URL with its nodes separated by commas \
                 (redis-cluster://host1:7001,host2:7002)"
                    .into(),
            )),
            #[cfg(feature = "etcd")]
            Target::Etcd(_) => Err(TargetError(
                "an etcd cluster is one --db URL with its members' endpoints separated by commas \
                 (etcd://host1:2379,host2:2379)"
                    .into(),
            )),
        }
    }
}

fn mixed(t: &Target) -> TargetError {
    let kind = match t {
        Target::Sqlite(_) => "sqlite",
        Target::Postgres(_) => "postgres",
        Target::Mysql(_) | Target::MysqlCluster(_) => "mysql",
        Target::Null => "null",
        Target::Remote(_) => "txbench",
        Target::Redis(_) => "redis",
        Target::RedisCluster(_) => "redis-cluster",
        Target::Sim(_) => "sim",
        #[cfg(feature = "etcd")]
        Target::Etcd(_) => "etcd",
    };
    TargetError(format!(
        "the --db URLs of one run must all name the same kind of database (found a {kind} one among others)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sqlite_urls() {
        assert!(matches!(
            Target::parse("sqlite::memory:"),
            Ok(Target::Sqlite(_))
        ));
        assert!(matches!(
            Target::parse("sqlite:t.db"),
            Ok(Target::Sqlite(_))
        ));
    }

    #[test]
    fn rejects_unknown_schemes_naming_them() {
        let e = Target::parse("oracle://x").unwrap_err();
        assert!(e.0.contains("oracle"), "{e}");
        let e = Target::parse("nonsense").unwrap_err();
        assert!(e.0.contains("nonsense"), "{e}");
    }

    #[test]
    fn errors_name_the_url_without_its_password() {
        let e = Target::parse("oracle://app:secret@db1/0?token=t0ken").unwrap_err();
        assert!(!e.0.contains("secret") && !e.0.contains("t0ken"), "{e}");
    }
}
