//! explain, sweep, diff and describe through the real binary: golden outputs, JSON shapes,
//! exit codes. Set `UPDATE_GOLDEN=1` to rewrite the golden files after a deliberate change.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn path(rel: &str) -> String {
    root().join(rel).display().to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn ok_stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&ok_stdout(out)).expect("stdout is JSON")
}

/// Compares `actual` with `tests/golden/NAME`, or rewrites it under `UPDATE_GOLDEN=1`.
fn golden(name: &str, actual: &str) {
    let file = root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&file, actual).expect("golden file written");
        return;
    }
    let want = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", file.display()));
    assert_eq!(actual, want, "output differs from {}", file.display());
}

const GRAPH_DB: &str = "toolkits/graph-db.yaml";
const GRAPH_DB_V2: &str = "tests/fixtures/graph-db-v2.yaml";

#[test]
fn describe_golden_markdown_short_json() {
    for (style, file) in [
        ("markdown", "describe-modelling.md"),
        ("short", "describe-modelling.txt"),
        ("json", "describe-modelling.json"),
    ] {
        let out = run(&[
            "describe",
            &path(GRAPH_DB),
            "--operator",
            "modelling",
            "--style",
            style,
        ]);
        golden(file, &ok_stdout(&out));
    }
    let out = run(&["describe", &path(GRAPH_DB)]);
    golden("describe-all.md", &ok_stdout(&out));
    let out = run(&["describe", &path(GRAPH_DB), "--style", "short"]);
    golden("describe-all.txt", &ok_stdout(&out));
}

#[test]
fn describe_json_schemas_are_function_calls() {
    let v = json(&run(&[
        "describe",
        &path(GRAPH_DB),
        "--operator",
        "modelling",
        "--style",
        "json",
    ]));
    let tools = v.as_array().expect("an array");
    assert!(!tools.is_empty());
    for t in tools {
        assert_eq!(t["type"], "function");
        let f = &t["function"];
        assert!(f["name"].is_string());
        assert_eq!(f["parameters"]["type"], "object");
        let props = f["parameters"]["properties"]
            .as_object()
            .expect("properties");
        for r in f["parameters"]["required"].as_array().expect("required") {
            assert!(
                props.contains_key(r.as_str().expect("a name")),
                "{r} is a property"
            );
        }
    }
}

#[test]
fn describe_with_seeds_applies_the_filters() {
    // GraphDropper is called from graph_validation but disabled, so it is never offered.
    let all = ok_stdout(&run(&["describe", &path(GRAPH_DB), "--style", "short"]));
    assert!(all.contains("GraphDropper:"));
    let seeded = ok_stdout(&run(&[
        "describe",
        &path(GRAPH_DB),
        "--seeds",
        "graph_validation",
        "--threshold",
        "0.1",
        "--style",
        "short",
    ]));
    assert!(seeded.contains("SchemaGetter:"));
    assert!(!seeded.contains("GraphDropper"), "{seeded}");
}

#[test]
fn diff_golden_json() {
    let out = run(&[
        "diff",
        &path(GRAPH_DB),
        &path(GRAPH_DB_V2),
        "--operator",
        "query",
        "--format",
        "json",
    ]);
    golden("diff-query.json", &ok_stdout(&out));
    let out = run(&[
        "diff",
        &path(GRAPH_DB),
        &path(GRAPH_DB_V2),
        "--format",
        "json",
    ]);
    let v: Value = serde_json::from_str(&ok_stdout(&out)).expect("JSON");
    assert!(
        v.get("recommendation").is_none(),
        "no seeds, no recommendation diff"
    );
    assert_eq!(v["nodes"]["added"][0]["name"], "result_summary");
}

#[test]
fn diff_of_a_file_with_itself_is_empty() {
    let out = run(&[
        "diff",
        &path(GRAPH_DB),
        &path(GRAPH_DB),
        "--seeds",
        "query_intention",
        "--hops",
        "2",
    ]);
    let text = ok_stdout(&out);
    assert!(text.starts_with("no structural changes\n"), "{text}");
    assert!(!text.contains("\n+ ") && !text.contains("\n- "), "{text}");
}

fn recommend_counts(file: &str, seeds: &str, t: f64, h: u32) -> (usize, usize) {
    let v = json(&run(&[
        "recommend",
        &path(file),
        "--seeds",
        seeds,
        "--threshold",
        &t.to_string(),
        "--hops",
        &h.to_string(),
        "--format",
        "json",
    ]));
    let len = |k: &str| v[k].as_array().map_or(0, Vec::len);
    (len("actions"), len("tools"))
}

