//! `export -o FILE --force`, `convert -o FILE --force` (issue 27, item 12) and `:w! FILE`:
//! `--force` replaces regular files only. A FIFO, a character device or a folder named as
//! the output is refused with what it is, and left as it was (as root, `-o /dev/null
//! --force` would have replaced the system's `/dev/null` with a regular file). Device
//! nodes are made with `mknod` in a temporary folder (root only; the FIFO part runs
//! everywhere), never the real `/dev/null`.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");
const KIT: &str = "actions:\n  - name: plan\n    next: [act]\n  - name: act\n";

fn specials(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let fifo = dir.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    out.push(fifo);
    let dev = dir.join("null");
    let made = Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .output();
    if made.is_ok_and(|o| o.status.success()) {
        out.push(dev);
    } else {
        eprintln!("note: mknod is not permitted here; the device part is skipped");
    }
    let folder = dir.join("folder");
    std::fs::create_dir(&folder).expect("mkdir");
    out.push(folder);
    // A link to the FIFO: followed, then refused the same way.
    let link = dir.join("link");
    std::os::unix::fs::symlink(dir.join("fifo"), &link).expect("symlink");
    out.push(link);
    out
}

fn unchanged(p: &Path) {
    let t = std::fs::metadata(p).expect("still there").file_type();
    assert!(
        t.is_fifo() || t.is_char_device() || t.is_dir(),
        "{} became a regular file",
        p.display()
    );
}

#[test]
fn force_replaces_regular_files_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kit = dir.path().join("kit.yaml");
    std::fs::write(&kit, KIT).expect("write");
    let kit = kit.display().to_string();
    for target in specials(dir.path()) {
        let t = target.display().to_string();
        for args in [
            vec!["export", &kit, "--to", "dot", "-o", &t, "--force"],
            vec!["convert", &kit, "-o", &t, "--force"],
            vec!["export", &kit, "--to", "json", "-o", &t],
        ] {
            let out = Command::new(BIN).args(&args).output().expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("not a regular file"), "{args:?}: {err}");
            unchanged(&target);
        }
    }
    let leftovers: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("toolscope"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "no lock or temporary file beside them: {leftovers:?}"
    );
    // A regular file is still replaced with --force.
    let plain = dir.path().join("plain.dot");
    std::fs::write(&plain, "old\n").expect("write");
    let out = Command::new(BIN)
        .args([
            "export",
            &kit,
            "--to",
            "dot",
            "-o",
            &plain.display().to_string(),
            "--force",
        ])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(&plain)
            .expect("read")
            .contains("digraph")
    );
}

/// Beyond issue 27: `set` took its write lock before reading, and the lock file goes
/// beside the file a symlink names: `set LINK` with LINK -> `/dev/zero` created
/// `/dev/.zero.toolscope-lock` (as root). No lock is made for what is not a regular file;
/// the edit is refused with what it is. (A FIFO and a device node in a temporary folder.)
#[test]
fn set_makes_no_lock_beside_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let targets = specials(dir.path());
    for target in &targets {
        let link = dir.path().join(format!(
            "to-{}.yaml",
            target.file_name().unwrap().to_string_lossy()
        ));
        std::os::unix::fs::symlink(target, &link).expect("symlink");
        for path in [target, &link] {
            let out = Command::new(BIN)
                .arg("set")
                .arg(path)
                .args(["hops", "op", "2"])
                .output()
                .expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_ne!(out.status.code(), Some(0), "{}: {err}", path.display());
            unchanged(target);
        }
    }
    let locks: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toolscope-lock"))
        .collect();
    assert!(locks.is_empty(), "{locks:?}");
}
