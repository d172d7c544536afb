//! No secret is ever printed or saved: after runs with every form a password
//! or token can take, neither the output nor any file of the results holds it.
//! The PostgreSQL forms need TXBENCH_TEST_POSTGRES_URL (CI sets it; the
//! server's trust authentication accepts any password).

mod support;

use std::path::Path;
use std::process::{Command, Output};

use support::{PgDatabase, server_url};

fn txbench(dir: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("txbench"));
    cmd.current_dir(dir);
    for var in ["PGPASSWORD", "MYSQL_PWD", "REDISCLI_AUTH", "TXBENCH_TOKEN"] {
        cmd.env_remove(var);
    }
    cmd
}

/// Run `cmd`, which must succeed; its output.
fn succeeded(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `secret` appears in none of the outputs and no file under `dir`.
fn assert_nowhere(secret: &str, outputs: &[Output], dir: &Path) {
    for out in outputs {
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(!text.contains(secret), "printed '{secret}': {text}");
        }
    }
    for file in support::entries_under(dir) {
        let bytes = std::fs::read(&file).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(secret),
            "{} holds '{secret}'",
            file.display()
        );
    }
}

/// Base URL with `userinfo` and extra query parameters.
fn with(url: &str, password: Option<&str>, query: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let rest = match password {
        Some(pw) => {
            let (user, host) = rest.split_once('@').unwrap_or(("postgres", rest));
            let user = user.split(':').next().unwrap();
            format!("{user}:{pw}@{host}")
        }
        None => rest.to_string(),
    };
    let sep = if rest.contains('?') { '&' } else { '?' };
    format!("{scheme}://{rest}{sep}{query}")
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_passwords_in_every_form_stay_out_of_output_and_results() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let db = PgDatabase::create(&base, "secrets").await;
    let dir = tempfile::tempdir().unwrap();
    let forms: [(&str, String, Option<&str>); 3] = [
        (
            "UserinfoPw7",
            with(&db.url, Some("UserinfoPw7"), "application_name=txbench"),
            None,
        ),
        ("QueryPw8", with(&db.url, None, "password=QueryPw8"), None),
        ("EnvPw9", db.url.clone(), Some("EnvPw9")),
    ];
    let mut outputs = Vec::new();
    for (i, (secret, url, env)) in forms.iter().enumerate() {
        let mut load = txbench(dir.path());
        load.args(["tatp", "load", "--db", url, "--subscribers", "1000"]);
        if i > 0 {
            load.arg("--drop");
        }
        let mut run = txbench(dir.path());
        run.args([
            "tatp", "run", "--db", url, "-d", "2s", "--warmup", "0s", "-q",
        ]);
        for cmd in [&mut load, &mut run] {
            if let Some(pw) = env {
                cmd.env("PGPASSWORD", pw);
            }
            outputs.push(succeeded(cmd));
        }
        assert_nowhere(secret, &outputs, dir.path());
    }
    // A run that fails: its error is as clean, in every form at once.
    let out = txbench(dir.path())
        .args(["tatp", "run", "-d", "1s", "--db"])
        .arg("postgres://postgres:RefusedPw1@127.0.0.1:1/x?password=RefusedPw2&sslmode=disable")
        .env("PGPASSWORD", "RefusedPw3")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    outputs.push(out);
    // The report of each run holds none either.
    for run in std::fs::read_dir(dir.path().join("results")).unwrap() {
        let out = txbench(dir.path())
            .arg("report")
            .arg(run.unwrap().path())
            .output()
            .unwrap();
        assert!(out.status.success());
        outputs.push(out);
    }
    for secret in [
        "UserinfoPw7",
        "QueryPw8",
        "EnvPw9",
        "RefusedPw1",
        "RefusedPw2",
        "RefusedPw3",
    ] {
        assert_nowhere(secret, &outputs, dir.path());
    }
    // An option tokio-postgres does not know is refused without its value.
    let out = txbench(dir.path())
        .args([
            "tatp",
            "run",
            "--db",
            &with(&db.url, None, "sslpassword=SslPw3"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_nowhere("SslPw3", &[out], dir.path());
    db.drop_now().await;
}

#[test]
fn a_servers_token_stays_out_of_the_clients_output_and_results() {
    let dir = tempfile::tempdir().unwrap();
    let (mut server, url) = support::serve_tatp(dir.path(), &["--token", "TokenSecret5"]);
    let mut outputs = Vec::new();
    for (client_url, env) in [
        (format!("{url}?token=TokenSecret5"), None),
        (url.clone(), Some("TokenSecret5")),
    ] {
        let mut cmd = txbench(dir.path());
        cmd.args([
            "tatp",
            "run",
            "--db",
            &client_url,
            "-d",
            "2s",
            "--warmup",
            "0s",
            "-q",
        ]);
        if let Some(t) = env {
            cmd.env("TXBENCH_TOKEN", t);
        }
        outputs.push(succeeded(&mut cmd));
    }
    // A wrong token is refused, and the refusal shows neither token.
    let out = txbench(dir.path())
        .args([
            "tatp",
            "run",
            "--db",
            &format!("{url}?token=WrongToken6"),
            "-d",
            "1s",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    outputs.push(out);
    server.kill().unwrap();
    server.wait().unwrap();
    let configs: Vec<String> = support::entries_under(dir.path())
        .into_iter()
        .filter(|f| f.ends_with("config.toml"))
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    assert!(
        configs
            .iter()
            .any(|c| c.contains("token=***") && c.contains("replaced by ***")),
        "{configs:?}"
    );
    for secret in ["TokenSecret5", "WrongToken6"] {
        assert_nowhere(secret, &outputs, dir.path());
    }
}
