//! Layout and frame drawing at 1k, 10k and 100k nodes (SPEC 7: layout under 200 ms at 10k,
//! one frame at 200x60 under 8 ms, a threshold key press to a redrawn highlight under 16 ms).
//! The TUI opens on the focus view (the generated toolkit has operators), so the frame and
//! key-press rows measure it; `whole` rows measure the whole graph (`pan_to_frame_whole`
//! routes the moved window's edges again); `focus_refit` is what choosing an operator
//! costs; `neighbourhood_open_to_frame` opens the neighbourhood view and draws it.

use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use toolscope::tui::{App, Msg, Theme, update::update};
use toolscope_core::generate::{GenOptions, generate};
use toolscope_core::layout::Layout;
use toolscope_core::load::load_text;
use toolscope_core::source::{Limits, Loaded};

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

/// A synthetic toolkit of about `nodes` nodes (four actions per tool).
fn toolkit(nodes: usize) -> Loaded {
    let actions = nodes * 4 / 5;
    let text = generate(GenOptions {
        actions,
        tools: Some(nodes - actions),
        seed: 7,
    });
    let file = load_text(Path::new("gen.yaml"), text, None, &Limits::default())
        .expect("generated toolkit loads");
    Loaded {
        toolkit: file.toolkit,
        files: vec![file.source],
        diagnostics: file.diagnostics,
    }
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("tui");
    g.sample_size(20)
        .warm_up_time(std::time::Duration::from_secs(1));
    for nodes in [1_000usize, 10_000, 100_000] {
        let loaded = toolkit(nodes);
        // Laying out 100k nodes takes about a second: fewer samples.
        g.sample_size(if nodes > 10_000 { 10 } else { 20 });
        g.bench_with_input(
            BenchmarkId::new("layout", nodes),
            &loaded.toolkit,
            |b, tk| b.iter(|| black_box(Layout::compute(tk))),
        );
        let mut app = App::new(loaded, "gen".into(), Theme::default(), (200, 60));
        let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");
        g.bench_function(BenchmarkId::new("frame_200x60", nodes), |b| {
            b.iter(|| draw_frame(&mut term, &mut app).map(|_| ()).expect("draw"))
        });
        app.graph_pane.zoom = toolscope::tui::app::Zoom::Compact;
        g.bench_function(BenchmarkId::new("frame_200x60_compact", nodes), |b| {
            b.iter(|| draw_frame(&mut term, &mut app).map(|_| ()).expect("draw"))
        });
        app.graph_pane.zoom = toolscope::tui::app::Zoom::Detailed;
        g.bench_function(BenchmarkId::new("focus_refit_and_frame", nodes), |b| {
            b.iter(|| {
                app.with_graph(|g, s| g.refit(s));
                draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
            })
        });
        let plus = Msg::Key(KeyEvent::new(KeyCode::Char('+'), KeyModifiers::NONE));
        let minus = Msg::Key(KeyEvent::new(KeyCode::Char('-'), KeyModifiers::NONE));
        let mut up = true;
        g.bench_function(BenchmarkId::new("threshold_key_to_frame", nodes), |b| {
            b.iter(|| {
                update(&mut app, if up { plus.clone() } else { minus.clone() });
                up = !up;
                draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
            })
        });
        // The same on the whole graph (`f`).
        update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char('f'), KeyModifiers::NONE)),
        );
        assert!(!app.graph_pane.shows_focus(), "f shows the whole graph");
        g.bench_function(BenchmarkId::new("frame_200x60_whole", nodes), |b| {
            b.iter(|| draw_frame(&mut term, &mut app).map(|_| ()).expect("draw"))
        });
        // A pan moves the window, so its edges are routed again: six places in turn, more
        // than the windows kept routed (`window_routes::KEPT`), so none is kept.
        let mut place = 0;
        g.bench_function(BenchmarkId::new("pan_to_frame_whole", nodes), |b| {
            b.iter(|| {
                app.graph_pane.pan(if place == 5 { -35 } else { 7 }, 0);
                place = (place + 1) % 6;
                draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
            })
        });
        g.bench_function(
            BenchmarkId::new("threshold_key_to_frame_whole", nodes),
            |b| {
                b.iter(|| {
                    update(&mut app, if up { plus.clone() } else { minus.clone() });
                    up = !up;
                    draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
                })
            },
        );
        // The neighbourhood view (`N`, radius 2) of the selection, re-opened per frame
        // (opening lays it out and routes its window).
        update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char('f'), KeyModifiers::NONE)),
        );
        if let Some(ix) = app.tk.graph.node_indices().next() {
            app.select(ix);
            g.bench_function(
                BenchmarkId::new("neighbourhood_open_to_frame", nodes),
                |b| {
                    b.iter(|| {
                        app.open_neighbourhood(ix, 2);
                        draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
                    })
                },
            );
            app.graph_pane.neighbourhood = None;
        }
    }
    g.finish();
}

