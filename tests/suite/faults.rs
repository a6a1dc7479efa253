//! Writes under fault: a full disk, a read-only folder, a crash between writing the
//! temporary file and renaming it. The original file is always intact, no temporary file
//! is left behind, and the caller gets an error naming the file.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use toolscope_core::edit::Edit;
use toolscope_core::source::save::{Stage, write_atomic, write_atomic_with};
use toolscope_core::workspace::Workspace;

const ORIGINAL: &str = "actions:\n  - name: a\n    next: [{name: b, score: 0.5}]\n  - name: b\n";

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn injected_faults_at_every_stage_leave_the_original() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("t.yaml");
    std::fs::write(&path, ORIGINAL).expect("write");
    let disk_full = || io::Error::from_raw_os_error(28); // ENOSPC
    for stage in [Stage::Created, Stage::Written, Stage::BeforeRename] {
        let err = write_atomic_with(&path, "actions: []\n", |s| {
            if s == stage { Err(disk_full()) } else { Ok(()) }
        })
        .expect_err("the fault is reported");
        assert!(err.to_string().contains("t.yaml"), "{err}");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            ORIGINAL,
            "{stage:?}"
        );
        assert!(
            leftovers(dir.path()).is_empty(),
            "{stage:?}: {:?}",
            leftovers(dir.path())
        );
    }
    // Without a fault the same call writes.
    write_atomic(&path, "actions: []\n").expect("writes");
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        "actions: []\n"
    );
}

/// A small tmpfs, unmounted on drop. `None` where mounting is not permitted.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?.keep();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output()
            .is_ok_and(|o| o.status.success());
        ok.then_some(Tmpfs(dir))
    }

    fn remount_read_only(&self) -> bool {
        Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(&self.0)
            .status()
            .is_ok_and(|s| s.success())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A real mount where the machine allows it (CI runs as root and must); elsewhere the
/// injected faults above cover the same paths.
fn tmpfs(size: &str) -> Option<Tmpfs> {
    let fs = Tmpfs::mount(size);
    if fs.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must be able to mount a tmpfs"
        );
        eprintln!("skipping the real-mount part: mounting a tmpfs is not permitted here");
    }
    fs
}

#[test]
fn a_full_disk_keeps_the_file_and_the_pending_edit() {
    let Some(fs) = tmpfs("64k") else { return };
    let path = fs.0.join("t.yaml");
    std::fs::write(&path, ORIGINAL).expect("write");
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("opens");
    // A long description makes the new text larger than the free space left.
    let filler = fs.0.join("filler");
    let free = 64 * 1024 - ORIGINAL.len() - 4096;
    let _ = std::fs::write(&filler, vec![b'x'; free]);
    ws.apply(Edit::SetDesc {
        kind: toolscope_core::model::NodeKind::Action,
        name: "a".into(),
        text: "y".repeat(16 * 1024),
    })
    .expect("edit applies in memory");
    let err = ws.save_all().expect_err("disk full");
    assert!(err.to_string().contains("t.yaml"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), ORIGINAL);
    assert!(ws.is_dirty(), "the pending edit is not lost");
    assert!(leftovers(&fs.0).is_empty());
    // Free the space and the same save goes through.
    let _ = std::fs::remove_file(&filler);
    ws.save_all().expect("saves once there is room");
    assert!(
        std::fs::read_to_string(&path)
            .expect("read")
            .contains(&"y".repeat(100))
    );
}

#[test]
fn a_read_only_folder_refuses_the_save() {
    let Some(fs) = tmpfs("1m") else { return };
    let path = fs.0.join("t.yaml");
    std::fs::write(&path, ORIGINAL).expect("write");
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("opens");
    ws.apply(Edit::SetScore {
        from: "a".into(),
        to: "b".into(),
        to_kind: toolscope_core::model::NodeKind::Action,
        score: 0.9,
    })
    .expect("edit");
    assert!(fs.remount_read_only(), "remount read-only");
    let err = ws.save_all().expect_err("read-only folder");
    assert!(err.to_string().contains("t.yaml"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), ORIGINAL);
    assert!(ws.is_dirty());
}
