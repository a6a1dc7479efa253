//! `eval --sweep` on 10k trace records against a 10k-action toolkit (SPEC 8 target: under
//! 1 s). The toolkit comes from `toolscope_core::generate`; the records call one to three tools of
//! their operator's wider offer (threshold 0.3), so some calls fall outside the offer at
//! the operators' own 0.5. Token counts use the real tokenizer, loaded once outside the
//! measurement (as `eval` loads it once per run); the per-tool entries are counted inside.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use toolscope_core::evidence::Record;
use toolscope_core::evidence::eval::{EvalOptions, evaluate, resolve};
use toolscope_core::generate::{GenOptions, generate};
use toolscope_core::load::load_text;
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{Params, recommend, resolve_seeds};
use toolscope_core::source::{Format, Limits};
use toolscope_core::tokens::{Encoding, Tokenizer, ToolTokens};

/// Draws a frame as the TUI's loop does: what the frame reads is computed first
/// (`App::prepare_draw`: the routes of the window shown), then the draw.
fn draw_frame(
    term: &mut ratatui::Terminal<ratatui::backend::TestBackend>,
    app: &mut toolscope::tui::App,
) -> Result<(), <ratatui::backend::TestBackend as ratatui::backend::Backend>::Error> {
    app.prepare_draw();
    term.draw(|f| toolscope::tui::view::draw(f, app))
        .map(|_| ())
}

fn toolkit() -> Toolkit {
    let text = generate(GenOptions {
        actions: 10_000,
        tools: None,
        seed: 1,
    });
    load_text(
        Path::new("bench.yaml"),
        text,
        Some(Format::Native),
        &Limits::default(),
    )
    .expect("synthetic toolkit loads")
    .toolkit
}

/// 10k records spread over the operators, deterministic.
fn records(tk: &Toolkit, n: usize) -> Vec<Record> {
    let wide: Vec<Vec<String>> = tk
        .operators
        .iter()
        .map(|op| {
            let (seeds, _) = resolve_seeds(tk, &op.actions);
            let rec = recommend(
                tk,
                &seeds,
                Params {
                    threshold: 0.3,
                    hops: op.hops,
                },
            );
            rec.tools.iter().map(|&t| tk.name(t).to_string()).collect()
        })
        .collect();
    let mut x: u64 = 7;
    let mut next = move |m: usize| {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((x >> 33) as usize) % m.max(1)
    };
    (0..n)
        .map(|i| {
            let o = i % tk.operators.len();
            let pool = &wide[o];
            let k = 1 + next(3);
            let mut called: Vec<&str> = (0..k).map(|_| pool[next(pool.len())].as_str()).collect();
            if next(20) == 0 {
                called.push("not_a_tool");
            }
            Record::operator(&tk.operators[o].name, &called)
        })
        .collect()
}

fn eval_sweep(c: &mut Criterion) {
    let tk = toolkit();
    let recs = records(&tk, 10_000);
    let tokenizer = Tokenizer::new(Encoding::O200kBase);
    tokenizer.count("warm up");
    let opts = EvalOptions {
        sweep: true,
        ..EvalOptions::default()
    };
    let mut group = c.benchmark_group("eval");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("sweep_10k_records_10k_actions", |b| {
        b.iter(|| {
            let (resolved, _) = resolve(&tk, &recs, &opts);
            let cost = ToolTokens::new(&tk, &tokenizer);
            black_box(evaluate(&tk, &resolved, &opts, &cost))
        })
    });
    group.finish();
}

/// The TUI with the same 10k records loaded (`:traces`): a threshold key press, evaluated
/// for the active operator (sweep on), recounted and redrawn at 200x60.
fn tui_threshold_key(c: &mut Criterion) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use toolscope::tui::{App, Msg, Theme, update::update};

    let text = generate(GenOptions {
        actions: 10_000,
        tools: None,
        seed: 1,
    });
    let file = load_text(
        Path::new("bench.yaml"),
        text,
        Some(Format::Native),
        &Limits::default(),
    )
    .expect("synthetic toolkit loads");
    let recs = records(&file.toolkit, 10_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("runs.jsonl");
    let lines: Vec<String> = recs
        .iter()
        .map(|r| {
            let toolscope_core::evidence::Target::Operator(op) = &r.target else {
                unreachable!("operator records")
            };
            serde_json::json!({"operator": op, "called": r.called}).to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n")).expect("write traces");
    let loaded = toolscope_core::source::Loaded {
        toolkit: file.toolkit,
        files: vec![file.source],
        diagnostics: file.diagnostics,
    };
    let mut app = App::new(loaded, "bench".into(), Theme::default(), (200, 60));
    let key = |c: char| Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    for c in format!(":traces {}", path.display()).chars() {
        update(&mut app, key(c));
    }
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
    );
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");
    let mut up = true;
    let mut group = c.benchmark_group("eval");
    group.sample_size(20);
    for panel in [false, true] {
        if panel {
            update(&mut app, key('V'));
        }
        let name = if panel { "panel_open" } else { "panel_closed" };
        group.bench_function(format!("tui_threshold_key_10k_records_{name}"), |b| {
            b.iter(|| {
                update(&mut app, key(if up { '+' } else { '-' }));
                up = !up;
                draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
            })
        });
    }
    group.finish();
}

/// `eval --steps --sweep` over 100k steps of `toolscope gen --runs` against the 10k-action
/// toolkit, records already parsed: the contexts folded in and the exact sweep over every
/// threshold and hops 0-5 (the 1M-step file end to end is in docs/performance.md).
fn steps_sweep(c: &mut Criterion) {
    use toolscope_core::evidence::steps::{StepCounter, StepOptions};
    let tk = toolkit();
    let mut jsonl = Vec::new();
    toolscope_core::generate::runs::write_runs(&tk, 100_000, 1, &mut jsonl).expect("runs");
    let text = String::from_utf8(jsonl).expect("utf8");
    let (recs, _) = toolscope_core::evidence::traces::parse_jsonl("runs", &text);
    let tokenizer = Tokenizer::new(Encoding::O200kBase);
    tokenizer.count("warm up");
    let mut group = c.benchmark_group("eval");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(5));
    group.bench_function("steps_sweep_100k_steps_10k_actions", |b| {
        b.iter(|| {
            let opts = StepOptions {
                sweep: true,
                ..StepOptions::default()
            };
            let mut counter = StepCounter::new(&tk, opts);
            for r in &recs {
                counter.add(r);
            }
            let cost = ToolTokens::new(&tk, &tokenizer);
            black_box(counter.finish(&cost))
        })
    });
    group.finish();
}

