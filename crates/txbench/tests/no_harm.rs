//! A workload file touches only its own tables (docs/reliability.md, "What
//! txbench may touch"): names that are SQL are refused before any database
//! is touched, and a table txbench did not create is never loaded over,
//! cleaned or dropped, on SQLite, PostgreSQL and MariaDB.

mod support;

use std::path::Path;

use mysql_async::prelude::Queryable;
use support::{server_url, text, txbench_output};

/// A workload file of one table, `table`, of 10 rows per scale.
fn workload_file(table: &str) -> String {
    format!(
        r#"[workload]
name = "harm"
scale = "rows"

[[table]]
name = "{table}"
rows_per_scale = 10
primary_key = ["id"]
columns = [
  {{ name = "id", type = "bigint", gen = "sequence" }},
  {{ name = "v", type = "int", gen = "uniform", min = 0, max = 9 }},
]

[[transaction]]
name = "Look"
weight = 100
params = [{{ name = "k", gen = "key", of = "{table}.id" }}]
statements = [{{ sql = "SELECT v FROM {table} WHERE id = :k" }}]
"#
    )
}

/// The injection that dropped an unrelated table through a table's name.
const INJECTED: &str = "ht_x (a int); DROP TABLE ht_victim; CREATE TABLE ht_y";

/// A database under test, reached without txbench (an SQLite file opened
/// for each step, so that no connection of the test's is open while
/// txbench sets the file's journal mode).
enum Database {
    Sqlite(std::path::PathBuf, String),
    Postgres(Box<support::PgDatabase>, tokio_postgres::Client),
    MariaDb(Box<support::MyDatabase>, mysql_async::Conn),
}

impl Database {
    fn url(&self) -> String {
        match self {
            Database::Sqlite(_, url) => url.clone(),
            Database::Postgres(db, _) => db.url.clone(),
            Database::MariaDb(db, _) => db.url.clone(),
        }
    }

    async fn execute(&mut self, sql: &str) {
        match self {
            Database::Sqlite(path, _) => open(path).execute_batch(sql).unwrap(),
            Database::Postgres(_, c) => c.batch_execute(sql).await.unwrap(),
            Database::MariaDb(_, c) => c.query_drop(sql).await.unwrap(),
        }
    }

    /// The tables the database holds, sorted.
    async fn tables(&mut self) -> Vec<String> {
        let mut names: Vec<String> = match self {
            Database::Sqlite(path, _) => {
                let c = open(path);
                let mut st = c
                    .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                    .unwrap();
                st.query_map([], |r| r.get(0))
                    .unwrap()
                    .collect::<Result<_, _>>()
                    .unwrap()
            }
            Database::Postgres(_, c) => c
                .query(
                    "SELECT table_name::text FROM information_schema.tables \
                     WHERE table_schema = current_schema()",
                    &[],
                )
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect(),
            Database::MariaDb(_, c) => c
                .query(
                    "SELECT table_name FROM information_schema.tables \
                     WHERE table_schema = DATABASE()",
                )
                .await
                .unwrap(),
        };
        names.sort();
        names
    }

    async fn count(&mut self, table: &str) -> i64 {
        let sql = format!("SELECT count(*) FROM {table}");
        match self {
            Database::Sqlite(path, _) => open(path).query_row(&sql, [], |r| r.get(0)).unwrap(),
            Database::Postgres(_, c) => c.query_one(&sql, &[]).await.unwrap().get(0),
            Database::MariaDb(_, c) => c.query_first(sql).await.unwrap().unwrap(),
        }
    }

    async fn drop_now(self) {
        match self {
            Database::Sqlite(..) => {}
            Database::Postgres(db, c) => {
                drop(c);
                db.drop_now().await
            }
            Database::MariaDb(db, c) => {
                drop(c);
                db.drop_now().await
            }
        }
    }
}

