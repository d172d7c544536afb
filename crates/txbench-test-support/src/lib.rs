//! What txbench's tests share across its crates, as a dev-dependency only:
//! the services a test needs, named by environment variables ([`service`]),
//! an etcd cluster of a test's own ([`etcd_cluster`]), and waiting for what a
//! server does after it answered ([`settle`]).
#![warn(missing_docs)]

pub mod etcd_cluster;
pub mod service;
pub mod settle;
