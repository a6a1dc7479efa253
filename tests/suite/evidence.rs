//! Token estimates, traces and `eval` through the real binary, on a hand-made toolkit
//! (tests/fixtures/evidence/toolkit.yaml) whose numbers are worked out below by hand.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::{Value, json};

fn path(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(rel)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}\n{}", stdout(out), stderr(out)))
}

const TK: &str = "tests/fixtures/evidence/toolkit.yaml";
const JSONL: &str = "tests/fixtures/evidence/traces.jsonl";
const OTLP: &str = "tests/fixtures/evidence/otlp.json";

/// `recommend`'s token estimate for seeds, threshold and hops.
fn rec_tokens(seeds: &str, t: &str, h: &str) -> u64 {
    let v = json_of(&run(&[
        "recommend",
        &path(TK),
        "--seeds",
        seeds,
        "-t",
        t,
        "--hops",
        h,
        "--format",
        "json",
    ]));
    v["tokens"].as_u64().expect("tokens")
}

/// `describe --tokens` for one set of seeds: the stderr total.
fn describe_tokens(extra: &[&str]) -> u64 {
    let mut args = vec!["describe", TK, "--style", "json", "--tokens"];
    args.extend_from_slice(extra);
    let p = path(TK);
    args[1] = &p;
    let out = run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let v = json_of(&out);
    assert!(v.is_array(), "describe JSON stays a bare array");
    let err = stderr(&out);
    let n = err
        .strip_prefix("tokens: ~")
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok());
    assert!(err.contains("an estimate"), "{err}");
    n.unwrap_or_else(|| panic!("no total in {err}"))
}

