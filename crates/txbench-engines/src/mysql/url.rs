//! `mysql://` URLs: mysql_async's options, the password kept out of output.

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
        let opts = Opts::from_url(url).map_err(|e| {
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
            .into();
        Ok(MyTarget { opts, display })
    }
}
