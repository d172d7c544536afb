//! PostgreSQL URLs: several hosts, sslmode, password from the URL or PGPASSWORD.

use std::str::FromStr;
use std::time::Duration;

use tokio_postgres::Config;
use tokio_postgres::config::Host;

use crate::redact::redact;
use crate::target_error::TargetError;

/// How to use TLS, as libpq's `sslmode` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SslMode {
    /// Plain TCP.
    Disable,
    /// TLS when the server offers it, without verifying the certificate (libpq's default).
    Prefer,
    /// TLS always, without verifying the certificate.
    Require,
    /// TLS always, with the certificate verified against the web PKI roots and the host name.
    VerifyFull,
}

/// A parsed `postgres://` target.
#[derive(Clone)]
pub struct PgTarget {
    /// One config per host, each with a single host, in URL order.
    pub hosts: Vec<(String, Config)>,
    /// TLS mode.
    pub ssl: SslMode,
    /// The URL with the password removed, for output.
    pub display: String,
}

debug_shows_display!(PgTarget);

impl PartialEq for PgTarget {
    fn eq(&self, other: &Self) -> bool {
        self.display == other.display && self.ssl == other.ssl
    }
}

impl PgTarget {
    /// Parse a `postgres://` or `postgresql://` URL.
    pub fn parse(url: &str) -> Result<PgTarget, TargetError> {
        let shown = redact(url);
        let (ssl, cleaned) = take_sslmode(url, &shown)?;
        let mut config = Config::from_str(&cleaned)
            .map_err(|e| TargetError(format!("invalid PostgreSQL URL '{shown}': {e}")))?;
        fill_from_environment(&mut config);
        let ports = config.get_ports().to_vec();
        let mut hosts = Vec::new();
        for (i, host) in config.get_hosts().iter().enumerate() {
            let Host::Tcp(name) = host else {
                return Err(TargetError(format!(
                    "'{shown}': only TCP hosts are supported"
                )));
            };
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            let mut single = Config::new();
            single.host(name).port(port);
            copy_settings(&config, &mut single);
            hosts.push((format!("{name}:{port}"), single));
        }
        if hosts.is_empty() {
            return Err(TargetError(format!("'{shown}': no host given")));
        }
        Ok(PgTarget {
            hosts,
            ssl,
            display: shown,
        })
    }
}

/// The URL's sslmode, and the URL without it: sslmode is ours (tokio-postgres
/// knows no verify-full); every other parameter goes to tokio-postgres.
fn take_sslmode(url: &str, shown: &str) -> Result<(SslMode, String), TargetError> {
    let (base, query) = url.split_once('?').map_or((url, ""), |(b, q)| (b, q));
    let mut ssl = SslMode::Prefer;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let Some(("sslmode", v)) = pair.split_once('=') else {
            rest.push(pair);
            continue;
        };
        ssl = match v {
            "disable" => SslMode::Disable,
            "prefer" | "allow" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-full" | "verify-ca" => SslMode::VerifyFull,
            other => {
                return Err(TargetError(format!(
                    "invalid sslmode '{other}' in '{shown}' (known: disable, prefer, require, verify-full)"
                )));
            }
        };
    }
    let cleaned = if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    Ok((ssl, cleaned))
}

/// What the URL leaves out, as libpq would take it: the password from
/// PGPASSWORD, the user from PGUSER or USER; and txbench's application name
/// and a 10 s connect timeout.
fn fill_from_environment(config: &mut Config) {
    if config.get_password().is_none()
        && let Ok(pw) = std::env::var("PGPASSWORD")
    {
        config.password(pw);
    }
    if config.get_application_name().is_none() {
        config.application_name("txbench");
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(10));
    }
    if config.get_user().is_none() {
        config.user(
            std::env::var("PGUSER")
                .or_else(|_| std::env::var("USER"))
                .unwrap_or("postgres".into()),
        );
    }
}

/// Copy everything but the hosts and ports from one config to another.
fn copy_settings(from: &Config, to: &mut Config) {
    if let Some(u) = from.get_user() {
        to.user(u);
    }
    if let Some(p) = from.get_password() {
        to.password(p);
    }
    if let Some(d) = from.get_dbname() {
        to.dbname(d);
    }
    if let Some(o) = from.get_options() {
        to.options(o);
    }
    if let Some(a) = from.get_application_name() {
        to.application_name(a);
    }
    if let Some(t) = from.get_connect_timeout() {
        to.connect_timeout(*t);
    }
    to.keepalives(from.get_keepalives());
    // Each host is tried with the session attributes asked for: with
    // read-write, a standby is passed over and a promoted one found.
    to.target_session_attrs(from.get_target_session_attrs());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_hosts_each_get_a_config() {
        let t = PgTarget::parse("postgres://app:secret@db1:5433,db2:5434/tpcc?sslmode=require")
            .unwrap();
        assert_eq!(t.ssl, SslMode::Require);
        let names: Vec<&str> = t.hosts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["db1:5433", "db2:5434"]);
        let c = &t.hosts[1].1;
        assert_eq!(c.get_dbname(), Some("tpcc"));
        assert_eq!(c.get_user(), Some("app"));
        assert_eq!(c.get_password(), Some(&b"secret"[..]));
        assert_eq!(c.get_application_name(), Some("txbench"));
        assert!(!t.display.contains("secret"));
    }

    #[test]
    fn every_host_is_asked_for_the_session_attributes_of_the_url() {
        use tokio_postgres::config::TargetSessionAttrs;
        let t = PgTarget::parse(
            "postgres://u@127.0.0.1:5442,127.0.0.1:5443/test?target_session_attrs=read-write",
        )
        .unwrap();
        for (_, c) in &t.hosts {
            assert_eq!(c.get_target_session_attrs(), TargetSessionAttrs::ReadWrite);
        }
    }

    #[test]
    fn a_host_without_a_port_gets_the_default_as_in_libpq() {
        let t = PgTarget::parse("postgresql://u@a,b:6000/x").unwrap();
        let names: Vec<&str> = t.hosts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a:5432", "b:6000"]);
    }

    #[test]
    fn bad_sslmode_is_named() {
        let e = PgTarget::parse("postgres://u:pw@h/db?sslmode=sometimes").unwrap_err();
        assert!(e.0.contains("sometimes") && !e.0.contains("pw@"), "{e}");
    }
}
