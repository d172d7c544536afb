//! A MariaDB server of a test's own (Debian's mariadb-server: its own data
//! directory and port), never the shared one: for tests that need server
//! settings the shared server lacks (the performance schema). Stopped and
//! removed when the value goes.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use crate::command::run;

/// A running server with a database `t`, root over TCP without a password.
pub struct MariaServer {
    dir: PathBuf,
    port: u16,
    /// The server process, reaped once stopped.
    child: Option<std::process::Child>,
}

impl MariaServer {
    /// Install and start server `name` on `port`, with `settings` added to
    /// its configuration (`performance_schema=ON`).
    pub fn start(name: &str, port: u16, settings: &[&str]) -> MariaServer {
        let mut server = MariaServer {
            dir: std::env::temp_dir().join(format!("txbench-maria-{name}")),
            port,
            child: None,
        };
        // A server a killed test left behind goes first.
        server.stop();
        std::fs::create_dir_all(server.dir.join("data")).unwrap();
        std::fs::write(server.config(), server.config_text(settings)).unwrap();
        // As root the server runs as the mysql user, which must own its files.
        let as_user: &[&str] = if is_root() { &["--user=mysql"] } else { &[] };
        if is_root() {
            run(&["chown", "-R", "mysql:mysql", server.dir.to_str().unwrap()]);
        }
        let defaults = format!("--defaults-file={}", server.config().display());
        let install = [
            "mariadb-install-db",
            &defaults,
            "--auth-root-authentication-method=normal",
        ];
        run(&[&install[..], as_user, &["--skip-test-db"]].concat());
        let child = Command::new("setsid")
            .args(["mariadbd", &defaults])
            .args(as_user)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("mariadbd");
        server.child = Some(child);
        server.wait_until_up();
        server.sql(
            "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY ''; \
             GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION; \
             CREATE DATABASE t",
        );
        server
    }

    /// Its database `t`.
    pub fn url(&self) -> String {
        format!("mysql://root@127.0.0.1:{}/t", self.port)
    }

    /// Run `sql` as root on its socket; fail with what it printed unless
    /// it succeeded.
    pub fn sql(&self, sql: &str) -> String {
        let socket = format!("--socket={}", self.socket().display());
        let out = run(&["mariadb", &socket, "-uroot", "-N", "-B", "-e", sql]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn config(&self) -> PathBuf {
        self.dir.join("my.cnf")
    }

    fn socket(&self) -> PathBuf {
        self.dir.join("mysqld.sock")
    }

    fn config_text(&self, settings: &[&str]) -> String {
        let d = self.dir.display();
        let mut text = format!(
            "[mariadbd]\ndatadir={d}/data\nsocket={d}/mysqld.sock\nport={}\n\
             bind-address=127.0.0.1\npid-file={d}/mariadbd.pid\nlog-error={d}/error.log\n\
             skip-name-resolve\ninnodb_buffer_pool_size=128M\n",
            self.port
        );
        for s in settings {
            text.push_str(s);
            text.push('\n');
        }
        text
    }

    fn wait_until_up(&self) {
        let socket = format!("--socket={}", self.socket().display());
        for _ in 0..240 {
            let ping = Command::new("mariadb-admin")
                .args([&socket, "-uroot", "ping"])
                .output();
            if ping.is_ok_and(|o| o.status.success()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        let log = std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default();
        panic!("mariadbd on port {} did not start: {log}", self.port);
    }

    /// Stop it (if it runs) and remove its directory.
    fn stop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(self.dir.join("mariadbd.pid")) {
            let pid = pid.trim().to_string();
            let _ = Command::new("kill").arg(&pid).status();
            // Gone once its pid no longer answers a signal 0.
            for _ in 0..240 {
                let alive = Command::new("kill").args(["-0", &pid]).output();
                if !alive.is_ok_and(|o| o.status.success()) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(250));
            }
        }
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl Drop for MariaServer {
    fn drop(&mut self) {
        self.stop();
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}