fn open(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

/// Run `txbench custom <command> --file <file> --db <db> <extra>`.
fn custom(
    dir: &Path,
    command: &str,
    file: &str,
    db: &Database,
    extra: &[&str],
) -> std::process::Output {
    let url = db.url();
    let mut args = vec!["custom", command, "--file", file, "--db", &url];
    args.extend_from_slice(extra);
    txbench_output(dir, &args)
}

/// Names that are SQL reach no database: the load is refused with the name,
/// exit 2, and the tables there are the same after it.
async fn names_that_are_sql_touch_nothing(dir: &Path, db: &mut Database) {
    db.execute("CREATE TABLE ht_victim (a int)").await;
    db.execute("INSERT INTO ht_victim VALUES (1)").await;
    let before = db.tables().await;
    let column = workload_file("t").replace(
        "name = \"v\"",
        "name = \"v int); DROP TABLE ht_victim; CREATE TABLE ht_z (a\"",
    );
    for (what, text_of_file) in [("table", workload_file(INJECTED)), ("column", column)] {
        let file = dir.join(format!("{what}.toml"));
        std::fs::write(&file, &text_of_file).unwrap();
        let out = custom(dir, "load", file.to_str().unwrap(), db, &[]);
        assert_eq!(out.status.code(), Some(2), "{what}: {}", text(&out));
        assert!(
            text(&out).contains("is not a name"),
            "{what}: {}",
            text(&out)
        );
        assert_eq!(db.tables().await, before, "{what}");
        assert_eq!(db.count("ht_victim").await, 1, "{what}");
    }
}

/// A user's table of the file's name is never loaded over, cleaned or
/// dropped; the tables txbench created are cleaned, and only they.
async fn a_users_table_is_never_touched(dir: &Path, db: &mut Database) {
    db.execute("CREATE TABLE t (id bigint, note varchar(10))")
        .await;
    db.execute("INSERT INTO t VALUES (1, 'mine')").await;
    let file = dir.join("t.toml");
    std::fs::write(&file, workload_file("t")).unwrap();
    let file = file.to_str().unwrap();
    for extra in [&[][..], &["--drop"][..]] {
        let out = custom(dir, "load", file, db, extra);
        assert_eq!(out.status.code(), Some(2), "load {extra:?}: {}", text(&out));
        assert!(
            text(&out).contains("a table 't' that txbench did not create"),
            "load {extra:?}: {}",
            text(&out)
        );
    }
    let out = custom(dir, "clean", file, db, &[]);
    assert!(out.status.success(), "clean: {}", text(&out));
    assert!(
        text(&out).contains("left t: txbench did not create them"),
        "clean: {}",
        text(&out)
    );
    assert_eq!(db.count("t").await, 1, "the user's table after clean");
    // Under another name, the file's table is txbench's: loaded, then cleaned
    // with its record, and the user's table stays.
    let own = dir.join("own.toml");
    std::fs::write(&own, workload_file("own_rows")).unwrap();
    let own = own.to_str().unwrap();
    let out = custom(dir, "load", own, db, &["--scale", "2"]);
    assert!(out.status.success(), "load: {}", text(&out));
    assert_eq!(db.count("own_rows").await, 20);
    let out = custom(dir, "load", own, db, &["--scale", "3", "--drop"]);
    assert!(out.status.success(), "load --drop: {}", text(&out));
    assert_eq!(db.count("own_rows").await, 30);
    let out = custom(dir, "clean", own, db, &[]);
    assert!(out.status.success(), "clean: {}", text(&out));
    let left = db.tables().await;
    assert!(left.contains(&"t".to_string()), "{left:?}");
    assert!(
        !left
            .iter()
            .any(|t| t == "own_rows" || t.starts_with("txbench_")),
        "{left:?}"
    );
}

async fn on_every_check(db: &mut Database) {
    let dir = tempfile::tempdir().unwrap();
    names_that_are_sql_touch_nothing(dir.path(), db).await;
    a_users_table_is_never_touched(dir.path(), db).await;
}

#[tokio::test]
async fn sqlite_files_touch_only_their_own_tables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("user.db");
    let url = format!("sqlite:{}", path.display());
    let mut db = Database::Sqlite(path, url);
    on_every_check(&mut db).await;
}

#[tokio::test]
async fn postgres_files_touch_only_their_own_tables() {
    let Some(base) = server_url("TXBENCH_TEST_POSTGRES_URL") else {
        return;
    };
    let pg = support::PgDatabase::create(&base, "no_harm").await;
    let (client, connection) = tokio_postgres::connect(&pg.url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut db = Database::Postgres(Box::new(pg), client);
    on_every_check(&mut db).await;
    db.drop_now().await;
}

#[tokio::test]
async fn mariadb_files_touch_only_their_own_tables() {
    let Some(base) = server_url("TXBENCH_TEST_MYSQL_URL") else {
        return;
    };
    let my = support::MyDatabase::create(&base, "no_harm").await;
    let conn = mysql_async::Conn::from_url(my.url.as_str()).await.unwrap();
    let mut db = Database::MariaDb(Box::new(my), conn);
    on_every_check(&mut db).await;
    db.drop_now().await;
}

/// Keys whose end depends on the scale are held to their column's type at
/// the load, before any table is made: a sequence that would wrap past the
/// largest integer, and keys past an `int`'s range.
#[test]
fn keys_a_column_cannot_hold_at_the_scale_are_refused_before_the_load() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("keys.db");
    let url = format!("sqlite:{}", db.display());
    for (from, to, scale, says) in [
        (
            "gen = \"sequence\"",
            "gen = \"sequence\", min = 9223372036854775800",
            "1",
            // Past the largest integer at the file's own default scale: the
            // file is refused when it is read.
            "workload.default_scale 1: table 't' column 'id': 10 keys from 9223372036854775800 go past the largest integer",
        ),
        (
            "type = \"bigint\", gen = \"sequence\"",
            "type = \"int\", gen = \"sequence\", min = 2147483000",
            "100",
            "--scale 100: table 't' column 'id': values up to 2147483999 do not fit an int",
        ),
    ] {
        let contents = workload_file("t").replace(from, to);
        let file = dir.path().join("keys.toml");
        std::fs::write(&file, contents).unwrap();
        let out = txbench_output(
            dir.path(),
            &[
                "custom",
                "load",
                "--file",
                file.to_str().unwrap(),
                "--db",
                &url,
                "--scale",
                scale,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{to}: {}", text(&out));
        assert!(text(&out).contains(says), "{to}: {}", text(&out));
    }
    // Nothing was made.
    let tables: i64 = open(&db)
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .unwrap();
    assert_eq!(tables, 0);
}
