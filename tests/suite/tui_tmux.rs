//! The TUI in a real terminal: the built binary runs in a detached tmux session; keys are
//! sent with `send-keys` and the screen is read with `capture-pane`, polled until the
//! expected text appears (no fixed sleeps). Without tmux the test fails when `CI` is set
//! and prints a skip notice otherwise.

use std::process::Command;

use crate::common::tmux;
use tmux::{PROMPT, Tmux, wait_file};

/// Whether any SGR sequence in `s` sets a foreground or background colour.
fn has_colour(s: &str) -> bool {
    s.split("\x1b[").skip(1).any(|seq| {
        let params = seq.split('m').next().unwrap_or("");
        params.split(';').any(|p| {
            matches!(
                p.parse::<u32>(),
                Ok(30..=38 | 40..=48 | 90..=97 | 100..=107)
            )
        })
    })
}

/// The number after `label ` in the parameter line, as `(recommended, total)`.
fn count(screen: &str, label: &str) -> (usize, usize) {
    let at = screen.find(&format!(" {label} ")).expect("count shown") + label.len() + 2;
    let field: String = screen[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '/')
        .collect();
    let (a, b) = field.split_once('/').expect("a/b");
    (a.parse().expect("number"), b.parse().expect("number"))
}

/// A shell session, or None (skip) without tmux outside CI.
fn session(tag: &str) -> Option<Tmux> {
    tmux::available().then(|| Tmux::shell(tag))
}

#[test]
fn tui_in_tmux_follows_threshold_and_seeds_and_quits_cleanly() {
    let Some(tmux) = session("view") else { return };
    let bin = env!("CARGO_BIN_EXE_toolscope");
    // With colour first, so the colour check below is known to be able to fail.
    tmux.send(&["-l", bin]);
    tmux.send(&["Enter"]);
    // It opens on the navigator's first operator, `analysis` (threshold 0.50).
    tmux.wait("the TUI in colour", |s| s.contains("operator analysis"));
    assert!(
        has_colour(&tmux.capture_styled()),
        "no colour without NO_COLOR"
    );
    tmux.send(&["q"]);
    // The shell's next prompt, not only the TUI gone: a command typed before the prompt is
    // drawn lands on a line of its own and the prompt count below would miss it.
    tmux.wait("the prompt", |s| {
        !s.contains("Navigator") && s.lines().filter(|l| l.starts_with(PROMPT)).count() >= 2
    });

    tmux.send(&["-l", &format!("NO_COLOR=1 {bin}")]);
    tmux.send(&["Enter"]);
    tmux.wait("the TUI", |s| {
        s.contains("Navigator") && s.contains("operator analysis")
    });
    // The rest follows `modelling` (threshold 0.60, hops 2).
    tmux.send(&["-l", ":op modelling"]);
    tmux.send(&["Enter"]);
    let first = tmux.wait("modelling", |s| {
        s.contains("Navigator") && s.contains("threshold 0.60")
    });
    assert!(
        !has_colour(&tmux.capture_styled()),
        "colour despite NO_COLOR"
    );
    assert!(
        first.contains("+ schema_design"),
        "recommended at 0.60:\n{first}"
    );
    let actions0 = count(&first, "actions");
    assert_eq!(tmux.flag("alternate_on"), "1");

    tmux.send(&["-l", "+++++"]);
    let raised = tmux.wait("threshold 0.85", |s| s.contains("threshold 0.85"));
    let actions1 = count(&raised, "actions");
    assert!(actions1.0 < actions0.0, "{actions0:?} -> {actions1:?}");
    assert!(
        !raised.contains("+ schema_design"),
        "schema_design left:\n{raised}"
    );
    // The focus view may cut the name (at least 8 characters stay).
    assert!(raised.contains("+ concept_ident"), "{raised}");

    tmux.send(&["-l", ":goto query_intention"]);
    tmux.send(&["Enter"]);
    tmux.send(&["Space"]);
    let seeded = tmux.wait("a new seed", |s| {
        s.contains("* query_intention") && s.contains("seeds 2")
    });
    assert!(seeded.contains("(seeds edited)"));
    let actions2 = count(&seeded, "actions");
    assert!(actions2.0 > actions1.0, "{actions1:?} -> {actions2:?}");

    // The operator's threshold changed and is not saved: quitting asks first.
    tmux.send(&["q"]);
    tmux.wait("the unsaved-edits question", |s| {
        s.contains("Unsaved edits")
    });
    tmux.send(&["y"]);
    let after = tmux.wait("the shell prompt after quitting", |s| {
        !s.contains("Navigator") && s.lines().filter(|l| l.starts_with(PROMPT)).count() >= 3
    });
    assert!(!after.contains("Inspector"), "TUI left on screen:\n{after}");
    assert_eq!(tmux.flag("alternate_on"), "0", "alternate screen left on");
    assert_eq!(tmux.flag("mouse_any_flag"), "0", "mouse capture left on");
    assert_eq!(tmux.flag("cursor_flag"), "1", "cursor left hidden");
}

