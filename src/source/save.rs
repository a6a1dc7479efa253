//! Safe saving: atomic replace (temporary file in the same folder, write, flush, fsync,
//! rename), the file's permissions kept, symlinks written through to their target, and a
//! refusal when the file changed on disk since it was read.

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
    match fs::read(path) {
        Ok(bytes) if bytes == loaded.as_bytes() => Ok(()),
        Ok(_) => Err(SaveError::new(
            path,
            SaveErrorKind::Conflict,
            "the file changed on disk since it was loaded; reload it, reapply your edits onto it, or overwrite it",
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(SaveError::new(
            path,
            SaveErrorKind::Conflict,
            "the file was deleted on disk since it was loaded",
        )),
        Err(e) => Err(SaveError::io(path, &e)),
    }
}

/// A point inside [`write_atomic`] where a fault can be injected (tests of writes under
/// fault: a full disk, a failing rename, a crash between writing and renaming).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The temporary file was created, nothing written yet.
    Created,
    /// The new text was written to the temporary file (not yet synced).
    Written,
    /// Synced; the rename over the target comes next.
    BeforeRename,
}

/// Writes `text` to `path` atomically. A symlink is followed and its target replaced; an
/// existing file keeps its permissions; a read-only file is refused.
pub fn write_atomic(path: &Path, text: &str) -> Result<(), SaveError> {
    write_atomic_with(path, text, |_| Ok(()))
}

/// [`write_atomic`] with a fault hook called at each [`Stage`]; an error from the hook is
/// handled exactly like the same error from the file system.
pub fn write_atomic_with(
    path: &Path,
    text: &str,
    fault: impl Fn(Stage) -> std::io::Result<()>,
) -> Result<(), SaveError> {
    let target = match fs::canonicalize(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(SaveError::io(path, &e)),
    };
    let perms = match fs::metadata(&target) {
        Ok(m) if m.permissions().readonly() => {
            return Err(SaveError::new(
                path,
                SaveErrorKind::ReadOnly,
                "the file is read-only",
            ));
        }
        Ok(m) => Some(m.permissions()),
        Err(_) => None,
    };
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = unique_temp(dir, &name);
    let result = write_temp(&tmp, text, perms, &fault)
        .and_then(|()| fault(Stage::BeforeRename))
        .and_then(|()| fs::rename(&tmp, &target));
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(SaveError::io(path, &e));
    }
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
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

fn write_temp(
    tmp: &Path,
    text: &str,
    perms: Option<fs::Permissions>,
    fault: &impl Fn(Stage) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut f = OpenOptions::new().write(true).create_new(true).open(tmp)?;
    fault(Stage::Created)?;
    f.write_all(text.as_bytes())?;
    f.flush()?;
    fault(Stage::Written)?;
    if let Some(p) = perms {
        f.set_permissions(p)?;
    }
    f.sync_all()
}

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
}
