//! Safe saving: every writer takes one advisory write lock ([`lock_for_write`]), then an
//! atomic replace (temporary file in the same folder created with the final mode, owner and
//! group kept, write, flush, fsync, a last content check, rename), symlinks written through
//! to their target, hard-linked files written in place, and a refusal when the file changed
//! on disk since it was read.

mod lock;

pub use lock::{WriteLock, lock_all, lock_file_for, lock_for_write};

use std::fmt;
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a save was refused. In every case the file on disk is left as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveErrorKind {
    /// The file changed (or disappeared) on disk since it was loaded: reload, reapply the
    /// pending edits onto the new content, or overwrite.
    Conflict,
    /// The file is read-only.
    ReadOnly,
    /// The new text does not load back into the expected graph.
    Verify,
    /// Reading or writing failed.
    Io,
    /// `save_as` onto an existing file without `overwrite`.
    Exists,
    /// The path names a FIFO, socket, device or folder (see [`replaceable`]).
    NotRegular,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveError {
    pub path: PathBuf,
    pub kind: SaveErrorKind,
    pub message: String,
}

impl fmt::Display for SaveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: not saved: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for SaveError {}

impl SaveError {
    pub fn new(path: &Path, kind: SaveErrorKind, message: impl Into<String>) -> SaveError {
        SaveError {
            path: path.to_path_buf(),
            kind,
            message: message.into(),
        }
    }

    fn io(path: &Path, e: &std::io::Error) -> SaveError {
        SaveError::new(path, SaveErrorKind::Io, e.to_string())
    }
}

/// Refuses when the file on disk no longer holds `loaded` (the text read at load time).
pub fn check_unchanged(path: &Path, loaded: &str) -> Result<(), SaveError> {
    use crate::bounded::Refused;
    // No more than the loaded text and a byte is read: more means changed, and a FIFO or
    // device put in the file's place is a change, not a read that waits.
    let max = loaded.len() as u64 + 1;
    match crate::bounded::read(path, max, crate::bounded::Links::Follow) {
        Ok(bytes) if bytes == loaded.as_bytes() => Ok(()),
        Ok(_) | Err(Refused::TooLarge { .. }) => Err(SaveError::new(
            path,
            SaveErrorKind::Conflict,
            "the file changed on disk since it was loaded; reload it, reapply your edits onto it, or overwrite it",
        )),
        Err(Refused::Missing) => Err(SaveError::new(
            path,
            SaveErrorKind::Conflict,
            "the file was deleted on disk since it was loaded",
        )),
        Err(Refused::Io(e)) => Err(SaveError::io(path, &e)),
        Err(other) => Err(SaveError::new(
            path,
            SaveErrorKind::Conflict,
            format!("the file on disk is now {other}"),
        )),
    }
}

/// A point inside a write where a fault can be injected (tests of writes under fault: a
/// full disk, a failing rename, a crash between writing and renaming).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The temporary file was created, nothing written yet.
    Created,
    /// The new text was written to the temporary file (not yet synced).
    Written,
    /// Synced; the rename over the target (or the in-place write) comes next.
    BeforeRename,
    /// In place: the file has grown to the new length; its old bytes are overwritten next
    /// (where a copy-on-write file system may still run out of room).
    Overwrite,
    /// In place: the overwrite failed; the old text is put back next.
    Restore,
}

/// Writes `text` to `path` atomically under the write lock, whatever the file holds now.
/// A symlink is followed and its target replaced; an existing file keeps its permissions,
/// owner and group; a read-only file is refused.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), SaveError> {
    replace(path, None, text)
}

/// [`write_atomic`] with a fault hook called at each [`Stage`]; an error from the hook is
/// handled exactly like the same error from the file system.
pub fn write_atomic_with(
    path: &Path,
    text: &str,
    fault: impl Fn(Stage) -> std::io::Result<()>,
) -> Result<(), SaveError> {
    replace_with(path, None, text, fault)
}