const TINY: &str = "\
name: tiny
tools:
  - name: Fetch
    desc: Gets a page.
actions:
  - name: plan
    desc: Plans the work.
    next: [act]
  - name: act
    desc: Acts on the plan.
    tools:
      - {name: Fetch, score: 0.6}
";

#[test]
fn tui_in_tmux_edits_saves_and_follows_outside_changes() {
    let Some(tmux) = session("edit") else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tk.yaml");
    std::fs::write(&path, TINY).expect("write");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    tmux.send(&["-l", &format!("NO_COLOR=1 {bin} {}", path.display())]);
    tmux.send(&["Enter"]);
    tmux.wait("the TUI", |s| s.contains("Navigator"));
    // Select `act`, put the inspector cursor on its one outgoing edge, edit the score.
    tmux.send(&["-l", ":goto act"]);
    tmux.send(&["Enter", "Tab", "e", "BSpace", "BSpace", "BSpace"]);
    tmux.send(&["-l", "0.35"]);
    tmux.send(&["Enter"]);
    tmux.wait("the unsaved marker", |s| s.contains("[+]"));
    tmux.send(&["w"]);
    let saved = wait_file(&path, "the saved score", |t| t.contains("score: 0.35"));
    assert_eq!(saved, TINY.replace("score: 0.6", "score: 0.35"));
    tmux.wait("the saved state", |s| !s.contains("[+]"));

    let sed = Command::new("sed")
        .args(["-i", "s/Acts on the plan./Acts from sed./"])
        .arg(&path)
        .status()
        .expect("sed runs");
    assert!(sed.success());
    tmux.wait("the screen following sed", |s| s.contains("Acts from sed."));
    tmux.send(&["q"]);
    tmux.wait("the prompt after quitting", |s| !s.contains("Navigator"));
}

/// One edit made by `set` on one copy of the bundled example and by the TUI's `:` line (or
/// its score dialog) on another: the two files are the same, byte for byte.
#[test]
fn set_and_the_tui_write_the_same_file_for_the_same_edit() {
    let Some(tmux) = session("same") else { return };
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let example = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("toolkits/graph-db.yaml"),
    )
    .expect("the example");
    let dir = tempfile::tempdir().expect("temp dir");
    let by_set = dir.path().join("set.yaml");
    let by_tui = dir.path().join("tui.yaml");
    for p in [&by_set, &by_tui] {
        std::fs::write(p, &example).expect("write");
    }
    let set = |args: &[&str]| {
        let out = Command::new(bin)
            .arg("set")
            .arg(&by_set)
            .args(args)
            .output()
            .expect("set runs");
        assert!(out.status.success(), "set {args:?}: {out:?}");
    };
    set(&["remove", "query_intention"]);
    set(&["score", "condition_validation", "SchemaGetter", "0.35"]);

    tmux.send(&["-l", &format!("NO_COLOR=1 {bin} {}", by_tui.display())]);
    tmux.send(&["Enter"]);
    tmux.wait("the TUI", |s| s.contains("Navigator"));
    tmux.send(&["-l", ":remove query_intention"]);
    tmux.send(&["Enter"]);
    tmux.wait("the removal's question", |s| {
        s.contains("seed query_intention of operator query")
    });
    tmux.send(&["y"]);
    tmux.wait("the unsaved marker", |s| s.contains("[+]"));
    // The score through the `:` line (the score dialog runs the same row).
    tmux.send(&["-l", ":score condition_validation SchemaGetter 0.35"]);
    tmux.send(&["Enter"]);
    tmux.send(&["w"]);
    let want = std::fs::read_to_string(&by_set).expect("set's file");
    assert!(
        !want.contains("actions: [query_intention]")
            && want.contains("{name: SchemaGetter, score: 0.35}"),
        "set removed the seed and wrote the score:\n{want}"
    );
    // The example already holds a `score: 0.35` elsewhere: wait for the edited line.
    let saved = wait_file(&by_tui, "the TUI's save", |t| {
        t.contains("{name: SchemaGetter, score: 0.35}")
    });
    assert_eq!(saved, want, "the TUI and set wrote different files");
    tmux.send(&["q"]);
    tmux.wait("the prompt after quitting", |s| !s.contains("Navigator"));
}
