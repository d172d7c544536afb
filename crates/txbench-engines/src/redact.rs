//! Secrets kept out of everything txbench shows or saves. One function,
//! [`redact`], is used wherever a database URL, an engine's error or a run's
//! settings are printed or written, so every form a secret can take is
//! handled in one place:
//!
//! * the password of a URL's user information (`postgres://app:PW@host/db`),
//!   split at the authority's last `@` as URL parsers do;
//! * query parameters that carry a secret (`?password=`, `?sslpassword=`,
//!   `?token=`, `?secret=`, `?auth=`, `?apikey=`, ...);
//! * the values of the environment variables the engines read a secret from
//!   ([`SECRET_VARIABLES`]), wherever they appear (a server may echo one in an
//!   error message).

/// Environment variables whose values are secrets: `PGPASSWORD` (PostgreSQL),
/// `MYSQL_PWD` (MySQL), `REDISCLI_AUTH` (Redis) and `TXBENCH_TOKEN` (a
/// txbench server). Their values are masked wherever they appear.
pub const SECRET_VARIABLES: &[&str] =
    &["PGPASSWORD", "MYSQL_PWD", "REDISCLI_AUTH", "TXBENCH_TOKEN"];

/// What a secret is replaced with.
const MASK: &str = "***";

/// `text` with every secret in it replaced by `***`: passwords and tokens in
/// any URL it contains, and the values of [`SECRET_VARIABLES`].
pub fn redact(text: &str) -> String {
    let values: Vec<String> = SECRET_VARIABLES
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .collect();
    redact_with(text, &values)
}

/// [`redact`] with the secret values given (the environment's, or a test's).
fn redact_with(text: &str, secret_values: &[String]) -> String {
    let mut out = mask_urls(text);
    for value in secret_values.iter().filter(|v| !v.is_empty()) {
        out = out.replace(value.as_str(), MASK);
    }
    out
}

/// Every URL-like word of `text` (one holding `://`) with its secrets masked;
/// the rest of the text unchanged.
fn mask_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    for c in text.chars() {
        if ends_word(c) {
            out.push_str(&mask_word(&word));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&mask_word(&word));
    out
}

/// Characters that end a URL in running text (never unescaped inside one).
fn ends_word(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\'' | '"' | '`' | '<' | '>')
}

fn mask_word(word: &str) -> String {
    match word.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{}", mask_after_scheme(rest)),
        None => mask_assignment(word),
    }
}

/// A word that sets a secret (`PGPASSWORD=pw` before a command,
/// `--password=pw` after one) with its value masked; any other word as it
/// is, so a command around a secret reads as it was.
fn mask_assignment(word: &str) -> String {
    match word.split_once('=') {
        Some((name, value)) if !value.is_empty() && is_secret_key(name.trim_start_matches('-')) => {
            format!("{name}={MASK}")
        }
        _ => word.to_string(),
    }
}

/// `user:password@host/path?query` with the password and secret parameters masked.
fn mask_after_scheme(rest: &str) -> String {
    let (before_query, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    // The last '@' before the query ends the user information: a password may
    // hold an unescaped '@' or '/', a host never does.
    let location = match before_query.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:{MASK}@{host}"),
            None => before_query.to_string(),
        },
        None => before_query.to_string(),
    };
    match query {
        Some(q) => format!("{location}?{}", mask_query(q)),
        None => location,
    }
}

fn mask_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if is_secret_key(key) => format!("{key}={MASK}"),
            _ => pair.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Whether a query parameter carries a secret. File names of keys and
/// certificates (`sslkey`, `sslcert`, `sslrootcert`) are not secrets.
fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    if key.starts_with("ssl") && key != "sslpassword" {
        return false;
    }
    [
        "password", "passwd", "pwd", "pass", "token", "secret", "auth", "key",
    ]
    .iter()
    .any(|s| key.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(text: &str) -> String {
        redact_with(text, &[])
    }

    /// A fault command that sets a secret keeps everything but its value.
    #[test]
    fn masks_secrets_set_in_a_command_and_keeps_the_rest() {
        assert_eq!(
            none("PGPASSWORD=s3cret psql -h db1 -c \"SELECT 1\" || true"),
            "PGPASSWORD=*** psql -h db1 -c \"SELECT 1\" || true"
        );
        assert_eq!(
            none("mysql --password=pw -h db1 -e 'KILL 5'; echo a=b x=1 =y"),
            "mysql --password=*** -h db1 -e 'KILL 5'; echo a=b x=1 =y"
        );
        assert_eq!(
            none("echo 'postgres://app:pw@db1/tpcc' && pg_ctlcluster 15 main stop -m immediate"),
            "echo 'postgres://app:***@db1/tpcc' && pg_ctlcluster 15 main stop -m immediate"
        );
        assert_eq!(
            redact_with("sudo -u app kill -9 1234 # pw=hunter2", &["hunter2".into()]),
            "sudo -u app kill -9 1234 # pw=***"
        );
    }

    #[test]
    fn masks_the_password_of_the_user_information() {
        assert_eq!(
            none("mysql://root:pw@h:3306/db"),
            "mysql://root:***@h:3306/db"
        );
        assert_eq!(
            none("postgres://app:p@ss/w@db1,db2/tpcc"),
            "postgres://app:***@db1,db2/tpcc"
        );
        assert_eq!(none("redis://:pw@h:6379/0"), "redis://:***@h:6379/0");
        assert_eq!(none("postgres://app@h/db"), "postgres://app@h/db");
    }

    #[test]
    fn masks_secret_query_parameters_and_keeps_the_rest() {
        assert_eq!(
            none("postgres://u@h/db?sslmode=require&password=pw&sslpassword=k&sslkey=/a.key"),
            "postgres://u@h/db?sslmode=require&password=***&sslpassword=***&sslkey=/a.key"
        );
        assert_eq!(
            none("txbench://127.0.0.1:7077?token=s3cret"),
            "txbench://127.0.0.1:7077?token=***"
        );
        assert_eq!(
            none("x://h/?PWD=a&apikey=b&access_token=c&Secret=d"),
            "x://h/?PWD=***&apikey=***&access_token=***&Secret=***"
        );
    }

    #[test]
    fn masks_urls_inside_running_text() {
        assert_eq!(
            none("connecting to 'postgres://u:pw@h/db?password=pw' failed: refused"),
            "connecting to 'postgres://u:***@h/db?password=***' failed: refused"
        );
        assert_eq!(none("no url: here@there:x"), "no url: here@there:x");
    }

    #[test]
    fn masks_the_values_of_secret_variables_anywhere() {
        let values = ["hunter22".to_string(), String::new()];
        assert_eq!(
            redact_with("FATAL: password hunter22 rejected", &values),
            "FATAL: password *** rejected"
        );
    }
}
