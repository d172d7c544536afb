//! YCSB's core workloads A to F as workload files, shipped in the binary.

/// Each core workload's letter and its file.
pub const CORE: [(char, &str); 6] = [
    ('a', include_str!("ycsb/a.toml")),
    ('b', include_str!("ycsb/b.toml")),
    ('c', include_str!("ycsb/c.toml")),
    ('d', include_str!("ycsb/d.toml")),
    ('e', include_str!("ycsb/e.toml")),
    ('f', include_str!("ycsb/f.toml")),
];

/// The file of core workload `letter` (a to f).
pub fn file(letter: char) -> Option<&'static str> {
    CORE.iter()
        .find(|(l, _)| *l == letter.to_ascii_lowercase())
        .map(|(_, f)| *f)
}
