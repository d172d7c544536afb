//! A workload's names and scale: what its commands, help, errors and results
//! call it. Data only, so that everything else may name a workload.

/// A workload's names and scale: what its commands, errors and results call it.
#[derive(Debug, PartialEq, Eq)]
pub struct About {
    /// The name in commands, directories and results ("tpcc").
    pub name: &'static str,
    /// The name in prose ("TPC-C").
    pub title: &'static str,
    /// What `txbench NAME --help` says the workload is.
    pub summary: &'static str,
    /// What `NAME load --help` says a load does.
    pub load_summary: &'static str,
    /// What `NAME run --help` says a run reports.
    pub run_summary: &'static str,
    /// How the workload is scaled.
    pub scale: Scale,
    /// What the run's flags mean for this workload, for their help.
    pub run_flags: RunFlags,
    /// The flags every command of the workload needs, as its examples show
    /// them (" --file orders.toml" for a workload file); empty for most.
    pub required_example: &'static str,
    /// The foreign keys `--foreign-keys` adds ("TPC-C's of clause 1.3");
    /// `None`: the workload has none, and the flag is hidden and refused.
    pub foreign_keys: Option<&'static str>,
}

/// What the flags every workload's run shares mean for one workload: the
/// help of `--terminals`, `--wait spec`, `--affinity` and `--seed` in its
/// own words (TATP has no warehouses and no think times).
#[derive(Debug, PartialEq, Eq)]
pub struct RunFlags {
    /// The default number of terminals ("10 per warehouse, as the
    /// specification has").
    pub terminals: &'static str,
    /// What `--wait spec` keeps ("keying and think times of clause
    /// 5.2.5.7"); `None`: the workload has none, and spec is the same as none.
    pub wait_spec: Option<&'static str>,
    /// Where `--affinity` keeps a terminal's work ("the node of its home
    /// warehouse"); `None`: its terminals have no home, and it changes nothing.
    pub home: Option<&'static str>,
    /// What the run's seed draws ("inputs, and the run's NURand constant C-Run").
    pub seed_draws: &'static str,
}

/// The unit a workload is scaled in, and its bounds.
#[derive(Debug, PartialEq, Eq)]
pub struct Scale {
    /// The unit, plural, which is also the flag ("warehouses": `--warehouses`).
    pub unit: &'static str,
    /// One of the unit ("warehouse").
    pub one: &'static str,
    /// The flag's short form, if any (`-w`).
    pub short: Option<char>,
    /// The scale a load uses when none is given.
    pub default: i64,
    /// The largest scale the flag takes.
    pub max: i64,
}

impl Scale {
    /// A count with its unit: "1 warehouse", "100000 subscribers".
    /// A scale named by itself ("scale", a workload file's) reads "scale 3".
    pub fn count(&self, n: i64) -> String {
        if self.one == self.unit {
            format!("{} {n}", self.unit)
        } else {
            format!("{n} {}", if n == 1 { self.one } else { self.unit })
        }
    }
}
