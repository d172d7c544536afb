//! BenchBase's workloads (github.com/cmu-db/benchbase) as workload files,
//! shipped in the binary: `txbench custom --workload NAME` runs one as
//! `--file` runs a file of one's own. Each file's header names its source
//! and every way it differs from BenchBase.

use crate::options::Choice;

/// The shipped workloads, by the name `--workload` takes, with what each
/// stresses (the help of the flag).
pub const CHOICES: &[Choice] = &[
    Choice {
        name: "smallbank",
        help: "BenchBase's SmallBank: six short banking transactions on three tables of a \
               row per customer, hot rows and conflicts",
    },
    Choice {
        name: "voter",
        help: "BenchBase's Voter: votes by phone, each checked against its contestant and the \
               caller's vote limit, then recorded (inserts into an indexed table)",
    },
    Choice {
        name: "sibench",
        help: "BenchBase's SIBench: a scan for the smallest value beside updates of one \
               value, on a few records (snapshot isolation)",
    },
    Choice {
        name: "twitter",
        help: "BenchBase's Twitter: timelines read from skewed follows and tweets (IN lists \
               of the ids a first query read), a few tweets added",
    },
    Choice {
        name: "epinions",
        help: "BenchBase's Epinions: reviews and trust between users, read through joins \
               and aggregates, updated one row at a time (skewed, loaded per item and user)",
    },
    Choice {
        name: "wikipedia",
        help: "BenchBase's Wikipedia: MediaWiki's pages read by namespace and title through \
               four dependent queries, edits that write a revision, its text and a watchers' \
               notice (skewed pages, large texts)",
    },
    Choice {
        name: "seats",
        help: "BenchBase's SEATS: airline ticketing, flights searched and seats booked, moved \
               and cancelled over eight tables (secondary indexes, joins, a unique seat index \
               that two bookings of one seat collide on)",
    },
    Choice {
        name: "auctionmark",
        help: "BenchBase's AuctionMark: an online auction's items listed, bid on, commented, \
               bought and rated over sixteen tables (bids decided by their own queries, \
               counters and pointers kept by the transactions)",
    },
    Choice {
        name: "resourcestresser",
        help: "BenchBase's ResourceStresser: one type each for the server's CPU (hashing), \
               I/O (wide and narrow rows rewritten) and locks (rows held across pauses)",
    },
    Choice {
        name: "noop",
        help: "BenchBase's NoOp: one statement that does nothing, no tables (a round trip \
               and a commit alone)",
    },
];

/// The files, in the order of [`CHOICES`].
const FILES: &[&str] = &[
    include_str!("benchbase/smallbank.toml"),
    include_str!("benchbase/voter.toml"),
    include_str!("benchbase/sibench.toml"),
    include_str!("benchbase/twitter.toml"),
    include_str!("benchbase/epinions.toml"),
    include_str!("benchbase/wikipedia.toml"),
    include_str!("benchbase/seats.toml"),
    include_str!("benchbase/auctionmark.toml"),
    include_str!("benchbase/resourcestresser.toml"),
    include_str!("benchbase/noop.toml"),
];

/// The shipped workloads' names, as a list for a message ("smallbank, voter, ...").
pub fn names() -> String {
    let names: Vec<&str> = CHOICES.iter().map(|c| c.name).collect();
    names.join(", ")
}

/// The text of the shipped workload `name`, and the name its file is
/// checked under (`benchbase/NAME.toml`, what a mistake would name).
pub fn file(name: &str) -> Option<(String, &'static str)> {
    let i = CHOICES.iter().position(|c| c.name == name)?;
    Some((format!("benchbase/{name}.toml"), FILES[i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::custom::parse;

    #[test]
    fn every_shipped_file_checks_under_its_own_name() {
        assert_eq!(CHOICES.len(), FILES.len());
        for choice in CHOICES {
            let (path, text) = file(choice.name).unwrap();
            let spec = parse(&path, text).unwrap_or_else(|e| panic!("{path}: {e}"));
            assert_eq!(spec.name, choice.name, "{path}");
            assert!(
                text.starts_with(&format!("# {}, as BenchBase", spec.title)),
                "{path}: its header names its source"
            );
            assert!(text.contains("Where this file differs"), "{path}");
        }
        assert!(file("tpcc").is_none());
    }
}
