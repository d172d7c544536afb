//! A run that ends after a number of transactions rather than at the end of
//! its duration (YCSB's `operationcount`, sysbench's `--events`): the senders
//! take a place from the budget for each transaction due in the window and
//! send no more once it is spent; the clock then ends the window when the
//! last of them has ended, so exactly that many are measured.

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Notify;

/// The transactions the window may still send; without a count, no limit.
pub(super) struct Budget {
    /// Places left; `None`: no count.
    left: Option<AtomicU64>,
    /// Woken when the last place is taken, so the clock need not poll.
    spent: Notify,
}

impl Budget {
    /// A budget of `count` transactions, or none (`None`).
    pub(super) fn new(count: Option<u64>) -> Self {
        Budget {
            left: count.map(AtomicU64::new),
            spent: Notify::new(),
        }
    }

    /// Take a place for one transaction due in the window: false when none
    /// is left (the sender stops).
    pub(super) fn take(&self) -> bool {
        let Some(left) = &self.left else {
            return true;
        };
        match left.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)) {
            Ok(1) => {
                // One permit is kept even when the clock is not waiting yet.
                self.spent.notify_one();
                true
            }
            Ok(_) => true,
            Err(_) => false,
        }
    }

    /// Whether a count was given and every place is taken.
    pub(super) fn is_spent(&self) -> bool {
        (self.left.as_ref()).is_some_and(|left| left.load(Ordering::Acquire) == 0)
    }

    /// Wait until every place is taken; never, without a count.
    pub(super) async fn wait_spent(&self) {
        match self.left {
            Some(_) => self.spent.notified().await,
            None => std::future::pending().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_gives_exactly_its_count() {
        let b = Budget::new(Some(3));
        assert!(!b.is_spent());
        assert_eq!((0..10).filter(|_| b.take()).count(), 3);
        assert!(b.is_spent());
    }

    #[test]
    fn no_count_is_no_limit() {
        let b = Budget::new(None);
        assert!((0..1000).all(|_| b.take()));
        assert!(!b.is_spent());
    }

    #[tokio::test]
    async fn the_last_place_wakes_a_waiter_that_came_after_it() {
        let b = Budget::new(Some(1));
        assert!(b.take());
        tokio::time::timeout(std::time::Duration::from_secs(10), b.wait_spent())
            .await
            .expect("the permit was kept");
    }
}
