//! Evidence in the TUI, driven by key strings: `:traces`, the `V` panel, the inspector's
//! and navigator's call counts, the token estimate and `:fit` as one undo step.
//!
//! The toolkit: operator `op` seeds `plan` (threshold 0.5, hops 1); `plan` calls Search
//! (1.0) and leads to `act` (0.8), which calls Fetch (0.6) and Mail (0.7). The four records
//! of `op` call Search every time and Fetch once; Mail never.

use petgraph::visit::{EdgeRef, IntoEdgeReferences};

use crate::tui::app::{App, Level};
use crate::tui::tests::screen;
use crate::tui::update::editing::tests::{Fixture, fixture, keys, open};

/// A small toolkit and four runs of its operator, shared with the tmux evidence test.
const TK: &str = include_str!("../../../tests/fixtures/evidence/tui-kit.yaml");

const TRACES: &str = include_str!("../../../tests/fixtures/evidence/tui-runs.jsonl");

/// The toolkit file, a trace file next to it, and the app open on the toolkit.
fn setup() -> (Fixture, std::path::PathBuf, App) {
    let f = fixture(TK);
    let traces = f.path.with_file_name("runs.jsonl");
    std::fs::write(&traces, TRACES).expect("write traces");
    let app = open(&f.path);
    (f, traces, app)
}

fn tool(app: &App, name: &str) -> petgraph::stable_graph::NodeIndex {
    app.tk
        .find(toolscope_core::model::NodeKind::Tool, name)
        .expect("tool")
}

