//! Unsaved edits written when the TUI has to end without asking (SIGTERM, SIGHUP, the
//! terminal gone), and offered again by the next start on the same files.
//!
//! The file holds the pending transactions (edits by name, so they reapply onto whatever
//! the files hold by then), in JSON, under `$TOOLSCOPE_STATE_DIR`, else
//! `$XDG_STATE_HOME/toolscope`, else `~/.local/state/toolscope`; its name is a hash of the
//! opened paths. It is private to the user (mode 0600, in a folder of mode 0700) and removed
//! once the user chose to reapply or discard it. What is found in its place is read only
//! when it is a regular file of bounded size: the folder may be shared
//! (`TOOLSCOPE_STATE_DIR`), and a FIFO, a device or a link there must cost nothing.

use std::io;
use std::path::{Path, PathBuf};

use crate::edit::Transaction;

#[derive(serde::Serialize, serde::Deserialize)]
struct Saved {
    /// The opened paths, to tell two sets apart when their hashes collide.
    paths: Vec<PathBuf>,
    edits: Vec<Transaction>,
}

/// The directory recovery files go to (see the module docs).
pub fn state_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("TOOLSCOPE_STATE_DIR").or_else(default_dir)
}

/// toolscope's own state folder: `$XDG_STATE_HOME/toolscope`, else
/// `~/.local/state/toolscope`.
fn default_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("XDG_STATE_HOME")
        .map(|d| d.join("toolscope"))
        .or_else(|| var("HOME").map(|h| h.join(".local/state/toolscope")))
}

/// The opened paths as absolute paths, so `a.yaml` and `./a.yaml` are the same session.
fn canonical(opened: &[PathBuf]) -> Vec<PathBuf> {
    opened
        .iter()
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
        .collect()
}

