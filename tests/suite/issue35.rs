//! Issue 35 (round four: init, steps, export, traces under attack) and the reader side of
//! issue 31 (per-step offers, `gen_ai.tool.definitions`), through the real binary.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::common::rng;
use rng::Rng;

const BIN: &str = env!("CARGO_BIN_EXE_toolscope");
const TK: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/evidence/toolkit.yaml"
);

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("runs")
}

/// Runs `toolscope ARGS` under `ulimit -v` (KB), killed after `secs`.
fn run_capped(limit_kb: usize, secs: u32, args: &[&str]) -> Output {
    let quoted: Vec<String> = args.iter().map(|a| format!("'{a}'")).collect();
    let script = format!(
        "ulimit -v {limit_kb} && exec timeout -s KILL {secs} '{BIN}' {}",
        quoted.join(" ")
    );
    Command::new("sh")
        .args(["-c", &script])
        .output()
        .expect("runs sh")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json_out(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} {}", String::from_utf8_lossy(&o.stdout), stderr(o)))
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

// ---------------------------------------------------------------- item 17: the gates

#[test]
fn max_tokens_nan_is_refused_like_every_gate() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    std::fs::write(&t, "{\"operator\": \"op\", \"called\": [\"X\"]}\n").unwrap();
    for extra in [&[][..], &["--steps"][..]] {
        let mut args = vec!["eval", TK, "--traces", s(&t), "--max-tokens", "nan"];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("nan"), "{}", stderr(&o));
    }
}

#[test]
fn gates_over_no_evidence_fail_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let cases: [&[&str]; 4] = [
        &["--min-complete", "0.5"],
        &["--max-tokens", "1000"],
        &["--steps", "--min-recall", "0.5"],
        &["--steps", "--max-tokens", "1000"],
    ];
    for gate in cases {
        let mut args = vec!["eval", TK, "--traces", s(&empty)];
        args.extend_from_slice(gate);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{gate:?} passed on nothing");
        assert!(
            stderr(&o).contains("a gate needs evidence"),
            "{}",
            stderr(&o)
        );
    }
    // No gate: an empty file is no failure.
    assert!(run(&["eval", TK, "--traces", s(&empty)]).status.success());
}

// ------------------------------------------------- item 6: bad lines, kept by the thousand

#[test]
fn ten_megabytes_of_bad_lines_keep_a_thousand_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("bad.jsonl");
    let mut text = String::from("{\"operator\": \"op\", \"called\": [\"X\"]}\n");
    while text.len() < 10 << 20 {
        text.push_str("{\"operator\": 7, \"called\": [\"no\"], \"pad\": \"...........\"}\n");
    }
    let bad = text.lines().count() - 1;
    std::fs::write(&t, &text).unwrap();
    // 948 MB before; now the diagnostics are a thousand lines.
    let o = run_capped(
        300 << 10,
        300,
        &["eval", TK, "--traces", s(&t), "--format", "json"],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{}", &err[..err.len().min(2000)]);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("TS081")).collect();
    assert_eq!(lines.len(), 1001, "{}", &err[..err.len().min(500)]);
    let last = lines[lines.len() - 1];
    assert!(
        last.contains(&format!("{} more diagnostic(s)", bad - 1000)),
        "{last}"
    );
    assert_eq!(json_out(&o)["overall"]["records"], 1);
}

// ------------------------------------------- item 5: step contexts count against the limit

#[test]
fn step_contexts_are_bounded_by_the_trace_limit() {
    let dir = tempfile::tempdir().unwrap();
    let mut kit = String::from("actions:\n");
    for i in 0..200 {
        kit.push_str(&format!("  - {{name: a{i}, tools: [t{i}]}}\n"));
    }
    kit.push_str("operators:\n  - {name: op, actions: [a0]}\n");
    let k = dir.path().join("kit.yaml");
    std::fs::write(&k, kit).unwrap();
    // 4 records of 20,000 random calls (480 KB): every window of 100 calls is a new
    // context, about 120 times the file kept, so past a bound of 8 MiB (set through the
    // environment, as a user with a larger machine raises the default 1024 MiB; at the
    // default the same shape needs 11 MB of traces and ran 14 minutes in a debug build).
    let mut rng = Rng(35);
    let t = dir.path().join("long.jsonl");
    let mut text = String::new();
    for _ in 0..4 {
        let calls: Vec<String> = (0..20_000)
            .map(|_| format!("\"t{}\"", rng.below(200)))
            .collect();
        text.push_str(&format!(
            "{{\"operator\": \"op\", \"calls\": [{}]}}\n",
            calls.join(",")
        ));
    }
    std::fs::write(&t, &text).unwrap();
    let eval = |context: Option<&str>, mib: &str| {
        let mut args = vec!["eval", s(&k), "--traces", s(&t), "--steps"];
        if let Some(c) = context {
            args.extend(["--context", c]);
        }
        args.extend(["--format", "json"]);
        Command::new(BIN)
            .args(&args)
            .env("TOOLSCOPE_TRACE_MEMORY_MIB", mib)
            .output()
            .expect("runs")
    };
    let o = eval(Some("100"), "8");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("more than the limit of 8 MiB"), "{err}");
    // A short context over the same file fits.
    let o = eval(None, "8");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json_out(&o)["overall"]["steps"], 4 * 19_999);
    // A bound that is not a number of MiB is refused, naming the variable.
    let o = eval(None, "lots");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("TOOLSCOPE_TRACE_MEMORY_MIB"),
        "{}",
        stderr(&o)
    );
}

