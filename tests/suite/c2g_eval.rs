//! `eval` counts what Chat2Graph sends (issue 32, item 6): a tool once per recommended
//! caller and per place of that caller in the `toolkit:` chains, in every path of `eval`
//! (records, `--sweep`, `--steps`, `--steps --sweep`, `--per-step`, `--max-tokens`), each
//! checked against `recommend --format json`'s `functions_sent` and `tokens` at the same
//! seeds and parameters. On the GAIA-shaped fixture, and on Chat2Graph's published
//! `chat2graph.yml` when the shared tarball is there.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::shared;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gaia-agents.yml")
}

fn toolscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// The JSON a successful run prints.
fn json(args: &[&str]) -> Value {
    let out = toolscope(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

/// `recommend FILE ARGS --format json`: (tools, functions sent, tokens).
fn sent(file: &Path, args: &[&str]) -> (usize, f64, f64) {
    let mut all = vec!["recommend", file.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let v = json(&all);
    let tools = v["tools"].as_array().expect("tools").len();
    let n = v["functions_sent"].as_f64().expect("functions_sent");
    (tools, n, v["tokens"].as_f64().expect("tokens"))
}

/// A trace file of `records` (JSON lines) beside nothing else.
fn traces(records: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("runs.jsonl");
    std::fs::write(&p, records.join("\n") + "\n").unwrap();
    (dir, p)
}

fn group<'a>(report: &'a Value, op: &str) -> &'a Value {
    report["operators"]
        .as_array()
        .expect("operators")
        .iter()
        .find(|g| g["operator"] == op)
        .unwrap_or_else(|| panic!("no group {op} in {report}"))
}

const OPERATORS: [&str; 3] = [
    "WebSurferExpert/1",
    "DeveloperExpert/1",
    "DeveloperExpert/2",
];

const RECORDS: [&str; 3] = [
    r#"{"operator": "WebSurferExpert/1", "calls": ["browser_navigate", "browser_click", "GeminiMultiModalTool"]}"#,
    r#"{"operator": "DeveloperExpert/1", "calls": ["read_text_file", "CodeExecutorTool", "write_file"]}"#,
    r#"{"operator": "DeveloperExpert/2", "calls": ["read_text_file", "write_file"]}"#,
];

#[test]
fn eval_counts_each_function_chat2graph_sends() {
    let file = fixture();
    let f = file.to_str().unwrap();
    let (_d, t) = traces(&RECORDS);
    let t = t.to_str().unwrap();
    let report = json(&["eval", f, "--traces", t, "--format", "json"]);
    let mut copies = 0;
    for op in OPERATORS {
        let (tools, n, tokens) = sent(&file, &["--operator", op]);
        let g = group(&report, op);
        // One record per operator: its means are its offer's numbers.
        assert_eq!(g["offered_tools"].as_f64(), Some(n), "{op}: {g}");
        assert_eq!(g["tokens"].as_f64(), Some(tokens), "{op}: {g}");
        copies += (n as usize).saturating_sub(tools);
    }
    // The fixture has tools sent more than once (its chains share actions).
    assert!(copies > 0);
    // Recall is about the tool, not its copies: every call here is offered.
    assert_eq!(
        report["overall"]["complete"].as_f64(),
        Some(1.0),
        "{report}"
    );

    // The gate reads the same numbers: the largest operator's tokens pass, one less fails.
    let most = OPERATORS
        .iter()
        .map(|op| sent(&file, &["--operator", op]).2)
        .fold(0.0, f64::max);
    let gate = |max: f64| {
        toolscope(&["eval", f, "--traces", t, "--max-tokens", &max.to_string()])
            .status
            .code()
    };
    assert_eq!(gate(most), Some(0));
    assert_eq!(gate(most - 1.0), Some(1));
}

#[test]
fn eval_sweep_counts_the_functions_sent_at_each_threshold() {
    let file = fixture();
    let f = file.to_str().unwrap();
    let (_d, t) = traces(&RECORDS);
    let report = json(&[
        "eval",
        f,
        "--traces",
        t.to_str().unwrap(),
        "--sweep",
        "--format",
        "json",
    ]);
    for op in OPERATORS {
        let g = group(&report, op);
        let hops = g["hops"].as_u64().expect("hops").to_string();
        let steps = g["steps"].as_array().expect("steps");
        assert!(steps.len() > 1, "{op}: {g}");
        for s in steps {
            let at = s["threshold"].as_f64().expect("threshold").to_string();
            let (_, n, tokens) = sent(
                &file,
                &["--operator", op, "--threshold", &at, "--hops", &hops],
            );
            assert_eq!(s["offered_tools"].as_f64(), Some(n), "{op} at {at}: {s}");
            assert_eq!(s["tokens"].as_f64(), Some(tokens), "{op} at {at}: {s}");
        }
        // The suggestion's tokens are those of its setting.
        let sug = &g["suggested"];
        let at = sug["threshold"].as_f64().expect("a suggestion").to_string();
        let h = sug["hops"].as_u64().expect("hops").to_string();
        let (_, _, tokens) = sent(&file, &["--operator", op, "--threshold", &at, "--hops", &h]);
        assert_eq!(sug["tokens"].as_f64(), Some(tokens), "{op}: {sug}");
    }
}

/// The actions calling `tool` as `--seed` arguments: a step's seeds after it.
fn callers(file: &Path, tool: &str) -> Vec<String> {
    let v = json(&["export", file.to_str().unwrap(), "--to", "json"]);
    let mut out: Vec<String> = v["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["kind"] == "call" && e["to"] == tool)
        .map(|e| e["from"].as_str().expect("from").to_string())
        .collect();
    out.sort();
    out.dedup();
    out.into_iter()
        .flat_map(|a| ["--seed".to_string(), a])
        .collect()
}

/// `sent` for the seeds `seeds` (as [`callers`] gives them) and `args`.
fn sent_from(file: &Path, seeds: &[String], args: &[&str]) -> (usize, f64, f64) {
    let mut all: Vec<&str> = seeds.iter().map(String::as_str).collect();
    all.extend_from_slice(args);
    sent(file, &all)
}

#[test]
fn eval_steps_count_the_functions_sent_per_step() {
    let file = fixture();
    let f = file.to_str().unwrap();
    // One step: DeveloperExpert/1 (threshold 0.5, hops 0) after read_text_file.
    let (_d, t) = traces(&[RECORDS[1].replace(", \"write_file\"", "").as_str()]);
    let t = t.to_str().unwrap();
    let op = "DeveloperExpert/1";
    let report = json(&["eval", f, "--traces", t, "--steps", "--format", "json"]);
    let g = group(&report, op);
    let seeds = callers(&file, "read_text_file");
    let (tools, n, tokens) = sent_from(&file, &seeds, &["--threshold", "0.5"]);
    assert!(
        n as usize > tools,
        "the step's offer has copies: {n} for {tools}"
    );
    assert_eq!(g["steps"].as_u64(), Some(1), "{g}");
    assert_eq!(g["offered_tools"].as_f64(), Some(n), "{g}");
    assert_eq!(g["tokens"].as_f64(), Some(tokens), "{g}");
    // The first call is offered from the operator's seeds: recommend --operator.
    let (_, n0, tokens0) = sent(&file, &["--operator", op]);
    assert_eq!(g["first"]["offered_tools"].as_f64(), Some(n0), "{g}");
    assert_eq!(g["first"]["tokens"].as_f64(), Some(tokens0), "{g}");
    // The gate on tokens per step.
    let gate = |max: f64| {
        toolscope(&[
            "eval",
            f,
            "--traces",
            t,
            "--steps",
            "--max-tokens",
            &max.to_string(),
        ])
        .status
        .code()
    };
    assert_eq!((gate(tokens), gate(tokens - 1.0)), (Some(0), Some(1)));

    // --sweep: every point is the step's offer at that threshold and hop count.
    let report = json(&[
        "eval", f, "--traces", t, "--steps", "--sweep", "--format", "json",
    ]);
    let points = group(&report, op)["sweep"]
        .as_array()
        .expect("sweep")
        .clone();
    assert!(points.len() > 2, "{points:?}");
    for p in &points {
        let at = p["threshold"].as_f64().expect("threshold").to_string();
        let h = p["hops"].as_u64().expect("hops").to_string();
        let (_, n, tokens) = sent_from(&file, &seeds, &["--threshold", &at, "--hops", &h]);
        assert_eq!(p["offered_tools"].as_f64(), Some(n), "{p}");
        assert_eq!(p["tokens"].as_f64(), Some(tokens), "{p}");
    }

    // --per-step lists a tool once per function sent.
    let report = json(&[
        "eval",
        f,
        "--traces",
        t,
        "--steps",
        "--per-step",
        "--format",
        "json",
    ]);
    let per = report["per_step"].as_array().expect("per_step");
    let offered = |i: usize| per[i]["offered"].as_array().expect("offered").len() as f64;
    assert_eq!((offered(0), offered(1)), (n0, n), "{per:?}");
}

/// Chat2Graph's published config: `DeveloperExpert/1` is sent `GeminiMultiModalTool` and
/// `YouTubeTool` twice (their action has two places in the chains), and `eval` counts
/// the functions sent, as `recommend` does.
#[test]
fn eval_on_chat2graphs_own_config_counts_what_it_sends() {
    let Some(file) = shared::chat2graph_yml() else {
        return;
    };
    let op = "DeveloperExpert/1";
    let (tools, n, tokens) = sent(&file, &["--operator", op]);
    assert_eq!((tools, n), (8, 10.0));
    let (_d, t) = traces(&[&format!(
        r#"{{"operator": "{op}", "calls": ["YouTubeTool", "GeminiMultiModalTool"]}}"#
    )]);
    let report = json(&[
        "eval",
        file.to_str().unwrap(),
        "--traces",
        t.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let g = group(&report, op);
    assert_eq!(g["offered_tools"].as_f64(), Some(n), "{g}");
    assert_eq!(g["tokens"].as_f64(), Some(tokens), "{g}");
    assert_eq!(g["complete"].as_f64(), Some(1.0), "{g}");
}
