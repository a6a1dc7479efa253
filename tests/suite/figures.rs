//! One set of figures (issue 44 item 5): `eval --steps --sweep`, `fit` and the core's one
//! tally (`steps::figures`, which the TUI's `V` and `t` read: see
//! src/tui/replay/figures_tests.rs) give the same step recall, first calls and tokens for
//! the same runs and setting, and name the same suggestion; `fit --set-params` writes that
//! suggestion and nothing else besides the scores.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use toolscope_core::evidence::load_traces;
use toolscope_core::evidence::otlp::OperatorNaming;
use toolscope_core::evidence::steps::StepOptions;
use toolscope_core::evidence::steps::figures::{Figures, figures};
use toolscope_core::load::load_paths;
use toolscope_core::tokens::{Encoding, Tokenizer, ToolTokens};

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn run(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(args)
        .output()
        .expect("binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// The committed learned kit and its op0 runs, in a temporary folder.
fn learned() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let kit = dir.path().join("kit.yaml");
    std::fs::copy(fixture("tests/fixtures/replay/learned-kit.yaml"), &kit).expect("copy kit");
    let runs = dir.path().join("runs.jsonl");
    let all = std::fs::read_to_string(fixture("tests/fixtures/replay/learned-runs.jsonl"))
        .expect("read runs");
    let op0: String = all
        .lines()
        .filter(|l| l.contains("\"op0\""))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(op0.lines().count() >= 3, "the fixture has op0 runs");
    std::fs::write(&runs, op0).expect("write runs");
    (dir, kit, runs)
}

/// (step recall, steps, tokens per step, first calls, first calls' count, their tokens) of
/// a step report group as JSON.
fn group_figures(g: &Value) -> (f64, u64, f64, f64, u64, f64) {
    let f = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let n = |v: &Value| v.as_u64().unwrap_or(u64::MAX);
    (
        f(&g["recall"]),
        n(&g["steps"]),
        f(&g["tokens"]),
        f(&g["first"]["recall"]),
        n(&g["first"]["steps"]),
        f(&g["first"]["tokens"]),
    )
}

fn core_figures(kit: &Path, runs: &Path) -> (f64, u64, f64, f64, u64, f64) {
    let tk = load_paths(&[kit.to_path_buf()], None)
        .expect("kit loads")
        .toolkit;
    let (records, _) =
        load_traces(&[runs.to_path_buf()], None, &OperatorNaming::default()).expect("runs load");
    let tokenizer = Tokenizer::new(Encoding::O200kBase);
    let cost = ToolTokens::new(&tk, &tokenizer);
    let Figures { steps, first } = figures(&tk, &records, StepOptions::default(), &cost);
    (
        steps.recall().unwrap_or(f64::NAN),
        steps.calls,
        steps.tokens,
        first.recall().unwrap_or(f64::NAN),
        first.calls,
        first.tokens,
    )
}

#[test]
fn eval_fit_and_the_core_tally_give_the_same_figures_and_suggestion() {
    let (_dir, kit, runs) = learned();
    let eval = json(&run(&[
        "eval",
        s(&kit),
        "--traces",
        s(&runs),
        "--steps",
        "--sweep",
        "--format",
        "json",
    ]));
    let op = &eval["operators"][0];
    assert_eq!(op["operator"], "op0", "{eval}");
    let from_eval = group_figures(op);
    // The runs have steps, first calls, and misses among the steps: the figures differ.
    assert!(
        from_eval.1 > from_eval.4 && from_eval.4 > 0,
        "{from_eval:?}"
    );
    assert!(
        from_eval.0 < 1.0 && from_eval.0 != from_eval.3,
        "{from_eval:?}"
    );
    // The one tally the TUI's V and t read.
    assert_eq!(core_figures(&kit, &runs), from_eval);

    // fit: its figures before the fit are eval's; its text says them both.
    let fitted = run(&["fit", s(&kit), "--traces", s(&runs), "--format", "json"]);
    let fit = json(&fitted);
    assert_eq!(
        group_figures(&fit["steps"]["fitted"]["before"]["operators"][0]),
        from_eval,
        "{fit}"
    );
    let text = run(&["fit", s(&kit), "--traces", s(&runs)]);
    let said = String::from_utf8_lossy(&text.stderr).into_owned();
    let line = format!(
        "fitted steps ({}): next-call recall {:.3} -> ",
        from_eval.1, from_eval.0
    );
    assert!(said.contains(&line), "{line:?} in\n{said}");
    let first = format!("first calls ({}) {:.3} -> ", from_eval.4, from_eval.3);
    assert!(said.contains(&first), "{first:?} in\n{said}");

    // The suggestion fit names for the fitted kit is the one `eval --steps --sweep` names
    // on the kit fit writes.
    let suggested = &fit["suggested"][0];
    assert_eq!(suggested["operator"], "op0", "{fit}");
    run(&["fit", s(&kit), "--traces", s(&runs), "--write"]);
    let after = json(&run(&[
        "eval",
        s(&kit),
        "--traces",
        s(&runs),
        "--steps",
        "--sweep",
        "--format",
        "json",
    ]));
    let named = &after["operators"][0]["suggested"];
    assert_eq!(named["threshold"], suggested["threshold"], "{after}");
    assert_eq!(named["hops"], suggested["hops"], "{after}");
    assert_eq!(named["recall"], suggested["step_recall"], "{after}");
}

/// `fit --write --set-params` on a copy, against `fit --write` on another: the files
/// differ only in the operators' `threshold:`/`hops:` lines, which say the suggestion.
fn only_params_differ(kit: &Path, runs: &Path) -> Vec<(String, String)> {
    let dir = kit.parent().expect("a folder");
    let ext = kit.extension().and_then(|e| e.to_str()).unwrap_or("yaml");
    let (plain, params) = (
        dir.join(format!("plain.{ext}")),
        dir.join(format!("params.{ext}")),
    );
    std::fs::copy(kit, &plain).expect("copy");
    std::fs::copy(kit, &params).expect("copy");
    run(&["fit", s(&plain), "--traces", s(runs), "--write"]);
    let out = json(&run(&[
        "fit",
        s(&params),
        "--traces",
        s(runs),
        "--write",
        "--set-params",
        "--format",
        "json",
    ]));
    assert_eq!(out["written"], true, "{out}");
    let (a, b) = (
        std::fs::read_to_string(&plain).expect("read"),
        std::fs::read_to_string(&params).expect("read"),
    );
    assert_eq!(a.lines().count(), b.lines().count(), "no line added:\n{b}");
    let changed: Vec<(String, String)> = a
        .lines()
        .zip(b.lines())
        .filter(|(x, y)| x != y)
        .map(|(x, y)| (x.to_string(), y.to_string()))
        .collect();
    assert_eq!(a.ends_with('\n'), b.ends_with('\n'));
    // The suggestion JSON names each operator set and its new values; the diff shows them.
    let diff = out["diff"].as_str().unwrap_or("");
    for p in out["params"].as_array().expect("params listed") {
        let t = p["threshold"]["new"].as_f64().expect("a threshold");
        let line = format!("+    threshold: {t}");
        assert!(diff.contains(&line), "{line:?} in\n{diff}");
    }
    changed
}

#[test]
fn fit_set_params_writes_only_the_suggested_threshold_and_hops() {
    let (_dir, kit, runs) = learned();
    let changed = only_params_differ(&kit, &runs);
    assert!(
        !changed.is_empty(),
        "the learned kit's setting is not the suggestion"
    );
    for (old, new) in &changed {
        let key = |l: &str| l.trim_start().split(':').next().unwrap_or("").to_string();
        assert!(
            ["threshold", "hops"].contains(&key(old).as_str()) && key(old) == key(new),
            "only threshold and hops change: {old:?} -> {new:?}"
        );
    }
    // The text names the operator and its setting, before -> after.
    let said = run(&["fit", s(&kit), "--traces", s(&runs), "--set-params"]);
    let said = String::from_utf8_lossy(&said.stderr).into_owned();
    assert!(
        said.contains("operator setting(s) set (not written")
            && said.contains("  op0: threshold 0.2 -> "),
        "{said}"
    );
    // Without the option the threshold stays as init wrote it.
    let text = std::fs::read_to_string(kit.with_file_name("plain.yaml")).expect("read");
    let original = std::fs::read_to_string(&kit).expect("read");
    let params = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.trim_start().starts_with("threshold:"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(params(&text), params(&original));
}

#[test]
fn fit_set_params_on_a_chat2graph_config_writes_the_operator_mapping() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kit = dir.path().join("c2g.yml");
    std::fs::copy(fixture("tests/fixtures/chat2graph-flat.yml"), &kit).expect("copy");
    let runs = dir.path().join("runs.jsonl");
    std::fs::write(
        &runs,
        [
            r#"{"operator": "Extraction Expert/1", "calls": ["SchemaGetter", "DocumentReader", "DataImport", "DataStatusCheck", "SchemaGetter"]}"#,
            r#"{"operator": "Extraction Expert/1", "calls": ["DocumentReader", "SchemaGetter", "DataImport", "SchemaGetter"]}"#,
            r#"{"operator": "Extraction Expert/1", "calls": ["SchemaGetter", "DataImport", "DataStatusCheck", "SchemaGetter"]}"#,
            r#"{"operator": "Extraction Expert/1", "calls": ["DocumentReader", "DataImport", "SchemaGetter"]}"#,
            r#"{"operator": "Extraction Expert/1", "calls": ["SchemaGetter", "DocumentReader", "SchemaGetter", "DataImport"]}"#,
        ]
        .join("\n"),
    )
    .expect("write runs");
    let changed = only_params_differ(&kit, &runs);
    // The operator's own (anchored) mapping: `threshold: 0.6` and `hops: 1` as written.
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert_eq!(changed[0].0, "    threshold: 0.6");
    assert_eq!(changed[1].0, "    hops: 1");
    assert!(changed[0].1.starts_with("    threshold: "), "{changed:?}");
    assert!(changed[1].1.starts_with("    hops: "), "{changed:?}");
}
