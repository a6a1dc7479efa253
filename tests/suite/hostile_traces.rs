//! Trace files under attack (issue 27, item 7), through the real binary: a FIFO is refused
//! at once (it hung `eval`, `fit` and the TUI), and a huge one-line record is skipped
//! within its line limit under `ulimit -v` (a 108 MB line peaked at 1.8 GB, then at
//! 4.4 GB in a release build here).

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");
const TK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/evidence/toolkit.yaml"
);

/// Runs `sh -c SCRIPT` with `args` as `$1...`, killing it past `within`.
fn run_within(within: Duration, script: &str, args: &[&str]) -> Output {
    let mut child = Command::new("sh")
        .args(["-c", script, "sh"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let start = Instant::now();
    while child.try_wait().expect("polls").is_none() {
        if start.elapsed() > within {
            let _ = child.kill();
            let out = child.wait_with_output().expect("waits");
            panic!(
                "{args:?} still running after {within:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("waits")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fifo(dir: &Path) -> String {
    let p = dir.join("runs.jsonl");
    let ok = Command::new("mkfifo").arg(&p).status().expect("mkfifo");
    assert!(ok.success());
    p.display().to_string()
}

#[test]
fn a_fifo_is_refused_at_once_by_eval_and_fit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = fifo(dir.path());
    for cmd in ["eval", "fit"] {
        let out = run_within(
            Duration::from_secs(20),
            &format!("exec '{BIN}' {cmd} \"$1\" --traces \"$2\""),
            &[TK, &f],
        );
        assert_eq!(out.status.code(), Some(1), "{cmd}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("not a regular file"),
            "{}",
            stderr(&out)
        );
    }
}

/// A 108 MB record on one line, under a 400 MB address-space ceiling: skipped as over the
/// line limit, the next line still read, never an abort.
#[test]
fn a_huge_one_line_record_is_skipped_within_bounded_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("big.jsonl");
    let mut text = String::with_capacity(110 << 20);
    text.push_str("{\"operator\": \"op\", \"called\": [");
    for i in 0..27_000_000 {
        text.push_str(if i == 0 { "\"X\"" } else { ",\"X\"" });
    }
    text.push_str("]}\n{\"operator\": \"op\", \"called\": [\"Y\"]}\n");
    std::fs::write(&p, &text).expect("write");
    drop(text);
    let out = run_within(
        Duration::from_secs(120),
        &format!("ulimit -v 400000 && exec '{BIN}' eval \"$1\" --traces \"$2\" --format json"),
        &[TK, &p.display().to_string()],
    );
    let err = stderr(&out);
    assert!(!err.contains("memory allocation"), "{err}");
    assert!(
        out.status.code().is_some(),
        "killed: {:?} {err}",
        out.status
    );
    assert!(
        err.contains(":1:1: error TS081") && err.contains("over the limit"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["overall"]["records"], 1, "the line after it counts: {v}");
}

/// A file over the size limit (sparse: it costs no disk) is refused before a byte is read.
#[test]
fn a_file_over_the_size_limit_is_refused_unread() {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("huge.jsonl");
    std::fs::File::create(&p)
        .expect("create")
        .set_len(300 << 20)
        .expect("sparse");
    let out = run_within(
        Duration::from_secs(20),
        &format!("ulimit -v 400000 && exec '{BIN}' eval \"$1\" --traces \"$2\""),
        &[TK, &p.display().to_string()],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("over the limit"), "{}", stderr(&out));
}
