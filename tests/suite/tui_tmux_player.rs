//! Driving replays like a player in a real terminal (tmux): `)` goes to the next miss
//! across runs (searched off the UI thread), `(` back; the panel says the run's standing;
//! `R` orders its runs by misses (`o`) and shows only those with a miss (`f`). Polls the
//! screen (no fixed sleeps); skipped without tmux unless `CI` is set.

use crate::common::tmux;
use tmux::Tmux;

const TK: &str = include_str!("../fixtures/replay/fs-kit.yaml");
const RUNS: &str = include_str!("../fixtures/replay/fs-runs.jsonl");

#[test]
fn next_miss_and_run_order_in_tmux() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let tk = dir.path().join("fs.yaml");
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(&tk, TK).expect("write toolkit");
    std::fs::write(&runs, RUNS).expect("write runs");
    let s = Tmux::new("player");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let (tk_s, runs_s) = (tk.display().to_string(), runs.display().to_string());
    s.start((100, 30), None, &[bin, &tk_s, "--traces", &runs_s]);
    s.wait("the opening step", |x| x.contains("step after ls"));
    s.type_line(":replay 1 0");
    s.wait("run 1, every step a hit", |x| {
        x.contains("run 1 step 0 of 3")
    });
    s.wait("the run's standing", |x| x.contains("all 0.38 · run 1.00"));
    // Run 1 has no miss: `)` finds run 2's, at step 1.
    s.send(&[")"]);
    s.wait("the next miss", |x| {
        x.contains("run 2 step 1 of 2 · ✗ mv miss")
    });
    s.send(&[")"]);
    s.wait("the one after", |x| {
        x.contains("run 2 step 2 of 2 · ✗ touch miss")
    });
    s.send(&["("]);
    s.wait("back", |x| x.contains("run 2 step 1 of 2 · ✗ mv miss"));
    // The runs list, most misses first, then only the runs with one.
    s.send(&["R"]);
    s.wait("the runs list", |x| x.contains("runs · file order"));
    s.send(&["o"]);
    s.wait("ordered", |x| x.contains("runs · most misses first"));
    s.send(&["f"]);
    s.wait("filtered", |x| {
        x.contains("most misses first · with a miss") && !x.contains("4/4 all hit")
    });
    s.send(&["Escape"]);
    s.wait("closed", |x| !x.contains("runs · most misses"));
    s.send(&["q"]);
}
