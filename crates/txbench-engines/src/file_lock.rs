//! One txbench at a time on an SQLite file: two runs on one file share its
//! locks and its disk, so the numbers of both would be wrong without a word.
//! The shards of one run are the exception: they share the file by design
//! (their numbers are merged), so they hold the lock together.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// An advisory lock on `DB.txbench-lock` next to an SQLite database, held
/// while a command uses the database and released when dropped (or when the
/// process dies, whatever kills it). The lock file stays: removing it would
/// let a third process lock a new file while a second still holds the old one.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

/// Who may hold the lock with this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holders {
    /// No other txbench: a load, a check, a run on its own.
    Alone,
    /// Other shards of a run (and only they): each holds the lock shared.
    Shards,
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The lock file could not be opened.
    #[error("opening {}: {source}", path.display())]
    Open {
        /// The lock file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Another txbench holds it.
    #[error(
        "'{}' is in use by another txbench (it holds {}): two runs on one file would share \
         its locks and disk, and both their numbers would be wrong",
        database.display(),
        path.display()
    )]
    InUse {
        /// The database file.
        database: PathBuf,
        /// Its lock file.
        path: PathBuf,
    },
    /// Locking failed.
    #[error("locking {}: {source}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl FileLock {
    /// Lock `database`'s lock file, or refuse naming the database when another
    /// txbench holds it (another shard, for [`Holders::Shards`], is welcome).
    pub fn acquire(database: &Path, holders: Holders) -> Result<FileLock, LockError> {
        let path = lock_path(database);
        let file = match OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
        {
            Ok(file) => file,
            Err(source) => return Err(LockError::Open { path, source }),
        };
        let locked = match holders {
            Holders::Alone => file.try_lock(),
            Holders::Shards => file.try_lock_shared(),
        };
        match locked {
            Ok(()) => Ok(FileLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(LockError::InUse {
                database: database.to_path_buf(),
                path,
            }),
            Err(TryLockError::Error(source)) => Err(LockError::Lock { path, source }),
        }
    }
}

fn lock_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".txbench-lock");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        let first = FileLock::acquire(&db, Holders::Alone).unwrap();
        let refused = FileLock::acquire(&db, Holders::Alone)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("t.db") && refused.contains("another txbench"),
            "{refused}"
        );
        assert!(FileLock::acquire(&db, Holders::Shards).is_err());
        drop(first);
        FileLock::acquire(&db, Holders::Alone).unwrap();
    }

    #[test]
    fn shards_share_the_lock_and_keep_anyone_else_out() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.db");
        let one = FileLock::acquire(&db, Holders::Shards).unwrap();
        let two = FileLock::acquire(&db, Holders::Shards).unwrap();
        assert!(FileLock::acquire(&db, Holders::Alone).is_err());
        drop((one, two));
        FileLock::acquire(&db, Holders::Alone).unwrap();
    }
}
