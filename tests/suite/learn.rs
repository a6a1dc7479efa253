//! Learning the graph from runs through the real binary: `init` from tool definitions in
//! every shape it reads (lint-clean, opened in a real terminal), `eval --steps` with its
//! JSON, sweep and gates, `fit` learning Next scores with `--add-edges`, and the records
//! the Chat2Graph recorder writes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::tmux;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\n{}\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn json(out: &Output) -> Value {
    let s = ok(out);
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// Definitions in the four shapes, in `dir`: OpenAI (wrapped and bare, nested schema),
/// OpenAI JSONL, an MCP `tools/list` response, a toolscope MCP sidecar (two servers).
fn defs(dir: &Path) -> Vec<PathBuf> {
    let files = [
        (
            "fs.json",
            r#"[{"type": "function", "function": {"name": "ls", "description": "Lists a folder.",
                "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Where."},
                "filter": {"type": "object", "properties": {"glob": {"type": "string"}}}}, "required": ["path"]}}},
               {"name": "cd", "description": "Changes the folder.", "parameters": {"type": "object", "properties": {"to": {"type": "string"}}}}]"#,
        ),
        (
            "math.jsonl",
            "{\"name\": \"add\", \"description\": \"Adds.\", \"parameters\": {\"type\": \"object\"}}\n{\"type\": \"function\", \"function\": {\"name\": \"mul\"}}\n",
        ),
        (
            "web.json",
            r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "fetch", "description": "Fetches a URL.", "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}}]}}"#,
        ),
        (
            "kit.yml.mcp.json",
            r#"{"toolscope_mcp_cache": 1, "servers": [
                {"name": "mail", "transport": "stdio", "command": "m", "args": [], "discovered_at": "t",
                 "tools": [{"name": "send", "description": "Sends a mail.", "input_schema": {"type": "object"}}]},
                {"name": "chat", "transport": "stdio", "command": "c", "args": [], "discovered_at": "t",
                 "tools": [{"name": "post", "description": "Posts.", "input_schema": {}}]}]}"#,
        ),
    ];
    files
        .iter()
        .map(|(name, body)| {
            let p = dir.join(name);
            std::fs::write(&p, body).expect("write defs");
            p
        })
        .collect()
}

const RUNS: &str = r#"{"operator": "agent", "calls": ["ls", "cd", "ls", "fetch"], "available": ["fs", "web"]}
{"operator": "agent", "calls": ["cd", "ls", "send"]}
{"operator": "agent", "calls": ["ls", "fetch", "send"]}
{"operator": "helper", "calls": ["add", "mul", "add"]}
{"seeds": ["call ls"], "called": ["ls"]}
"#;

fn lint_clean(path: &Path) {
    let out = run(&["lint", &s(path)]);
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(all.contains("0 errors, 0 warnings"), "{all}");
    assert!(out.status.success(), "{all}");
}

#[test]
fn init_reads_every_shape_and_writes_a_lint_clean_toolkit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let defs = defs(dir.path());
    let mut args: Vec<String> = vec!["init".into()];
    args.extend(defs.iter().map(|p| s(p)));
    let plain = dir.path().join("plain.yaml");
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run(&[&a[..], &["-o", &s(&plain)]].concat());
    ok(&out);
    assert!(
        text(&out.stderr).contains("init: 7 tool(s) in 5 group(s)"),
        "{}",
        text(&out.stderr)
    );
    lint_clean(&plain);
    // Without runs: one operator per group, seeded with all its actions, hops 0.
    let v = json(&run(&[
        "recommend",
        &s(&plain),
        "--operator",
        "fs",
        "--format",
        "json",
    ]));
    assert_eq!(v["tools"], serde_json::json!(["cd", "ls"]));
    // The whole schema is kept: describe prints it, nested properties included.
    let d = json(&run(&["describe", &s(&plain), "--style", "json"]));
    let ls = d
        .as_array()
        .and_then(|a| a.iter().find(|e| e["function"]["name"] == "ls"))
        .expect("ls described")
        .clone();
    assert_eq!(
        ls["function"]["parameters"]["properties"]["filter"]["properties"]["glob"]["type"],
        "string"
    );
    assert_eq!(
        ls["function"]["parameters"]["required"],
        serde_json::json!(["path"])
    );

    // With runs: the prior and one operator per operator name.
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(&runs, RUNS).expect("write runs");
    let kit = dir.path().join("kit.yaml");
    let out = run(&[&a[..], &["-o", &s(&kit), "--traces", &s(&runs)]].concat());
    ok(&out);
    let err = text(&out.stderr);
    assert!(err.contains("operator `agent` from 3 record(s)"), "{err}");
    assert!(err.contains("operator `helper` from 1 record(s)"), "{err}");
    lint_clean(&kit);
    let v = json(&run(&["export", &s(&kit), "--to", "json"]));
    let ops = v["operators"].as_array().expect("operators").clone();
    let agent = ops.iter().find(|o| o["name"] == "agent").expect("agent");
    assert_eq!(agent["actions"], serde_json::json!(["call cd", "call ls"]));

    // The output rules of export: never over an input, an existing file only with --force.
    let again = run(&[&a[..], &["-o", &s(&kit)]].concat());
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("--force"),
        "{}",
        text(&again.stderr)
    );
    ok(&run(&[&a[..], &["-o", &s(&kit), "--force"]].concat()));
    let onto_input = run(&[&a[..], &["-o", &s(&defs[0]), "--force"]].concat());
    assert_eq!(onto_input.status.code(), Some(1));
}

