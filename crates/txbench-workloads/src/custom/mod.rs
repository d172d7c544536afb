//! Workloads written as files (docs/workload-file.md): tables with a
//! generator per column, transaction types of ordered statements with named
//! parameters, and invariants, in TOML. [`parse`] reads and checks one,
//! naming the file, the line and the key of every mistake; YCSB's core
//! workloads A to F are such files, shipped in the binary ([`ycsb`]).

pub mod benchbase;
pub mod bounds;
mod check;
pub mod command;
pub mod draw;
mod drawn_rows;
mod errors;
pub mod fits;
#[cfg(test)]
mod fuzz_tests;
pub mod invariants;
pub mod kv_form;
pub mod load;
mod model;
pub mod opened;
pub mod pgbench;
pub mod run;
mod spec;
pub mod sysbench;
pub mod ycsb;

pub use check::parse;
pub use errors::FileError;
pub use spec::{
    Column, Count, Distinct, Each, Expect, Generator, KeyRange, KvForm, ListRead, Rows, Spec,
    Statement, Sum, Table, Transaction,
};

/// `value` kept for the life of the process: the driver, the engines and the
/// results take a workload's descriptions as `&'static`, which a built-in
/// workload compiles in and a file's makes once.
fn keep<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

/// Text kept for the life of the process ([`keep`]).
fn keep_text(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

/// Items kept for the life of the process ([`keep`]).
fn keep_all<T>(items: Vec<T>) -> &'static [T] {
    Box::leak(items.into_boxed_slice())
}

/// The rows (or keys) of a table with `per_scale` of them per unit, at
/// `scale`: one at least, but none for a table loaded empty (0 per unit).
pub fn rows_at(per_scale: f64, scale: i64) -> i64 {
    if per_scale == 0.0 {
        return 0;
    }
    (per_scale * scale as f64).round().max(1.0) as i64
}
