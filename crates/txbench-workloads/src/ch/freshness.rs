//! How fresh the data the analytical streams see is: each stream, at the
//! start of each round of its 22 queries, reads the next order id of every
//! district this process drives and compares them with the New-Orders this
//! process had acknowledged by then ([`txbench_core::freshness`]).
//!
//! Order ids are the exact measure: a district's `d_next_o_id` is one past
//! the newest order the reader can see there, so an acknowledged New-Order
//! with an id at or past it is one the reader cannot see. Only this
//! process's own acknowledgements count (shards on other machines drive
//! other warehouses), and only those the probe's districts hold.

use std::collections::VecDeque;
use std::ops::RangeInclusive;
use std::sync::Mutex;
use std::time::Instant;

use txbench_core::freshness::Probe;
use txbench_core::schema::Statement;
use txbench_core::{DbError, Param, Session, TxMode};

use crate::fields::int;
use crate::tpcc::constants::DISTRICTS;

/// Every district's next order id over a range of warehouses.
static NEXT_ORDER_IDS: Statement = Statement::new(
    "ch freshness",
    "SELECT d_w_id, d_id, d_next_o_id FROM district WHERE d_w_id BETWEEN ? AND ?",
);

/// One district's acknowledged order ids not yet seen, with when each was
/// acknowledged, in about id order.
type Acked = Mutex<VecDeque<(i64, Instant)>>;

/// The New-Orders this process acknowledged that no look has seen yet, per
/// district of its home warehouses, and the looks taken.
#[derive(Debug)]
pub struct Unseen {
    homes: RangeInclusive<i64>,
    /// Per district, warehouse-major.
    districts: Box<[Acked]>,
    looks: Mutex<Vec<Probe>>,
}

impl Unseen {
    /// Nothing acknowledged yet, over the warehouses `homes`.
    pub fn new(homes: RangeInclusive<i64>) -> Unseen {
        let count = (homes.end() - homes.start() + 1).max(0) as usize * DISTRICTS as usize;
        Unseen {
            homes,
            districts: (0..count).map(|_| Mutex::new(VecDeque::new())).collect(),
            looks: Mutex::new(Vec::new()),
        }
    }

    fn district(&self, w: i64, d: i64) -> Option<&Acked> {
        if !(1..=DISTRICTS).contains(&d) {
            return None;
        }
        let w = w.checked_sub(*self.homes.start())?;
        let i = w.checked_mul(DISTRICTS)? + d - 1;
        self.districts.get(usize::try_from(i).ok()?)
    }

    /// New-Order `o_id` of district `d` of warehouse `w` was acknowledged `at`.
    pub fn acknowledged(&self, (w, d, o_id): (i64, i64, i64), at: Instant) {
        if let Some(district) = self.district(w, d) {
            lock(district).push_back((o_id, at));
        }
    }

    /// Stream `reader.0`'s look as its round `reader.1` starts: read every
    /// district's next order id in a read-only transaction and keep what it
    /// could not see.
    pub async fn look<S: Session>(
        &self,
        session: &mut S,
        reader: (u32, u32),
    ) -> Result<(), DbError> {
        let range = [
            Param::Int(*self.homes.start()),
            Param::Int(*self.homes.end()),
        ];
        session.begin(TxMode::ReadOnly).await?;
        let asked = Instant::now();
        let rows = session.query(&NEXT_ORDER_IDS, &range).await?;
        session.commit().await?;
        let mut unseen = Vec::new();
        for row in rows.iter() {
            let (w, d) = (int(row, 0, "d_w_id")?, int(row, 1, "d_id")?);
            let next = int(row, 2, "d_next_o_id")?;
            if let Some(district) = self.district(w, d) {
                let mut acked = lock(district);
                // What it sees it has seen: a later look need not ask again.
                acked.retain(|(o_id, _)| *o_id >= next);
                unseen.extend(acked.iter().map(|(_, at)| *at));
            }
        }
        let probe = Probe::of(asked, reader, unseen);
        lock(&self.looks).push(probe);
        Ok(())
    }

    /// The looks taken so far.
    pub fn looks(&self) -> Vec<Probe> {
        lock(&self.looks).clone()
    }
}

/// A lock no panic can poison for good: what it guards is whole after every
/// step.
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements_are_kept_per_district_of_the_homes_only() {
        let unseen = Unseen::new(3..=4);
        let t = Instant::now();
        unseen.acknowledged((3, 1, 3001), t);
        unseen.acknowledged((4, 10, 3001), t);
        // Another process's warehouse, and a district that is none.
        unseen.acknowledged((5, 1, 3001), t);
        unseen.acknowledged((3, 11, 3001), t);
        let kept: usize = unseen.districts.iter().map(|d| lock(d).len()).sum();
        assert_eq!(kept, 2);
        assert_eq!(lock(unseen.district(4, 10).unwrap()).len(), 1);
    }
}