#[test]
fn init_reports_a_name_defined_twice() {
    let dir = tempfile::tempdir().expect("temp dir");
    let defs = defs(dir.path());
    let other = dir.path().join("more.json");
    std::fs::write(&other, r#"[{"name": "cd", "description": "Another cd."}]"#).expect("write");
    let out = run(&[
        "init",
        &s(&defs[0]),
        &s(&other),
        "-o",
        &s(&dir.path().join("k.yaml")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("`cd` is defined in") && err.contains("more.json"),
        "{err}"
    );
    assert!(!dir.path().join("k.yaml").exists());
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"[{"description": "no name"}]"#).expect("write");
    let out = run(&["init", &s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("bad.json: tool 1: it has no `name`"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_init_toolkit_opens_in_a_real_terminal() {
    if !tmux::available() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let defs = defs(dir.path());
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(&runs, RUNS).expect("write runs");
    let kit = dir.path().join("kit.yaml");
    let mut args = vec!["init".to_string()];
    args.extend(defs.iter().map(|p| s(p)));
    args.extend(["-o".into(), s(&kit), "--traces".into(), s(&runs)]);
    ok(&run(&args.iter().map(String::as_str).collect::<Vec<_>>()));
    let t = tmux::Tmux::new("init-open");
    t.start(
        (120, 40),
        None,
        &[env!("CARGO_BIN_EXE_toolscope"), &s(&kit)],
    );
    let screen = t.wait("the toolkit", |x| {
        x.contains("call ls") && x.contains("operator agent")
    });
    assert!(screen.contains("Navigator"), "{screen}");
    t.send(&["q"]);
}

/// A toolkit, ordered runs and their numbers by hand. a -0.8-> b -0.4-> c; a calls X,
/// b calls Y, c calls Z (1.0 each); operator op seeds a at 0.5 with hops 1.
const KIT: &str = "\
actions:
  - {name: a, tools: [X], next: [{name: b, score: 0.8}]}
  - {name: b, tools: [Y], next: [{name: c, score: 0.4}]}
  - {name: c, tools: [Z]}
tools: [{name: X, desc: Ex.}, {name: Y, desc: Why.}, {name: Z, desc: Zed.}]
operators:
  - {name: op, actions: [a], threshold: 0.5, hops: 1}
";

/// Steps: X->Y (hit: a reaches b), Y->Z (miss at 0.5: b->c is 0.4), Z->X (miss: c leads
/// nowhere), X->Y (hit, but Y is not available in that run: miss).
const STEPS: &str = r#"{"operator": "op", "calls": ["X", "Y", "Z", "X"]}
{"operator": "op", "calls": ["X", "Y"], "available": ["X", "Z"]}
{"operator": "op", "called": ["X"]}
"#;

fn kit_and_runs(dir: &Path) -> (PathBuf, PathBuf) {
    let kit = dir.join("kit.yaml");
    let runs = dir.join("runs.jsonl");
    std::fs::write(&kit, KIT).expect("write kit");
    std::fs::write(&runs, STEPS).expect("write runs");
    (kit, runs)
}

#[test]
fn eval_steps_reports_recall_tokens_sweep_and_gates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (kit, runs) = kit_and_runs(dir.path());
    let (k, r) = (s(&kit), s(&runs));
    let v = json(&run(&[
        "eval", &k, "--traces", &r, "--steps", "--format", "json",
    ]));
    let o = &v["overall"];
    assert_eq!(
        (o["steps"].as_u64(), o["hits"].as_u64()),
        (Some(4), Some(1))
    );
    assert_eq!(o["recall"].as_f64(), Some(0.25));
    assert_eq!(
        (o["records"].as_u64(), o["unordered"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(v["context"], 1);
    // Offers: {X, Y}, {Y}, {Z}, and {X, Y} cut to {X}: 1.25 tools a step.
    assert_eq!(o["offered_tools"].as_f64(), Some(1.25));
    let ratio = o["token_ratio"].as_f64().expect("ratio");
    let base = o["baseline"]["tokens"].as_f64().expect("baseline");
    assert!((ratio - o["tokens"].as_f64().unwrap_or(0.0) / base).abs() < 1e-9);
    assert_eq!(o["baseline"]["recall"].as_f64(), Some(0.75));
    assert_eq!(v["operators"][0]["operator"], "op");
    assert_eq!(o["first"]["recall"].as_f64(), Some(1.0));
    // Threshold 0.4 brings c in from b: Y->Z hits too.
    let v = json(&run(&[
        "eval", &k, "--traces", &r, "--steps", "-t", "0.4", "--format", "json",
    ]));
    assert_eq!(v["overall"]["hits"].as_u64(), Some(2));
    // The sweep: points per hops with the exact thresholds, and the suggestion.
    let v = json(&run(&[
        "eval",
        &k,
        "--traces",
        &r,
        "--steps",
        "--sweep",
        "--target-recall",
        "0.5",
        "--format",
        "json",
    ]));
    let sweep = v["overall"]["sweep"].as_array().expect("sweep");
    assert!(
        sweep
            .iter()
            .any(|p| p["threshold"] == 0.4 && p["hops"] == 1)
    );
    assert!(
        sweep
            .iter()
            .all(|p| p["hops"].as_u64().is_some_and(|h| h <= 3))
    );
    let sug = &v["overall"]["suggested"];
    assert_eq!(
        (sug["threshold"].as_f64(), sug["hops"].as_u64()),
        (Some(0.4), Some(1))
    );
    // Text names the figures; the gates exit 1 and say why.
    let out = run(&["eval", &k, "--traces", &r, "--steps", "--sweep"]);
    let t = ok(&out);
    assert!(
        t.contains("(overall)")
            && t.contains("suggested (fewest tokens reaching step recall 0.90)"),
        "{t}"
    );
    let gated = run(&["eval", &k, "--traces", &r, "--steps", "--min-recall", "0.5"]);
    assert_eq!(gated.status.code(), Some(1));
    assert!(
        text(&gated.stderr).contains("gate: overall: next-call recall 0.250 < 0.5"),
        "{}",
        text(&gated.stderr)
    );
    assert_eq!(
        run(&["eval", &k, "--traces", &r, "--steps", "--max-tokens", "1"])
            .status
            .code(),
        Some(1)
    );
    ok(&run(&[
        "eval",
        &k,
        "--traces",
        &r,
        "--steps",
        "--min-recall",
        "0.2",
    ]));
    // --steps does not take the record-level options.
    assert_eq!(
        run(&["eval", &k, "--traces", &r, "--steps", "--offered"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        run(&["eval", &k, "--traces", &r, "--context", "2"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn fit_learns_next_scores_and_adds_edges_on_native_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (kit, runs) = kit_and_runs(dir.path());
    let (k, r) = (s(&kit), s(&runs));
    let v = json(&run(&["fit", &k, "--traces", &r, "--format", "json"]));
    // Row a: 2 steps from X, both to Y (b): (2 + 1.6) / 4 = 0.9, the only edge: 1.0.
    // Row b: 1 step from Y to Z (c): (1 + 0.8) / 3 = 0.6, the only edge: 1.0.
    let next = v["next"].as_array().expect("next").clone();
    let got: Vec<(String, String, f64)> = next
        .iter()
        .map(|e| {
            (
                e["from"].as_str().unwrap_or("").into(),
                e["to"].as_str().unwrap_or("").into(),
                e["new"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![("a".into(), "b".into(), 1.0), ("b".into(), "c".into(), 1.0)]
    );
    assert_eq!(v["written"], false);
    assert!(
        v["steps"]["fitted"]["after"]["overall"]["recall"].as_f64()
            > v["steps"]["fitted"]["before"]["overall"]["recall"].as_f64()
    );
    assert_eq!(std::fs::read_to_string(&kit).expect("read"), KIT);
    // --add-edges: c -> a (Z -> X) is listed and added; --write makes it one transaction.
    let out = run(&["fit", &k, "--traces", &r, "--add-edges", "--write"]);
    ok(&out);
    assert!(
        text(&out.stderr).contains("added: c -> a: 1.0 (1 of 1 steps)"),
        "{}",
        text(&out.stderr)
    );
    let written = std::fs::read_to_string(&kit).expect("read");
    // A score of 1.0 is written as the bare name.
    assert!(
        written.contains("{name: c, tools: [Z], next: [a]}"),
        "{written}"
    );
    lint_clean(&kit);
    let v = json(&run(&[
        "eval", &k, "--traces", &r, "--steps", "--format", "json",
    ]));
    assert_eq!(v["overall"]["hits"].as_u64(), Some(3));
}

/// The Chat2Graph recorder's records (`integrations/chat2graph`): `called` and `calls`
/// both, with an id and `ok`; they load and give steps.
#[test]
fn the_chat2graph_recorders_records_load_with_their_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (kit, _) = kit_and_runs(dir.path());
    let runs = dir.path().join("c2g.jsonl");
    std::fs::write(
        &runs,
        "{\"operator\": \"op\", \"called\": [\"X\", \"Y\"], \"calls\": [\"X\", \"Y\", \"X\"], \"ok\": true, \"id\": 1}\n",
    )
    .expect("write");
    let v = json(&run(&[
        "eval",
        &s(&kit),
        "--traces",
        &s(&runs),
        "--steps",
        "--format",
        "json",
    ]));
    assert_eq!(v["overall"]["steps"].as_u64(), Some(2));
    assert_eq!(v["overall"]["unordered"].as_u64(), Some(0));
    let recorder = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("integrations/chat2graph/toolscope_chat2graph.py"),
    )
    .expect("the recorder");
    assert!(
        recorder.contains("\"calls\": calls"),
        "the recorder writes `calls`"
    );
}
