//! Every workload txbench runs, in one list. The binary's commands are generic
//! over [`Benchmark`]; a [`Visitor`] is how it calls one of them for a workload
//! named at run time. Adding a workload is its module and one line in
//! `workloads!`'s invocation below: everything else (commands, flags, help,
//! `serve`, `merge`) follows from its [`Benchmark`] implementation.

use crate::benchmark::Benchmark;

/// Something done for one workload, generic over it: the binary's commands.
pub trait Visitor {
    /// What it gives back.
    type Output;
    /// Do it for workload `W`.
    fn visit<W: Benchmark>(self) -> Self::Output;
}

/// Something done for every workload in turn: building the command line.
pub trait EachVisitor {
    /// Do it for workload `W`.
    fn visit<W: Benchmark>(&mut self);
}

macro_rules! workloads {
    ($($workload:ty),+ $(,)?) => {
        /// The names of every workload, in the order of the list.
        pub const NAMES: &[&str] = &[$(<$workload as Benchmark>::ABOUT.name),+];

        /// Call `visitor` for the workload named `name`; `None` when no
        /// workload has that name.
        pub fn visit<V: Visitor>(name: &str, visitor: V) -> Option<V::Output> {
            $(
                if name == <$workload as Benchmark>::ABOUT.name {
                    return Some(visitor.visit::<$workload>());
                }
            )+
            None
        }

        /// Call `visitor` for every workload, in the order of the list.
        pub fn each<V: EachVisitor>(visitor: &mut V) {
            $(visitor.visit::<$workload>();)+
        }
    };
}

// One line a workload (braces, so that the list keeps a line each).
workloads! {
    crate::tpcc::Tpcc,
    crate::ch::Ch,
    crate::tatp::Tatp,
    crate::retwis::Retwis,
    crate::custom::ycsb::Ycsb,
    crate::custom::pgbench::Pgbench,
    crate::custom::sysbench::Sysbench,
    crate::custom::command::Custom,
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Name;
    impl Visitor for Name {
        type Output = &'static str;
        fn visit<W: Benchmark>(self) -> &'static str {
            W::ABOUT.name
        }
    }

    struct Units(Vec<&'static str>);
    impl EachVisitor for Units {
        fn visit<W: Benchmark>(&mut self) {
            self.0.push(W::ABOUT.scale.unit);
        }
    }

    #[test]
    fn every_name_visits_its_own_workload_and_no_other_name_does() {
        for name in NAMES {
            assert_eq!(visit(name, Name), Some(*name));
        }
        assert_eq!(visit("ycsb-a", Name), None);
        assert_eq!(
            NAMES,
            [
                "tpcc", "ch", "tatp", "retwis", "ycsb", "pgbench", "sysbench", "custom"
            ]
        );
    }

    #[test]
    fn each_visits_every_workload_once_in_order() {
        let mut units = Units(Vec::new());
        each(&mut units);
        assert_eq!(
            units.0,
            [
                "warehouses",
                "warehouses",
                "subscribers",
                "keys",
                "records",
                "scale",
                "table-size",
                "scale"
            ]
        );
    }
}
