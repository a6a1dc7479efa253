//! Unsaved edits written when the TUI has to end without asking (SIGTERM, SIGHUP, the
//! terminal gone), and offered again by the next start on the same files.
//!
//! The file holds the pending transactions (edits by name, so they reapply onto whatever
//! the files hold by then), in JSON, under `$TOOLSCOPE_STATE_DIR`, else
//! `$XDG_STATE_HOME/toolscope`, else `~/.local/state/toolscope`; its name is a hash of the
//! opened paths. It is private to the user (mode 0600) and removed once the user chose to
//! reapply or discard it.

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
    var("TOOLSCOPE_STATE_DIR")
        .or_else(|| var("XDG_STATE_HOME").map(|d| d.join("toolscope")))
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

/// Writes the edits; returns the file written.
pub fn write(
    dir: Option<&Path>,
    opened: &[PathBuf],
    edits: Vec<Transaction>,
) -> io::Result<PathBuf> {
    let path = path_for(dir, opened).ok_or_else(|| io::Error::other("no state directory"))?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let saved = Saved {
        paths: canonical(opened),
        edits,
    };
    let json = serde_json::to_string(&saved).map_err(io::Error::other)?;
    let tmp = path.with_extension("tmp");
    write_private(&tmp, json.as_bytes())?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> io::Result<()> {
    std::fs::write(path, bytes)
}

/// The edits left by an earlier session on the same paths, if any.
pub fn load(dir: Option<&Path>, opened: &[PathBuf]) -> Option<Vec<Transaction>> {
    let text = std::fs::read_to_string(path_for(dir, opened)?).ok()?;
    let saved: Saved = serde_json::from_str(&text).ok()?;
    (saved.paths == canonical(opened) && !saved.edits.is_empty()).then_some(saved.edits)
}

/// Removes the recovery file (the user reapplied or discarded it).
pub fn discard(dir: Option<&Path>, opened: &[PathBuf]) {
    if let Some(p) = path_for(dir, opened) {
        let _ = std::fs::remove_file(p);
    }
}