#[test]
fn sweep_json_matches_recommend_at_every_step() {
    let v = json(&run(&[
        "sweep",
        &path(GRAPH_DB),
        "--seeds",
        "query_intention,content_understanding",
        "--hops",
        "3",
        "--format",
        "json",
    ]));
    assert_eq!(v["hops"], 3);
    let steps = v["steps"].as_array().expect("steps");
    assert!(steps.len() > 3);
    let mut last = f64::INFINITY;
    for s in steps {
        let t = s["threshold"].as_f64().expect("threshold");
        assert!(t < last, "descending");
        last = t;
        let want = recommend_counts(GRAPH_DB, "query_intention,content_understanding", t, 3);
        let got = (
            s["actions"].as_u64().unwrap_or(0) as usize,
            s["tools"].as_u64().unwrap_or(0) as usize,
        );
        assert_eq!(got, want, "at threshold {t}");
    }
    let above = recommend_counts(GRAPH_DB, "query_intention,content_understanding", 1.0, 3);
    let top = steps[0]["threshold"].as_f64().unwrap_or(0.0);
    if top < 1.0 {
        assert_eq!(above, (2, 0));
    }
}

#[test]
fn sweep_text_has_a_row_per_step() {
    let text = ok_stdout(&run(&["sweep", &path(GRAPH_DB), "--operator", "query"]));
    let json = json(&run(&[
        "sweep",
        &path(GRAPH_DB),
        "--operator",
        "query",
        "--format",
        "json",
    ]));
    let steps = json["steps"].as_array().map_or(0, Vec::len);
    assert_eq!(text.lines().count(), steps + 3, "{text}");
}

#[test]
fn explain_json_and_text() {
    let v = json(&run(&[
        "explain",
        &path(GRAPH_DB),
        "--operator",
        "query",
        "query_execution",
        "--format",
        "json",
    ]));
    assert_eq!(v["reason"], "recommended");
    assert_eq!(v["path"].as_array().map_or(0, Vec::len), 3);
    assert_eq!(v["critical"], 0.75);
    let v = json(&run(&[
        "explain",
        &path(GRAPH_DB),
        "--operator",
        "query",
        "--format",
        "json",
        "knowledge_retrieval",
    ]));
    assert_eq!(v["reason"], "blocked");
    assert_eq!(v["enter_at"], 0.35);
    assert_eq!(v["blocking"][0]["from"], "query_intention");
    let text = ok_stdout(&run(&[
        "explain",
        &path(GRAPH_DB),
        "--seeds",
        "query_intention",
        "--threshold",
        "0.7",
        "--hops",
        "1",
        "query_design",
    ]));
    assert!(text.contains("needs 2 hops (hops is 1)"), "{text}");
    let text = ok_stdout(&run(&[
        "explain",
        &path(GRAPH_DB),
        "--seeds",
        "query_intention",
        "query_intention",
    ]));
    assert!(text.contains("is a seed"), "{text}");
}

#[test]
fn explain_exit_codes() {
    let out = run(&[
        "explain",
        &path(GRAPH_DB),
        "--seeds",
        "query_intention",
        "no_such_node",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no node named"));
    let out = run(&["explain", &path(GRAPH_DB), "query_design"]);
    assert_eq!(out.status.code(), Some(2), "no seeds is a usage error");
    let out = run(&["explain", &path(GRAPH_DB), "--seeds", "query_intention"]);
    assert_eq!(out.status.code(), Some(2), "no node is a usage error");
    let out = run(&["explain", &path("no/such.yaml"), "--seeds", "a", "b"]);
    assert_eq!(out.status.code(), Some(1));
    let out = run(&[
        "sweep",
        &path(GRAPH_DB),
        "--seeds",
        "query_intention",
        "--hops",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn explain_says_one_hop_in_the_singular() {
    let text = ok_stdout(&run(&[
        "explain",
        &path(GRAPH_DB),
        "--seeds",
        "query_intention",
        "--threshold",
        "0.7",
        "--hops",
        "0",
        "condition_validation",
    ]));
    assert!(text.contains("it needs 1 hop (hops is 0)"), "{text}");
    assert!(!text.contains("1 hops"), "{text}");
}
