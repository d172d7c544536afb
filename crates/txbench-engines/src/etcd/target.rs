//! `etcd://` URLs: the members' endpoints, the user, TLS files and the read
//! consistency.
//!
//! `etcd://[user:password@]host:port[,host:port...][?serializable=true]
//! [&cacert=ca.pem[&cert=client.pem&key=client-key.pem]]`

use std::path::PathBuf;

use percent_encoding::percent_decode_str;

use crate::redact::redact;
use crate::target_error::TargetError;

/// An etcd cluster to connect to.
#[derive(Clone, PartialEq, Eq)]
pub struct EtcdTarget {
    /// The members' client endpoints, `host:port`, in URL order.
    pub endpoints: Vec<String>,
    /// The user and password for etcd's authentication, when given.
    pub user: Option<(String, String)>,
    /// Serializable (member-local, possibly stale) reads rather than
    /// linearizable ones.
    pub serializable: bool,
    /// TLS: the CA that signed the members' certificates, and the client's
    /// own certificate and key when the members ask for one.
    pub tls: Option<TlsFiles>,
    /// The URL with its password masked, for output.
    pub display: String,
}

debug_shows_display!(EtcdTarget);

/// The PEM files of a TLS connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate authority to trust.
    pub ca: PathBuf,
    /// The client's certificate and key.
    pub identity: Option<(PathBuf, PathBuf)>,
}

impl EtcdTarget {
    /// Parse an `etcd://` URL.
    pub fn parse(url: &str) -> Result<EtcdTarget, TargetError> {
        let display = redact(url);
        let bad = |why: String| TargetError(format!("invalid etcd URL '{display}': {why}"));
        let rest = url
            .strip_prefix("etcd://")
            .ok_or_else(|| bad("expected etcd://host:port[,host:port...]".into()))?;
        let (authority, query) = rest.split_once('?').unwrap_or((rest, ""));
        let authority = authority.strip_suffix('/').unwrap_or(authority);
        if authority.contains('/') {
            return Err(bad(
                "etcd has no databases: nothing may follow the hosts but '?options'".into(),
            ));
        }
        let (userinfo, hosts) = match authority.rsplit_once('@') {
            Some((u, h)) => (Some(u), h),
            None => (None, authority),
        };
        let user = userinfo.map(parse_user).transpose().map_err(bad)?;
        let endpoints = hosts
            .split(',')
            .map(|h| parse_endpoint(h).map_err(&bad))
            .collect::<Result<Vec<_>, _>>()?;
        let mut target = EtcdTarget {
            endpoints,
            user,
            serializable: false,
            tls: None,
            display: display.clone(),
        };
        target.apply_options(query).map_err(bad)?;
        Ok(target)
    }

    fn apply_options(&mut self, query: &str) -> Result<(), String> {
        let (mut ca, mut cert, mut key) = (None, None, None);
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            match &*name {
                "serializable" => {
                    self.serializable = match &*value {
                        "true" => true,
                        "false" => false,
                        other => {
                            return Err(format!("serializable={other}: expected true or false"));
                        }
                    }
                }
                "cacert" => ca = Some(PathBuf::from(&*value)),
                "cert" => cert = Some(PathBuf::from(&*value)),
                "key" => key = Some(PathBuf::from(&*value)),
                other => {
                    return Err(format!(
                        "unknown option '{other}' (known: serializable, cacert, cert, key)"
                    ));
                }
            }
        }
        let identity = match (cert, key) {
            (Some(c), Some(k)) => Some((c, k)),
            (None, None) => None,
            _ => {
                return Err(
                    "cert and key go together (the client's certificate and its key)".into(),
                );
            }
        };
        self.tls = match (ca, identity) {
            (Some(ca), identity) => Some(TlsFiles { ca, identity }),
            (None, None) => None,
            (None, Some(_)) => {
                return Err(
                    "a client certificate needs cacert, the CA of the members' certificates".into(),
                );
            }
        };
        Ok(())
    }
}

/// `user:password`, each percent-decoded.
fn parse_user(userinfo: &str) -> Result<(String, String), String> {
    let decode = |s: &str| {
        percent_decode_str(s)
            .decode_utf8()
            .map(|d| d.into_owned())
            .map_err(|_| "the user or password is not UTF-8 once decoded".to_string())
    };
    match userinfo.split_once(':') {
        Some((u, p)) if !u.is_empty() => Ok((decode(u)?, decode(p)?)),
        _ => Err("a user needs a password: user:password@".into()),
    }
}

/// `host:port`, checked.
fn parse_endpoint(host: &str) -> Result<String, String> {
    let (name, port) = host
        .rsplit_once(':')
        .ok_or_else(|| format!("'{host}' needs a port (etcd's is 2379)"))?;
    if name.is_empty() {
        return Err(format!("'{host}' has no host"));
    }
    port.parse::<u16>()
        .map_err(|_| format!("'{port}' is not a port"))?;
    Ok(host.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_members_their_user_and_options() {
        let t = EtcdTarget::parse(
            "etcd://app:s%40cret@127.0.0.1:2379,127.0.0.1:22379/?serializable=true&cacert=/ca.pem",
        )
        .unwrap();
        assert_eq!(t.endpoints, ["127.0.0.1:2379", "127.0.0.1:22379"]);
        assert_eq!(t.user, Some(("app".into(), "s@cret".into())));
        assert!(t.serializable);
        assert_eq!(t.tls.unwrap().ca, PathBuf::from("/ca.pem"));
        assert!(!t.display.contains("cret"), "{}", t.display);
        let plain = EtcdTarget::parse("etcd://localhost:2379").unwrap();
        assert!(!plain.serializable && plain.user.is_none() && plain.tls.is_none());
    }

    #[test]
    fn bad_urls_are_named_without_their_password() {
        for (url, says) in [
            ("etcd://app:secret@127.0.0.1", "needs a port"),
            ("etcd://app:secret@127.0.0.1:x", "'x' is not a port"),
            ("etcd://app:secret@h:2379/db", "no databases"),
            (
                "etcd://app:secret@h:2379?serializable=yes",
                "serializable=yes",
            ),
            (
                "etcd://app:secret@h:2379?sslmode=require",
                "unknown option 'sslmode'",
            ),
            (
                "etcd://app:secret@h:2379?cert=c.pem",
                "cert and key go together",
            ),
            (
                "etcd://app:secret@h:2379?cert=c.pem&key=k.pem",
                "needs cacert",
            ),
            ("etcd://app@h:2379", "needs a password"),
        ] {
            let e = EtcdTarget::parse(url).unwrap_err().0;
            assert!(e.contains(says), "{url}: {e}");
            assert!(!e.contains("secret"), "{url}: {e}");
        }
    }
}
