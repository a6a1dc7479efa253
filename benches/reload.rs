//! File change on disk to redrawn frame (SPEC 7: under 150 ms): a rename-over save of a
//! changed description, the watcher's event on the TUI's channel, the reload through the
//! workspace, `App::replace`, and one frame drawn at 200x60 on a `TestBackend`. The
//! watcher's 50 ms debounce is included. Sizes: the bundled example and 10k actions.

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use toolscope::tui::{App, Msg, Theme, editing, update::update};
use toolscope_core::generate::{GenOptions, generate};
use toolscope_core::workspace::Workspace;

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

fn rename_over(path: &Path, text: &str) {
    let tmp = path.with_extension("tmp~");
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// Runs the loop until the app shows `marker` in the first action's description.
fn until_shown(
    app: &mut App,
    rx: &mpsc::Receiver<Msg>,
    term: &mut Terminal<TestBackend>,
    marker: &str,
) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let Ok(msg) = rx.recv_timeout(Duration::from_millis(500)) else {
            continue;
        };
        update(app, msg);
        while let Ok(more) = rx.try_recv() {
            update(app, more);
        }
        toolscope::tui::update::flush(app);
        let _ = draw_frame(term, app);
        let shown = app
            .tk
            .graph
            .node_indices()
            .any(|ix| app.tk.node(ix).desc.contains(marker));
        if shown {
            return;
        }
    }
}

fn case(c: &mut Criterion, label: &str, text: String, first_desc: &str) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("toolkit.yaml");
    rename_over(&path, &text);
    let Ok(ws) = Workspace::open(std::slice::from_ref(&path), None) else {
        return;
    };
    let mut app = App::with_workspace(ws, "bench".into(), Theme::default(), (200, 60));
    let (tx, rx) = mpsc::channel();
    editing::watch(&mut app, tx, std::slice::from_ref(&path), None);
    // TestBackend cannot fail (its error type is uninhabited).
    let mut term = Terminal::new(TestBackend::new(200, 60)).unwrap_or_else(|e| match e {});
    let mut g = c.benchmark_group("reload");
    g.sample_size(20).measurement_time(Duration::from_secs(8));
    let mut n = 0u64;
    g.bench_function(BenchmarkId::new("change_to_frame", label), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                n += 1;
                let marker = format!("edit{n}");
                let changed = text.replacen(first_desc, &format!("{first_desc} {marker}"), 1);
                let t0 = Instant::now();
                rename_over(&path, &changed);
                until_shown(&mut app, &rx, &mut term, &marker);
                total += t0.elapsed();
                // Let the debouncer settle so each sample is one write.
                while let Ok(m) = rx.recv_timeout(Duration::from_millis(120)) {
                    update(&mut app, m);
                }
                toolscope::tui::update::flush(&mut app);
            }
            total
        })
    });
    g.finish();
}

/// The core of a reload alone: a description changed on disk, `Workspace::reload` (the
/// incremental re-read of the changed item when provable, else the full load), at 1k, 10k
/// and 100k actions.
fn core_reload(c: &mut Criterion) {
    let Ok(dir) = tempfile::tempdir() else { return };
    let mut g = c.benchmark_group("workspace_reload");
    g.sample_size(10);
    for n in [1_000, 10_000, 100_000] {
        let path = dir.path().join(format!("g{n}.yaml"));
        let text = generate(GenOptions {
            actions: n,
            tools: None,
            seed: 7,
        });
        rename_over(&path, &text);
        let Ok(mut ws) = Workspace::open(std::slice::from_ref(&path), None) else {
            continue;
        };
        let mut k = 0u64;
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    k += 1;
                    let changed = text.replacen("Synthetic action 7.", &format!("Changed {k}."), 1);
                    rename_over(&path, &changed);
                    let t0 = Instant::now();
                    let _ = ws.reload();
                    total += t0.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    core_reload(c);
    let example = toolscope_core::source::EXAMPLE.to_string();
    case(c, "example", example, "Reads a source document");
    let big = generate(GenOptions {
        actions: 10_000,
        tools: None,
        seed: 7,
    });
    case(c, "10k_actions", big, "Synthetic action 0.");
}

criterion_group!(reload, benches);
criterion_main!(reload);