/// FNV-1a: stable across Rust versions, unlike `DefaultHasher`.
fn fnv(paths: &[PathBuf]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in paths {
        for b in p.as_os_str().as_encoded_bytes().iter().chain([&0u8]) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Where the recovery file of a set of opened paths lives in `dir`.
pub fn path_for(dir: Option<&Path>, opened: &[PathBuf]) -> Option<PathBuf> {
    if opened.is_empty() {
        return None;
    }
    Some(dir?.join(format!("recovery-{:016x}.json", fnv(&canonical(opened)))))
}

/// The largest recovery file read back: far more than any session's edits (a `:fit` of
/// 100,000 edges is about 10 MB), and a bound on what a file put in its place can cost.
pub const MAX_BYTES: u64 = 64 << 20;

/// Writes the edits; returns the file written. The state folder is made private (0700)
/// when toolscope creates it, and refused when it is not private (see [`private_dir`]).
/// The JSON goes to a temporary file created exclusively (`O_EXCL`, mode 0600, never
/// through a link: a name planted in the folder makes the creation fail, never writes
/// elsewhere), then renamed over the recovery file (a rename replaces a link, never its
/// target).
pub fn write(
    dir: Option<&Path>,
    opened: &[PathBuf],
    edits: Vec<Transaction>,
) -> io::Result<PathBuf> {
    let path = path_for(dir, opened).ok_or_else(|| io::Error::other("no state directory"))?;
    let folder = path.parent().unwrap_or(Path::new("."));
    private_dir(folder, true).map_err(io::Error::other)?;
    let saved = Saved {
        paths: canonical(opened),
        edits,
    };
    let json = serde_json::to_string(&saved).map_err(io::Error::other)?;
    let tmp = write_private(folder, json.as_bytes())?;
    if let Err(e) = std::fs::rename(&tmp, &path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(path)
}

/// Writes `bytes` to a new temporary file in `folder` (an unpredictable name, created
/// exclusively with mode 0600); returns its path.
#[cfg(unix)]
fn write_private(folder: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut last = None;
    for attempt in 0..16u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let tmp = folder.join(format!(
            ".recovery-{}-{nanos}-{attempt}.tmp",
            std::process::id()
        ));
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp);
        match opened {
            Ok(mut f) => {
                let written = f.write_all(bytes).and_then(|()| f.sync_all());
                if let Err(e) = written {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(e);
                }
                return Ok(tmp);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary name is free")))
}

#[cfg(not(unix))]
fn write_private(folder: &Path, bytes: &[u8]) -> io::Result<PathBuf> {
    let tmp = folder.join(format!(".recovery-{}.tmp", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    Ok(tmp)
}

/// Checks that `folder` is private: a folder of this user that no one else can read,
/// enter or write (mode 0700 or stricter). With `create`, a missing folder is made so
/// (its missing parents with the usual mode). toolscope's own default folder, which
/// earlier versions made with the umask's mode (often 0755), is made private again when
/// it belongs to the user; any other folder (`TOOLSCOPE_STATE_DIR`) is never changed, only
/// refused. The reason, when it is refused.
#[cfg(unix)]
fn private_dir(folder: &Path, create: bool) -> Result<(), String> {
    let own = default_dir().is_some_and(|d| d == folder);
    private_dir_with(folder, create, own)
}

/// [`private_dir`], `own` saying whether `folder` is toolscope's default folder.
#[cfg(unix)]
fn private_dir_with(folder: &Path, create: bool, own: bool) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let shown = folder.display();
    let meta = match std::fs::metadata(folder) {
        Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
            if let Some(parent) = folder.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| format!("{shown}: {e}"))?;
            }
            std::fs::DirBuilder::new()
                .mode(0o700)
                .create(folder)
                .map_err(|e| format!("{shown}: {e}"))?;
            std::fs::metadata(folder).map_err(|e| format!("{shown}: {e}"))?
        }
        Err(e) => return Err(format!("{shown}: {e}")),
        Ok(m) => m,
    };
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let mode = meta.mode() & 0o777;
    if !meta.is_dir() {
        Err(format!("the state folder {shown} is not a folder"))
    } else if meta.uid() != me {
        Err(format!(
            "the state folder {shown} belongs to another user; set TOOLSCOPE_STATE_DIR to a folder of yours"
        ))
    } else if mode & 0o077 != 0 && own {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("the state folder {shown} is open to others and {e}"))
    } else if mode & 0o077 != 0 {
        Err(format!(
            "the state folder {shown} is open to others (mode {mode:o}); not used: chmod 700 {shown}"
        ))
    } else {
        Ok(())
    }
}

#[cfg(not(unix))]
fn private_dir(folder: &Path, create: bool) -> Result<(), String> {
    if create {
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    Ok(())
}

/// The edits left by an earlier session on the same paths, if any. Only a regular file
/// of at most [`MAX_BYTES`] in a private state folder is read: it is opened without
/// following a link and without blocking (a FIFO), and checked before a byte is read; what
/// is refused comes back as the reason.
pub fn load(dir: Option<&Path>, opened: &[PathBuf]) -> Result<Option<Vec<Transaction>>, String> {
    let Some(path) = path_for(dir, opened) else {
        return Ok(None);
    };
    let folder = path.parent().unwrap_or(Path::new("."));
    if !folder.exists() {
        return Ok(None);
    }
    private_dir(folder, false)?;
    let Some(text) = read_bounded(&path)? else {
        return Ok(None);
    };
    let saved: Saved = serde_json::from_str(&text)
        .map_err(|e| format!("the recovery file {} cannot be read: {e}", path.display()))?;
    Ok((saved.paths == canonical(opened) && !saved.edits.is_empty()).then_some(saved.edits))
}

/// The text of `path` if it is a regular file of at most [`MAX_BYTES`] (`None`: no file),
/// never read through a link.
fn read_bounded(path: &Path) -> Result<Option<String>, String> {
    use crate::bounded::{Links, Refused};
    let shown = path.display();
    let bytes = match crate::bounded::read(path, MAX_BYTES, Links::Refuse) {
        Ok(b) => b,
        Err(Refused::Missing) => return Ok(None),
        Err(e) => return Err(format!("the recovery file {shown} is {e}")),
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| format!("the recovery file {shown} is not UTF-8: {e}"))
}

/// Removes the recovery file (the user reapplied or discarded it).
pub fn discard(dir: Option<&Path>, opened: &[PathBuf]) {
    if let Some(p) = path_for(dir, opened) {
        let _ = std::fs::remove_file(p);
    }
}

#[cfg(all(test, unix))]
mod tests;
