//! Traces written by the real instrumentation libraries (issue 43), read by the real
//! binary: `eval kit.yml --traces F --steps --per-step --format json` on each file of
//! tests/fixtures/otlp-libs (made by benches/otlp-libs, one pinned environment per
//! library), checked against the ground truth the generator wrote beside them
//! (`expected.json`: each run's agent, its calls in order, what it offered, its trace id).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/otlp-libs")
}

fn expected() -> Value {
    let text = std::fs::read_to_string(dir().join("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("expected.json is JSON")
}

fn eval(file: &str, extra: &[&str]) -> Output {
    let d = dir();
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .arg("eval")
        .arg(d.join("kit.yml"))
        .arg("--traces")
        .arg(d.join(file))
        .args(["--steps", "--per-step", "--format", "json"])
        .args(extra)
        .output()
        .expect("binary runs")
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Each run (by number) of the scenario: its agent, calls in order and tools offered.
fn scenario(exp: &Value) -> BTreeMap<u64, (String, Vec<String>, Vec<String>)> {
    exp["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| {
            (
                r["run"].as_u64().expect("run number"),
                (
                    r["agent"].as_str().expect("agent").to_string(),
                    strings(&r["calls"]),
                    strings(&r["offered"]),
                ),
            )
        })
        .collect()
}

/// What the binary read from one file: records per operator, and per record id (in
/// order) its calls and the `available` of its entries.
struct Read {
    records: u64,
    per_operator: BTreeMap<String, u64>,
    runs: Vec<(String, Vec<String>, Value)>,
    stderr: String,
}

fn read(file: &str) -> Read {
    let out = eval(file, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{file}: {stderr}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    let per_operator = v["operators"]
        .as_array()
        .expect("operators")
        .iter()
        .map(|o| {
            (
                o["operator"].as_str().unwrap_or("").to_string(),
                o["records"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let mut runs: Vec<(String, Vec<String>, Value)> = Vec::new();
    for e in v["per_step"].as_array().expect("per_step") {
        let id = e["id"].as_str().expect("an id on every entry").to_string();
        let step = e["step"].as_u64().expect("step") as usize;
        if runs.last().is_none_or(|r| r.0 != id) {
            runs.push((id.clone(), Vec::new(), e["available"].clone()));
        }
        let run = runs.last_mut().expect("pushed");
        assert_eq!(run.1.len(), step, "{file}: {id}: steps in order");
        assert_eq!(run.2, e["available"], "{file}: {id}: one `available` a run");
        run.1.push(e["next"].as_str().expect("next").to_string());
    }
    Read {
        records: v["overall"]["records"].as_u64().expect("records"),
        per_operator,
        runs,
        stderr,
    }
}

/// Every file: one record per run with its agent, every call read in order under the
/// run's trace id, `available` right where the spans carry it (`null` where they do
/// not), and nothing on stderr; the file whose calls cannot be read says so.
#[test]
fn every_library_file_reads_as_its_runs() {
    let exp = expected();
    let runs = scenario(&exp);
    let files = exp["files"].as_object().expect("files");
    assert!(files.len() >= 8, "the fixtures of issue 43's table");
    for (file, fe) in files {
        let got = read(file);
        let in_file: Vec<(&str, u64)> = fe["runs"]
            .as_array()
            .expect("runs of the file")
            .iter()
            .map(|r| {
                (
                    r["trace_id"].as_str().expect("trace id"),
                    r["run"].as_u64().expect("run"),
                )
            })
            .collect();
        assert_eq!(got.records, in_file.len() as u64, "{file}: records = runs");
        let mut agents: BTreeMap<String, u64> = BTreeMap::new();
        for (_, n) in &in_file {
            *agents.entry(runs[n].0.clone()).or_insert(0) += 1;
        }
        assert_eq!(got.per_operator, agents, "{file}: each run under its agent");
        let offered = fe["offered_recorded"].as_bool().expect("offered_recorded");
        if !fe["calls_readable"].as_bool().expect("calls_readable") {
            assert!(got.runs.is_empty(), "{file}: no call to read");
            let lines: Vec<&str> = got.stderr.lines().collect();
            assert_eq!(lines.len(), 1, "{file}: one line: {}", got.stderr);
            assert!(
                lines[0].contains("TS085")
                    && lines[0].contains("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"),
                "{file}: {}",
                got.stderr
            );
            continue;
        }
        assert_eq!(got.stderr, "", "{file}: nothing to say");
        let want: Vec<(&str, &Vec<String>, &Vec<String>)> = in_file
            .iter()
            .filter(|(_, n)| !runs[n].1.is_empty())
            .map(|(t, n)| (*t, &runs[n].1, &runs[n].2))
            .collect();
        assert_eq!(got.runs.len(), want.len(), "{file}: the runs with calls");
        let mut total = 0;
        for ((id, calls, available), (trace, want_calls, want_offered)) in
            got.runs.iter().zip(&want)
        {
            assert_eq!(id, trace, "{file}: the id is the trace id");
            assert_eq!(calls, *want_calls, "{file}: {id}: calls in order");
            total += calls.len();
            if offered {
                assert_eq!(
                    strings(available),
                    **want_offered,
                    "{file}: {id}: available"
                );
            } else {
                assert_eq!(available, &Value::Null, "{file}: {id}: not carried");
            }
        }
        assert_eq!(total, 25, "{file}: 25 of 25 calls");
    }
}

/// OpenAI Agents names its agents in `agent.name` under an unnamed AGENT root; read with
/// that attribute only, as before the defaults, the runs are the same; with an attribute
/// no span has, the runs name no agent, and the one diagnostic says which options would
/// read them; `--default-operator` then reads them as that operator's runs.
#[test]
fn operator_options_choose_how_runs_are_named() {
    let file = "openai-agents.jsonl";
    let chosen = eval(file, &["--operator-attr", "agent.name"]);
    assert_eq!(chosen.stdout, eval(file, &[]).stdout);
    let none = eval(file, &["--operator-attr", "x.agent"]);
    let err = String::from_utf8_lossy(&none.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("TS084")
            && err.contains("8 run(s) name no agent")
            && err.contains("--operator-attr agent.name")
            && err.contains("--default-operator"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(&none.stdout).expect("JSON");
    assert_eq!(v["overall"]["records"], 0);
    let named = eval(
        file,
        &[
            "--operator-attr",
            "x.agent",
            "--default-operator",
            "analyst",
        ],
    );
    let v: Value = serde_json::from_slice(&named.stdout).expect("JSON");
    assert_eq!(v["overall"]["records"], 8);
    assert_eq!(v["operators"][0]["operator"], "analyst");
    assert_eq!(v["per_step"].as_array().map(Vec::len), Some(25));
}

/// `export --replay` (as `:replay`) names a run by its trace id, the id Langfuse and
/// Phoenix show.
#[test]
fn a_run_is_named_by_its_trace_id() {
    let exp = expected();
    let fe = &exp["files"]["openai-v2.jsonl"];
    let trace = fe["runs"][1]["trace_id"].as_str().expect("trace id");
    let d = dir();
    let out = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .arg("export")
        .arg(d.join("kit.yml"))
        .args(["--to", "svg", "--replay", trace, "1", "--traces"])
        .arg(d.join("openai-v2.jsonl"))
        .output()
        .expect("binary runs");
    let svg = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(svg.contains("record 2, step 1 of 3"), "{svg}");
}
