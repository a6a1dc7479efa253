//! Evidence in a real terminal (tmux): `toolscope FILE --traces T` loads the records, `V`
//! shows the panel, `:fit` changes two Call scores as one edit and `u` undoes both. Polls
//! the screen (no fixed sleeps); skipped without tmux unless `CI` is set.

use crate::common::tmux;
use tmux::Tmux;

/// The fixture of the TUI's evidence tests (`src/tui/evidence_tests.rs`).
const TK: &str = include_str!("../fixtures/evidence/tui-kit.yaml");

const TRACES: &str = include_str!("../fixtures/evidence/tui-runs.jsonl");

#[test]
fn evidence_in_tmux() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tk = dir.path().join("tk.yaml");
    let traces = dir.path().join("runs.jsonl");
    std::fs::write(&tk, TK).expect("write toolkit");
    std::fs::write(&traces, TRACES).expect("write traces");
    let s = Tmux::new("evidence");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let (tk_s, traces_s) = (tk.display().to_string(), traces.display().to_string());
    s.start((160, 48), None, &[bin, &tk_s, "--traces", &traces_s]);
    let screen = s.wait("the records", |x| x.contains("4 record(s) from 1 file(s)"));
    assert!(screen.contains("tokens ~"), "{screen}");
    assert!(screen.contains("Mail (0 calls)"), "{screen}");
    s.send(&["V"]);
    s.wait("the panel", |x| {
        x.contains("evidence: op") && x.contains("never called: Mail")
    });
    s.send(&[":fit", "Enter"]);
    s.wait("the fit", |x| {
        x.contains("2 Call and 0 Next score(s) changed")
    });
    s.send(&["u"]);
    s.wait("the undo", |x| !x.contains("[+]"));
    assert_eq!(std::fs::read_to_string(&tk).expect("read"), TK);
    s.send(&["q"]);
}

/// Issue 27, item 7: a FIFO given as a trace file hung the TUI before its first frame; it
/// is refused with the reason, and `:traces` with a FIFO is refused the same way.
#[test]
fn a_fifo_as_traces_is_refused_not_waited_on() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tk = dir.path().join("tk.yaml");
    std::fs::write(&tk, TK).expect("write toolkit");
    let fifo = dir.path().join("runs.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let s = Tmux::new("traces-fifo");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let (tk_s, fifo_s) = (tk.display().to_string(), fifo.display().to_string());
    s.start((200, 48), None, &[bin, &tk_s, "--traces", &fifo_s]);
    s.wait("the refusal on the first frame", |x| {
        x.contains("Navigator") && x.contains("not a regular file")
    });
    // `:traces FIFO`, then a key the TUI only answers if it is not stuck in the read.
    s.send(&["-l", &format!(":traces {fifo_s}")]);
    s.send(&["Enter"]);
    s.send(&["]"]);
    s.wait("the TUI answering after the refusal", |x| {
        x.contains("hops 2") && x.contains("not a regular file")
    });
    s.send(&["q"]);
}
