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

/// Definitions and runs shaped like the BFCL benchmark's (issue 31 item 1): 8 groups of 16
/// tools, 640 runs that stay within one or two groups and mostly follow each tool's usual
/// successors. `init` and `fit --write` make the kit; its first screen at 100x30 holds the
/// whole step (every offered tool's box on screen) with no "more" mark.
#[test]
fn a_learned_kit_opens_on_one_step_whole_at_100x30() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let (groups, per) = (8usize, 16usize);
    let name = |g: usize, i: usize| {
        format!(
            "{}_{}",
            [
                "fs", "math", "msg", "post", "ticket", "trade", "travel", "car"
            ][g],
            [
                "open", "list", "read", "write", "move", "copy", "find", "sort", "count", "send",
                "fetch", "close", "check", "update", "delete", "login"
            ][i]
        )
    };
    let mut defs = Vec::new();
    for g in 0..groups {
        let funcs: Vec<String> = (0..per)
            .map(|i| {
                format!(
                    r#"{{"type": "function", "function": {{"name": "{}", "description": "Tool {i} of group {g}.", "parameters": {{"type": "object", "properties": {{}}}}}}}}"#,
                    name(g, i)
                )
            })
            .collect();
        let path = dir.path().join(format!("G{g}.json"));
        std::fs::write(&path, format!("[{}]", funcs.join(",\n"))).expect("write defs");
        defs.push(path.display().to_string());
    }
    // A small deterministic generator: each tool's usual successors are the next two in
    // its group; one step in five goes anywhere in the group, one run in four visits a
    // second group.
    let mut seed = 12_345u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) % n as u64) as usize
    };
    let mut runs = String::new();
    for r in 0..640 {
        let g = next(groups);
        let other = (g + 1 + next(groups - 1)) % groups;
        let mut at = next(4);
        let mut calls = Vec::new();
        let mut available: Vec<String> = (0..per).map(|i| name(g, i)).collect();
        let two = r % 4 == 0;
        if two {
            available.extend((0..per).map(|i| name(other, i)));
        }
        for k in 0..(4 + next(5)) {
            let grp = if two && k >= 3 { other } else { g };
            calls.push(format!("{:?}", name(grp, at)));
            at = if next(5) == 0 {
                next(per)
            } else {
                (at + 1 + next(2)) % per
            };
        }
        let available: Vec<String> = available.iter().map(|a| format!("{a:?}")).collect();
        runs.push_str(&format!(
            "{{\"id\": \"r{r}\", \"operator\": \"bench\", \"calls\": [{}], \"available\": [{}]}}\n",
            calls.join(", "),
            available.join(", ")
        ));
    }
    let runs_path = dir.path().join("runs.jsonl");
    std::fs::write(&runs_path, runs).expect("write runs");
    let kit = dir.path().join("kit.yaml");
    let bin = env!("CARGO_BIN_EXE_toolscope");
    let (kit_s, runs_s) = (kit.display().to_string(), runs_path.display().to_string());
    let mut init = vec!["init"];
    init.extend(defs.iter().map(String::as_str));
    init.extend(["-o", &kit_s, "--traces", &runs_s]);
    for args in [init, vec!["fit", &kit_s, "--traces", &runs_s, "--write"]] {
        let out = std::process::Command::new(bin)
            .args(&args)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let s = Tmux::new("learned");
    s.start((100, 30), None, &[bin, &kit_s]);
    let screen = s.wait("the opening step", |x| x.contains("step after"));
    assert!(
        !screen.contains(" more (n)") && !screen.contains(" more "),
        "{screen}"
    );
    // The title says how many tools the step offers; each has its box on screen.
    let title = screen
        .lines()
        .find(|l| l.contains("step after"))
        .expect("the title line");
    let n: usize = title
        .split("· ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("a tool count in {title:?}"));
    let boxes = screen.matches("(+ ").count();
    assert!(
        n >= 2 && boxes == n,
        "{n} tools offered, {boxes} on screen:\n{screen}"
    );
    s.send(&["q"]);
}
