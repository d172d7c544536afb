//! An optimistic transaction over etcd's multi-version store.
//!
//! Its first read takes the store's revision `R` from the answer's header;
//! every later read asks for the store as it was at `R`, so all the reads are
//! one snapshot. Each key read keeps the revision it was last changed at
//! (0: absent). Writes are kept here (later reads of the same key see them)
//! and go out at commit as one etcd Txn: *if* every key read still has the
//! revision it had, and every key written but not read has not changed
//! since `R`, *then* put every write. When the condition fails nothing is
//! written, and the transaction is a conflict, retried and counted by the
//! driver. A transaction that wrote nothing needs no commit: its reads are
//! already one snapshot.

use etcd_client::{Compare, CompareOp, Txn, TxnOp};

/// etcd's default limit on the operations of one Txn (`--max-txn-ops`),
/// each of its compares and its puts counted apart.
pub const MAX_TXN_OPS: usize = 128;

/// The transaction in progress; kept between transactions so its buffers are
/// allocated once per session.
#[derive(Debug, Default)]
pub struct Transaction {
    /// Whether a transaction is in progress.
    pub open: bool,
    /// The snapshot's revision, once a read has taken it (0 before).
    pub revision: i64,
    /// Each key read, and the revision it was last changed at (0: absent).
    reads: Vec<(String, i64)>,
    /// Each key written and its new value, latest value per key.
    writes: Vec<(String, String)>,
}

impl Transaction {
    /// Start a new transaction.
    pub fn begin(&mut self) {
        self.end();
        self.open = true;
    }

    /// End it (committed or not): nothing of it is seen any more.
    pub fn end(&mut self) {
        self.open = false;
        self.revision = 0;
        self.reads.clear();
        self.writes.clear();
    }

    /// The value this transaction wrote to `key`, if it did.
    pub fn written(&self, key: &str) -> Option<&str> {
        self.writes
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Keep that `key` was read, last changed at `mod_revision`.
    pub fn read(&mut self, key: &str, mod_revision: i64) {
        if !self.reads.iter().any(|(k, _)| k == key) {
            self.reads.push((key.to_string(), mod_revision));
        }
    }

    /// Keep that `key` is to become `value` at commit.
    pub fn write(&mut self, key: String, value: String) {
        match self.writes.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => *v = value,
            None => self.writes.push((key, value)),
        }
    }

    /// The largest written key between `from` and `to` (exclusive), if any.
    pub fn largest_written(&self, from: &str, to: &str) -> Option<&str> {
        self.writes
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| *k >= from && *k < to)
            .max()
    }

    /// Whether there is anything to commit.
    pub fn wrote(&self) -> bool {
        !self.writes.is_empty()
    }

    /// End the transaction and give its commit: the compares of every key
    /// read or written, then the puts; `Err` with how many compares and puts
    /// it needed when that is more than one etcd Txn may hold. The keys and
    /// values move into the Txn (a commit copies none of them).
    pub fn take_commit(&mut self) -> Result<Txn, (usize, usize)> {
        let blind = self
            .writes
            .iter()
            .filter(|(k, _)| !self.reads.iter().any(|(r, _)| r == k))
            .count();
        let compares = self.reads.len() + if self.revision > 0 { blind } else { 0 };
        let puts = self.writes.len();
        if compares > MAX_TXN_OPS || puts > MAX_TXN_OPS {
            self.end();
            return Err((compares, puts));
        }
        let mut when = Vec::with_capacity(compares);
        let mut then = Vec::with_capacity(puts);
        for (key, value) in self.writes.drain(..) {
            if self.revision > 0 && !self.reads.iter().any(|(r, _)| *r == key) {
                // Written but not read: unchanged since the snapshot.
                when.push(Compare::mod_revision(
                    key.as_str(),
                    CompareOp::Less,
                    self.revision + 1,
                ));
            }
            then.push(TxnOp::put(key, value, None));
        }
        when.extend(
            self.reads
                .drain(..)
                .map(|(k, rev)| Compare::mod_revision(k, CompareOp::Equal, rev)),
        );
        self.end();
        Ok(Txn::new().when(when).and_then(then))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_see_the_latest_write_and_keep_their_first_revision() {
        let mut tx = Transaction::default();
        tx.begin();
        tx.read("a", 7);
        tx.read("a", 9);
        tx.write("a".into(), "1".into());
        tx.write("a".into(), "2".into());
        tx.write("b".into(), "3".into());
        assert_eq!(tx.written("a"), Some("2"));
        assert_eq!(tx.written("c"), None);
        assert_eq!(tx.reads, [("a".to_string(), 7)]);
        assert_eq!(tx.writes.len(), 2);
        assert_eq!(tx.largest_written("a", "c"), Some("b"));
        assert_eq!(tx.largest_written("a", "b"), Some("a"));
        tx.begin();
        assert!(!tx.wrote() && tx.revision == 0);
    }

    #[test]
    fn a_commit_larger_than_one_etcd_txn_is_refused() {
        let mut tx = Transaction::default();
        tx.begin();
        for k in 0..MAX_TXN_OPS {
            tx.read(&k.to_string(), 1);
        }
        tx.write("0".into(), "v".into());
        let reads = tx.reads.clone();
        assert!(tx.take_commit().is_ok());
        assert!(!tx.open && tx.reads.is_empty() && tx.writes.is_empty());
        tx.begin();
        tx.reads = reads;
        tx.revision = 5;
        tx.write("new".into(), "v".into());
        assert_eq!(tx.take_commit().unwrap_err(), (129, 1), "129 compares");
    }
}
