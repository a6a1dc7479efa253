//! Opening a big file in a real terminal (tmux, 200x60, a generated 4,000-action toolkit):
//! the first screen is the focus view while the whole-graph layout is still computed on its
//! thread, the parameter bar says so, `f` meanwhile only repeats the progress, and once the
//! layout is in, `f` shows the whole graph. Without tmux the test fails when `CI` is set and
//! prints a skip notice otherwise.

use std::process::Command;

use crate::common::tmux;
use tmux::Tmux;

#[test]
fn the_focus_view_shows_before_the_whole_graph_layout_and_f_waits_for_nothing() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("g4k.yaml");
    let out = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["gen", "--actions", "4000"])
        .output()
        .expect("gen runs");
    assert!(out.status.success(), "gen failed: {out:?}");
    std::fs::write(&file, &out.stdout).expect("write the toolkit");
    let tmux = Tmux::new("open");
    let file_s = file.display().to_string();
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let delay = "TOOLSCOPE_DEBUG_LAYOUT_DELAY_MS=2000";
    tmux.start((200, 60), None, &[delay, bin, &file_s]);
    // The layout starts 2 s late (a hidden test switch), so on any machine the progress is
    // on the first screen.
    let first = tmux.first_screen();
    assert!(
        first.contains("[focus]"),
        "opens on the focus view:\n{first}"
    );
    assert!(
        first.contains("laying out 5,0") && first.contains("nodes…"),
        "the parameter bar shows the layout's progress:\n{first}"
    );
    tmux.send(&["f"]);
    // Either the progress repeated in the status line, or (on a fast machine) the layout
    // came in meanwhile and the notice of it: never a blocked screen.
    let after_f = tmux.wait("f answered", |s| {
        s.contains("f shows the whole graph when it is ready") || !s.contains("laying out")
    });
    assert!(after_f.contains("┌ Graph"), "{after_f}");
    let done = tmux.wait("the layout to finish", |s| !s.contains("laying out"));
    let switched = if done.contains("[focus]") {
        tmux.send(&["f"]);
        tmux.wait("the whole graph", |s| !s.contains("[focus]"))
    } else {
        done
    };
    assert!(switched.contains("[detailed]"), "{switched}");
    tmux.send(&["q"]);
}
