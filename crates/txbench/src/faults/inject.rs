//! Run the scheduled commands: each through `sh -c` on a thread of its own,
//! started by the driver's clock, its output (stdout and stderr together) and
//! exit status kept. A command is given its time limit (`--command-limit`);
//! past it, or when the run is stopped (Ctrl-C), it is killed with every
//! process it started (it runs in a process group of its own: killing `sh`
//! alone left its `sleep 1000` running), and said to have been. Output is
//! read while the command runs; what a daemon it started keeps writing after
//! it exits is not waited for.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use txbench_core::driver::Scheduled;
use txbench_engines::redact;

use super::plan::PlannedCommand;

/// How much of the end of a command's output is kept.
const OUTPUT_KEPT: usize = 4096;
/// How long, after a command exits, its output is still read (a daemon it
/// started may hold the pipe open for ever).
const OUTPUT_AFTER_EXIT: Duration = Duration::from_millis(200);

/// A command as it ran.
#[derive(Debug, Clone)]
pub struct Ran {
    /// What was planned.
    pub planned: PlannedCommand,
    /// When it started, by the wall clock.
    pub started: SystemTime,
    /// How long it ran.
    pub took: Duration,
    /// Its exit status; `None` when a signal (or the time limit) ended it.
    pub exit_code: Option<i32>,
    /// The end of its output, secrets masked.
    pub output: String,
}

/// The commands under way and done.
#[derive(Default)]
pub struct Injector {
    done: Arc<Mutex<Vec<Ran>>>,
    running: Arc<Mutex<Vec<JoinHandle<()>>>>,
    /// Set when the run was stopped: the commands still running are killed.
    abandon: Arc<AtomicBool>,
}

impl Injector {
    /// The driver's schedule for `planned`: each action starts its command
    /// on a thread and returns at once.
    pub fn schedule(&self, planned: &[PlannedCommand]) -> Vec<Scheduled> {
        planned
            .iter()
            .map(|p| {
                let (p2, done, running) = (p.clone(), self.done.clone(), self.running.clone());
                let abandon = self.abandon.clone();
                Scheduled {
                    at: p.at,
                    action: Arc::new(move || {
                        let (p, done, abandon) = (p2.clone(), done.clone(), abandon.clone());
                        let thread = std::thread::spawn(move || {
                            let ran = run(p, &abandon);
                            lock(&done).push(ran);
                        });
                        lock(&running).push(thread);
                    }),
                }
            })
            .collect()
    }

    /// The run was stopped: kill the commands still running rather than wait
    /// for them ([`Injector::finish`] then returns at once).
    pub fn abandon(&self) {
        self.abandon.store(true, Ordering::Relaxed);
    }

