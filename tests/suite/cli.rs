//! The real binary on the real example files: output shapes, exit codes, stdout/stderr.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
}

fn example(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("toolkits")
        .join(name)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

fn stdout_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

#[test]
fn recommend_native_operator_json() {
    let out = run(&[
        "recommend",
        &example("graph-db.yaml"),
        "--operator",
        "modelling",
        "--format",
        "json",
    ]);
    let mut v = stdout_json(&out);
    // The token estimate (checked in tests/suite/evidence.rs) aside, the object is exact.
    let map = v.as_object_mut().expect("an object");
    assert!(
        map.remove("tokens")
            .and_then(|t| t.as_u64())
            .is_some_and(|t| t > 0)
    );
    assert_eq!(map.remove("tokens_encoding"), Some(json!("o200k_base")));
    assert_eq!(
        v,
        json!({
            "actions": ["concept_identification", "content_understanding", "schema_design"],
            "tools": ["DocumentReader", "EdgeLabelGenerator", "SchemaGetter", "VertexLabelGenerator"],
            "edges": [
                {"from": "concept_identification", "to": "schema_design", "kind": "next", "score": 0.8},
                {"from": "content_understanding", "to": "DocumentReader", "kind": "call", "score": 1.0},
                {"from": "content_understanding", "to": "concept_identification", "kind": "next", "score": 0.9},
                {"from": "schema_design", "to": "EdgeLabelGenerator", "kind": "call", "score": 1.0},
                {"from": "schema_design", "to": "SchemaGetter", "kind": "call", "score": 0.7},
                {"from": "schema_design", "to": "VertexLabelGenerator", "kind": "call", "score": 1.0}
            ],
            // One function per tool: no tool is offered twice (issue 32's count).
            "functions_sent": 4
        })
    );
}

#[test]
fn recommend_chat2graph_operator_json() {
    let out = run(&[
        "recommend",
        &example("chat2graph-mini.yml"),
        "--operator",
        "Modelling Expert/1",
        "--format",
        "json",
    ]);
    let v = stdout_json(&out);
    // threshold 0.6 and hops 1 come from the operator mapping; the scores: list sets
    // content_understanding -> deep_recognition to 0.8.
    assert_eq!(
        v["actions"],
        json!(["content_understanding", "deep_recognition"])
    );
    assert_eq!(v["tools"], json!(["DocumentReader"]));
    assert_eq!(v["edges"].as_array().map(Vec::len), Some(2));
}

#[test]
fn chat2graph_chains_are_flattened_across_boundaries() {
    // schema_design ends chain 1 and query_intention starts chain 2: Chat2Graph joins them.
    let out = run(&[
        "recommend",
        &example("chat2graph-mini.yml"),
        "--seeds",
        "schema_design",
        "--threshold",
        "0.1",
        "--hops",
        "1",
        "--format",
        "json",
    ]);
    let v = stdout_json(&out);
    assert_eq!(v["actions"], json!(["query_intention", "schema_design"]));
    // MCP entry is a group called directly; leader is an operator.
    let out = run(&[
        "recommend",
        &example("chat2graph-mini.yml"),
        "--seed",
        "web_research",
        "--format",
        "json",
    ]);
    assert_eq!(stdout_json(&out)["tools"], json!(["BrowserTool"]));
    let out = run(&[
        "recommend",
        &example("chat2graph-mini.yml"),
        "--operator",
        "leader",
    ]);
    assert!(out.status.success());
}

#[test]
fn seeds_with_spaces_and_unknown_seeds() {
    let out = run(&[
        "recommend",
        &example("graph-db.yaml"),
        "--seed",
        "no such action, really",
        "--seed",
        "data_import",
        "--format",
        "json",
    ]);
    let v = stdout_json(&out);
    assert_eq!(v["actions"], json!(["data_import"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no such action, really"), "{stderr}");
}

#[test]
fn offered_tools_apply_filters() {
    let out = run(&[
        "recommend",
        &example("graph-db.yaml"),
        "--seeds",
        "graph_validation",
        "--threshold",
        "0.1",
        "--offered",
        "--format",
        "json",
    ]);
    let v = stdout_json(&out);
    assert_eq!(v["tools"], json!(["GraphDropper", "SchemaGetter"]));
    assert_eq!(
        v["offered_tools"],
        json!(["SchemaGetter"]),
        "GraphDropper is disabled"
    );
}

#[test]
fn recommend_text_and_markdown() {
    let out = run(&["recommend", &example("graph-db.yaml"), "--operator", "qa"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("actions (2/"), "{text}");
    assert!(
        text.contains("knowledge_retrieval -> answer_synthesis  next 0.8"),
        "{text}"
    );
    let out = run(&[
        "recommend",
        &example("graph-db.yaml"),
        "--operator",
        "qa",
        "--format",
        "markdown",
    ]);
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("# Recommendation"), "{md}");
    assert!(
        md.contains("| knowledge_retrieval | answer_synthesis | next | 0.8 |"),
        "{md}"
    );
}

#[test]
fn timings_go_to_stderr() {
    let out = run(&[
        "recommend",
        &example("graph-db.yaml"),
        "--operator",
        "query",
        "--timings",
        "--repeat",
        "5",
        "--format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines.iter().any(|l| l.starts_with("load_ms: ")), "{stderr}");
    let rec = lines
        .iter()
        .find_map(|l| l.strip_prefix("recommend_ms: "))
        .expect("recommend_ms line");
    assert!(rec.parse::<f64>().is_ok(), "{rec}");
    stdout_json(&out);
}

#[test]
fn usage_errors_exit_2_and_failures_exit_1() {
    assert_eq!(run(&["recommend"]).status.code(), Some(2));
    assert_eq!(
        run(&[
            "recommend",
            &example("graph-db.yaml"),
            "--seeds",
            "a",
            "-t",
            "1.5"
        ])
        .status
        .code(),
        Some(2)
    );
    assert_eq!(
        run(&["recommend", &example("graph-db.yaml")]).status.code(),
        Some(2)
    );
    let missing = run(&["recommend", "/nonexistent/x.yaml", "--seeds", "a"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/x.yaml"));
    let bad_op = run(&["recommend", &example("graph-db.yaml"), "--operator", "nope"]);
    assert_eq!(bad_op.status.code(), Some(1));
    for sub in ["recommend", "lint", "export", "gen", "convert"] {
        assert!(run(&[sub, "--help"]).status.success(), "{sub} --help");
    }
}

#[test]
fn lint_clean_examples_and_json_shape() {
    for f in ["graph-db.yaml", "chat2graph-mini.yml"] {
        let out = run(&["lint", &example(f), "--format", "json"]);
        let v = stdout_json(&out);
        let diags = v["diagnostics"].as_array().expect("list");
        assert!(
            diags.iter().all(|d| d["severity"] != "error"),
            "{f}: {diags:?}"
        );
    }
    let out = run(&["lint", &example("chat2graph-mini.yml"), "--format", "json"]);
    let v = stdout_json(&out);
    let first = &v["diagnostics"][0];
    for key in ["file", "line", "column", "severity", "code", "message"] {
        assert!(first.get(key).is_some(), "missing {key}: {first}");
    }
    assert_eq!(first["code"], "TS061");
    assert_eq!(first["severity"], "info");
}

#[test]
fn lint_reports_errors_with_positions_and_exit_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bad.yaml");
    std::fs::write(
        &path,
        "actions:\n  - name: a\n    next:\n      - {name: b, score: 1.5}\n      - {name: nowhere, score: '0.5'}\n  - name: b\n    tools: [{name: t, score: .nan}]\noperators:\n  - {name: o, actions: [zz], threshold: 2, hops: -1}\n",
    )
    .expect("write");
    let out = run(&["lint", &path.display().to_string(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let codes: Vec<(&str, u64)> = v["diagnostics"]
        .as_array()
        .expect("list")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or(""),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    for want in [
        ("TS041", 4),
        ("TS030", 5),
        ("TS040", 5),
        ("TS031", 7),
        ("TS041", 7),
        ("TS032", 9),
        ("TS042", 9),
        ("TS043", 9),
    ] {
        assert!(codes.contains(&want), "missing {want:?} in {codes:?}");
    }
}

#[test]
fn malformed_yaml_names_file_line_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("broken.yaml");
    std::fs::write(
        &path,
        "actions:\n  - name: a\n    next: [b, c\n  - name: d\n",
    )
    .expect("write");
    let out = run(&["recommend", &path.display().to_string(), "--seeds", "a"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("broken.yaml:"), "{stderr}");
    let out = run(&["lint", &path.display().to_string(), "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["diagnostics"][0]["code"], "TS001");
    assert!(v["diagnostics"][0]["line"].as_u64() >= Some(3));
}

#[test]
fn export_formats() {
    let path = example("graph-db.yaml");
    let dot = run(&["export", &path, "--to", "dot", "--operator", "query"]);
    let dot = String::from_utf8_lossy(&dot.stdout);
    assert!(dot.starts_with("digraph toolkit {"));
    assert!(
        dot.contains("\"query_intention\" [shape=box, style=\"rounded,filled,bold\", penwidth=3")
    );
    // One `style` per node (Graphviz keeps only the last).
    assert!(
        dot.lines().all(|l| l.matches("style=").count() <= 1),
        "{dot}"
    );
    let mmd = run(&["export", &path, "--to", "mermaid"]);
    assert!(String::from_utf8_lossy(&mmd.stdout).starts_with("flowchart LR"));
    let v = stdout_json(&run(&["export", &path, "--to", "json"]));
    for key in ["actions", "tools", "groups", "edges", "operators"] {
        assert!(v[key].is_array(), "{key}");
    }
    assert_eq!(
        v["groups"][0],
        json!({"name": "web", "tools": ["browser_navigate", "browser_read", "browser_search"]})
    );
    let names: Vec<&str> = v["actions"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(v["actions"][0]["line"].as_u64() > Some(0));
    let dir = tempfile::tempdir().expect("tempdir");
    let out_path = dir.path().join("g.dot");
    let out = run(&[
        "export",
        &path,
        "--to",
        "dot",
        "-o",
        &out_path.display().to_string(),
    ]);
    assert!(out.status.success());
    assert!(
        std::fs::read_to_string(&out_path)
            .expect("written")
            .contains("digraph")
    );
}

#[test]
fn gen_is_deterministic_and_loads() {
    let a = run(&["gen", "--actions", "300", "--seed", "7"]);
    let b = run(&["gen", "--actions", "300", "--seed", "7"]);
    assert_eq!(a.stdout, b.stdout);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("g.yaml");
    std::fs::write(&path, &a.stdout).expect("write");
    let v = stdout_json(&run(&[
        "export",
        &path.display().to_string(),
        "--to",
        "json",
    ]));
    assert_eq!(v["actions"].as_array().map(Vec::len), Some(300));
    let out = run(&["lint", &path.display().to_string()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn convert_keeps_the_graph() {
    let dir = tempfile::tempdir().expect("tempdir");
    let converted = dir.path().join("native.yaml");
    let src = example("chat2graph-mini.yml");
    let args = [
        "convert",
        &src,
        "--to",
        "native",
        "-o",
        &converted.display().to_string(),
    ];
    // The agents' profiles and the operators' instructions have no place in the native
    // format: named, and nothing written, unless the loss is accepted.
    let out = run(&args);
    assert_eq!(out.status.code(), Some(1));
    assert!(!converted.exists());
    let out = run(&[&args[..], &["--allow-loss"]].concat());
    assert!(out.status.success());
    let a = stdout_json(&run(&["export", &src, "--to", "json"]));
    let b = stdout_json(&run(&[
        "export",
        &converted.display().to_string(),
        "--to",
        "json",
    ]));
    assert_eq!(a["edges"], b["edges"]);
    assert_eq!(a["operators"], b["operators"]);
    assert_eq!(a["groups"], b["groups"]);
    let names = |v: &Value, k: &str| -> Vec<Value> {
        v[k].as_array()
            .expect("list")
            .iter()
            .map(|x| x["name"].clone())
            .collect()
    };
    assert_eq!(names(&a, "actions"), names(&b, "actions"));
    assert_eq!(names(&a, "tools"), names(&b, "tools"));
}

#[test]
fn directories_are_merged() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("a.yaml"),
        "actions:\n  - name: x\n    next: [{name: y, score: 0.2}]\n  - name: y\n",
    )
    .expect("write");
    std::fs::write(
        dir.path().join("b.yml"),
        "actions:\n  - name: y\n    next: [z]\n  - name: x\n    next: [{name: y, score: 0.9}]\n  - name: z\n",
    )
    .expect("write");
    let v = stdout_json(&run(&[
        "export",
        &dir.path().display().to_string(),
        "--to",
        "json",
    ]));
    assert_eq!(v["actions"].as_array().map(Vec::len), Some(3));
    let xy = v["edges"]
        .as_array()
        .expect("list")
        .iter()
        .find(|e| e["from"] == "x" && e["to"] == "y")
        .cloned()
        .expect("x -> y");
    assert_eq!(xy["score"], 0.2, "the existing edge keeps its score");
    let b_file = v["actions"]
        .as_array()
        .expect("list")
        .iter()
        .find(|a| a["name"] == "z")
        .and_then(|a| a["file"].as_str())
        .unwrap_or_default()
        .to_string();
    assert!(b_file.ends_with("b.yml"), "{b_file}");
}

/// An operator written as the navigator shows it (`Q&A Expert/1 (&retrieval_operator)`):
/// by its anchor with its `&`, and by the whole label, `--operator` finds the same one.
#[test]
fn operator_by_anchor_as_the_navigator_shows_it() {
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/chat2graph-flat.yml")
        .display()
        .to_string();
    let by = |name: &str| {
        stdout_json(&run(&[
            "recommend",
            &fixture,
            "--operator",
            name,
            "--format",
            "json",
        ]))
    };
    let want = by("Q&A Expert/1");
    assert!(!want["actions"].as_array().expect("actions").is_empty());
    for name in ["&retrieval_operator", "Q&A Expert/1 (&retrieval_operator)"] {
        assert_eq!(by(name), want, "{name}");
    }
}