/// The one function every toolscope writer goes through. Under the write lock (see
/// [`lock_for_write`]) it refuses with [`SaveErrorKind::Conflict`] when the file no longer
/// holds `expected` (`None`: replace whatever is there), writes `text` to a temporary file
/// created with the file's mode, owner and group, checks `expected` again right before the
/// rename (narrowing the window for programs that do not take the lock), and renames it
/// over the file. A file with several hard links is written in place instead (see
/// [`Stage`] and docs/writeback.md).
pub fn replace(path: &Path, expected: Option<&str>, text: &str) -> Result<(), SaveError> {
    replace_with(path, expected, text, |_| Ok(()))
}

/// [`replace`] with a fault hook (see [`write_atomic_with`]).
pub fn replace_with(
    path: &Path,
    expected: Option<&str>,
    text: &str,
    fault: impl Fn(Stage) -> std::io::Result<()>,
) -> Result<(), SaveError> {
    replaceable(path)?;
    let _lock = lock_for_write(path)?;
    let recheck = || expected.map_or(Ok(()), |e| check_unchanged(path, e));
    recheck()?;
    write_locked(path, text, &fault, &recheck)
}

/// Read-modify-write under the write lock: `edit` gets the file's current text and returns
/// the new text (or `None` to write nothing); the result is written with [`replace`]. For
/// writers that change part of a file someone else may edit too (fitted scores, sidecars).
pub fn update(
    path: &Path,
    edit: impl FnOnce(&str) -> Result<Option<String>, SaveError>,
) -> Result<bool, SaveError> {
    let _lock = lock_for_write(path)?;
    let max = crate::source::Limits::default().max_bytes as u64;
    let current = crate::bounded::read(path, max, crate::bounded::Links::Follow)
        .map_err(|e| SaveError::new(path, SaveErrorKind::Io, e.to_string()))
        .and_then(|b| {
            String::from_utf8(b).map_err(|e| SaveError::new(path, SaveErrorKind::Io, e.to_string()))
        })?;
    match edit(&current)? {
        Some(new) => replace(path, Some(&current), &new).map(|()| true),
        None => Ok(false),
    }
}

/// The one rule for what toolscope writes over: nothing yet, or a regular file (after
/// following symlinks). A FIFO, socket, device or folder is refused with what it is, before
/// anything is created beside it: a rename over `/dev/null` would replace the system's
/// with a regular file, and writing into a FIFO waits for a reader. `--force`, `:export!`
/// and `:w!` replace regular files only. Every writer checks it (exports, conversions,
/// `:w FILE`, saves).
pub fn replaceable(path: &Path) -> Result<(), SaveError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(SaveError::io(path, &e)),
    };
    if meta.is_file() {
        return Ok(());
    }
    let what = special_kind(&meta.file_type());
    Err(SaveError::new(
        path,
        SaveErrorKind::NotRegular,
        format!("it is {what}, not a regular file; toolscope replaces regular files only"),
    ))
}

