//! Workloads written as files (docs/workload-file.md): tables with a
//! generator per column, transaction types of ordered statements with named
//! parameters, and invariants, in TOML. [`parse`] reads and checks one,
//! naming the file, the line and the key of every mistake; YCSB's core
//! workloads A to F are such files, shipped in the binary ([`ycsb`]).

mod check;
pub mod draw;
pub mod invariants;
pub mod load;
mod model;
pub mod run;
pub mod ycsb;

pub use check::{
    Column, Expect, FileError, Generator, KeyRange, Spec, Statement, Table, Transaction, parse,
};
