//! What txbench's tests share across its crates, as a dev-dependency only:
//! the services a test needs, named by environment variables ([`service`]),
//! an etcd cluster and a PostgreSQL cluster of a test's own
//! ([`etcd_cluster`], [`pg_cluster`]), waiting for what a
//! server does after it answered ([`settle`]), and a TCP proxy that delays
//! what crosses it, as a network link would ([`delay_proxy`]).
#![warn(missing_docs)]

pub mod delay_proxy;
pub mod etcd_cluster;
pub mod pg_cluster;
pub mod service;
pub mod settle;
