//! The insight features in a real terminal (tmux): the explanation, the sweep chart with
//! the current threshold reversed, the baseline marks and the prompt preview. Polls the
//! screen (no fixed sleeps); skipped without tmux unless `CI` is set.

use crate::common::tmux;
use tmux::Tmux;

#[test]
fn insight_in_tmux() {
    if !tmux::available() {
        return;
    }
    let s = Tmux::new("insight");
    s.start((160, 48), None, &[env!("CARGO_BIN_EXE_toolscope")]);
    s.wait("the TUI", |x| x.contains("operator analysis"));
    s.type_line(":op modelling");
    s.wait("modelling", |x| x.contains("threshold 0.60"));
    s.send(&[":goto schema_understanding", "Enter"]);
    s.wait("the explanation", |x| {
        x.contains("blocked at threshold 0.6") && x.contains("critical threshold: up to 0.4")
    });
    let styled = s.capture_styled();
    let bar = styled.lines().rev().nth(1).unwrap_or_default();
    assert!(bar.contains("sweep"), "{bar}");
    assert!(
        bar.contains("\u{1b}[7m") || bar.contains(";7m"),
        "current column reversed: {bar:?}"
    );
    s.send(&["b", "-", "-", "-", "-", "-"]);
    let x = s.wait("entered marks", |x| x.contains("vs baseline ▲2"));
    assert!(x.contains("Diff vs baseline") && x.contains("▲ schema_understanding (action)"));
    s.send(&["p"]);
    s.wait("the prompt preview", |x| {
        x.contains("Prompt preview") && x.contains("## DocumentReader")
    });
    s.send(&["Escape", "q"]);
}

/// Issue 33: at 80x24 with the side panes hidden (`m`), the evidence panel (`V`) and the
/// baseline diff (`b`) bring the right-hand pane back and say so (first on the status
/// line: at 80 columns it is cut after that), in a real terminal.
#[test]
fn panels_show_themselves_at_80x24_in_tmux() {
    if !tmux::available() {
        return;
    }
    let s = Tmux::new("insight-80");
    s.start((80, 24), None, &[env!("CARGO_BIN_EXE_toolscope")]);
    s.wait("the TUI", |x| {
        x.contains("op analysis") || x.contains("operator analysis")
    });
    s.type_line(":op modelling");
    let first = s.wait("modelling", |x| {
        x.contains("t 0.60") || x.contains("threshold 0.60")
    });
    // At 80x24 the focus view may already have hidden the right-hand pane to fit the
    // recommendation; otherwise `m` hides it.
    if first.contains("Inspector") {
        s.send(&["m"]);
        s.wait("the side panes hidden", |x| !x.contains("Inspector"));
    }
    s.send(&["V"]);
    s.wait("the evidence panel and the note", |x| {
        x.contains("No traces loaded") && x.contains("side panes shown")
    });
    s.send(&["V", "m"]);
    s.wait("the side panes hidden again", |x| !x.contains("Navigator"));
    s.send(&["b"]);
    s.wait("the diff panel and the note", |x| {
        x.contains("Diff vs baseline") && x.contains("side panes shown")
    });
    s.send(&["q"]);
}
