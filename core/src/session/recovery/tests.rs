//! The recovery file under attack (issue 27, item 6): what is in its place is read only
//! when it is a regular file of bounded size, temporary files are created exclusively and
//! never through a link, and the state folder is private.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::*;
use crate::edit::Edit;

fn opened(dir: &Path) -> Vec<PathBuf> {
    let file = dir.join("kit.yaml");
    std::fs::write(&file, "actions: []\n").expect("write");
    vec![file]
}

fn edits() -> Vec<Transaction> {
    vec![Transaction::from(vec![Edit::SetHops {
        operator: "op".into(),
        value: 3,
    }])]
}

/// A private state folder inside `dir`.
fn state(dir: &Path) -> PathBuf {
    let s = dir.join("state");
    std::fs::create_dir(&s).expect("mkdir");
    std::fs::set_permissions(&s, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    s
}

/// `load` on another thread, so a read that blocks fails the test instead of hanging it.
fn load_within(state: &Path, opened: &[PathBuf]) -> Result<Option<Vec<Transaction>>, String> {
    let (tx, rx) = mpsc::channel();
    let (state, opened) = (state.to_path_buf(), opened.to_vec());
    std::thread::spawn(move || {
        let _ = tx.send(load(Some(&state), &opened));
    });
    rx.recv_timeout(Duration::from_secs(5))
        .expect("reading the recovery file blocked")
}

#[test]
fn a_fifo_in_place_is_refused_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (state, opened) = (state(dir.path()), opened(dir.path()));
    let path = path_for(Some(&state), &opened).expect("a path");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let err = load_within(&state, &opened).expect_err("refused");
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
fn a_link_to_dev_zero_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (state, opened) = (state(dir.path()), opened(dir.path()));
    let path = path_for(Some(&state), &opened).expect("a path");
    std::os::unix::fs::symlink("/dev/zero", &path).expect("symlink");
    let err = load_within(&state, &opened).expect_err("refused");
    assert!(err.contains("symbolic link"), "{err}");
}

#[test]
fn a_huge_file_is_refused_unread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (state, opened) = (state(dir.path()), opened(dir.path()));
    let path = path_for(Some(&state), &opened).expect("a path");
    let f = std::fs::File::create(&path).expect("create");
    f.set_len(3 << 30).expect("a sparse 3 GiB file");
    let err = load_within(&state, &opened).expect_err("refused");
    assert!(err.contains("over the limit"), "{err}");
}

/// A link planted at the temporary name the file was once written through: its target is
/// never written.
#[test]
fn a_link_planted_at_the_temporary_name_is_not_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (state, opened) = (state(dir.path()), opened(dir.path()));
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "precious\n").expect("write");
    let path = path_for(Some(&state), &opened).expect("a path");
    std::os::unix::fs::symlink(&victim, path.with_extension("tmp")).expect("symlink");
    std::os::unix::fs::symlink(&victim, &path).expect("symlink");
    let written = write(Some(&state), &opened, edits()).expect("written");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("read"),
        "precious\n"
    );
    assert!(
        !std::fs::symlink_metadata(&written)
            .expect("meta")
            .is_symlink()
    );
    assert_eq!(load(Some(&state), &opened), Ok(Some(edits())));
}

#[test]
fn a_folder_others_can_enter_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (state, opened) = (state(dir.path()), opened(dir.path()));
    write(Some(&state), &opened, edits()).expect("written");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let err = write(Some(&state), &opened, edits()).expect_err("refused");
    assert!(err.to_string().contains("chmod 700"), "{err}");
    let err = load(Some(&state), &opened).expect_err("refused");
    assert!(err.contains("chmod 700"), "{err}");
}

#[test]
fn a_new_folder_is_made_private() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opened = opened(dir.path());
    let state = dir.path().join("deep/state");
    write(Some(&state), &opened, edits()).expect("written");
    let mode = std::fs::metadata(&state)
        .expect("meta")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
    assert_eq!(load(Some(&state), &opened), Ok(Some(edits())));
    // No state folder at all: nothing to offer, and no folder made by looking.
    let none = dir.path().join("none");
    assert_eq!(load(Some(&none), &opened), Ok(None));
    assert!(!none.exists());
}

/// toolscope's own default folder, made 0755 by an earlier version, is made private; a
/// folder the user named is never changed.
#[test]
fn the_default_folder_is_made_private_a_named_one_is_not_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let folder = dir.path().join("toolscope");
    std::fs::create_dir(&folder).expect("mkdir");
    let mode = |f: &Path| std::fs::metadata(f).expect("meta").permissions().mode() & 0o777;
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert!(private_dir_with(&folder, false, false).is_err());
    assert_eq!(mode(&folder), 0o755);
    private_dir_with(&folder, false, true).expect("made private");
    assert_eq!(mode(&folder), 0o700);
}
