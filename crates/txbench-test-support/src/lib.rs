//! What txbench's tests share across its crates, as a dev-dependency only:
//! the services a test needs, named by environment variables ([`service`]),
//! an etcd cluster, a PostgreSQL cluster and a MariaDB server of a test's
//! own ([`etcd_cluster`], [`pg_cluster`], [`maria_server`]), the
//! repository's scripts with names and ports of a test's own ([`script`]:
//! a PostgreSQL primary and standby), a command
//! that must succeed ([`command`]), waiting for what a
//! server does after it answered ([`settle`]), and a TCP proxy that delays
//! what crosses it, as a network link would ([`delay_proxy`]).
#![warn(missing_docs)]

pub mod command;
pub mod delay_proxy;
pub mod etcd_cluster;
pub mod maria_server;
pub mod pg_cluster;
pub mod script;
pub mod service;
pub mod settle;