#[cfg(unix)]
fn special_kind(t: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(t: &fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else {
        "a special file"
    }
}

/// Writes an export or conversion to `path`: never over an input (`opened`, listed by
/// `session::inputs::protected`; the same file under any name: (device, inode) after
/// following links), not even with `force`; over another existing file only with
/// `force`, and never over anything but a regular file ([`replaceable`]). Written like a
/// save (locked, atomic).
pub fn write_output(
    path: &Path,
    text: &str,
    opened: &[PathBuf],
    force: bool,
) -> Result<(), SaveError> {
    replaceable(path)?;
    // Refused before the lock is taken, so a refused output leaves no lock file beside
    // it; checked again under the lock, for a file made meanwhile.
    output_allowed(path, opened, force)?;
    let _lock = lock_for_write(path)?;
    output_allowed(path, opened, force)?;
    write_locked(path, text, &|_| Ok(()), &|| Ok(()))
}

/// Refuses an output that is an input, or exists without `force`.
fn output_allowed(path: &Path, opened: &[PathBuf], force: bool) -> Result<(), SaveError> {
    if opened.iter().any(|o| same_file(o, path)) {
        return Err(SaveError::new(
            path,
            SaveErrorKind::Exists,
            "this is one of the inputs (an opened toolkit file, its MCP sidecar or recovery file, a trace, definitions or baseline file); --force does not change that; write the output elsewhere",
        ));
    }
    if !force && fs::symlink_metadata(path).is_ok() {
        return Err(SaveError::new(
            path,
            SaveErrorKind::Exists,
            "the file exists; pass --force (in the TUI `:export! FILE`) to replace it",
        ));
    }
    Ok(())
}

/// Whether two paths name the same file (through links and symlinks).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (fs::metadata(a), fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn write_locked(
    path: &Path,
    text: &str,
    fault: &dyn Fn(Stage) -> std::io::Result<()>,
    recheck: &dyn Fn() -> Result<(), SaveError>,
) -> Result<(), SaveError> {
    replaceable(path)?;
    let target = match fs::canonicalize(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(SaveError::io(path, &e)),
    };
    let meta = fs::metadata(&target).ok();
    if meta.as_ref().is_some_and(|m| m.permissions().readonly()) {
        return Err(SaveError::new(
            path,
            SaveErrorKind::ReadOnly,
            "the file is read-only",
        ));
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = unique_temp(dir, &name);
    if meta.as_ref().is_some_and(|m| links(m) > 1) {
        return in_place(path, &target, &tmp, text, meta.as_ref(), fault, recheck);
    }
    let result = write_temp(&tmp, text, meta.as_ref(), fault)
        .and_then(|()| fault(Stage::BeforeRename))
        .map_err(|e| SaveError::io(path, &e))
        .and_then(|()| recheck())
        .and_then(|()| fs::rename(&tmp, &target).map_err(|e| SaveError::io(path, &e)));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(unix)]
fn links(m: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(m)
}

#[cfg(not(unix))]
fn links(_: &fs::Metadata) -> u64 {
    1
}

/// A file with several hard links: a rename would give this name a new file and leave the
/// other names with the old content, so the new text is written into the file itself.
///
/// A complete copy of the old or the new text is on disk at every moment, and an error
/// says where: the complete new text is first written and synced to a guard file beside
/// the file (if that fails, the file is untouched). The file then grows first: the part of
/// the new text past the old length is written at its place, so a full disk (or a file
/// size limit) fails before any old byte changes, and the file is cut back. Its old bytes
/// are overwritten last, which takes no new room on a file system that writes in place; a
/// copy-on-write one may still fail there, and then the old text is written back. Only if
/// that fails too is the file left half written, and the error names the guard, which
/// then holds the only complete text. The guard is removed whenever the file holds a
/// complete text.
fn in_place(
    path: &Path,
    target: &Path,
    guard: &Path,
    text: &str,
    meta: Option<&fs::Metadata>,
    fault: &dyn Fn(Stage) -> std::io::Result<()>,
    recheck: &dyn Fn() -> Result<(), SaveError>,
) -> Result<(), SaveError> {
    let unchanged = |e: &dyn fmt::Display| {
        SaveError::new(
            path,
            SaveErrorKind::Io,
            format!("{e}; the file is unchanged"),
        )
    };
    let staged = write_temp(guard, text, meta, fault)
        .and_then(|()| fault(Stage::BeforeRename))
        .map_err(|e| unchanged(&e))
        .and_then(|()| recheck());
    let old = staged.and_then(|()| fs::read(target).map_err(|e| unchanged(&e)));
    let old = match old {
        Ok(old) => old,
        Err(e) => {
            let _ = fs::remove_file(guard);
            return Err(e);
        }
    };
    match overwrite(target, &old, text.as_bytes(), fault) {
        Ok(()) => {
            let _ = fs::remove_file(guard);
            Ok(())
        }
        Err(Overwrite::Unchanged(e)) => {
            let _ = fs::remove_file(guard);
            Err(unchanged(&format!("writing it in place failed ({e})")))
        }
        Err(Overwrite::HalfWritten(e)) => Err(SaveError::new(
            path,
            SaveErrorKind::Io,
            format!(
                "writing it in place failed ({e}) and its old text could not be written back: \
                 the file is half written; the complete new text is only in {}: copy it over \
                 the file once there is room",
                guard.display()
            ),
        )),
    }
}

/// How an in-place write failed.
enum Overwrite {
    /// The file holds its old text.
    Unchanged(std::io::Error),
    /// The file holds neither text whole.
    HalfWritten(std::io::Error),
}

/// Writes `new` over `old` in the file `target` (see [`in_place`]): grow, overwrite, and on
/// failure put the old text back.
fn overwrite(
    target: &Path,
    old: &[u8],
    new: &[u8],
    fault: &dyn Fn(Stage) -> std::io::Result<()>,
) -> Result<(), Overwrite> {
    use std::io::{Seek, SeekFrom};
    let mut f = OpenOptions::new()
        .write(true)
        .open(target)
        .map_err(Overwrite::Unchanged)?;
    if new.len() > old.len() {
        let grown = f
            .seek(SeekFrom::Start(old.len() as u64))
            .and_then(|_| f.write_all(&new[old.len()..]))
            .and_then(|()| f.sync_data());
        if let Err(e) = grown {
            let cut = f.set_len(old.len() as u64).and_then(|()| f.sync_all());
            return Err(match cut {
                Ok(()) => Overwrite::Unchanged(e),
                Err(_) => Overwrite::HalfWritten(e),
            });
        }
    }
    // From the start: `bytes`, then the file cut (or left) at `len`.
    let mut put = |bytes: &[u8], len: usize, stage: Stage| {
        fault(stage)?;
        f.seek(SeekFrom::Start(0))?;
        f.write_all(bytes)?;
        f.set_len(len as u64)?;
        f.sync_all()
    };
    let head = new.len().min(old.len());
    match put(&new[..head], new.len(), Stage::Overwrite) {
        Ok(()) => Ok(()),
        Err(e) => match put(old, old.len(), Stage::Restore) {
            Ok(()) => Err(Overwrite::Unchanged(e)),
            Err(_) => Err(Overwrite::HalfWritten(e)),
        },
    }
}

fn unique_temp(dir: &Path, name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    dir.join(format!(
        ".{name}.toolscope-{}-{nanos}.tmp",
        std::process::id()
    ))
}

/// Creates the temporary file with the final mode (never readable by more people than the
/// file it replaces), gives it the file's owner and group where allowed, then writes.
fn write_temp(
    tmp: &Path,
    text: &str,
    meta: Option<&fs::Metadata>,
    fault: &dyn Fn(Stage) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if let Some(m) = meta {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(m.permissions().mode() & 0o7777);
    }
    let mut f = options.open(tmp)?;
    fault(Stage::Created)?;
    if let Some(m) = meta {
        keep_owner(&f, m);
        // After the chown (which may clear set-id bits) and past the umask.
        f.set_permissions(m.permissions())?;
    }
    f.write_all(text.as_bytes())?;
    f.flush()?;
    fault(Stage::Written)?;
    f.sync_all()
}

/// Gives the new file the old one's owner and group; where that is not allowed (a user who
/// is not root), the group alone; where that is not allowed either, nothing.
#[cfg(unix)]
fn keep_owner(f: &fs::File, m: &fs::Metadata) {
    use std::os::unix::fs::{MetadataExt, fchown};
    if fchown(f, Some(m.uid()), Some(m.gid())).is_err() {
        let _ = fchown(f, None, Some(m.gid()));
    }
}

#[cfg(not(unix))]
fn keep_owner(_: &fs::File, _: &fs::Metadata) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_through_symlinks_and_keeps_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.yaml");
        fs::write(&real, "a: 1\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
            let link = dir.path().join("link.yaml");
            std::os::unix::fs::symlink(&real, &link).unwrap();
            write_atomic(&link, "a: 2\n").unwrap();
            assert!(
                fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(fs::read_to_string(&real).unwrap(), "a: 2\n");
            let mode = fs::metadata(&real).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o640);
        }
        let leftovers = fs::read_dir(dir.path()).unwrap().filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        });
        assert_eq!(leftovers.count(), 0);
    }

    #[test]
    fn refuses_read_only_and_changed_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.yaml");
        fs::write(&p, "a: 1\n").unwrap();
        assert_eq!(
            check_unchanged(&p, "a: 0\n").unwrap_err().kind,
            SaveErrorKind::Conflict
        );
        check_unchanged(&p, "a: 1\n").unwrap();
        let mut perms = fs::metadata(&p).unwrap().permissions();
        perms.set_readonly(true);
        fs::set_permissions(&p, perms).unwrap();
        assert_eq!(
            write_atomic(&p, "a: 2\n").unwrap_err().kind,
            SaveErrorKind::ReadOnly
        );
        assert_eq!(fs::read_to_string(&p).unwrap(), "a: 1\n");
    }

    #[test]
    fn a_writer_not_taking_the_lock_is_caught_right_before_the_rename() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.yaml");
        fs::write(&p, "a: 1\n").unwrap();
        let err = replace_with(&p, Some("a: 1\n"), "a: 2\n", |stage| {
            if stage == Stage::BeforeRename {
                fs::write(&p, "a: 3\n")?;
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!(err.kind, SaveErrorKind::Conflict);
        assert_eq!(fs::read_to_string(&p).unwrap(), "a: 3\n");
        // `update` edits what is there now.
        assert!(update(&p, |now| Ok(Some(now.replace('3', "4")))).unwrap());
        assert_eq!(fs::read_to_string(&p).unwrap(), "a: 4\n");
    }

    #[cfg(unix)]
    #[test]
    fn the_temporary_file_is_never_more_readable_than_the_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("secret.yaml");
        fs::write(&p, "a: 1\n").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        let seen = std::cell::Cell::new(0);
        write_atomic_with(&p, "a: 2\n", |_| {
            for e in fs::read_dir(dir.path())?.flatten() {
                if e.file_name().to_string_lossy().ends_with(".tmp") {
                    let mode = e.metadata()?.permissions().mode() & 0o777;
                    assert_eq!(mode, 0o600, "temporary file mode");
                    seen.set(seen.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(seen.get(), 3);
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[cfg(unix)]
    #[test]
    fn hard_links_keep_sharing_the_new_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.yaml");
        let other = dir.path().join("other-name.yaml");
        fs::write(&p, "a: 1\n").unwrap();
        fs::hard_link(&p, &other).unwrap();
        replace(&p, Some("a: 1\n"), "a: 22\n").unwrap();
        assert_eq!(fs::read_to_string(&other).unwrap(), "a: 22\n");
        replace(&p, Some("a: 22\n"), "a: 3\n").unwrap();
        assert_eq!(fs::read_to_string(&other).unwrap(), "a: 3\n");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    /// A copy-on-write file system out of room while the old bytes are overwritten (faults
    /// injected at [`Stage::Overwrite`], then at [`Stage::Restore`] too): the old text is
    /// written back, or, when that fails too, the error names the guard file, which holds
    /// the complete new text. Growing first keeps a real full disk from reaching here
    /// (`tests/suite/hard_links.rs`).
    #[cfg(unix)]
    #[test]
    fn a_failed_in_place_overwrite_keeps_a_whole_copy_and_says_where() {
        let no_room = || std::io::Error::other("no room");
        for (old, new) in [("a: 1\n", "a: 22222\n"), ("a: 11111\n", "a: 2\n")] {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("t.yaml");
            fs::write(&p, old).unwrap();
            fs::hard_link(&p, dir.path().join("other.yaml")).unwrap();
            let err = replace_with(&p, Some(old), new, |stage| match stage {
                Stage::Overwrite => Err(no_room()),
                _ => Ok(()),
            })
            .unwrap_err();
            assert!(err.message.contains("the file is unchanged"), "{err}");
            assert_eq!(fs::read_to_string(&p).unwrap(), old);
            assert!(temps(dir.path()).is_empty());

            let err = replace_with(&p, Some(old), new, |stage| match stage {
                Stage::Overwrite | Stage::Restore => Err(no_room()),
                _ => Ok(()),
            })
            .unwrap_err();
            let guards = temps(dir.path());
            assert_eq!(guards.len(), 1, "{guards:?}");
            let guard = dir.path().join(&guards[0]);
            assert!(err.message.contains("half written"), "{err}");
            assert!(err.message.contains(&guard.display().to_string()), "{err}");
            assert_eq!(fs::read_to_string(&guard).unwrap(), new);
        }
    }

    fn temps(dir: &Path) -> Vec<String> {
        fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[cfg(unix)]
    #[test]
    fn owner_and_group_are_kept_where_allowed() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.yaml");
        fs::write(&p, "a: 1\n").unwrap();
        if std::os::unix::fs::chown(&p, Some(4321), Some(4322)).is_err() {
            return; // Not root: only the group could be kept, and only to our own groups.
        }
        write_atomic(&p, "a: 2\n").unwrap();
        let m = fs::metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), (4321, 4322));
    }
}
