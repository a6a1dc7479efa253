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
//! A file with several names (hard links) has one lock file per name, so those alone would
//! not serialise writers that came through different names. Such a file is written in
//! place (its inode stays), and the lock also takes the file itself, keyed by device and
//! inode: every writer of the file, through any name, can open it. After acquiring, the
//! name is checked to still be that file (a rename-save through a name whose file has lost
//! its other links gives the name a new inode); if not, the lock is taken again. The
//! caller reads the file after taking the lock, so its edit is made on what is there.
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

/// A file's identity: device and inode.
type Inode = (u64, u64);

thread_local! {
    /// Lock files this thread holds, for re-entrance.
    static HELD: RefCell<Vec<PathBuf>> = const { RefCell::new(Vec::new()) };
    /// Files (with several names) this thread holds the inode lock of.
    static HELD_INODES: RefCell<Vec<Inode>> = const { RefCell::new(Vec::new()) };
}

/// A held write lock; released on drop.
#[derive(Debug)]
pub struct WriteLock {
    /// `None` when this thread already held the lock (a nested take).
    held: Option<(File, PathBuf)>,
    /// The file itself when it has several names (`None`: one name, or already held).
    inode: Option<(File, Inode)>,
}

impl WriteLock {
    /// The lock file (beside the target).
    pub fn lock_path(&self) -> Option<&Path> {
        self.held.as_ref().map(|(_, p)| p.as_path())
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        if let Some((file, key)) = self.inode.take() {
            let _ = file.unlock();
            HELD_INODES.with(|h| h.borrow_mut().retain(|k| *k != key));
        }
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

/// Takes the write lock for `path`, waiting for other writers (up to a minute): the lock
/// file of its name and, when the file has several names, the file itself. Refused for a
/// path that is not a regular file (`super::replaceable`): the lock file goes beside what
/// a symlink names, and a link to `/dev/zero` must not put one in `/dev`.
pub fn lock_for_write(path: &Path) -> Result<WriteLock, SaveError> {
    super::replaceable(path)?;
    let mut lock = lock_name(path)?;
    lock.inode = lock_inode(path)?;
    Ok(lock)
}

/// Takes the write locks of several files (`set` on a folder holds them all from its read
/// to its rename), in an order every writer agrees on, so that two writers never hold one
/// lock each and wait for the other's: files with several names first, by device and inode
/// (two folders can name one file, in different orders of their paths), then the rest by
/// the lock file's path. Returns the locks in that order.
pub fn lock_all(paths: &[PathBuf]) -> Result<Vec<WriteLock>, SaveError> {
    let mut keyed: Vec<(LockOrder, &PathBuf)> = paths.iter().map(|p| (lock_order(p), p)).collect();
    keyed.sort();
    keyed.into_iter().map(|(_, p)| lock_for_write(p)).collect()
}

/// Where a file's locks come in [`lock_all`]'s order.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum LockOrder {
    /// A file with several names: its inode lock is the one shared across names.
    Linked(Inode),
    /// A file with one name: its lock file is the one shared.
    Named(PathBuf),
}

fn lock_order(path: &Path) -> LockOrder {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let Ok(m) = std::fs::metadata(path)
            && m.is_file()
            && m.nlink() > 1
        {
            return LockOrder::Linked((m.dev(), m.ino()));
        }
    }
    LockOrder::Named(lock_file_for(path))
}

