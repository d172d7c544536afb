//! Single runs cannot tell a change from the noise between runs, but the
//! machine may already know that noise: a set (`run --repeat`) of the same
//! plan that holds the runs, or lies beside them. `compare` then shows it, and names
//! the `--noise` that would judge the runs against it; it judges nothing
//! unasked, since only the user knows the set was made under the same
//! conditions.

use std::path::{Path, PathBuf};

use txbench_core::result::RunResult;

use super::{Side, figures, judge, noise_line, settings_differ};

/// A set of the same plan found beside the runs compared.
pub(super) struct Beside {
    dir: PathBuf,
    set: Side,
}

/// The set that holds the runs compared, or else the newest set (by its
/// directory's name, which starts with its UTC time) beside them, whose
/// settings are `first`'s but for the seed and what derives from it.
pub(super) fn set_of_the_plan(dirs: &[PathBuf], first: &RunResult) -> Option<Beside> {
    let mut parents: Vec<&Path> = dirs.iter().filter_map(|d| d.parent()).collect();
    parents.sort_unstable();
    parents.dedup();
    let mut beside: Vec<PathBuf> = parents
        .iter()
        .filter_map(|p| std::fs::read_dir(p).ok())
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        // A set's directory is named <UTC>-<workload>-<engine>-set.
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with("-set"))
        })
        .filter(|p| !dirs.contains(p))
        .collect();
    beside.sort();
    let holding = parents.iter().map(|p| p.to_path_buf());
    holding.chain(beside.into_iter().rev()).find_map(|dir| {
        let set = Side::read(&dir)
            .ok()
            .filter(|s| s.set && s.runs.len() > 1)?;
        let same = set.first().workload == first.workload
            && settings_differ(&[first, set.first()]).is_empty();
        same.then_some(Beside { dir, set })
    })
}

impl Beside {
    /// What the set says of the runs' noise, and how to judge them by it.
    pub(super) fn noise_line(&self, threshold: f64) -> Option<String> {
        let runs: Vec<&RunResult> = self.set.runs.iter().collect();
        let rows = judge::rows(
            &figures::figures(&runs),
            &[runs.len()],
            threshold,
            &judge::Noise::new(),
        );
        let of = format!(
            "this plan on this machine, from the set {} ({} runs)",
            self.dir.display(),
            runs.len()
        );
        let noise = noise_line(&of, 0, &rows)?;
        Some(format!(
            "{noise}; `--noise {}` judges these runs against it",
            self.dir.display()
        ))
    }
}
