//! The advisory write lock every toolscope writer takes (`set`, TUI saves, and any later
//! writer such as fitted scores or MCP sidecars) so that two writers never interleave their
//! read-check-write-rename sequences.
//!
//! Why a lock file beside the target (`.NAME.toolscope-lock`, empty, kept) and not a lock on
//! the target or on its folder:
//! - the target itself is replaced by a rename on every save, so a lock on its inode would
//!   be lost the moment the first writer renames (the next writer would lock the new inode
//!   while a third still waits on the old one);
//! - `flock` on the folder needs the folder opened for reading and, on NFS (where Linux
//!   emulates `flock` with byte-range locks), opened for writing, which a folder cannot be;
//!   a lock file is opened read-write and works on both;
//! - the lock file is never deleted: deleting it would let a waiter hold a lock on the
//!   unlinked file while a newcomer locks a new one. It is zero bytes; ignore it in version
//!   control (`.*.toolscope-lock`).
//!
//! The lock is re-entrant within one thread (a `set` holds it across re-read, edit and
//! save, and the save takes it again); other threads and processes wait for it.

use std::cell::RefCell;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{SaveError, SaveErrorKind};

/// How long a writer waits for another to finish before giving up with an error.
const WAIT: Duration = Duration::from_secs(60);

thread_local! {
    /// Lock files this thread holds, for re-entrance.
    static HELD: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
}

/// A held write lock; released on drop.
#[derive(Debug)]
pub struct WriteLock {
    /// `None` when this thread already held the lock (a nested take).
    held: Option<(File, PathBuf)>,
}

impl WriteLock {
    /// The lock file (beside the target).
    pub fn lock_path(&self) -> Option<&Path> {
        self.held.as_ref().map(|(_, p)| p.as_path())
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        if let Some((file, path)) = self.held.take() {
            let _ = file.unlock();
            HELD.with(|h| h.borrow_mut().retain(|p| *p != path));
        }
    }
}

/// The lock file for `path`: beside the file it names after symlinks are followed, so that
/// every name of one file shares one lock.
pub fn lock_file_for(path: &Path) -> PathBuf {
    let target = std::fs::canonicalize(path).unwrap_or_else(|_| {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = dir.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        dir.join(path.file_name().unwrap_or_default())
    });
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = target
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    dir.join(format!(".{name}.toolscope-lock"))
}

/// Takes the write lock for `path`, waiting for other writers (up to a minute).
pub fn lock_for_write(path: &Path) -> Result<WriteLock, SaveError> {
    let lock_path = lock_file_for(path);
    if HELD.with(|h| h.borrow().contains(&lock_path)) {
        return Ok(WriteLock { held: None });
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&lock_path)
        .map_err(|e| {
            SaveError::new(
                path,
                SaveErrorKind::Io,
                format!("cannot create the write lock {}: {e}", lock_path.display()),
            )
        })?;
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(SaveError::new(
                    path,
                    SaveErrorKind::Io,
                    format!(
                        "another writer has held {} for over {} s",
                        lock_path.display(),
                        WAIT.as_secs()
                    ),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(SaveError::new(
                    path,
                    SaveErrorKind::Io,
                    format!("cannot lock {}: {e}", lock_path.display()),
                ));
            }
        }
    }
    HELD.with(|h| h.borrow_mut().push(lock_path.clone()));
    Ok(WriteLock {
        held: Some((file, lock_path)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reentrant_in_a_thread_exclusive_across_threads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.yaml");
        std::fs::write(&p, "a: 1\n").unwrap();
        let outer = lock_for_write(&p).unwrap();
        let inner = lock_for_write(&p).unwrap();
        assert!(inner.lock_path().is_none());
        drop(inner);
        let (tx, rx) = std::sync::mpsc::channel();
        let p2 = p.clone();
        let t = std::thread::spawn(move || {
            let _l = lock_for_write(&p2).unwrap();
            tx.send(()).unwrap();
        });
        // The other thread waits while this one holds the lock.
        assert!(rx.recv_timeout(Duration::from_millis(200)).is_err());
        drop(outer);
        assert!(rx.recv_timeout(Duration::from_secs(10)).is_ok());
        t.join().unwrap();
        assert!(lock_file_for(&p).ends_with(".t.yaml.toolscope-lock"));
    }
}