// ---------------------------------------------------- issue 31 item 4: `per_step`

/// A random kit: its actions' Call and Next edges, and an operator.
struct Kit {
    actions: usize,
    tools: usize,
    call: BTreeMap<(usize, usize), f64>,
    next: BTreeMap<(usize, usize), f64>,
    seeds: Vec<usize>,
    threshold: f64,
    hops: u32,
}

impl Kit {
    fn random(rng: &mut Rng) -> Kit {
        let actions = 2 + rng.below(7);
        let tools = 2 + rng.below(7);
        let scores = [0.1, 0.25, 0.5, 0.75, 1.0];
        let mut call = BTreeMap::new();
        let mut next = BTreeMap::new();
        for a in 0..actions {
            for _ in 0..rng.below(3) + 1 {
                call.insert((a, rng.below(tools)), scores[rng.below(5)]);
            }
            for _ in 0..rng.below(3) {
                next.insert((a, rng.below(actions)), scores[rng.below(5)]);
            }
        }
        let mut seeds: Vec<usize> = (0..1 + rng.below(2)).map(|_| rng.below(actions)).collect();
        seeds.sort();
        seeds.dedup();
        Kit {
            actions,
            tools,
            call,
            next,
            seeds,
            threshold: [0.0, 0.3, 0.5, 0.7][rng.below(4)],
            hops: rng.below(4) as u32,
        }
    }

    fn yaml(&self) -> String {
        let mut out = String::from("tools:\n");
        for t in 0..self.tools {
            out.push_str(&format!("  - {{name: T{t}}}\n"));
        }
        out.push_str("actions:\n");
        for a in 0..self.actions {
            let tools: Vec<String> = self
                .call
                .iter()
                .filter(|((x, _), _)| *x == a)
                .map(|((_, t), s)| format!("{{name: T{t}, score: {s}}}"))
                .collect();
            let next: Vec<String> = self
                .next
                .iter()
                .filter(|((x, _), _)| *x == a)
                .map(|((_, b), s)| format!("{{name: a{b}, score: {s}}}"))
                .collect();
            out.push_str(&format!(
                "  - {{name: a{a}, tools: [{}], next: [{}]}}\n",
                tools.join(", "),
                next.join(", ")
            ));
        }
        let seeds: Vec<String> = self.seeds.iter().map(|a| format!("a{a}")).collect();
        out.push_str(&format!(
            "operators:\n  - {{name: op, actions: [{}], threshold: {}, hops: {}}}\n",
            seeds.join(", "),
            self.threshold,
            self.hops
        ));
        out
    }

    /// The tools offered from `seeds` (action numbers), by the definition: the actions
    /// within `hops` Next edges scored at least the threshold, then their Call edges
    /// scored at least the threshold.
    fn offer(&self, seeds: &BTreeSet<usize>, t: f64, hops: u32) -> BTreeSet<usize> {
        let mut reached = seeds.clone();
        let mut frontier = seeds.clone();
        for _ in 0..hops {
            let mut more = BTreeSet::new();
            for (&(a, b), &score) in &self.next {
                if frontier.contains(&a) && score >= t && !reached.contains(&b) {
                    more.insert(b);
                }
            }
            reached.extend(&more);
            frontier = more;
        }
        self.call
            .iter()
            .filter(|((a, _), s)| reached.contains(a) && **s >= t)
            .map(|((_, x), _)| *x)
            .collect()
    }

    /// The actions calling any of `tools` (at any score): a step's seeds.
    fn callers(&self, tools: &BTreeSet<usize>) -> BTreeSet<usize> {
        self.call
            .keys()
            .filter(|(_, x)| tools.contains(x))
            .map(|(a, _)| *a)
            .collect()
    }
}

/// A tool's number from its name (`None` for a name the kit does not have).
fn tool_no(kit: &Kit, name: &str) -> Option<usize> {
    name.strip_prefix('T')?
        .parse()
        .ok()
        .filter(|&n: &usize| n < kit.tools)
}

