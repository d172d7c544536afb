//! Rendering results: the terminal summary, the results directory (JSON, interval
//! log, timeline), and the HTML report. Reports read only
//! the result model ([`txbench_core::result::RunResult`]), never a live run.
#![warn(missing_docs)]

pub mod alternation;
pub mod figures;
#[cfg(test)]
mod fixtures;
pub mod freshness;
pub mod frontier;
pub mod hlog;
pub mod html;
pub mod intervals;
pub mod json;
pub mod markup;
pub mod merge;
pub mod millis;
pub mod parts;
pub mod plots;
pub mod results;
pub mod streams;
pub mod terminal;
