//! `mysql://` URLs: mysql_async's options, the password kept out of output,
//! and `session_variables`, set in every session the engine opens.

use mysql_async::{Opts, OptsBuilder};

/// A parsed `mysql://` target.
#[derive(Clone)]
pub struct MyTarget {
    pub(super) opts: Opts,
    /// The URL with the password removed, for output.
    pub display: String,
}

debug_shows_display!(MyTarget);

impl PartialEq for MyTarget {
    fn eq(&self, other: &Self) -> bool {
        self.display == other.display
    }
}

impl MyTarget {
    /// Parse a `mysql://` URL.
    pub fn parse(url: &str) -> Result<MyTarget, crate::target_error::TargetError> {
        let display = crate::redact::redact(url);
        let (url, session) = session_variables(url)?;
        let opts = Opts::from_url(&url).map_err(|e| {
            crate::target_error::TargetError(format!("invalid MySQL URL '{display}': {e}"))
        })?;
        if opts.db_name().is_none() {
            return Err(crate::target_error::TargetError(format!(
                "MySQL URL '{display}' names no database (mysql://user@host:3306/DATABASE)"
            )));
        }
        // Statements are kept per session by txbench; the driver's cache must hold
        // them all or it would close statements still in use. Found rows: an UPDATE
        // reports the rows it matched, as other engines do, not only those whose
        // value changed (setting a bit to the value it has is still a hit).
        let opts = OptsBuilder::from_opts(opts)
            .stmt_cache_size(1024)
            .client_found_rows(true)
            .prefer_socket(false)
            .init(session)
            .into();
        Ok(MyTarget { opts, display })
    }
}

/// The URL without its `session_variables` parameter, and that parameter as
/// `SET SESSION` statements: `session_variables=innodb_lock_wait_timeout=1,
/// sql_mode=STRICT_ALL_TABLES` (the form of MySQL's Connector/J), each
/// name and value a plain word, since they are written into SQL.
fn session_variables(url: &str) -> Result<(String, Vec<String>), crate::target_error::TargetError> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), Vec::new()));
    };
    const KEY: &str = "session_variables=";
    let (ours, theirs): (Vec<&str>, Vec<&str>) = query.split('&').partition(|p| p.starts_with(KEY));
    let plain = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
    };
    let mut statements = Vec::new();
    for pair in ours.iter().flat_map(|p| p[KEY.len()..].split(',')) {
        match pair.split_once('=') {
            Some((name, value)) if plain(name) && plain(value) => {
                statements.push(format!("SET SESSION {name} = {value}"));
            }
            _ => {
                return Err(crate::target_error::TargetError(format!(
                    "session_variables: '{pair}' is not name=value \
                     (letters, digits, '_', '.' and '-' only)"
                )));
            }
        }
    }
    let url = match theirs.is_empty() {
        true => base.to_string(),
        false => format!("{base}?{}", theirs.join("&")),
    };
    Ok((url, statements))
}