    /// Wait for the commands still running (each within its time limit) and
    /// return every one that ran, in the order they started.
    pub fn finish(self) -> Vec<Ran> {
        let threads = std::mem::take(&mut *lock(&self.running));
        for t in threads {
            let _ = t.join();
        }
        let mut done = std::mem::take(&mut *lock(&self.done));
        done.sort_by_key(|r| r.started);
        done
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Run one command to its end, its time limit, or until it is abandoned.
fn run(planned: PlannedCommand, abandon: &AtomicBool) -> Ran {
    let started = SystemTime::now();
    let clock = Instant::now();
    let (exit_code, output) = match spawn(&planned.command) {
        Ok((child, output)) => wait(child, output, (planned.limit, abandon)),
        Err(e) => (None, format!("could not start sh: {e}")),
    };
    Ran {
        planned,
        started,
        took: clock.elapsed(),
        exit_code,
        output: redact(&output),
    }
}

/// `sh -c COMMAND`, stdout and stderr into one pipe read by a thread of its own.
fn spawn(command: &str) -> std::io::Result<(std::process::Child, mpsc::Receiver<Vec<u8>>)> {
    let (mut reader, writer) = std::io::pipe()?;
    let mut sh = Command::new("sh");
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut sh, 0);
    let child = sh
        .args(["-c", command])
        .stdin(Stdio::null())
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .spawn()?;
    let (send, output) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = reader.read(&mut buf) {
            if send.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    Ok((child, output))
}

/// Wait for the command (killing it at its time limit, or when abandoned)
/// and collect its output.
fn wait(
    mut child: std::process::Child,
    output: mpsc::Receiver<Vec<u8>>,
    (limit, abandon): (Duration, &AtomicBool),
) -> (Option<i32>, String) {
    let deadline = Instant::now() + limit;
    let mut kept = Vec::new();
    let mut keep = |chunk: Vec<u8>| {
        kept.extend_from_slice(&chunk);
        if kept.len() > 2 * OUTPUT_KEPT {
            kept.drain(..kept.len() - OUTPUT_KEPT);
        }
    };
    let mut killed = None;
    let status = loop {
        match output.recv_timeout(Duration::from_millis(20)) {
            Ok(chunk) => keep(chunk),
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline || abandon.load(Ordering::Relaxed) => {
                kill_group(&mut child);
                killed = Some(if abandon.load(Ordering::Relaxed) {
                    "the run was stopped".to_string()
                } else {
                    format!(
                        "{}, its time limit (--command-limit)",
                        humantime::format_duration(limit)
                    )
                });
                break None;
            }
            Ok(None) => {}
            Err(_) => break None,
        }
    };
    let after = Instant::now() + OUTPUT_AFTER_EXIT;
    while let Some(left) = after.checked_duration_since(Instant::now()) {
        match output.recv_timeout(left) {
            Ok(chunk) => keep(chunk),
            Err(_) => break,
        }
    }
    let start = kept.len().saturating_sub(OUTPUT_KEPT);
    let mut text = String::from_utf8_lossy(&kept[start..]).into_owned();
    if let Some(why) = killed {
        text += &format!("\n[txbench: killed: {why}]");
    }
    (status.and_then(|s| s.code()), text)
}

/// Kill the command and every process in its group (what it started and
/// did not move elsewhere), then reap it.
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a negative pid signals the process group the
        // command leads (made by `process_group(0)` at its start); it takes
        // no pointers.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;
    use txbench_core::faults::CommandKind;

    fn planned(command: &str) -> PlannedCommand {
        PlannedCommand {
            kind: CommandKind::Fault,
            at: Duration::ZERO,
            command: command.into(),
            limit: Duration::from_secs(60),
        }
    }

    #[test]
    fn a_command_s_output_and_exit_status_are_kept() {
        let keep = AtomicBool::new(false);
        let ran = run(planned("echo out; echo err >&2; exit 3"), &keep);
        assert_eq!(ran.exit_code, Some(3));
        assert!(
            ran.output.contains("out") && ran.output.contains("err"),
            "{ran:?}"
        );
        let ran = run(planned("sleep 30 & echo started"), &keep);
        assert_eq!(ran.exit_code, Some(0));
        assert!(
            ran.took < Duration::from_secs(5),
            "a daemon's pipe is not waited for: {ran:?}"
        );
    }

    #[test]
    fn a_stopped_run_kills_its_commands_rather_than_wait() {
        let injector = Injector::default();
        let schedule = injector.schedule(&[planned("sleep 60")]);
        (schedule[0].action)();
        std::thread::sleep(Duration::from_millis(100));
        let clock = Instant::now();
        injector.abandon();
        let ran = injector.finish();
        assert!(clock.elapsed() < Duration::from_secs(10), "{ran:?}");
        assert_eq!(ran[0].exit_code, None);
        assert!(ran[0].output.contains("the run was stopped"), "{ran:?}");
    }

    #[test]
    fn a_command_past_its_limit_is_killed_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("child.pid");
        let command = format!("sleep 1000 & echo $! > {}; wait", pid_file.display());
        let mut p = planned(&command);
        p.limit = Duration::from_millis(500);
        let ran = run(p, &AtomicBool::new(false));
        assert_eq!(ran.exit_code, None, "{ran:?}");
        assert!(ran.output.contains("its time limit"), "{ran:?}");
        let child = std::fs::read_to_string(&pid_file).unwrap();
        // SIGKILL is sent to the whole group, but the child dies when the
        // kernel next schedules it (a CI run saw it still `R` just after):
        // wait for it to be gone or a zombie of init's, which kill -0 would
        // not tell apart, so read its state.
        let stat = format!("/proc/{}/stat", child.trim());
        let alive = || {
            let state = std::fs::read_to_string(&stat).unwrap_or_default();
            let running = state
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| !rest.starts_with('Z'));
            running.then_some(state)
        };
        let clock = Instant::now();
        while alive().is_some() && clock.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert_eq!(alive(), None, "its sleep still runs");
    }

    #[test]
    fn the_injector_runs_what_the_schedule_starts() {
        let injector = Injector::default();
        let schedule = injector.schedule(&[planned("echo one"), planned("exit 1")]);
        for s in &schedule {
            (s.action)();
        }
        let ran = injector.finish();
        let mut codes: Vec<Option<i32>> = ran.iter().map(|r| r.exit_code).collect();
        codes.sort();
        assert_eq!(codes, vec![Some(0), Some(1)]);
    }
}
