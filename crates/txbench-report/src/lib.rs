//! Rendering results: the terminal summary and the JSON file. Reports read only
//! the result model ([`txbench_core::result::RunResult`]), never a live run.
#![warn(missing_docs)]

pub mod json;
pub mod terminal;