/// Every edge as (from, to, score), sorted.
fn edges(app: &App) -> Vec<(String, String, String)> {
    let mut out: Vec<_> = app
        .tk
        .graph
        .edge_references()
        .map(|e| {
            (
                app.tk.name(e.source()).to_string(),
                app.tk.name(e.target()).to_string(),
                format!("{:.2}", e.weight().score),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn traces_command_loads_and_evaluates_at_the_current_threshold() {
    let (_f, traces, mut app) = setup();
    assert!(app.evidence.report.is_none());
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    // The report is made for the panel only.
    assert!(app.evidence.report.is_none());
    keys(&mut app, "V");
    let status = app.status.clone().expect("status");
    assert!(
        status.text.contains("4 record(s) from 1 file(s)"),
        "{status:?}"
    );
    let report = app.evidence.report.clone().expect("evaluated");
    assert_eq!(report.operator, "op");
    assert_eq!(report.stats.records, 4);
    assert_eq!(report.stats.complete, Some(1.0));
    // Every record was offered all three tools; Search called 4 times, Fetch once.
    let (search, fetch, mail) = (
        tool(&app, "Search"),
        tool(&app, "Fetch"),
        tool(&app, "Mail"),
    );
    assert_eq!(app.evidence.times_offered(fetch), 4);
    assert_eq!(app.evidence.times_called(search), 4);
    assert_eq!(app.evidence.times_called(fetch), 1);
    assert!(app.evidence.never_called(mail));
    assert!(!app.evidence.never_called(fetch));
    // Above Fetch's 0.6 the record that called it is incomplete: 3 of 4.
    keys(&mut app, ":t 0.65<Enter>");
    let report = app.evidence.report.clone().expect("evaluated");
    assert_eq!(report.stats.complete, Some(0.75));
    assert_eq!(app.evidence.times_offered(fetch), 0);
    assert_eq!(app.evidence.times_offered(mail), 4);
}

/// Issue 45: in a narrow navigator a long name is cut in the middle and its count stays
/// whole (it read `+ Document… (0 cal`).
#[test]
fn a_narrow_navigator_cuts_names_in_the_middle_and_keeps_the_counts() {
    let f = fixture(&TK.replace("Mail", "Mailbox_delivery_assistant"));
    let traces = f.path.with_file_name("runs.jsonl");
    std::fs::write(&traces, TRACES).expect("write traces");
    let mut app = open(&f.path);
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    keys(&mut app, ":goto Mailbox_delivery_assistant<Enter>");
    for width in [70, 80, 100, 160] {
        app.size = (width, 24);
        let s = screen(&app);
        let row = s
            .lines()
            .find(|l| l.starts_with("│+ Mai"))
            .unwrap_or_else(|| panic!("the row at width {width}:\n{s}"));
        let nav = row.split('│').nth(1).unwrap_or_default();
        assert!(
            nav.ends_with("(0 calls)") || nav.trim_end().ends_with("(0)"),
            "the count is whole at width {width}: {row}"
        );
        let name = nav
            .trim_start_matches("+ ")
            .split(" (0")
            .next()
            .unwrap_or_default();
        assert!(
            name.chars().count() >= 5,
            "a readable name at width {width}: {row}"
        );
        // Squeezed, the name keeps its end too; with room, the usual end cut.
        if width <= 80 {
            assert!(name.ends_with("nt"), "cut in the middle: {row}");
        }
    }
}

#[test]
fn inspector_and_navigator_show_the_calls() {
    let (_f, traces, mut app) = setup();
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    keys(&mut app, ":goto Mail<Enter>");
    let s = screen(&app);
    assert!(s.contains("Mail (0 calls)"), "{s}");
    assert!(!s.contains("Fetch (0 calls)"), "{s}");
    assert!(s.contains("offered: 4 of 4 records"), "{s}");
    assert!(s.contains("called: 0 of 4 records (never)"), "{s}");
    keys(&mut app, ":goto Fetch<Enter>");
    let s = screen(&app);
    assert!(s.contains("called: 1 of 4 records"), "{s}");
}

#[test]
fn evidence_panel_toggles_on_v_with_the_threshold_marked() {
    let (_f, traces, mut app) = setup();
    keys(&mut app, "V");
    let s = screen(&app);
    assert!(s.contains("No traces loaded"), "{s}");
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    let s = screen(&app);
    assert!(s.contains("evidence: op"), "{s}");
    // The panel replaces the inspector; the diff panel's key takes it back.
    assert!(!s.contains("Plans the work."), "{s}");
    let tokens = app.evidence.offer_tokens.expect("tokens on");
    assert!(s.contains(&format!("tokens ~{tokens}")), "{s}");
    // The right-hand pane only: the status line holds the temporary path.
    let pane: Vec<String> = s
        .lines()
        .take(45)
        .map(|l| l.chars().skip(120).collect())
        .collect();
    insta::assert_snapshot!("evidence_panel_160x48", pane.join("\n"));
    keys(&mut app, "V");
    assert!(!screen(&app).contains("evidence: op"));
}

#[test]
fn the_tokenizer_waits_until_evidence_is_asked_for() {
    let (_f, _traces, mut app) = setup();
    assert_eq!(app.evidence.offer_tokens, None);
    assert!(!screen(&app).contains("tokens ~"));
    keys(&mut app, "V");
    let n = app
        .evidence
        .offer_tokens
        .expect("counted once the panel opens");
    // Three small tool entries: tens of tokens each.
    assert!(n > 30 && n < 300, "{n}");
    // Raising the threshold past Fetch (0.6) drops its tokens from the offer.
    keys(&mut app, ":t 0.65<Enter>");
    let fewer = app.evidence.offer_tokens.expect("still counted");
    assert!(fewer < n, "{fewer} < {n}");
}

#[test]
fn fit_applies_one_undo_step() {
    let (f, traces, mut app) = setup();
    keys(&mut app, ":fit<Enter>");
    assert_eq!(app.status.clone().expect("refused").level, Level::Error);
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    let before = edges(&app);
    keys(&mut app, ":fit<Enter>");
    let status = app.status.clone().expect("status");
    // Fetch: (1 + 2*0.6) / (4 + 2) = 0.37, held at the floor 0.5 (a record called it when
    // offered at 0.5); Mail: (0 + 2*0.7) / 6 = 0.23.
    assert!(
        status.text.contains("2 Call and 0 Next score(s) changed"),
        "{status:?}"
    );
    let after = edges(&app);
    assert!(after.contains(&("act".into(), "Fetch".into(), "0.50".into())));
    assert!(after.contains(&("act".into(), "Mail".into(), "0.23".into())));
    let log: Vec<String> = app.log.iter().map(|s| s.text.clone()).collect();
    assert!(
        log.iter()
            .any(|l| l == "fit: act -> Mail: 0.7 -> 0.23 (called in 0/4 records)"),
        "{log:?}"
    );
    assert!(app.is_modified());
    keys(&mut app, "u");
    assert_eq!(edges(&app), before);
    assert!(!app.is_modified());
    let ws = app.session.ws.as_ref().expect("workspace");
    assert_eq!(ws.files()[0].source.text, TK);
    assert_eq!(std::fs::read_to_string(&f.path).expect("read"), TK);
}

#[test]
fn traces_errors_are_reported_and_reload_reads_again() {
    let (_f, traces, mut app) = setup();
    keys(&mut app, ":traces<Enter>");
    assert_eq!(app.status.clone().expect("refused").level, Level::Error);
    keys(&mut app, ":traces /nonexistent/runs.jsonl<Enter>");
    let status = app.status.clone().expect("refused");
    assert_eq!(status.level, Level::Error);
    assert!(
        status.text.contains("/nonexistent/runs.jsonl"),
        "{status:?}"
    );
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    std::fs::write(
        &traces,
        format!("{TRACES}{{\"operator\": \"op\", \"called\": [\"Mail\"]}}\nnot json\n"),
    )
    .expect("append");
    keys(&mut app, ":traces<Enter>");
    let status = app.status.clone().expect("status");
    assert!(status.text.contains("5 record(s)"), "{status:?}");
    assert!(status.text.contains("1 bad line(s)"), "{status:?}");
    assert!(!app.evidence.never_called(tool(&app, "Mail")));
}

#[test]
fn trace_files_are_watched_like_toolkits() {
    let (_f, traces, mut app) = setup();
    let (tx, rx) = std::sync::mpsc::channel();
    app.evidence.connect(tx);
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    let mail = tool(&app, "Mail");
    assert!(app.evidence.never_called(mail));
    keys(&mut app, "V");
    let mut live = crate::tui::live_tests::Live::from_parts(app, rx);
    std::fs::write(
        &traces,
        format!("{TRACES}{{\"operator\": \"op\", \"called\": [\"Mail\"]}}\n"),
    )
    .expect("append");
    live.until("the new record", |a| !a.evidence.never_called(mail));
    assert_eq!(live.app.evidence.records.len(), 5);
    let report = live.app.evidence.report.clone().expect("evaluated");
    assert_eq!(report.stats.records, 5);
}

#[test]
fn the_filters_stage_counts_when_it_is_on() {
    let (_f, traces, mut app) = setup();
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    keys(&mut app, "V:goto Fetch<Enter>T");
    let fetch = tool(&app, "Fetch");
    // Disabled but the stage is off: still offered, the record calling it complete.
    assert_eq!(app.evidence.times_offered(fetch), 4);
    keys(&mut app, "F");
    assert_eq!(app.evidence.times_offered(fetch), 0);
    let report = app.evidence.report.clone().expect("evaluated");
    assert_eq!(report.stats.complete, Some(0.75));
}

#[test]
fn other_groups_count_at_their_own_parameters() {
    let (_f, traces, mut app) = setup();
    let extra = r#"{"seeds": ["act"], "threshold": 0.65, "called": ["Mail"]}"#;
    std::fs::write(&traces, format!("{TRACES}{extra}\n")).expect("write");
    keys(&mut app, &format!("V:traces {}<Enter>", traces.display()));
    let (fetch, mail) = (tool(&app, "Fetch"), tool(&app, "Mail"));
    // The seeds record at 0.65 is offered Mail (0.7), not Fetch (0.6).
    assert_eq!(app.evidence.times_offered(fetch), 4);
    assert_eq!(app.evidence.times_offered(mail), 5);
    assert_eq!(app.evidence.times_called(mail), 1);
    assert_eq!(app.evidence.report.clone().expect("op").stats.records, 4);
    // Only the active operator's records follow the threshold.
    keys(&mut app, ":t 0.65<Enter>");
    assert_eq!(app.evidence.times_offered(fetch), 0);
    assert_eq!(app.evidence.times_offered(mail), 5);
    // No seeds: no active group; every record counts at its own parameters.
    keys(&mut app, "x");
    assert!(app.evidence.report.is_none());
    assert_eq!(app.evidence.times_offered(fetch), 4);
    assert_eq!(app.evidence.times_called(mail), 1);
    // Seeding `act` by hand makes the seeds record the active group, at 0.65 now too.
    keys(&mut app, ":seed act<Enter>");
    let report = app.evidence.report.clone().expect("seeds group");
    assert_eq!(
        (report.operator.as_str(), report.stats.records),
        ("seeds", 1)
    );
    assert_eq!(report.stats.complete, Some(1.0));
}

/// Runs with their calls in order: Search then Fetch or Mail.
const ORDERED: &str = r#"{"operator": "op", "calls": ["Search", "Fetch"]}
{"operator": "op", "calls": ["Search", "Mail", "Fetch"]}
{"operator": "op", "calls": ["Search", "Fetch"]}
"#;

fn setup_ordered() -> (Fixture, std::path::PathBuf, App) {
    let (f, traces, app) = setup();
    std::fs::write(&traces, ORDERED).expect("write traces");
    (f, traces, app)
}

/// The right-hand pane's columns of the screen, `skip` columns in.
fn pane(app: &App, skip: usize, rows: usize) -> String {
    screen(app)
        .lines()
        .take(rows)
        .map(|l| l.chars().skip(skip).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_panel_shows_step_recall_whole_at_both_sizes() {
    let (_f, traces, mut app) = setup_ordered();
    keys(&mut app, &format!(":traces {}<Enter>V", traces.display()));
    let steps = app.evidence.steps.clone().expect("steps evaluated");
    // Search->Fetch, Search->Mail, Mail->Fetch, Search->Fetch: all offered at 0.5, hops 1.
    assert_eq!((steps.stats.steps, steps.stats.hits), (4, 4));
    for (w, h, skip) in [(80u16, 24u16, 58usize), (160, 48, 120)] {
        app.size = (w, h);
        let s = pane(&app, skip, h as usize - 3);
        for figure in [
            "records 3",
            "steps 4",
            "step recall 1.00",
            "~tokens/step",
            "first calls 1.00",
        ] {
            assert!(s.contains(figure), "{figure:?} at {w}x{h}:\n{s}");
        }
        // The 20-column pane at 80x24 ends with the suggestion; the navigator marks the
        // tools never called there.
        if w > 80 {
            assert!(s.contains("never called: (none)"), "{s}");
        }
        insta::assert_snapshot!(format!("evidence_panel_steps_{w}x{h}"), s);
    }
    // The legend names each curve (the pane is tall enough for the chart at 160x48).
    let s = pane(&app, 120, 45);
    assert!(
        s.contains("step recall") && s.contains("complete") && s.contains("threshold 0.5"),
        "{s}"
    );
}

#[test]
fn fit_learns_next_scores_from_ordered_runs_as_one_undo_step() {
    let (_f, traces, mut app) = setup_ordered();
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    let before = edges(&app);
    keys(&mut app, ":fit<Enter>");
    let status = app.status.clone().expect("status");
    // plan -> act: every step from Search went to a tool of act: (3 + 2*0.8) / (3 + 2),
    // the row's best, so 1.0. act -> Fetch: Fetch was 3 of the 4 calls into act's tools:
    // (3 + 2*0.6) / 6 = 0.7; Mail (1 + 1.4) / 6 = 0.4, held at the floor 0.5.
    assert!(
        status.text.contains("2 Call and 1 Next score(s) changed"),
        "{status:?}"
    );
    let after = edges(&app);
    assert!(
        after.contains(&("plan".into(), "act".into(), "1.00".into())),
        "{after:?}"
    );
    assert!(
        after.contains(&("act".into(), "Fetch".into(), "0.70".into())),
        "{after:?}"
    );
    assert!(
        after.contains(&("act".into(), "Mail".into(), "0.50".into())),
        "{after:?}"
    );
    let log: Vec<String> = app.log.iter().map(|s| s.text.clone()).collect();
    assert!(
        log.iter()
            .any(|l| l == "fit: plan -> act: 0.8 -> 1.0 (3 of 3 steps)"),
        "{log:?}"
    );
    keys(&mut app, "u");
    assert_eq!(edges(&app), before);
    // add-edges: act -> act (Mail -> Fetch) is added.
    keys(&mut app, ":fit add-edges<Enter>");
    assert!(
        edges(&app).iter().any(|e| e.0 == "act" && e.1 == "act"),
        "{:?}",
        edges(&app)
    );
    keys(&mut app, ":fit nonsense<Enter>");
    assert_eq!(app.status.clone().expect("refused").level, Level::Error);
}

/// The app of `setup` with its traces loaded, connected to a channel as in the terminal
/// (so `:fit` runs on its thread).
fn threaded() -> (Fixture, crate::tui::live_tests::Live, Edges) {
    let (f, traces, mut app) = setup();
    keys(&mut app, &format!(":traces {}<Enter>", traces.display()));
    let (tx, rx) = std::sync::mpsc::channel();
    app.tx = Some(tx);
    let before = edges(&app);
    (f, crate::tui::live_tests::Live::from_parts(app, rx), before)
}

type Edges = Vec<(String, String, String)>;

#[test]
fn fit_on_its_thread_lands_as_one_undo_step_when_its_result_arrives() {
    let (_f, mut live, before) = threaded();
    keys(&mut live.app, ":fit<Enter>");
    let status = live.app.status.clone().expect("status");
    assert!(status.text.contains("(Esc cancels)"), "{status:?}");
    // Nothing changes before the result is taken from the channel.
    assert_eq!(edges(&live.app), before);
    keys(&mut live.app, ":fit<Enter>");
    let again = live.app.status.clone().expect("refused");
    assert!(again.text.contains("already running"), "{again:?}");
    live.until("the fit's result", |a| a.evidence.fit.is_none());
    let status = live.app.status.clone().expect("status");
    assert!(
        status.text.contains("2 Call and 0 Next score(s) changed"),
        "{status:?}"
    );
    assert!(edges(&live.app).contains(&("act".into(), "Mail".into(), "0.23".into())));
    keys(&mut live.app, "u");
    assert_eq!(edges(&live.app), before);
    assert!(!live.app.is_modified());
}

#[test]
fn a_fit_whose_toolkit_changed_meanwhile_is_refused_and_esc_cancels_one() {
    let (_f, mut live, before) = threaded();
    keys(&mut live.app, ":fit<Enter>");
    // An edit before the result is taken: the fit started from another toolkit.
    keys(&mut live.app, ":add-action probe<Enter>");
    assert!(live.app.tk.action("probe").is_some());
    live.until("the refused fit", |a| a.evidence.fit.is_none());
    let status = live.app.status.clone().expect("status");
    assert_eq!(status.level, Level::Error, "{status:?}");
    assert!(status.text.contains("changed while fitting"), "{status:?}");
    assert!(edges(&live.app).contains(&("act".into(), "Mail".into(), "0.70".into())));
    keys(&mut live.app, "u");
    assert_eq!(edges(&live.app), before);
    // Esc cancels: the result, whenever it comes, is dropped.
    keys(&mut live.app, ":fit<Enter>");
    keys(&mut live.app, "<Esc>");
    let status = live.app.status.clone().expect("status");
    assert!(status.text.contains("fit cancelled"), "{status:?}");
    for _ in 0..20 {
        live.pump();
    }
    assert_eq!(edges(&live.app), before);
    assert!(!live.app.is_modified());
}

/// The `toolscope` binary `cargo test` builds beside this test (target/<profile>/).
fn toolscope_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let bin = dir.join(format!("toolscope{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: `cargo test` builds it with the integration tests",
        bin.display()
    );
    bin
}

fn run_ok(bin: &std::path::Path, args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(bin)
        .args(args)
        .output()
        .expect("run toolscope");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "toolscope {args:?}: {e}");
    (o, e)
}

/// One criterion, named, everywhere (issue 34): on the README tour's runs (their calls in
/// order) `eval --sweep`, `eval --steps --sweep`, `fit`'s summary and the evidence panel
/// name the same criterion and suggest the same threshold and hops. Before the criterion
/// was shared, `eval --sweep` and the panel kept every record complete (threshold 0.3208)
/// while `eval --steps --sweep` reached step recall 0.90 (threshold 1.0, hops 1).
#[test]
fn every_path_suggests_the_same_setting_and_names_its_criterion() {
    let bin = toolscope_binary();
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/docs");
    let dir = tempfile::tempdir().expect("tempdir");
    let kit = dir.path().join("kit.yaml");
    let kit_s = kit.to_str().expect("utf-8 path");
    let runs = format!("{docs}/runs.jsonl");
    run_ok(
        &bin,
        &[
            "init",
            &format!("{docs}/defs/files.json"),
            &format!("{docs}/defs/web.json"),
            "-o",
            kit_s,
            "--traces",
            &runs,
        ],
    );
    let (_, fit) = run_ok(&bin, &["fit", kit_s, "--traces", &runs, "--write"]);
    let criterion = "fewest tokens reaching step recall 0.90";
    let json = |args: &[&str]| -> serde_json::Value {
        let (o, _) = run_ok(&bin, args);
        serde_json::from_str(&o).expect("JSON")
    };
    let base = [
        "eval", kit_s, "--traces", &runs, "--sweep", "--format", "json",
    ];
    let records = json(&base);
    let steps = json(&[&base[..], &["--steps"]].concat());
    let setting = |v: &serde_json::Value| (v["threshold"].as_f64(), v["hops"].as_u64());
    let by_records = &records["operators"][0]["suggested"];
    let by_steps = &steps["operators"][0]["suggested"];
    assert_eq!(by_records["criterion"], criterion, "{records}");
    assert_eq!(steps["criterion"], criterion, "{steps}");
    let want = setting(by_steps);
    assert!(want.0.is_some() && want.1.is_some(), "{steps}");
    assert_eq!(setting(by_records), want);
    assert!(by_steps["recall"].as_f64().is_some_and(|r| r >= 0.9));
    // fit's summary: the criterion and the same setting for the operator.
    let (t, h) = (want.0.unwrap_or_default(), want.1.unwrap_or_default());
    let line = format!(
        "assistant: threshold {}, hops {h} ",
        toolscope_core::recommend::explain::num(t)
    );
    assert!(
        fit.contains(&format!("suggested after the fit ({criterion})")) && fit.contains(&line),
        "{line:?} not in:\n{fit}"
    );
    assert!(fit.contains("next-call recall"), "{fit}");
    // The panel, on the operator, with the same runs loaded.
    let mut app = open(&kit);
    keys(&mut app, ":operator assistant<Enter>");
    keys(&mut app, &format!(":traces {runs}<Enter>"));
    keys(&mut app, "V");
    let st = app
        .evidence
        .steps
        .clone()
        .expect("the panel's step numbers");
    let p = st.suggested.expect("the panel's suggestion");
    assert_eq!((Some(p.threshold), Some(u64::from(p.hops))), want);
    let s = screen(&app);
    assert!(s.contains("suggested:  fewest tokens"), "{s}");
    assert!(s.contains("reaching step recall"), "{s}");
}

/// Issue 43: `:traces` takes `--operator-attr` and `--default-operator` as `eval` does, and
/// keeps them for later loads.
#[test]
fn traces_command_names_otlp_runs_as_eval_does() {
    let (_f, _, mut app) = setup();
    let f = _f.path.with_file_name("spans.jsonl");
    let span = |id: &str, parent: &str, attrs: &str| {
        format!(
            "{{\"traceId\":\"t1\",\"spanId\":\"{id}\",\"parentSpanId\":\"{parent}\",\"attributes\":[{attrs}]}}"
        )
    };
    let kv =
        |k: &str, v: &str| format!("{{\"key\":\"{k}\",\"value\":{{\"stringValue\":\"{v}\"}}}}");
    let spans = [
        span("r", "", &kv("run.label", "x")),
        span(
            "c",
            "r",
            &format!(
                "{},{}",
                kv("gen_ai.operation.name", "execute_tool"),
                kv("gen_ai.tool.name", "Search")
            ),
        ),
    ];
    let line = format!(
        "{{\"resourceSpans\":[{{\"scopeSpans\":[{{\"spans\":[{}]}}]}}]}}\n",
        spans.join(",")
    );
    std::fs::write(&f, line).expect("write spans");
    let status = |app: &App| app.status.clone().expect("status").text;
    keys(&mut app, &format!(":traces {}<Enter>", f.display()));
    assert!(status(&app).contains("0 record(s)"), "{}", status(&app));
    keys(
        &mut app,
        &format!(":traces --default-operator op {}<Enter>", f.display()),
    );
    assert!(status(&app).contains("1 record(s)"), "{}", status(&app));
    keys(&mut app, ":traces<Enter>");
    assert!(
        status(&app).contains("1 record(s)"),
        "kept: {}",
        status(&app)
    );
    keys(&mut app, ":traces --default-operator - <Enter>");
    assert!(status(&app).contains("0 record(s)"), "{}", status(&app));
    keys(&mut app, ":traces --operator-attr<Enter>");
    assert!(status(&app).contains("takes a value"), "{}", status(&app));
}
