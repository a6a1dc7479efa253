//! A file with several names (hard links), written through either (issue 27, items 4-5):
//! writers through different names are serialised (a lock keyed by the file itself, besides
//! each name's lock), and an in-place write that runs out of room leaves a complete copy of
//! the old or the new text on disk, and says where.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use toolscope_core::source::save::{lock_for_write, replace};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
}

/// `n` actions `a0..`, each with one scored `next` edge to `sink`.
fn fan_in(n: usize) -> String {
    let mut text = String::from("actions:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - name: a{i}\n    next:\n      - {{name: sink, score: 0.5}}\n"
        ));
    }
    text + "  - name: sink\n"
}

/// The file `fan.yaml` in one folder, hard-linked as `other.yaml` in a second folder.
fn linked(dir: &Path, text: &str) -> (PathBuf, PathBuf) {
    let (a, b) = (dir.join("one"), dir.join("two"));
    fs::create_dir_all(&a).expect("mkdir");
    fs::create_dir_all(&b).expect("mkdir");
    let (a, b) = (a.join("fan.yaml"), b.join("other.yaml"));
    fs::write(&a, text).expect("write");
    fs::hard_link(&a, &b).expect("hard link");
    (a, b)
}

fn set_score(path: &Path, i: usize) -> Child {
    bin()
        .arg("set")
        .arg(path)
        .args(["score", &format!("a{i}"), "sink", &value(i)])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs")
}

fn value(i: usize) -> String {
    format!("0.{:02}", i + 1)
}

/// A writer holding the lock through one name makes a `set` through the other name wait:
/// otherwise each would edit what it read and one edit would be lost.
#[test]
fn a_set_through_another_name_waits_for_the_lock() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = fan_in(3);
    let (a, b) = linked(dir.path(), &text);
    let lock = lock_for_write(&a).expect("lock");
    let mut child = set_score(&b, 1);
    let until = Instant::now() + Duration::from_millis(800);
    while Instant::now() < until {
        assert!(
            child.try_wait().expect("polls").is_none(),
            "the set through the other name did not wait for the lock"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Our own edit, made under the lock, in place (the other name sees it too).
    let mine = text.replacen("score: 0.5", "score: 0.9", 1);
    replace(&a, Some(&text), &mine).expect("my edit");
    drop(lock);
    let out = child.wait_with_output().expect("waits");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let now = fs::read_to_string(&a).expect("read");
    assert_eq!(now, fs::read_to_string(&b).expect("read"));
    assert!(now.contains("score: 0.9"), "mine kept:\n{now}");
    assert!(
        now.contains(&format!("score: {}", value(1))),
        "theirs kept:\n{now}"
    );
}

/// Sixteen `set`s at once, through both names: every reported success is in the file.
#[test]
fn concurrent_sets_through_two_names_all_land() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = linked(dir.path(), &fan_in(16));
    let children: Vec<(usize, Child)> = (0..16)
        .map(|i| (i, set_score(if i % 2 == 0 { &a } else { &b }, i)))
        .collect();
    for (_, child) in children {
        let out = child.wait_with_output().expect("waits");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // Read once all are done: an in-place write is not atomic for a reader that does not
    // take the lock.
    let text = fs::read_to_string(&a).expect("read");
    for i in 0..16 {
        let score: f64 = value(i).parse().expect("number");
        let want = format!("  - name: a{i}\n    next:\n      - {{name: sink, score: {score}}}\n");
        assert!(text.contains(&want), "a{i} lost:\n{text}");
    }
    assert_eq!(fs::read(&a).expect("read"), fs::read(&b).expect("read"));
}

/// A small tmpfs, unmounted on drop (as `tests/suite/faults.rs`; CI runs as root and must
/// mount one).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?.keep();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must be able to mount a tmpfs"
            );
            eprintln!("skipping: mounting a tmpfs is not permitted here");
            let _ = fs::remove_dir(&dir);
        }
        ok.then_some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = fs::remove_dir(&self.0);
    }
}

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect()
}

/// A real full disk: the guard file (the whole new text) fits, growing the file in place
/// does not. The file keeps its old text under both names; the message says so.
#[test]
fn an_in_place_write_on_a_full_disk_keeps_the_old_text() {
    let Some(fs_) = Tmpfs::mount("96k") else {
        return;
    };
    let old = fan_in(3);
    let (a, b) = (fs_.0.join("fan.yaml"), fs_.0.join("other.yaml"));
    fs::write(&a, &old).expect("write");
    fs::hard_link(&a, &b).expect("hard link");
    // 40 KiB of description: 40 KiB for the guard, 40 KiB more to grow the file in place.
    let desc = "y".repeat(40 * 1024);
    let filler = fs_.0.join("filler");
    fs::write(&filler, vec![b'x'; 96 * 1024 - 48 * 1024 - 8 * 1024]).expect("filler");
    let mut child = bin()
        .arg("set")
        .arg(&a)
        .args(["desc", "a0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(desc.as_bytes())
            .expect("stdin");
    }
    let out = child.wait_with_output().expect("waits");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the disk was not full: {err}");
    for name in [&a, &b] {
        let now = fs::read_to_string(name).expect("read");
        assert!(
            now == old,
            "{} holds {} bytes, not the old text; {err}",
            name.display(),
            now.len()
        );
    }
    assert!(
        err.contains("fan.yaml") && err.contains("unchanged"),
        "{err}"
    );
    assert!(leftovers(&fs_.0).is_empty(), "{:?}", leftovers(&fs_.0));
}

/// `ulimit -f` (RLIMIT_FSIZE, with SIGXFSZ ignored so writes fail with EFBIG) as a
/// portable stand-in for a full disk where no file system can be mounted: the guard file
/// cannot be written, so the file is never touched, and the message says so.
#[test]
fn a_file_size_limit_leaves_the_file_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let old = fan_in(3);
    let (a, b) = linked(dir.path(), &old);
    let script = "trap '' XFSZ; ulimit -f 16; exec \"$0\" set \"$1\" desc a0";
    let mut child = Command::new("sh")
        .args(["-c", script])
        .arg(env!("CARGO_BIN_EXE_toolscope"))
        .arg(&a)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    {
        use std::io::Write;
        let desc = "z".repeat(64 * 1024);
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(desc.as_bytes())
            .expect("stdin");
    }
    let out = child.wait_with_output().expect("waits");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(fs::read_to_string(&a).expect("read"), old);
    assert_eq!(fs::read_to_string(&b).expect("read"), old);
    assert!(
        err.contains("fan.yaml") && err.contains("unchanged"),
        "{err}"
    );
    assert!(leftovers(a.parent().expect("dir")).is_empty());
}
