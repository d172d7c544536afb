//! Facts about the client machine, saved with every result so that runs can be
//! compared knowing where they ran.

use serde::{Deserialize, Serialize};

/// The machine a run's client ran on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// Host name.
    pub hostname: String,
    /// Operating system (PRETTY_NAME of /etc/os-release where there is one).
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// CPU architecture.
    pub arch: String,
    /// CPU model name.
    pub cpu: String,
    /// Logical CPUs available to the process.
    pub cores: usize,
    /// Physical memory in bytes (0 when unknown).
    pub memory_bytes: u64,
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The value of `key` in `key: value` or `KEY=value` lines.
fn field(text: &str, key: &str, separator: char) -> Option<String> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(separator)?;
        (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
    })
}

impl Machine {
    /// This machine (fields that cannot be read stay empty).
    pub fn current() -> Machine {
        let meminfo = read("/proc/meminfo");
        let memory_kib = field(&meminfo, "MemTotal", ':')
            .and_then(|v| v.trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
        Machine {
            hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
            os: field(&read("/etc/os-release"), "PRETTY_NAME", '=')
                .unwrap_or_else(|| std::env::consts::OS.to_string()),
            kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
            arch: std::env::consts::ARCH.to_string(),
            cpu: field(&read("/proc/cpuinfo"), "model name", ':').unwrap_or_default(),
            cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
            memory_bytes: memory_kib * 1024,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_machine() {
        let m = Machine::current();
        assert!(m.cores >= 1);
        assert!(!m.arch.is_empty());
        assert_eq!(
            field("a: 1\nMemTotal:  42 kB\n", "MemTotal", ':').unwrap(),
            "42 kB"
        );
        assert_eq!(
            field("PRETTY_NAME=\"Debian\"\n", "PRETTY_NAME", '=').unwrap(),
            "Debian"
        );
    }
}
