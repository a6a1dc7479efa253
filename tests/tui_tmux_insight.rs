//! The insight features in a real terminal (tmux): the explanation, the sweep chart with
//! the current threshold reversed, the baseline marks and the prompt preview. Polls the
//! screen (no fixed sleeps); skipped without tmux unless `CI` is set.

#[path = "common/tmux.rs"]
mod tmux;
use tmux::Tmux;

#[test]
fn insight_in_tmux() {
    if !tmux::available() {
        return;
    }
    let s = Tmux::new("insight");
    s.start((160, 48), None, &[env!("CARGO_BIN_EXE_toolscope")]);
    s.wait("the TUI", |x| x.contains("threshold 0.60"));
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
