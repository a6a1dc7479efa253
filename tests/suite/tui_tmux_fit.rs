//! Issue 35, item 1: `:fit` ran on the UI thread, so a long fit (`:fit add-edges` on a
//! larger kit) froze the screen and left `:q!`, Ctrl-C, SIGTERM and SIGHUP unheard; only
//! SIGKILL ended it, losing the session's unsaved work. The fit now runs on a thread of
//! its own: the screen keeps answering, Esc cancels it, `:q!` quits, and SIGTERM ends the
//! TUI through its usual path (the recovery file written).
//!
//! The kit and its runs come from `toolscope gen`; the hidden switch
//! `TOOLSCOPE_DEBUG_FIT_DELAY_MS` makes the fit last longer than any wait of these tests
//! (15 s), so "while fitting" holds on any machine and a TUI that waited for the fit would
//! time them out.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::tmux;
use tmux::Tmux;

/// A fit that outlasts every wait here.
const FIT_DELAY_MS: &str = "60000";

/// `toolscope gen ARGS` into `path`.
fn generate(args: &[&str], path: &Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .arg("gen")
        .args(args)
        .output()
        .expect("run gen");
    assert!(out.status.success(), "{out:?}");
    std::fs::write(path, out.stdout).expect("write");
}

/// A generated kit and ordered runs of it, in `dir`.
fn kit(dir: &Path) -> (PathBuf, PathBuf) {
    let (kit, runs) = (dir.join("kit.yaml"), dir.join("runs.jsonl"));
    generate(&["--actions", "300", "--seed", "5"], &kit);
    generate(&["--actions", "300", "--seed", "5", "--runs", "400"], &runs);
    (kit, runs)
}

/// Starts the TUI on `kit` with its runs, recovery files in `state`, recording its pid.
fn start(tmux: &Tmux, (kit, runs): (&Path, &Path), state: &Path, pidfile: &Path) {
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let line = format!(
        "sh -c 'echo $$ > {}; TOOLSCOPE_STATE_DIR={} TOOLSCOPE_DEBUG_FIT_DELAY_MS={FIT_DELAY_MS} exec {bin} {} --traces {}'",
        pidfile.display(),
        state.display(),
        kit.display(),
        runs.display()
    );
    tmux.send(&["-l", &line]);
    tmux.send(&["Enter"]);
    tmux.wait("the records", |s| s.contains("record(s) from 1 file(s)"));
}

/// Kills the TUI by its pid file when the test ends (so a hung TUI never outlives it).
struct KillOnDrop(PathBuf);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(&self.0) {
            let _ = Command::new("kill")
                .args(["-KILL", pid.trim()])
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

/// `:fit add-edges`, waiting until the status line says it runs.
fn fit(tmux: &Tmux) {
    tmux.send(&["-l", ":fit add-edges"]);
    tmux.send(&["Enter"]);
    tmux.wait("the fit running", |s| s.contains("(Esc cancels)"));
}

#[test]
fn sigterm_while_fitting_ends_the_tui_and_keeps_the_unsaved_edits() {
    if !tmux::available() {
        return;
    }
    let tmux = Tmux::shell("fit-term");
    let dir = tempfile::tempdir().expect("tempdir");
    let (kit, runs) = kit(dir.path());
    let state = dir.path().join("state");
    let pidfile = dir.path().join("pid");
    let _kill = KillOnDrop(pidfile.clone());
    start(&tmux, (&kit, &runs), &state, &pidfile);
    // An unsaved edit, for the recovery file to keep.
    tmux.send(&["-l", ":add-action kept_probe"]);
    tmux.send(&["Enter"]);
    tmux.wait("the edit", |s| s.contains("[+]"));
    fit(&tmux);
    // The screen keeps answering keys while the fit runs.
    tmux.send(&["-l", ":still-drawing"]);
    tmux.wait("the prompt typed during the fit", |s| {
        s.contains(":still-drawing")
    });
    tmux.send(&["Escape"]);
    tmux.wait("the prompt closed", |s| !s.contains(":still-drawing"));

    let pid = std::fs::read_to_string(&pidfile).expect("pid");
    let killed = Command::new("kill")
        .args(["-TERM", pid.trim()])
        .status()
        .expect("kill");
    assert!(killed.success());
    // Within the wait's deadline (15 s), long before the fit (60 s) could end.
    let after = tmux.wait("the shell after SIGTERM", |s| {
        !s.contains("Navigator") && s.contains("unsaved edits written to")
    });
    assert!(after.contains("offers them"), "{after}");
    let files: Vec<_> = std::fs::read_dir(&state)
        .expect("state dir")
        .filter_map(Result::ok)
        .collect();
    assert_eq!(files.len(), 1, "one recovery file: {files:?}");
    let recovery = std::fs::read_to_string(files[0].path()).expect("read recovery");
    assert!(recovery.contains("kept_probe"), "{recovery}");
}

#[test]
fn esc_cancels_a_fit_and_q_bang_quits_during_one() {
    if !tmux::available() {
        return;
    }
    let tmux = Tmux::shell("fit-quit");
    let dir = tempfile::tempdir().expect("tempdir");
    let (kit, runs) = kit(dir.path());
    let state = dir.path().join("state");
    let pidfile = dir.path().join("pid");
    let _kill = KillOnDrop(pidfile.clone());
    start(&tmux, (&kit, &runs), &state, &pidfile);
    fit(&tmux);
    tmux.send(&["Escape"]);
    tmux.wait("the fit cancelled", |s| s.contains("fit cancelled"));
    fit(&tmux);
    tmux.send(&["-l", ":q!"]);
    tmux.send(&["Enter"]);
    tmux.wait("the shell after :q!", |s| {
        !s.contains("Navigator") && s.contains(tmux::PROMPT)
    });
}
