//! Ways to lose work in a real terminal: Ctrl-C asks like `q`, and SIGTERM (asking is
//! impossible) writes the unsaved edits to a recovery file that the next start offers. The
//! built binary runs in a detached tmux session on a private socket; the screen is polled.

use std::path::Path;
use std::process::Command;

use crate::common::tmux;
use tmux::Tmux;

fn session() -> Option<Tmux> {
    tmux::available().then(|| Tmux::shell("house"))
}

/// Starts the TUI on `file` with its recovery files in `state`, recording its pid.
fn start(tmux: &Tmux, file: &Path, state: &Path, pidfile: &Path) {
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let line = format!(
        "sh -c 'echo $$ > {}; TOOLSCOPE_STATE_DIR={} exec {bin} {}'",
        pidfile.display(),
        state.display(),
        file.display()
    );
    tmux.send(&["-l", &line]);
    tmux.send(&["Enter"]);
}

#[test]
fn ctrl_c_asks_and_sigterm_keeps_unsaved_edits_for_the_next_start() {
    let Some(tmux) = session() else { return };
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("graph-db.yaml");
    let original = include_str!("../../toolkits/graph-db.yaml");
    std::fs::write(&file, original).expect("write");
    let state = dir.path().join("state");
    let pidfile = dir.path().join("pid");

    start(&tmux, &file, &state, &pidfile);
    tmux.wait("the TUI", |s| s.contains("operator analysis"));
    tmux.type_line(":op modelling");
    tmux.wait("modelling", |s| s.contains("threshold 0.60  hops 2"));
    tmux.send(&["]"]);
    tmux.wait("one more hop", |s| s.contains("hops 3"));
    // Ctrl-C with an unsaved change asks; Esc stays.
    tmux.send(&["C-c"]);
    tmux.wait("the question", |s| s.contains("Unsaved edits"));
    tmux.send(&["Escape"]);
    tmux.wait("the question closed", |s| !s.contains("Unsaved edits"));

    // The terminal cannot be asked: SIGTERM.
    let pid = std::fs::read_to_string(&pidfile).expect("pid");
    let killed = Command::new("kill")
        .args(["-TERM", pid.trim()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let after = tmux.wait("the shell after SIGTERM", |s| {
        !s.contains("Navigator") && s.contains("unsaved edits written to")
    });
    assert!(after.contains("offers them"), "{after}");
    assert_eq!(std::fs::read_to_string(&file).expect("read"), original);
    let files: Vec<_> = std::fs::read_dir(&state).expect("state dir").collect();
    assert_eq!(files.len(), 1, "one recovery file");

    // The next start offers the edits; `a` reapplies, `w` saves, `q` quits.
    tmux.send(&["-l", "clear"]);
    tmux.send(&["Enter"]);
    start(&tmux, &file, &state, &pidfile);
    tmux.wait("the offer", |s| {
        s.contains("Recovered edits") && s.contains("hops of modelling")
    });
    tmux.send(&["a"]);
    // (It opens on `analysis`; the recovered edit is modelling's hops, checked in the file.)
    tmux.wait("the edit back", |s| s.contains("recovered 1"));
    tmux.send(&["w"]);
    tmux.wait("saved", |s| s.contains("saved"));
    tmux.send(&["q"]);
    tmux.wait("the shell", |s| !s.contains("Navigator"));
    let text = std::fs::read_to_string(&file).expect("read");
    let modelling = text.find("- name: modelling").expect("operator");
    assert!(text[modelling..].contains("hops: 3"), "{text}");
    assert_eq!(
        std::fs::read_dir(&state).expect("state").count(),
        0,
        "offered once"
    );
}

/// Kills the TUI by its pid file when the test ends (a hung TUI ignores the terminal).
struct KillOnDrop(std::path::PathBuf);

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

/// Issue 27, item 6: a FIFO where the recovery file would be (a state folder someone else
/// prepared) hung the TUI before its first frame, deaf to Ctrl-C, SIGTERM and SIGHUP. It is
/// refused unread, with the reason, and the TUI starts.
#[test]
fn a_fifo_in_place_of_the_recovery_file_does_not_hang_the_start() {
    use std::os::unix::fs::PermissionsExt;
    if !tmux::available() {
        return;
    }
    let tmux = Tmux::shell("fifo");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("graph-db.yaml");
    std::fs::write(&file, include_str!("../../toolkits/graph-db.yaml")).expect("write");
    let state = dir.path().join("state");
    std::fs::create_dir(&state).expect("mkdir");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let fifo =
        toolscope_core::session::recovery::path_for(Some(&state), std::slice::from_ref(&file))
            .expect("a recovery path");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let pidfile = dir.path().join("pid");
    let _kill = KillOnDrop(pidfile.clone());

    start(&tmux, &file, &state, &pidfile);
    tmux.wait("the first frame", |s| s.contains("threshold 0.50  hops 1"));
    // The status line may cut the long message (`(M: more)`): the log holds it whole.
    tmux.send(&["-l", "M"]);
    tmux.wait("the refusal in the message log", |s| {
        s.contains("is not a regular")
    });
    tmux.send(&["q"]);
    tmux.wait("the log closed", |s| s.contains("q quit"));
    tmux.send(&["q"]);
    tmux.wait("the shell", |s| !s.contains("Navigator"));
}