fn lock_name(path: &Path) -> Result<WriteLock, SaveError> {
    let lock_path = lock_file_for(path);
    if HELD.with(|h| h.borrow().contains(&lock_path)) {
        return Ok(WriteLock {
            held: None,
            inode: None,
        });
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
    wait_for(&file, path, &lock_path.display().to_string())?;
    HELD.with(|h| h.borrow_mut().push(lock_path.clone()));
    Ok(WriteLock {
        held: Some((file, lock_path)),
        inode: None,
    })
}

/// The lock on the file itself, for a regular file with several names (see the module's
/// comment); `None` for one name, anything that is not a regular file, or a file this
/// thread holds already.
#[cfg(unix)]
fn lock_inode(path: &Path) -> Result<Option<(File, Inode)>, SaveError> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let io = |e: std::io::Error| SaveError::new(path, SaveErrorKind::Io, e.to_string());
    loop {
        let Ok(meta) = std::fs::metadata(path) else {
            return Ok(None);
        };
        let key = (meta.dev(), meta.ino());
        if !meta.is_file() || meta.nlink() < 2 || HELD_INODES.with(|h| h.borrow().contains(&key)) {
            return Ok(None);
        }
        // Read and write where allowed (NFS emulates `flock` with byte-range locks, which
        // need it); O_NONBLOCK so that a file swapped for a FIFO meanwhile cannot block.
        let open = |write: bool| {
            OpenOptions::new()
                .read(true)
                .write(write)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)
        };
        let file = open(true).or_else(|_| open(false)).map_err(io)?;
        let opened = file.metadata().map_err(io)?;
        if (opened.dev(), opened.ino()) != key {
            continue;
        }
        wait_for(&file, path, &format!("{} (all its names)", path.display()))?;
        match std::fs::metadata(path) {
            Ok(now) if (now.dev(), now.ino()) == key => {
                HELD_INODES.with(|h| h.borrow_mut().push(key));
                return Ok(Some((file, key)));
            }
            _ => {
                let _ = file.unlock();
            }
        }
    }
}

#[cfg(not(unix))]
fn lock_inode(_: &Path) -> Result<Option<(File, Inode)>, SaveError> {
    Ok(None)
}

/// Waits for the exclusive lock on `file` (up to [`WAIT`]); `what` names it in errors.
fn wait_for(file: &File, path: &Path, what: &str) -> Result<(), SaveError> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < WAIT => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(SaveError::new(
                    path,
                    SaveErrorKind::Io,
                    format!(
                        "another writer has held {what} for over {} s",
                        WAIT.as_secs()
                    ),
                ));
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(SaveError::new(
                    path,
                    SaveErrorKind::Io,
                    format!("cannot lock {what}: {e}"),
                ));
            }
        }
    }
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

    /// Two folders naming the same two files in opposite orders of their paths (`set` on
    /// each at once): the writers took the shared (inode) locks in opposite orders and
    /// could each hold one and wait for the other until the 60 s timeout. `lock_all` puts
    /// them in one order for both; two writers then finish, many times over.
    #[cfg(unix)]
    #[test]
    fn folders_naming_one_file_in_opposite_orders_lock_in_one_order() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        std::fs::create_dir_all(&one).unwrap();
        std::fs::create_dir_all(&two).unwrap();
        let (x, y) = (one.join("x.yml"), one.join("y.yml"));
        std::fs::write(&x, "a: 1\n").unwrap();
        std::fs::write(&y, "b: 1\n").unwrap();
        // In `two`, path order is the other way round: p names y, q names x.
        let (p, q) = (two.join("p.yml"), two.join("q.yml"));
        std::fs::hard_link(&y, &p).unwrap();
        std::fs::hard_link(&x, &q).unwrap();
        let inodes = |paths: &[PathBuf]| -> Vec<u64> {
            let mut keyed: Vec<(LockOrder, &PathBuf)> =
                paths.iter().map(|p| (lock_order(p), p)).collect();
            keyed.sort();
            keyed
                .iter()
                .map(|(_, p)| std::fs::metadata(p).unwrap().ino())
                .collect()
        };
        let (first, second) = (vec![x.clone(), y.clone()], vec![p.clone(), q.clone()]);
        assert_eq!(inodes(&first), inodes(&second));
        let threads: Vec<_> = [first, second]
            .into_iter()
            .map(|files| {
                std::thread::spawn(move || {
                    for _ in 0..200 {
                        drop(lock_all(&files).expect("both locks"));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
}