/// A tokenizer's first count: what every command that shows counts pays at start (the
/// split pattern compiled; the rank tables are read in place).
fn tokenizer_first_count(c: &mut Criterion) {
    let mut group = c.benchmark_group("tokens");
    for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
        group.bench_function(format!("first_count_{}", enc.as_str()), |b| {
            b.iter(|| black_box(Tokenizer::new(enc).count("Reads the current graph schema.")))
        });
    }
    group.finish();
}

/// About 100 MB of OTLP JSON lines in the shape Pydantic AI 2.x writes (issue 43): per run
/// an `invoke_agent` span, two `chat` spans with the tools given and the calls in their
/// output, two `execute_tool` spans tied to them by call id, the agent's name on each;
/// 50 spans a line, as the Collector batches them.
fn otlp_file(bytes: usize) -> String {
    use serde_json::json;
    let attr = |k: &str, v: &str| json!({"key": k, "value": {"stringValue": v}});
    let defs = r#"[{"type":"function","name":"search_web","description":"Search the web.","parameters":{"type":"object"}},{"type":"function","name":"fetch_page","description":"Fetch a page.","parameters":{"type":"object"}}]"#;
    let mut out = String::new();
    let mut spans = Vec::new();
    let mut run = 0u64;
    while out.len() < bytes {
        run += 1;
        let trace = format!("{run:032x}");
        let agent = ["researcher", "analyst", "assistant"][(run % 3) as usize];
        let span = |id: &str, parent: &str, start: u64, attrs: Vec<serde_json::Value>| {
            json!({"traceId": trace, "spanId": id, "parentSpanId": parent, "name": "s",
                "startTimeUnixNano": (run * 1000 + start).to_string(), "attributes": attrs})
        };
        spans.push(span(
            "0000000000000001",
            "",
            0,
            vec![
                attr("gen_ai.operation.name", "invoke_agent"),
                attr("gen_ai.agent.name", agent),
            ],
        ));
        for (k, tool) in ["search_web", "fetch_page"].iter().enumerate() {
            let k = k as u64;
            let call = format!("call_{run}_{k}");
            let output = json!([{"role": "assistant", "parts": [{"type": "tool_call", "id": call, "name": tool, "arguments": {"q": "x"}}]}]).to_string();
            spans.push(span(&format!("{:016x}", 10 + k), "0000000000000001", 10 + 20 * k, vec![
                attr("gen_ai.operation.name", "chat"), attr("gen_ai.agent.name", agent),
                attr("gen_ai.tool.definitions", defs), attr("gen_ai.output.messages", &output),
                json!({"key": "gen_ai.response.finish_reasons", "value": {"arrayValue": {"values": [{"stringValue": "tool_calls"}]}}}),
            ]));
            spans.push(span(
                &format!("{:016x}", 20 + k),
                "0000000000000001",
                15 + 20 * k,
                vec![
                    attr("gen_ai.operation.name", "execute_tool"),
                    attr("gen_ai.agent.name", agent),
                    attr("gen_ai.tool.name", tool),
                    attr("gen_ai.tool.call.id", &call),
                ],
            ));
        }
        if spans.len() >= 50 {
            let line = json!({"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {"name": "pydantic-ai"}, "spans": spans}]}]});
            out.push_str(&line.to_string());
            out.push('\n');
            spans = Vec::new();
        }
    }
    out
}

/// Reading 100 MB of OTLP spans through the bounded reader (`eval`'s), records made
/// (issue 43's target: under 3 s, memory under the trace budget).
fn otlp_read(c: &mut Criterion) {
    use toolscope_core::evidence::{load_traces, otlp::OperatorNaming};
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("spans.jsonl");
    std::fs::write(&path, otlp_file(100 << 20)).expect("write");
    let paths = vec![path];
    let mut group = c.benchmark_group("eval");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    group.bench_function("otlp_read_100mb", |b| {
        b.iter(|| {
            let (records, _) =
                load_traces(&paths, None, &OperatorNaming::default()).expect("reads");
            black_box(records.len())
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    eval_sweep,
    tui_threshold_key,
    steps_sweep,
    tokenizer_first_count,
    otlp_read
);
criterion_main!(benches);