#[test]
fn per_step_offers_match_a_brute_force_from_the_edges() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng(0x31_04);
    let mut checked = 0;
    for round in 0..12 {
        let kit = Kit::random(&mut rng);
        let k = dir.path().join(format!("kit{round}.yaml"));
        std::fs::write(&k, kit.yaml()).unwrap();
        let mut lines = Vec::new();
        let mut records = Vec::new();
        for r in 0..6 {
            let calls: Vec<String> = (0..1 + rng.below(6))
                .map(|_| match rng.below(8) {
                    0 => "Nope".to_string(),
                    _ => format!("T{}", rng.below(kit.tools)),
                })
                .collect();
            let mut rec = json!({"operator": "op", "calls": calls, "id": format!("r{r}")});
            let available = match rng.below(3) {
                0 => None,
                1 => Some(Vec::new()),
                _ => Some(
                    (0..kit.tools)
                        .filter(|_| rng.coin())
                        .map(|t| format!("T{t}"))
                        .collect::<Vec<_>>(),
                ),
            };
            if let Some(a) = &available {
                rec["available"] = json!(a);
            }
            if rng.below(4) == 0 {
                rec["threshold"] = json!(0.2);
                rec["hops"] = json!(1);
            }
            lines.push(rec.to_string());
            records.push(rec);
        }
        // A record without order gives no steps but keeps its number.
        lines.insert(2, "{\"operator\": \"op\", \"called\": [\"T0\"]}".into());
        records.insert(2, Value::Null);
        let t = dir.path().join(format!("runs{round}.jsonl"));
        std::fs::write(&t, lines.join("\n") + "\n").unwrap();
        let context = 1 + rng.below(3);
        let o = run(&[
            "eval",
            s(&k),
            "--traces",
            s(&t),
            "--steps",
            "--per-step",
            "--context",
            &context.to_string(),
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let got = json_out(&o)["per_step"]
            .as_array()
            .expect("per_step")
            .clone();
        let mut want = Vec::new();
        for (i, rec) in records.iter().enumerate() {
            let Some(calls) = rec.get("calls").and_then(Value::as_array) else {
                continue;
            };
            let calls: Vec<&str> = calls.iter().map(|c| c.as_str().unwrap()).collect();
            let t = rec["threshold"].as_f64().unwrap_or(kit.threshold);
            let hops = rec["hops"].as_u64().map_or(kit.hops, |h| h as u32);
            let available: Option<BTreeSet<usize>> = rec.get("available").map(|a| {
                a.as_array()
                    .unwrap()
                    .iter()
                    .filter_map(|n| tool_no(&kit, n.as_str().unwrap()))
                    .collect()
            });
            for (n, next) in calls.iter().enumerate() {
                let after = &calls[n.saturating_sub(context)..n];
                let seeds = if n == 0 {
                    kit.seeds.iter().copied().collect()
                } else {
                    kit.callers(&after.iter().filter_map(|c| tool_no(&kit, c)).collect())
                };
                let offered: BTreeSet<usize> = kit
                    .offer(&seeds, t, hops)
                    .into_iter()
                    .filter(|x| available.as_ref().is_none_or(|a| a.contains(x)))
                    .collect();
                let names: BTreeSet<String> = offered.iter().map(|x| format!("T{x}")).collect();
                let hit = tool_no(&kit, next).is_some_and(|x| offered.contains(&x));
                want.push((
                    i + 1,
                    rec["id"].clone(),
                    n,
                    after.to_vec(),
                    *next,
                    names,
                    hit,
                ));
            }
        }
        assert_eq!(got.len(), want.len(), "round {round}: {got:?}");
        for (g, w) in got.iter().zip(&want) {
            let offered: BTreeSet<String> = g["offered"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect();
            let after: Vec<&str> = g["after"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            assert_eq!(
                (
                    g["record"].as_u64().unwrap() as usize,
                    g["id"].clone(),
                    g["step"].as_u64().unwrap() as usize,
                    after,
                    g["next"].as_str().unwrap(),
                    offered,
                    g["hit"].as_bool().unwrap(),
                ),
                (w.0, w.1.clone(), w.2, w.3.clone(), w.4, w.5.clone(), w.6),
                "round {round}:\n{}",
                kit.yaml()
            );
            checked += 1;
        }
        // The per-step hits agree with the report's counts (step 0 apart).
        let report = json_out(&o);
        let hits = got
            .iter()
            .filter(|g| g["step"] != 0 && g["hit"] == true)
            .count();
        assert_eq!(report["overall"]["hits"], hits, "round {round}");
    }
    assert!(checked > 100, "{checked} steps checked");
}

#[test]
fn per_step_needs_json() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    std::fs::write(&t, "{\"operator\": \"op\", \"calls\": [\"X\", \"Y\"]}\n").unwrap();
    let o = run(&["eval", TK, "--traces", s(&t), "--steps", "--per-step"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--format json"), "{}", stderr(&o));
}

// ------------------------------- issue 31 item 6, issue 35 items 16, 18, 19: traces read

/// An OTLP line: operator `op`, a chat span carrying `defs` (the attribute's value), and
/// tool calls `calls` (name, start time or none).
fn otlp_line(defs: &Value, calls: &[(&str, Option<u64>)]) -> String {
    let attr = |k: &str, v: Value| json!({"key": k, "value": v});
    let sv = |s: &str| json!({"stringValue": s});
    let mut spans = vec![
        json!({"traceId": "t", "spanId": "op", "attributes": [attr("gen_ai.agent.name", sv("op"))]}),
        json!({"traceId": "t", "spanId": "llm", "parentSpanId": "op", "attributes": [
            attr("gen_ai.operation.name", sv("chat")),
            attr("gen_ai.tool.definitions", defs.clone()),
        ]}),
    ];
    for (i, (name, start)) in calls.iter().enumerate() {
        let mut span = json!({"traceId": "t", "spanId": format!("c{i}"), "parentSpanId": "op",
            "attributes": [attr("gen_ai.operation.name", sv("execute_tool")), attr("gen_ai.tool.name", sv(name))]});
        if let Some(t) = start {
            span["startTimeUnixNano"] = json!(t.to_string());
        }
        spans.push(span);
    }
    json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).to_string()
}

#[test]
fn otlp_tool_definitions_are_the_available_tools_in_both_forms() {
    let dir = tempfile::tempdir().unwrap();
    let defs =
        json!([{"type": "function", "function": {"name": "X"}}, {"type": "function", "name": "Y"}]);
    let string_form = json!({"stringValue": defs.to_string()});
    let kv = |k: &str, v: Value| json!({"key": k, "value": v});
    let array_form = json!({"arrayValue": {"values": [
        {"kvlistValue": {"values": [kv("type", json!({"stringValue": "function"})),
            kv("function", json!({"kvlistValue": {"values": [kv("name", json!({"stringValue": "X"}))]}}))]}},
        {"kvlistValue": {"values": [kv("name", json!({"stringValue": "Y"}))]}},
    ]}});
    for (form, value) in [("string", string_form), ("array", array_form)] {
        let t = dir.path().join(format!("{form}.json"));
        // Z is called but was not given to the model: never offered, never available.
        let line = otlp_line(&value, &[("X", Some(1)), ("Y", Some(2)), ("Z", Some(3))]);
        std::fs::write(&t, line + "\n").unwrap();
        let o = run(&[
            "eval",
            TK,
            "--traces",
            s(&t),
            "--steps",
            "--per-step",
            "--format",
            "json",
        ]);
        assert!(o.status.success(), "{form}: {}", stderr(&o));
        let v = json_out(&o);
        // The baseline offers what was available: two tools a step, not all four.
        assert_eq!(
            v["overall"]["baseline"]["offered_tools"], 2.0,
            "{form}: {v}"
        );
        for step in v["per_step"].as_array().unwrap() {
            for x in step["offered"].as_array().unwrap() {
                assert!(x == "X" || x == "Y", "{form}: {step}");
            }
        }
        let last = &v["per_step"][2];
        assert_eq!(
            (last["next"].as_str(), last["hit"].as_bool()),
            (Some("Z"), Some(false))
        );
    }
}

#[test]
fn otlp_untimed_spans_keep_their_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.json");
    let line = otlp_line(
        &json!({"stringValue": "[]"}),
        &[("X", Some(100)), ("Y", None), ("Z", Some(50)), ("W", None)],
    );
    std::fs::write(&t, line + "\n").unwrap();
    let o = run(&[
        "eval",
        TK,
        "--traces",
        s(&t),
        "--steps",
        "--per-step",
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = json_out(&o);
    let order: Vec<&str> = v["per_step"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["next"].as_str().unwrap())
        .collect();
    // Z (50) first, then X (100) with Y after it, then W after Z... Z's place is its time;
    // W follows Z, its file predecessor: Z, W, X, Y.
    assert_eq!(order, vec!["Z", "W", "X", "Y"]);
    // `available: []` (no definitions given) offers nothing.
    assert!(
        v["per_step"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["offered"] == json!([]))
    );
    assert_eq!(v["overall"]["baseline"]["offered_tools"], 0.0);
}

#[test]
fn an_empty_available_list_means_nothing_was_available() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    std::fs::write(
        &t,
        "{\"operator\": \"op\", \"calls\": [\"X\", \"Y\"], \"available\": []}\n",
    )
    .unwrap();
    let o = run(&["eval", TK, "--traces", s(&t), "--steps", "--format", "json"]);
    let v = json_out(&o);
    assert_eq!(v["overall"]["baseline"]["offered_tools"], 0.0, "{v}");
    assert_eq!(v["overall"]["offered_tools"], 0.0, "{v}");
    assert_eq!(v["overall"]["hits"], 0);
}

#[test]
fn a_bom_starts_a_trace_file_or_a_definitions_file_harmlessly() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    std::fs::write(&t, "\u{feff}{\"operator\": \"op\", \"called\": [\"X\"]}\n").unwrap();
    let o = run(&["eval", TK, "--traces", s(&t), "--format", "json"]);
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    assert_eq!(json_out(&o)["overall"]["records"], 1);
    let d = dir.path().join("fs.json");
    std::fs::write(&d, "\u{feff}[{\"name\": \"ls\"}]").unwrap();
    let o = run(&["init", s(&d)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("name: ls"));
}

// ----------------------------------------- items 7, 14, 18: init's definitions, bounded

fn init_lint(dir: &Path, defs: &[&Path]) -> (Output, Option<Output>) {
    let out = dir.join("kit.yaml");
    let _ = std::fs::remove_file(&out);
    let mut args = vec!["init"];
    args.extend(defs.iter().map(|p| s(p)));
    args.extend(["-o", s(&out)]);
    let o = run(&args);
    let lint = out
        .exists()
        .then(|| run(&["lint", "--format", "json", s(&out)]));
    (o, lint)
}

fn lint_errors(lint: &Output) -> Vec<Value> {
    json_out(lint)["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .cloned()
        .collect()
}

#[test]
fn init_writes_schemas_and_names_its_loader_reads() {
    let dir = tempfile::tempdir().unwrap();
    // 112 levels: the definitions' JSON reads it (its limit is 128 with the list and the
    // definition around it), and it is deeper than the 100 levels a schema keeps.
    let deep = (0..111).fold(
        json!({"type": "string"}),
        |v, _| json!({"type": "array", "items": v}),
    );
    let wide = json!({"enum": (0..120_000).collect::<Vec<_>>()});
    let numbers = json!({"type": "integer", "maximum": 1e308, "minimum": -9223372036854775808i64, "multipleOf": 1.5e-300, "default": 18446744073709551615u64});
    let defs = json!([
        {"name": "deep", "parameters": deep},
        {"name": "wide", "parameters": wide},
        {"name": "numbers", "parameters": numbers},
    ]);
    let d = dir.path().join(".json");
    std::fs::write(&d, defs.to_string()).unwrap();
    let (o, lint) = init_lint(dir.path(), &[&d]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nests 112 levels; kept to 100"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("over the limit of 100000"),
        "{}",
        stderr(&o)
    );
    let lint = lint.expect("written");
    assert_eq!(lint_errors(&lint), Vec::<Value>::new());
    let text = std::fs::read_to_string(dir.path().join("kit.yaml")).unwrap();
    // A file named `.json` gives its group a name.
    assert!(text.contains("name: tools"), "{text}");
    assert!(
        text.contains("1.0e+308") && text.contains("1.5e-300"),
        "floats"
    );
    assert!(text.contains("-9223372036854775808") && text.contains("18446744073709551615"));
    // PyYAML reads the floats as floats and the integers as integers.
    let py = "import sys, yaml\nd = yaml.safe_load(open(sys.argv[1]))\n\
              s = [t for t in d['tools'] if t['name'] == 'numbers'][0]['input_schema']\n\
              assert isinstance(s['maximum'], float) and s['maximum'] == 1e308, s\n\
              assert isinstance(s['multipleOf'], float), s\n\
              assert s['default'] == 18446744073709551615 and s['minimum'] == -9223372036854775808, s\n";
    // A plain clone without PyYAML skips this half with one line (common::pyyaml).
    let Some(python) = crate::common::pyyaml::python() else {
        return;
    };
    let p = Command::new(python)
        .args(["-c", py, s(&dir.path().join("kit.yaml"))])
        .output()
        .expect("python");
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
}

#[test]
fn sidecar_servers_and_tools_without_names() {
    let dir = tempfile::tempdir().unwrap();
    let side = |tool: &str| {
        json!({"toolscope_mcp_cache": 1, "servers": [
            {"name": "", "transport": "stdio", "command": "x", "args": [], "discovered_at": "t",
             "tools": [{"name": tool, "input_schema": {}}]}]})
        .to_string()
    };
    let d = dir.path().join("k.yaml.mcp.json");
    std::fs::write(&d, side("p")).unwrap();
    let (o, lint) = init_lint(dir.path(), &[&d]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(lint_errors(&lint.expect("written")), Vec::<Value>::new());
    std::fs::write(&d, side("")).unwrap();
    let (o, lint) = init_lint(dir.path(), &[&d]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("its `name` is empty"), "{}", stderr(&o));
    assert!(lint.is_none());
}

#[test]
fn a_tool_named_like_its_file_says_it_clashes_with_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("search.json");
    std::fs::write(&d, "[{\"name\": \"search\"}]").unwrap();
    let o = run(&["init", s(&d)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("the name of the group init makes for it"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn init_reads_definitions_only_as_regular_files_within_a_budget() {
    let o = run(&["init", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    // Dense JSON: 60 MB of zeros in one schema take about 1 GB as a tree.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("dense.json");
    let body = "0,".repeat(30 << 20);
    std::fs::write(
        &d,
        format!("[{{\"name\": \"a\", \"parameters\": {{\"enum\": [{body}0]}}}}]"),
    )
    .unwrap();
    let o = run_capped(900 << 10, 300, &["init", s(&d)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("split the file"), "{}", stderr(&o));
}

#[test]
fn init_refuses_a_toolkit_its_loader_would_refuse() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("many.jsonl");
    let mut text = String::new();
    for i in 0..350_000 {
        text.push_str(&format!("{{\"name\": \"t{i}\"}}\n"));
    }
    std::fs::write(&d, text).unwrap();
    let (o, lint) = init_lint(dir.path(), &[&d]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("would not load back"), "{}", stderr(&o));
    assert!(stderr(&o).contains("TS002"), "{}", stderr(&o));
    assert!(lint.is_none(), "nothing written");
}

// ----------------------------------------------------------- items 8 and 18: SVG

#[test]
fn svg_escapes_the_noncharacters_xml_forbids() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.yaml");
    std::fs::write(
        &k,
        "actions:\n  - {name: \"a\\uFFFFb\\uFFFE\", tools: [T]}\n",
    )
    .unwrap();
    let o = run(&["export", s(&k), "--to", "svg"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let svg = String::from_utf8(o.stdout).unwrap();
    assert!(!svg.contains('\u{ffff}') && !svg.contains('\u{fffe}'));
    assert!(svg.contains("a\\u{ffff}b\\u{fffe}"), "{svg}");
}

#[test]
fn svg_of_long_names_stays_in_proportion() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.yaml");
    // 100 actions with 40,000-character names (4 MB), chained, each calling a tool.
    let long = |i: usize| format!("{i}{}", "n".repeat(40_000));
    let mut kit = String::from("actions:\n");
    for i in 0..100 {
        kit.push_str(&format!(
            "  - {{name: {}, tools: [T{}], next: [{}]}}\n",
            long(i),
            i % 10,
            long((i + 1) % 100)
        ));
    }
    std::fs::write(&k, &kit).unwrap();
    let o = run_capped(400 << 10, 300, &["export", s(&k), "--to", "svg"]);
    assert!(o.status.success(), "{:?} {}", o.status, stderr(&o));
    let svg = String::from_utf8(o.stdout).unwrap();
    // Names whole in each node's own tooltip; cut in boxes and edge tooltips.
    assert!(
        svg.len() < 3 * kit.len(),
        "{} bytes for {}",
        svg.len(),
        kit.len()
    );
    assert!(svg.contains('…'));
}

// ------------------------------------------------------------ item 19: one file twice

#[test]
fn a_file_given_twice_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("kit.yaml");
    std::fs::copy(TK, &k).unwrap();
    let link = dir.path().join("link.yaml");
    std::os::unix::fs::symlink(&k, &link).unwrap();
    let t = dir.path().join("t.jsonl");
    std::fs::write(
        &t,
        "{\"operator\": \"op\", \"called\": [\"X\", \"Y\"]}\n".repeat(5),
    )
    .unwrap();
    let o = run(&[
        "fit",
        s(&k),
        s(&link),
        "--traces",
        s(&t),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("is the same file as"), "{}", stderr(&o));
    assert_eq!(
        json_out(&o)["fitted"]["before"]["overall"]["records"],
        5,
        "{}",
        stderr(&o)
    );
    let o = run(&["lint", s(&k), s(&link)]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Item 19: a `set` landing while `fit --write` runs made fit refuse at the end with the
/// TUI's advice; now fit reads the new text and fits again, keeping both changes.
#[test]
fn fit_write_racing_a_set_fits_again_on_the_new_text() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("kit.yaml");
    std::fs::copy(TK, &k).unwrap();
    // Enough records that reading them takes a while: the set lands meanwhile.
    let t = dir.path().join("t.jsonl");
    let line = "{\"operator\": \"op\", \"called\": [\"X\", \"Y\"], \"pad\": \"..................................\"}\n";
    std::fs::write(&t, line.repeat(400_000)).unwrap();
    let fit = Command::new(BIN)
        .args(["fit", s(&k), "--traces", s(&t), "--write"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("fit starts");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let set = run(&["set", s(&k), "threshold", "op", "0.45"]);
    assert!(set.status.success(), "{}", stderr(&set));
    let out = fit.wait_with_output().expect("fit ends");
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("fitting again on the new text"),
        "the set did not land during the fit: {err}"
    );
    let text = std::fs::read_to_string(&k).unwrap();
    assert!(text.contains("threshold: 0.45"), "{text}");
    // Y is called from a's runs: fit scored it (0.6 before).
    assert!(!text.contains("{name: Y, score: 0.6}"), "{text}");
}

/// Item 19: an output refused (it exists, or it is an input) left its lock file beside it.
#[test]
fn a_refused_output_leaves_no_lock_file() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("kit.yaml");
    std::fs::copy(TK, &k).unwrap();
    let out = dir.path().join("out.svg");
    std::fs::write(&out, "old").unwrap();
    let o = run(&["export", s(&k), "--to", "svg", "-o", s(&out)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = run(&["convert", s(&k), "--to", "native", "-o", s(&k)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.ends_with(".toolscope-lock")),
        "{names:?}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
}

/// Item 13: a caller given twice wrote `tools:` twice (native) or `*x, *x` (Chat2Graph).
#[test]
fn add_tool_with_a_caller_given_twice_adds_one_edge() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("kit.yaml");
    std::fs::copy(TK, &k).unwrap();
    let o = run(&[
        "set",
        s(&k),
        "add-tool",
        "New",
        "--caller",
        "c",
        "--caller",
        "c",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&k).unwrap();
    let lint = run(&["lint", "--format", "json", s(&k)]);
    assert_eq!(lint_errors(&lint), Vec::<Value>::new(), "{text}");
    assert_eq!(
        text.matches("New").count(),
        2,
        "declared once, called once:\n{text}"
    );
    let c2g = dir.path().join("c2g.yml");
    std::fs::copy(
        concat!(env!("CARGO_MANIFEST_DIR"), "/toolkits/chat2graph-mini.yml"),
        &c2g,
    )
    .unwrap();
    let o = run(&[
        "set",
        s(&c2g),
        "add-tool",
        "NewTool",
        "--caller",
        "web_research",
        "--caller",
        "web_research",
        "--module-path",
        "app.plugin.new",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&c2g).unwrap();
    // The tool's anchor (`&newtool_tool`) is referenced once, from the one caller, and
    // the loaded graph has one Call edge to it.
    let anchor = text
        .lines()
        .zip(text.lines().skip(1))
        .find(|(_, next)| next.contains("name: \"NewTool\""))
        .and_then(|(line, _)| line.trim().strip_prefix("- &"))
        .expect("the new tool is declared with an anchor");
    assert_eq!(text.matches(&format!("*{anchor}")).count(), 1, "{text}");
    let json = run(&["export", "--to", "json", s(&c2g)]);
    let graph: Value = serde_json::from_slice(&json.stdout).expect("export json");
    let calls = graph["edges"]
        .as_array()
        .expect("edges")
        .iter()
        .filter(|e| e["to"] == "NewTool" && e["kind"] == "call")
        .count();
    assert_eq!(calls, 1, "{graph}");
    let lint = run(&["lint", "--format", "json", s(&c2g)]);
    assert_eq!(lint_errors(&lint), Vec::<Value>::new(), "{text}");
    let o = run(&["describe", s(&c2g)]);
    assert!(o.status.success());
}

// ------------------------------------------ items 2 and 3: fit's edits cost one parse

/// Fit's edits on a generated kit (`gen --actions N`, with its MCP groups): every Call and
/// Next score of the actions changed (a member of a group scored on its own included),
/// then two Next edges added per action, in fit's order.
fn fit_like_edits(tk: &toolscope_core::model::Toolkit) -> Vec<toolscope_core::edit::Edit> {
    use toolscope_core::edit::Edit;
    use toolscope_core::model::{EdgeKind, NodeKind};
    let actions: Vec<_> = tk.nodes_of(NodeKind::Action).collect();
    let mut edits = Vec::new();
    for &a in &actions {
        for (e, to) in tk.out_edges(a) {
            if tk.graph[e].kind != EdgeKind::Has {
                edits.push(Edit::SetScore {
                    from: tk.name(a).to_string(),
                    to: tk.name(to).to_string(),
                    to_kind: tk.kind(to),
                    // A group's reference one score, its members another: each member
                    // then gets an item of its own next to the reference.
                    score: match (tk.kind(to), tk.graph[e].score) {
                        (NodeKind::Group, 0.35) => 0.4,
                        (NodeKind::Group, _) => 0.35,
                        (_, 0.55) => 0.6,
                        _ => 0.55,
                    },
                });
            }
        }
    }
    for (i, &a) in actions.iter().enumerate() {
        let mut added = 0;
        for k in 1..actions.len() {
            let b = actions[(i + k * 7) % actions.len()];
            if added == 2 {
                break;
            }
            if b != a && tk.edge(a, b).is_none() {
                edits.push(Edit::AddEdge {
                    from: tk.name(a).to_string(),
                    to: tk.name(b).to_string(),
                    to_kind: NodeKind::Action,
                    score: 0.45,
                });
                added += 1;
            }
        }
    }
    edits
}

/// The bytes of YAML parsed to apply fit's edits, per byte of the file, and whether the
/// batch made them all.
fn parses_per_byte(actions: usize) -> (f64, usize, usize) {
    use toolscope_core::generate::{GenOptions, generate};
    let text = generate(GenOptions {
        actions,
        tools: None,
        seed: 3,
    });
    assert!(text.contains("groups:"), "the kit has an MCP group");
    let len = text.len();
    let mut ws = toolscope_core::workspace::Workspace::from_text(Path::new("g.yaml"), text, None)
        .expect("the generated kit loads");
    let edits = fit_like_edits(&ws.toolkit);
    let n = edits.len();
    let before = toolscope_core::source::yaml::parsed_bytes();
    let applied = ws
        .apply(toolscope_core::edit::Transaction::from(edits))
        .expect("fit's edits apply");
    let parsed = toolscope_core::source::yaml::parsed_bytes() - before;
    assert!(applied.text_changed);
    assert!(
        applied.notes.iter().any(|n| n.contains("item of its own")),
        "a member was scored on its own: {:?}",
        applied.notes
    );
    assert!(ws.loads_back(0).is_ok());
    (parsed as f64 / len as f64, ws.batched_edits(), n)
}

/// Items 2 and 3: scores and added edges go as one batch against one parse, even when a
/// group's member items land next to the group's reference; the bytes parsed stay a
/// small multiple of the file whatever its size (one by one, they grew with the edits:
/// a parse of the whole file per added edge and per score once two met at one place).
///
/// What grows is what is asserted: the bytes parsed per byte of the file may not grow by
/// more than a fifth from 200 to 800 actions (four times the edits). The batch parses the
/// file once, its check the result once, and each action given several edits that build on
/// each other (two added edges, a group and its members) its own lines once per edit.
#[test]
fn fit_scores_and_added_edges_cost_one_parse_of_the_file() {
    let mut seen = Vec::new();
    for actions in [200, 400, 800] {
        let (per_byte, batched, edits) = parses_per_byte(actions);
        assert_eq!(batched, edits, "{actions} actions: every edit in the batch");
        seen.push((actions, edits, per_byte));
    }
    let (first, last) = (seen[0].2, seen[seen.len() - 1].2);
    assert!(
        last < first * 1.2 && last < 30.0,
        "bytes parsed per byte of the file (actions, edits, per byte): {seen:?}"
    );
}

/// Item 1's caveat: a `:fit` cancelled while its edits are applied stops there (the TUI's
/// job passes its Esc switch to `apply_or_stop`), changing nothing; the switch is looked
/// at as the edits go, in the batch and one by one alike.
#[test]
fn applying_fit_edits_stops_when_asked_and_changes_nothing() {
    use std::cell::Cell;
    use toolscope_core::generate::{GenOptions, generate};
    for min_batch in [16, usize::MAX] {
        let text = generate(GenOptions {
            actions: 200,
            tools: None,
            seed: 3,
        });
        let mut ws = toolscope_core::workspace::Workspace::from_text(
            Path::new("g.yaml"),
            text.clone(),
            None,
        )
        .expect("the generated kit loads");
        ws.set_min_batch(min_batch);
        let edits = fit_like_edits(&ws.toolkit);
        let looks = Cell::new(0usize);
        let stop = || {
            looks.set(looks.get() + 1);
            looks.get() > 50
        };
        let r = ws.apply_or_stop(toolscope_core::edit::Transaction::from(edits), &stop);
        assert!(r.is_err(), "stopped");
        assert_eq!(looks.get(), 51, "looked at before each edit until stopped");
        assert_eq!(ws.files()[0].source.text, text);
        assert!(!ws.is_dirty() && !ws.can_undo());
    }
}
