//! Issue 46 items 5 to 9 through the real binary: a replay answers keys while a long
//! record is walked (tmux), a followed file written steadily moves while it is written
//! (tmux), and `eval --steps --per-step` and `export --replay` stay within the trace
//! memory budget (`TOOLSCOPE_TRACE_MEMORY_MIB=16`) under `ulimit -v`, which counts address
//! space: the ceiling is the budget plus what the process maps before it reads anything
//! (56 MB allowed; a debug build mapped 42 MB for a one-call record).

use std::fmt::Write as _;
use std::process::{Command, Output};

use crate::common::tmux;
use tmux::Tmux;

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");

/// The ceiling, in KB: the 16 MiB budget and the process's own mappings.
const CEILING_KB: usize = ((16 << 20) + (56 << 20)) / 1024;

/// Runs `toolscope ARGS` with `TOOLSCOPE_TRACE_MEMORY_MIB=16` under [`CEILING_KB`].
fn run_capped(args: &[&str]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "ulimit -v {CEILING_KB} && exec timeout -s KILL 120 '{BIN}' {}",
        quoted.join(" ")
    );
    Command::new("sh")
        .args(["-c", &script])
        .env("TOOLSCOPE_TRACE_MEMORY_MIB", "16")
        .output()
        .expect("runs sh")
}

/// A kit whose one action calls `tools` tools (`tool_00000`...), seeded by operator `op`.
fn wide_kit(tools: usize) -> String {
    let names: Vec<String> = (0..tools).map(|i| format!("tool_{i:05}")).collect();
    let mut s = String::from("tools:\n");
    for n in &names {
        let _ = writeln!(s, "  - {{name: {n}}}");
    }
    let _ = writeln!(
        s,
        "actions:\n  - name: a\n    tools: [{}]\n    next: [{{name: a, score: 1}}]",
        names.join(", ")
    );
    s.push_str("operators:\n  - {name: op, actions: [a]}\n");
    s
}

/// `records` records of `calls` calls each, all to the first tool.
fn runs(records: usize, calls: usize) -> String {
    let calls = vec!["tool_00000"; calls];
    let mut s = String::new();
    for r in 0..records {
        let line = serde_json::json!({"id": format!("r{r}"), "operator": "op", "calls": calls});
        let _ = writeln!(s, "{line}");
    }
    s
}

fn files(kit: &str, runs: &str) -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let (k, r) = (dir.path().join("kit.yml"), dir.path().join("runs.jsonl"));
    std::fs::write(&k, kit).expect("write kit");
    std::fs::write(&r, runs).expect("write runs");
    let (k, r) = (k.display().to_string(), r.display().to_string());
    (dir, k, r)
}

