//! Runs on the graph in a real terminal (tmux): a kit shaped as `init` writes opens on the
//! step after the tool most runs call first; `:replay RECORD STEP` walks a run with the
//! arrow keys, `t` lists the changes that would have offered a miss and Enter applies one
//! (`u` undoes it); `:replay` alone follows a trace file as it grows. Polls the screen (no
//! fixed sleeps); skipped without tmux unless `CI` is set.

use crate::common::tmux;
use tmux::Tmux;

const TK: &str = include_str!("../fixtures/replay/fs-kit.yaml");
const RUNS: &str = include_str!("../fixtures/replay/fs-runs.jsonl");

#[test]
fn replay_keys_in_tmux() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tk = dir.path().join("fs.yaml");
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(&tk, TK).expect("write toolkit");
    std::fs::write(&runs, RUNS).expect("write runs");
    let s = Tmux::new("replay");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let (tk_s, runs_s) = (tk.display().to_string(), runs.display().to_string());
    s.start((100, 30), None, &[bin, &tk_s, "--traces", &runs_s]);
    // The first screen: the step after ls, which three of the four runs call first.
    s.wait("the opening step", |x| x.contains("step after ls"));
    s.type_line(":replay 1 0");
    s.wait("step 0 of run 1", |x| x.contains("run 1 step 0 of 3"));
    s.send(&["Right"]);
    s.wait("step 1, a hit", |x| x.contains("step 1 of 3 · ✓ cd hit"));
    s.type_line(":replay r2 1");
    s.wait("the miss", |x| x.contains("✗ mv miss"));
    s.send(&["t"]);
    s.wait("the candidates", |x| x.contains("threshold -> 0.3"));
    s.send(&["j", "Enter"]);
    s.wait("the step again, now a hit", |x| {
        x.contains("✓ mv hit") && x.contains("[+]")
    });
    s.send(&["u"]);
    s.wait("undone", |x| x.contains("✗ mv miss") && !x.contains("[+]"));
    assert_eq!(std::fs::read_to_string(&tk).expect("read"), TK);
    // Following: a record appended to the trace file is shown at its last step.
    s.type_line(":replay");
    s.wait("following run 4", |x| x.contains("run 4 step 1 of 1"));
    let mut grown = RUNS.to_string();
    grown
        .push_str("{\"id\": \"r5\", \"operator\": \"fs\", \"calls\": [\"cd\", \"ls\", \"cat\"]}\n");
    std::fs::write(&runs, grown).expect("append");
    s.wait("the new run", |x| x.contains("run 5 step 2 of 2"));
    s.send(&["Escape"]);
    s.wait("left", |x| !x.contains("run 5 step"));
    s.send(&["q"]);
}