/// Opening the TUI (issue 16): from a loaded workspace to the first frame on a 200x60
/// `TestBackend`, with the whole-graph layout on its thread as the terminal runs it
/// (`open_app_to_first_frame`), and the same from the file's text (`open_file_to_first_frame`:
/// the load included). The layout thread is left to finish on its own; its result is never
/// waited for, as in the TUI.
fn open(c: &mut Criterion) {
    use criterion::BatchSize;
    use toolscope::tui::graph_pane::whole::WholeLayout;
    use toolscope_core::workspace::Workspace;
    let mut g = c.benchmark_group("tui_open");
    g.warm_up_time(std::time::Duration::from_secs(1));
    for nodes in [1_000usize, 10_000, 100_000] {
        g.sample_size(10);
        let actions = nodes * 4 / 5;
        let text = generate(GenOptions {
            actions,
            tools: Some(nodes - actions),
            seed: 7,
        });
        let first_frame = |ws: Workspace| {
            let (tx, rx) = std::sync::mpsc::channel();
            let mut app = App::with_workspace_in(
                ws,
                "gen".into(),
                Theme::default(),
                (200, 60),
                WholeLayout::background(tx),
            );
            let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");
            draw_frame(&mut term, &mut app).expect("draw");
            (app, rx)
        };
        let ws = Workspace::from_text(Path::new("gen.yaml"), text.clone(), None).expect("loads");
        g.bench_function(BenchmarkId::new("open_app_to_first_frame", nodes), |b| {
            b.iter_batched(|| ws.clone(), first_frame, BatchSize::LargeInput)
        });
        g.bench_function(BenchmarkId::new("open_file_to_first_frame", nodes), |b| {
            b.iter_batched(
                || text.clone(),
                |t| {
                    let ws = Workspace::from_text(Path::new("gen.yaml"), t, None).expect("loads");
                    first_frame(ws)
                },
                BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

/// Sends a key string: characters, and `\n` for Enter.
fn type_keys(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = if c == '\n' {
            KeyCode::Enter
        } else {
            KeyCode::Char(c)
        };
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

/// Issue 31: a replay step key (Right, then Left) to the redrawn frame at 10k actions
/// (SPEC 7's 16 ms), on a run of 40 calls of the generated toolkit's tools. Going back and
/// forth finds the other step's window routes and insight kept; `replay_step_forward`
/// walks the run forward (Home at its end), so every step is one not seen just before.
fn replay(c: &mut Criterion) {
    let mut g = c.benchmark_group("tui_replay");
    g.sample_size(20)
        .warm_up_time(std::time::Duration::from_secs(1));
    let actions = 10_000;
    let loaded = toolkit(actions * 5 / 4);
    let tk = &loaded.toolkit;
    let op = tk.operators[0].name.clone();
    let tools: Vec<String> = tk
        .nodes_of(toolscope_core::model::NodeKind::Tool)
        .step_by(37)
        .take(40)
        .map(|ix| format!("{:?}", tk.name(ix)))
        .collect();
    let dir = tempfile::tempdir().expect("temp dir");
    let runs = dir.path().join("runs.jsonl");
    let line = format!(
        "{{\"operator\": {:?}, \"calls\": [{}]}}\n",
        op,
        tools.join(", ")
    );
    std::fs::write(&runs, line).expect("write runs");
    let mut app = App::new(loaded, "gen".into(), Theme::default(), (200, 60));
    type_keys(
        &mut app,
        &format!(":traces {}\n:replay 1 5\n", runs.display()),
    );
    let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");
    draw_frame(&mut term, &mut app).expect("draw");
    assert!(
        on_screen(&term).contains("run 1 step 5 of 39"),
        "the replay is on screen"
    );
    let right = Msg::Key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE));
    let left = Msg::Key(KeyEvent::new(KeyCode::Left, KeyModifiers::NONE));
    let mut forth = true;
    g.bench_function(BenchmarkId::new("replay_step_key_to_frame", actions), |b| {
        b.iter(|| {
            update(&mut app, if forth { right.clone() } else { left.clone() });
            forth = !forth;
            draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
        })
    });
    // Steps 0 to 39 ("step 5 of 39" above).
    let home = Msg::Key(KeyEvent::new(KeyCode::Home, KeyModifiers::NONE));
    update(&mut app, home.clone());
    let mut step = 0;
    g.bench_function(BenchmarkId::new("replay_step_forward", actions), |b| {
        b.iter(|| {
            let last = step == 39;
            step = if last { 0 } else { step + 1 };
            update(&mut app, if last { home.clone() } else { right.clone() });
            draw_frame(&mut term, &mut app).map(|_| ()).expect("draw")
        })
    });
    g.finish();
}

/// Issue 31: a record appended to a followed trace file (`:replay` alone) to the frame
/// that shows it (the target: 200 ms): the watcher's event (its 50 ms debounce included),
/// reading the file again, the evaluation, the replay moving to the newest record, one
/// frame at 200x60. At the bundled example's size and at 10k actions.
fn follow(c: &mut Criterion) {
    let mut g = c.benchmark_group("tui_replay");
    g.sample_size(10)
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(10));
    for actions in [40, 10_000] {
        let loaded = toolkit(actions * 5 / 4);
        let tk = &loaded.toolkit;
        let op = tk.operators[0].name.clone();
        let tools: Vec<String> = tk
            .nodes_of(toolscope_core::model::NodeKind::Tool)
            .take(6)
            .map(|ix| format!("{:?}", tk.name(ix)))
            .collect();
        let line = format!(
            "{{\"operator\": {:?}, \"calls\": [{}]}}\n",
            op,
            tools.join(", ")
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let runs = dir.path().join("runs.jsonl");
        std::fs::write(&runs, &line).expect("write runs");
        let mut app = App::new(loaded, "gen".into(), Theme::default(), (200, 60));
        let (tx, rx) = std::sync::mpsc::channel();
        app.evidence.connect(tx);
        type_keys(&mut app, &format!(":traces {}\n:replay\n", runs.display()));
        let mut term = Terminal::new(TestBackend::new(200, 60)).expect("backend");
        let mut records = 1;
        g.bench_function(BenchmarkId::new("follow_append_to_frame", actions), |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iters {
                    records += 1;
                    let t0 = std::time::Instant::now();
                    append(&runs, &line);
                    let want = format!("run {records} ");
                    let shown = until(&mut app, &rx, &mut term, &want);
                    total += t0.elapsed();
                    assert!(shown, "record {records} is on screen");
                }
                total
            })
        });
    }
    g.finish();
}

fn append(path: &Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open runs");
    f.write_all(line.as_bytes()).expect("append");
}

/// Runs the loop (messages, then the end-of-batch flush and a frame) until the frame
/// holds `want`; false after 10 s.
fn until(
    app: &mut App,
    rx: &std::sync::mpsc::Receiver<Msg>,
    term: &mut Terminal<TestBackend>,
    want: &str,
) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        let Ok(msg) = rx.recv_timeout(std::time::Duration::from_millis(200)) else {
            continue;
        };
        update(app, msg);
        while let Ok(more) = rx.try_recv() {
            update(app, more);
        }
        toolscope::tui::update::flush(app);
        draw_frame(term, app).expect("draw");
        if on_screen(term).contains(want) {
            return true;
        }
    }
    false
}

/// The last frame's text.
fn on_screen(term: &Terminal<TestBackend>) -> String {
    term.backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.symbol())
        .collect()
}

criterion_group!(tui, benches, open, replay, follow);
criterion_main!(tui);