/// Item 7: one record of 1,500 calls each offered 2,000 tools (168 MB of entries) is
/// refused at the budget, entry by entry; its entries were counted only once all were
/// built (killed at the ceiling).
#[test]
fn per_step_entries_are_counted_as_they_are_built() {
    let (_d, kit, runs) = files(&wide_kit(2000), &runs(1, 1500));
    let out = run_capped(&[
        "eval",
        &kit,
        "--traces",
        &runs,
        "--steps",
        "--per-step",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{:?} {stderr}", out.status);
    assert!(
        stderr.contains("runs.jsonl:1:") && stderr.contains("limit of 16 MiB"),
        "{stderr}"
    );
}

/// Item 8: 40 records of 3 steps each offered 2,000 tools (13 MB of entries, within the
/// budget) print their 5 MB of `per_step` entry by entry; the whole list was built as one
/// JSON tree and one string besides the entries (killed at the ceiling).
#[test]
fn per_step_output_is_written_entry_by_entry() {
    let (_d, kit, runs) = files(&wide_kit(2000), &runs(40, 3));
    let out = run_capped(&[
        "eval",
        &kit,
        "--traces",
        &runs,
        "--steps",
        "--per-step",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{:?} {stderr}", out.status);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let per = v["per_step"].as_array().expect("per_step");
    assert_eq!(per.len(), 120);
    assert_eq!(per[119]["record"], 40);
    assert_eq!(per[119]["offered"].as_array().map(Vec::len), Some(2000));
    assert_eq!(v["overall"]["steps"], 80, "the report is whole too");
}

/// Item 9: `export --replay` of step 1,999 of a 2,000-call record on a kit offering 5,000
/// tools a step walks that step only; every step's offer was built first (80 MB, killed
/// at the ceiling).
#[test]
fn export_replay_walks_only_the_step_drawn() {
    let (d, kit, runs) = files(&wide_kit(5000), &runs(1, 2000));
    let svg = d.path().join("step.svg");
    let svg_s = svg.display().to_string();
    let out = run_capped(&[
        "export", &kit, "--to", "svg", "--traces", &runs, "--replay", "1", "1999", "-o", &svg_s,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{:?} {stderr}", out.status);
    let text = std::fs::read_to_string(&svg).expect("svg written");
    assert!(text.contains("step 1999 of 1999"), "the step's caption");
    // The picture draws the best 40 offered tools and counts the rest (routing all 5,000
    // took minutes).
    assert!(
        text.contains("4960 more offered tools not drawn"),
        "the rest counted"
    );
}

/// Item 5: a 500-call record at threshold 0 and 20 hops (a seeds record: walked at its
/// own parameters) on a generated 2,000-action kit. `:replay` and `G` are answered at once,
/// while the recall so far is still being walked (`recall so far …` on screen with the
/// last step), and Esc leaves then. The whole record was walked before `:replay` answered.
#[test]
fn replay_answers_keys_while_a_long_record_is_walked() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let kit = Command::new(BIN)
        .args(["gen", "--actions", "2000"])
        .output()
        .expect("gen runs");
    assert!(kit.status.success());
    let (k, r) = (dir.path().join("kit.yml"), dir.path().join("runs.jsonl"));
    std::fs::write(&k, &kit.stdout).expect("write kit");
    // Tools t0..t499, spread as a run would call them (a fixed stride, no randomness).
    let calls: Vec<String> = (0..500).map(|i| format!("t{}", (i * 37) % 500)).collect();
    let line = serde_json::json!({"seeds": ["a1"], "threshold": 0, "hops": 20, "calls": calls});
    std::fs::write(&r, format!("{line}\n")).expect("write runs");
    let s = Tmux::new("i46replay");
    let (k, r) = (k.display().to_string(), r.display().to_string());
    s.start((120, 36), None, &[BIN, &k, "--traces", &r]);
    s.first_screen();
    s.type_line(":replay 1 0");
    s.send(&["G"]);
    s.wait("the last step, its recall still being walked", |x| {
        x.contains("499/499") && x.contains("recall so far …")
    });
    s.send(&["Escape"]);
    s.wait("left", |x| !x.contains("499/499"));
    s.send(&["q"]);
}

/// Item 6: `:replay` follows a trace file a recorder appends a record to every 20 ms for
/// 3 s: the view moves to a newer run while the writing goes on (it waited for the writer
/// to stop: each write restarted the debounce).
#[test]
fn a_followed_file_written_steadily_moves_while_it_is_written() {
    if !tmux::available() {
        return;
    }
    const TK: &str = include_str!("../fixtures/replay/fs-kit.yaml");
    let dir = tempfile::tempdir().expect("temp dir");
    let (k, r) = (dir.path().join("fs.yaml"), dir.path().join("runs.jsonl"));
    std::fs::write(&k, TK).expect("write kit");
    let record = "{\"operator\": \"fs\", \"calls\": [\"ls\", \"cd\"]}\n";
    std::fs::write(&r, record).expect("write runs");
    let s = Tmux::new("i46follow");
    let (k_s, r_s) = (k.display().to_string(), r.display().to_string());
    s.start((100, 30), None, &[BIN, &k_s, "--traces", &r_s]);
    s.first_screen();
    s.type_line(":replay");
    s.wait("following run 1", |x| x.contains("run 1 step 1 of 1"));
    let writing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let flag = std::sync::Arc::clone(&writing);
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&r)
            .expect("open runs");
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_secs(3) {
            f.write_all(record.as_bytes()).expect("append");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        flag.store(false, std::sync::atomic::Ordering::SeqCst);
    });
    let moved = s.wait("a newer run, or the writer done", |x| {
        !writing.load(std::sync::atomic::Ordering::SeqCst) || !x.contains("run 1 step")
    });
    let still_writing = writing.load(std::sync::atomic::Ordering::SeqCst);
    writer.join().expect("writer");
    assert!(
        still_writing,
        "the view stayed on run 1 for the 3 s of writing:\n{moved}"
    );
    s.send(&["q"]);
}