#[test]
fn token_estimates_agree_across_commands() {
    let xy = rec_tokens("a", "0.5", "1");
    assert_eq!(
        xy,
        describe_tokens(&["--seeds", "a", "-t", "0.5", "--hops", "1"])
    );
    let x = rec_tokens("a", "0.9", "0");
    assert!(x > 10 && x < xy, "{x} {xy}");
    // Sweep at hops 1: steps at 0.9 ({X}), 0.8 (action b, no new tool), 0.6 ({X, Y}) and
    // 0.3 ({X, Y, W}).
    let v = json_of(&run(&[
        "sweep",
        &path(TK),
        "--seeds",
        "a",
        "--hops",
        "1",
        "--format",
        "json",
    ]));
    let steps = v["steps"].as_array().expect("steps");
    let got: Vec<(f64, u64)> = steps
        .iter()
        .map(|s| {
            (
                s["threshold"].as_f64().unwrap_or(-1.0),
                s["tokens"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let xyw = rec_tokens("a", "0.3", "1");
    assert_eq!(got, vec![(0.9, x), (0.8, x), (0.6, xy), (0.3, xyw)]);
    // Another encoding is selectable and is named.
    let cl = json_of(&run(&[
        "recommend",
        &path(TK),
        "--operator",
        "op",
        "--format",
        "json",
        "--encoding",
        "cl100k_base",
    ]));
    assert_eq!(cl["tokens_encoding"], "cl100k_base");
    let text = stdout(&run(&["recommend", &path(TK), "--operator", "op"]));
    assert!(
        text.contains(&format!("tokens: ~{xy} (an estimate")),
        "{text}"
    );
    let none = json_of(&run(&[
        "recommend",
        &path(TK),
        "--operator",
        "op",
        "--format",
        "json",
        "--no-tokens",
    ]));
    assert!(
        none.get("tokens").is_none() && none["tools"].is_array(),
        "{none}"
    );
}

#[test]
fn lint_warns_about_an_expensive_tool_entry() {
    let out = run(&["lint", &path(TK), "--format", "json"]);
    assert!(
        !stdout(&out).contains("TS080"),
        "small entries pass the default limit"
    );
    let out = run(&[
        "lint",
        &path(TK),
        "--format",
        "json",
        "--max-tool-tokens",
        "20",
    ]);
    let v = json_of(&out);
    let ts080: Vec<&Value> = v["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["code"] == "TS080")
        .collect();
    assert_eq!(ts080.len(), 4, "{v}");
    assert_eq!(ts080[0]["severity"], "warning");
    assert_eq!(ts080[0]["line"], 5, "at the tool's declaration");
    assert!(
        ts080[0]["message"]
            .as_str()
            .unwrap_or("")
            .contains("estimated")
    );
    assert_eq!(out.status.code(), Some(0), "warnings do not fail lint");
}

fn eval(extra: &[&str]) -> Output {
    let (tk, traces) = (path(TK), path(JSONL));
    let mut args = vec!["eval", tk.as_str(), "--traces", traces.as_str()];
    args.extend_from_slice(extra);
    run(&args)
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-9)
}

#[test]
fn eval_jsonl_numbers_by_hand() {
    let out = eval(&["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("traces.jsonl:4:2: error TS081"), "{err}");
    assert!(err.contains("traces.jsonl:7:1: warning TS082"), "{err}");
    let v = json_of(&out);
    let xy = rec_tokens("a", "0.5", "1") as f64;
    let z = rec_tokens("c", "0.6", "0") as f64;
    let op = &v["operators"][0];
    // op at 0.5, hops 1 offers {X, Y}. Calls {X}, {X, Z} (+1 unknown), {}, {Y}.
    assert_eq!(op["operator"], "op");
    assert_eq!(
        (op["threshold"].clone(), op["hops"].clone()),
        (json!(0.5), json!(1))
    );
    assert_eq!(
        (op["records"].clone(), op["with_calls"].clone()),
        (json!(4), json!(3))
    );
    assert!(close(&op["recall"], 2.5 / 3.0), "{op}");
    assert!(close(&op["complete"], 2.0 / 3.0));
    assert!(close(&op["precision"], 0.5));
    assert!(close(&op["offered_tools"], 2.0));
    assert!(close(&op["tokens"], xy));
    assert_eq!(op["unknown_calls"], 1);
    assert_eq!(op["never_called"], json!([]));
    assert_eq!(op["called_not_offered"], json!(["Z"]));
    let c = &v["operators"][1];
    assert_eq!(c["operator"], "seeds:c");
    assert!(close(&c["recall"], 0.5) && close(&c["complete"], 0.0) && close(&c["precision"], 1.0));
    let o = &v["overall"];
    assert_eq!(
        (o["records"].clone(), o["with_calls"].clone()),
        (json!(5), json!(4))
    );
    assert!(
        close(&o["recall"], 0.75) && close(&o["complete"], 0.5) && close(&o["precision"], 0.625)
    );
    assert!(close(&o["offered_tools"], 1.8));
    assert!(close(&o["tokens"], (4.0 * xy + z) / 5.0));
    assert_eq!(o["called_not_offered"], json!(["W", "Z"]));
    assert!(
        v["operators"][0].get("steps").is_none(),
        "steps only with --sweep"
    );
}

#[test]
fn eval_sweep_suggests_the_cheapest_complete_parameters() {
    let v = json_of(&eval(&["--format", "json", "--sweep", "--operator", "op"]));
    assert_eq!(v["operators"].as_array().map(Vec::len), Some(1));
    let op = &v["operators"][0];
    let thresholds: Vec<f64> = op["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter_map(|s| s["threshold"].as_f64())
        .collect();
    assert_eq!(thresholds, vec![0.9, 0.6, 0.3]);
    // Completeness needs Z, two hops away: hops 2 at 0.4 offers {X, Y, Z}.
    let xyz = rec_tokens("a", "0.4", "2") as f64;
    assert_eq!(op["suggested"]["threshold"], 0.4);
    assert_eq!(op["suggested"]["hops"], 2);
    assert_eq!(op["suggested"]["complete"], 1.0);
    assert!(close(&op["suggested"]["tokens"], xyz));
}

#[test]
fn eval_gates_set_the_exit_code() {
    let out = eval(&["--min-complete", "0.6"]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("gate: overall: complete 0.500 < 0.6"), "{err}");
    assert!(err.contains("gate: seeds:c"), "{err}");
    assert!(!err.contains("gate: op:"), "{err}");
    assert_eq!(
        eval(&["--min-complete", "0.6", "--operator", "op"])
            .status
            .code(),
        Some(0)
    );
    let out = eval(&["--max-tokens", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("tokens > 1"));
    assert_eq!(eval(&["--max-tokens", "100000"]).status.code(), Some(0));
    assert_eq!(eval(&["--operator", "ghost"]).status.code(), Some(1));
    let missing = run(&["eval", &path(TK), "--traces", "/nonexistent/t.jsonl"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        run(&["eval", &path(TK)]).status.code(),
        Some(2),
        "--traces is required"
    );
}

#[test]
fn eval_text_has_a_table_and_the_tools_never_called() {
    let out = eval(&["--sweep"]);
    let text = stdout(&out);
    assert!(text.starts_with("operator "), "{text}");
    assert!(text.contains("\nop "), "{text}");
    assert!(text.contains("(overall)"), "{text}");
    assert!(text.contains("never called: (none)"), "{text}");
    assert!(
        text.contains("suggested (fewest tokens keeping complete 1.00): threshold 0.4, hops 2"),
        "{text}"
    );
    assert!(text.contains("an estimate (o200k_base)"), "{text}");
}

#[test]
fn eval_reads_a_hand_written_otlp_export() {
    let out = run(&[
        "eval",
        &path(TK),
        "--traces",
        &path(OTLP),
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_of(&out);
    let op = &v["operators"][0];
    // Invocation 1 called X and (in a later batch) Y: both offered. Invocation 2 called Z.
    assert_eq!(
        (op["records"].clone(), op["with_calls"].clone()),
        (json!(2), json!(2))
    );
    assert!(
        close(&op["recall"], 0.5) && close(&op["complete"], 0.5) && close(&op["precision"], 0.5)
    );
    assert_eq!(op["called_not_offered"], json!(["Z"]));
    // Forcing JSONL on the OTLP file: every line is a bad record.
    let out = run(&[
        "eval",
        &path(TK),
        "--traces",
        &path(OTLP),
        "--traces-format",
        "jsonl",
        "--format",
        "json",
    ]);
    assert_eq!(stderr(&out).matches("TS081").count(), 2, "{}", stderr(&out));
    assert_eq!(json_of(&out)["overall"]["records"], 0);
    // Another operator attribute finds no operator: the runs naming none are reported once,
    // with the option that would read them.
    let out = run(&[
        "eval",
        &path(TK),
        "--traces",
        &path(OTLP),
        "--operator-attr",
        "x.op",
    ]);
    let err = stderr(&out);
    assert_eq!(err.matches("TS084").count(), 1, "{err}");
    assert!(err.contains("--operator-attr gen_ai.agent.name"), "{err}");
}

fn fit(tk: &str, extra: &[&str]) -> Output {
    let traces = path(JSONL);
    let mut args = vec!["fit", tk, "--traces", traces.as_str()];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn fit_prints_the_diff_and_writes_losslessly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().join("toolkit.yaml");
    std::fs::copy(path(TK), &copy).expect("copy");
    let copy = copy.display().to_string();
    let original = std::fs::read_to_string(&copy).expect("read");
    // By hand: op's 4 records reach a and b at threshold 0 (hops 1); a->X called in 2,
    // a->W in 0, b->Y in 1; seeds c (hops 0) reaches c, c->Z called in 1 of 1.
    // (calls + 2 s0) / (present + 2): X 3.8/6 = 0.63, W 0.6/6 = 0.1, Y 2.2/6 = 0.37 held at
    // the floor 0.5 (offered and called at op's 0.5), Z 2.4/3 = 0.8.
    let out = fit(&copy, &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v = json_of(&out);
    let edges: Vec<(String, String, f64)> = v["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or("").to_string();
            (s("from"), s("to"), e["new"].as_f64().unwrap_or(-1.0))
        })
        .collect();
    let want = [
        ("a", "W", 0.1),
        ("a", "X", 0.63),
        ("b", "Y", 0.5),
        ("c", "Z", 0.8),
    ];
    let want: Vec<(String, String, f64)> = want
        .iter()
        .map(|(a, b, s)| (a.to_string(), b.to_string(), *s))
        .collect();
    assert_eq!(edges, want);
    let diff = v["diff"].as_str().unwrap_or("");
    assert!(
        diff.contains("-    tools: [{name: X, score: 0.9}, {name: W, score: 0.3}]\n"),
        "{diff}"
    );
    assert!(
        diff.contains("+    tools: [{name: X, score: 0.63}, {name: W, score: 0.1}]\n"),
        "{diff}"
    );
    assert!(
        diff.contains("+    tools: [{name: Z, score: 0.8}]\n"),
        "{diff}"
    );
    assert_eq!(v["written"], false);
    assert_eq!(
        std::fs::read_to_string(&copy).expect("read"),
        original,
        "dry run"
    );
    // Completeness on the fitted records does not drop.
    let before = v["fitted"]["before"]["operators"].clone();
    let after = v["fitted"]["after"]["operators"].clone();
    for (b, a) in before
        .as_array()
        .into_iter()
        .flatten()
        .zip(after.as_array().into_iter().flatten())
    {
        assert!(a["complete"].as_f64() >= b["complete"].as_f64(), "{b} {a}");
    }
    // The text mode prints the same diff on stdout.
    let text = fit(&copy, &[]);
    assert_eq!(stdout(&text), diff);
    assert!(
        stderr(&text).contains(
            "4 Call score(s) and 0 Next score(s) fitted (0 Next edge(s) added) (not written"
        ),
        "{}",
        stderr(&text)
    );
    // --write: the file changes by exactly the diff (comments kept) and loads back.
    let out = fit(&copy, &["--write", "--holdout", "0.2"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("held out ("), "{}", stderr(&out));
    let written = std::fs::read_to_string(&copy).expect("read");
    assert_ne!(written, original);
    assert!(written.starts_with("# A hand-made toolkit"), "{written}");
    let v = json_of(&run(&[
        "recommend",
        &copy,
        "--operator",
        "op",
        "--format",
        "json",
    ]));
    assert!(v["tools"].as_array().is_some_and(|t| !t.is_empty()));
}

#[test]
fn fit_with_holdout_reports_both_sets() {
    let v = json_of(&fit(&path(TK), &["--format", "json", "--holdout", "0.2"]));
    let fitted = v["fitted"]["records"].as_u64().unwrap_or(0);
    let held = v["holdout"]["records"].as_u64().unwrap_or(0);
    assert_eq!(fitted + held, 5, "{v}");
    assert!(v["holdout"]["before"]["overall"].is_object());
    assert!(v["holdout"]["after"]["overall"].is_object());
    let plain = json_of(&fit(&path(TK), &["--format", "json"]));
    assert_eq!(plain["holdout"], Value::Null);
}

#[test]
fn hostile_trace_lines_are_reported_and_the_rest_count() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("t.jsonl");
    let mut bytes = b"{\"operator\": \"op\", \"called\": [\"X\"]}\n".to_vec();
    bytes.extend_from_slice(b"{\"operator\": \"op\", \"called\": [\"\xff\"]}\n");
    // A raw control character is invalid JSON (line 3); escaped, it is just an unknown name.
    bytes.extend_from_slice(b"{\"operator\": \"op\", \"called\": [\"\x1b[31mred\"]}\n");
    bytes.extend_from_slice(b"{\"operator\": \"op\", \"called\": [\"\\u001b[31mred\"]}\n");
    bytes.extend_from_slice(&[b'['; 10_000]);
    bytes.extend_from_slice(b"\n{\"operator\": \"op\", \"called\": [\"Y\"]}\n");
    std::fs::write(&file, bytes).expect("write");
    let out = run(&["eval", &path(TK), "--traces", &file.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("t.jsonl:2:"), "not UTF-8: {err}");
    assert!(err.contains("t.jsonl:3:"), "raw control character: {err}");
    assert!(err.contains("t.jsonl:5:"), "too deep: {err}");
    let text = stdout(&out);
    assert!(
        !text.contains('\u{1b}') && !err.contains('\u{1b}'),
        "escape sequences never reach the terminal"
    );
    let v = json_of(&run(&[
        "eval",
        &path(TK),
        "--traces",
        &file.display().to_string(),
        "--format",
        "json",
    ]));
    assert_eq!(v["overall"]["records"], 3, "{v}");
    assert_eq!(v["overall"]["unknown_calls"], 1);
}

#[test]
fn eval_and_fit_on_a_chat2graph_config() {
    let dir = tempfile::tempdir().expect("tempdir");
    let copy = dir.path().join("c2g.yml");
    std::fs::copy(path("toolkits/chat2graph-mini.yml"), &copy).expect("copy");
    let traces = dir.path().join("t.jsonl");
    std::fs::write(
        &traces,
        "{\"operator\": \"Query Expert/1\", \"called\": [\"CypherExecutor\"]}\n\
         {\"operator\": \"Query Expert/1\", \"called\": [\"CypherExecutor\", \"SchemaGetter\"]}\n",
    )
    .expect("write");
    let (c, t) = (copy.display().to_string(), traces.display().to_string());
    let v = json_of(&run(&[
        "eval", &c, "--traces", &t, "--format", "json", "--sweep",
    ]));
    assert_eq!(v["operators"][0]["operator"], "Query Expert/1", "{v}");
    assert_eq!(v["operators"][0]["records"], 2);
    let before = std::fs::read_to_string(&copy).expect("read");
    let out = run(&["fit", &c, "--traces", &t, "--write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = std::fs::read_to_string(&copy).expect("read");
    assert!(
        after.starts_with("# A small agentic config"),
        "comments kept"
    );
    let changed = stderr(&out).contains("written") && before != after;
    let none = stderr(&out).starts_with("0 Call scores fitted");
    assert!(changed || none, "{}", stderr(&out));
    // The written file still loads and the fitted records are no less complete.
    let v2 = json_of(&run(&["eval", &c, "--traces", &t, "--format", "json"]));
    assert!(v2["overall"]["complete"].as_f64() >= v["overall"]["complete"].as_f64());
}
