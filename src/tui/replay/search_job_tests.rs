//! The replay's walks over every run, driven by keys through `update`: `)`/`(` and `t`'s
//! measures on threads (their messages fed back to the loop), stale results dropped, Esc
//! cancelling; `R`'s order and filter; the run's standing on the panel.
//!
//! The fixture is `tests.rs`'s: run 1 hits every step, run 2 (`cd mv touch`) misses at
//! steps 1 and 2, run 3 misses `rm` (not available) at step 2, run 4 misses `find` (no
//! tool of the kit) at step 1.

use std::sync::mpsc::Receiver;
use std::time::Duration;

use toolscope_core::evidence::CostFn;
use toolscope_core::evidence::steps::StepOptions;
use toolscope_core::evidence::steps::figures::figures;
use toolscope_core::evidence::steps::search::at_setting;

use crate::tui::app::App;
use crate::tui::editing::tests::{Fixture, fixture, keys, open};
use crate::tui::msg::Msg;
use crate::tui::tests::screen;

const TK: &str = include_str!("../../../tests/fixtures/replay/fs-kit.yaml");
const RUNS: &str = include_str!("../../../tests/fixtures/replay/fs-runs.jsonl");

fn setup(w: u16, h: u16) -> (Fixture, App) {
    let f = fixture(TK);
    let runs = f.path.with_file_name("runs.jsonl");
    std::fs::write(&runs, RUNS).expect("write runs");
    let mut app = open(&f.path);
    crate::tui::update::update(&mut app, Msg::Resize(w, h));
    keys(&mut app, &format!(":traces {}<Enter>", runs.display()));
    (f, app)
}

fn at(app: &App) -> (usize, usize) {
    let run = app.replay.run().expect("replaying");
    (run.record, run.step)
}

/// Feeds the loop the replay jobs' messages until `done` holds.
fn until(app: &mut App, rx: &Receiver<Msg>, done: impl Fn(&App) -> bool) {
    while !done(app) {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(m) => crate::tui::update::update(app, m),
            Err(e) => panic!("no job came back: {e}"),
        }
    }
}

#[test]
fn next_and_previous_miss_at_once_without_the_loop() {
    let (_f, mut app) = setup(160, 48);
    keys(&mut app, ":replay 1 0<Enter>)");
    assert_eq!(at(&app), (1, 1), "run 2 misses mv after cd");
    keys(&mut app, ")");
    assert_eq!(at(&app), (1, 2));
    keys(&mut app, ")");
    assert_eq!(at(&app), (2, 1), "run 3 misses grep after ls");
    keys(&mut app, ")");
    assert_eq!(at(&app), (2, 2), "and rm, which it did not have");
    keys(&mut app, "))");
    assert_eq!(at(&app), (3, 1), "the last miss: find");
    assert!(screen(&app).contains("no later miss in the loaded runs (1 searched)"));
    keys(&mut app, "((");
    assert_eq!(at(&app), (2, 1));
    keys(&mut app, "(");
    assert_eq!(at(&app), (1, 2));
}

#[test]
fn a_miss_searched_on_a_thread_comes_back_and_esc_cancels_it() {
    let (_f, mut app) = setup(160, 48);
    let (tx, rx) = std::sync::mpsc::channel();
    app.replay.connect(tx);
    keys(&mut app, ":replay 1 0<Enter>");
    until(&mut app, &rx, |a| a.replay.search.standing().is_some());
    keys(&mut app, ")");
    // Searching: the step stays until the search comes back, and the panel says so.
    assert_eq!(at(&app), (0, 0));
    assert!(
        screen(&app).contains("searching 4 run(s) for the next miss … (Esc cancels)"),
        "{}",
        screen(&app)
    );
    until(&mut app, &rx, |a| a.replay.search.searching().is_none());
    assert_eq!(at(&app), (1, 1));
    // The status line says where the search landed, no longer that it runs.
    let s = screen(&app);
    assert!(
        s.contains("the later miss: run 2 step 1") && !s.contains("searching"),
        "{s}"
    );
    // Esc cancels a search: its result, if any came, is stale; the replay stays.
    keys(&mut app, ")<Esc>");
    assert!(app.replay.search.searching().is_none());
    assert!(screen(&app).contains("cancelled: searching 3 run(s) for the next miss"));
    while let Ok(m) = rx.recv_timeout(Duration::from_millis(300)) {
        crate::tui::update::update(&mut app, m);
    }
    assert_eq!(at(&app), (1, 1), "a cancelled search moves nothing");
    // A second `)` replaces the first: only the second's result is taken.
    keys(&mut app, "))");
    until(&mut app, &rx, |a| a.replay.search.searching().is_none());
    assert_eq!(at(&app), (1, 2));
    // A step key while searching: the search is for the step left, so it stops.
    keys(&mut app, ")h");
    assert!(app.replay.search.searching().is_none());
    while let Ok(m) = rx.recv_timeout(Duration::from_millis(300)) {
        crate::tui::update::update(&mut app, m);
    }
    assert_eq!(at(&app), (1, 1), "stepped back, and no jump after");
    // The next Esc leaves.
    keys(&mut app, "<Esc>");
    assert!(app.replay.is_off());
}

#[test]
fn t_measures_on_a_thread_and_esc_closes_the_list() {
    let (_f, mut app) = setup(100, 30);
    let (tx, rx) = std::sync::mpsc::channel();
    app.replay.connect(tx);
    keys(&mut app, ":replay 2 1<Enter>t");
    let note = |a: &App| a.replay.run().and_then(|r| r.tune.as_ref()?.note.clone());
    assert!(
        note(&app).is_some_and(|n| n.starts_with("measuring ") && n.contains(" over 4 run(s)")),
        "{:?}",
        note(&app)
    );
    until(&mut app, &rx, |a| {
        a.replay
            .run()
            .is_some_and(|r| r.tune.as_ref().is_some_and(|t| !t.list.is_empty()))
    });
    let s = screen(&app);
    assert!(s.contains("threshold -> 0.3"), "{s}");
    assert!(s.contains("Enter applies"), "{s}");
    // The measures agree with the same ones made at once.
    let threaded = app
        .replay
        .run()
        .and_then(|r| r.tune.as_ref())
        .map(|t| t.list.clone());
    let (_g, mut inline) = setup(100, 30);
    keys(&mut inline, ":replay 2 1<Enter>t");
    let at_once = inline
        .replay
        .run()
        .and_then(|r| r.tune.as_ref())
        .map(|t| t.list.clone());
    assert_eq!(threaded, at_once);
    keys(&mut app, "<Esc>");
    assert!(app.replay.run().is_some_and(|r| r.tune.is_none()));
}

#[test]
fn the_panel_says_the_runs_standing_from_the_core_tally() {
    let (_f, mut app) = setup(160, 48);
    keys(&mut app, ":replay 2 1<Enter>");
    let op = app.tk.operator("fs").expect("fs");
    let params = toolscope_core::recommend::Params {
        threshold: op.threshold,
        hops: op.hops,
    };
    let base = at_setting(&app.tk, Some("fs"), params);
    let records = app.evidence.records();
    let free = CostFn(|_| 0);
    let all = figures(&base, records, StepOptions::default(), &free)
        .steps
        .recall()
        .unwrap_or(0.0);
    let this = figures(&base, &records[1..2], StepOptions::default(), &free)
        .steps
        .recall()
        .unwrap_or(0.0);
    let want = format!("overall recall {all:.2} · this run {this:.2}");
    let s = screen(&app);
    assert!(s.contains(&want), "{want}\n{s}");
    // A setting of the view's own is the standing's too.
    keys(&mut app, "-");
    let params = app.session.params;
    let base = at_setting(&app.tk, Some("fs"), params);
    let all2 = figures(&base, app.evidence.records(), StepOptions::default(), &free)
        .steps
        .recall()
        .unwrap_or(0.0);
    assert!(all2 > all, "a lower threshold offers more: {all2} {all}");
    assert!(screen(&app).contains(&format!("overall recall {all2:.2}")));
    let panel = |a: &App| {
        screen(a)
            .lines()
            .filter_map(|l| l.rsplit('│').nth(1))
            .take(6)
            .collect::<Vec<_>>()
            .join("\n")
    };
    insta::assert_snapshot!("standing_160x48", panel(&app));
}

#[test]
fn r_orders_by_misses_and_recall_and_filters_to_runs_with_a_miss() {
    let (_f, mut app) = setup(100, 30);
    keys(&mut app, "R");
    let list = |a: &App| {
        screen(a)
            .lines()
            .skip(2)
            .take(7)
            .collect::<Vec<_>>()
            .join("\n")
    };
    insta::assert_snapshot!("runs_file_order", list(&app));
    keys(&mut app, "o");
    insta::assert_snapshot!("runs_most_misses", list(&app));
    keys(&mut app, "o");
    insta::assert_snapshot!("runs_lowest_recall", list(&app));
    keys(&mut app, "f");
    insta::assert_snapshot!("runs_lowest_recall_with_a_miss", list(&app));
    // The cursor stays on its run; Enter replays the run under it.
    keys(&mut app, "j<Enter>");
    let run = app.replay.run().expect("replaying");
    let shown = app.replay.list.rows(&app.replay.summaries, 4);
    assert_eq!(run.record, shown[1]);
}

/// Issue 44 item 4: `)` on long records walks nothing on the UI thread (it walked every
/// record there, capped at 2,000 records); the miss comes from the thread and showing it
/// walks the step shown. Two 500-call records and a short one.
#[test]
fn the_next_miss_of_long_runs_is_searched_off_the_ui_thread() {
    use toolscope_core::evidence::steps::replay::steps_walked;
    let (f, mut app) = setup(160, 48);
    let runs = f.path.with_file_name("runs.jsonl");
    let tools = ["ls", "cd", "cat", "grep", "mv", "touch", "rm"];
    let calls: Vec<&str> = tools.iter().copied().cycle().take(500).collect();
    let line = serde_json::json!({"operator": "fs", "threshold": 0, "hops": 20, "calls": calls});
    let last = serde_json::json!({"operator": "fs", "calls": ["ls", "find"]});
    std::fs::write(&runs, format!("{line}\n{line}\n{last}\n")).expect("write runs");
    keys(&mut app, &format!(":traces {}<Enter>", runs.display()));
    let (tx, rx) = std::sync::mpsc::channel();
    app.replay.connect(tx);
    keys(&mut app, ":replay 1 0<Enter>");
    let before = steps_walked();
    keys(&mut app, ")");
    assert_eq!(
        steps_walked() - before,
        0,
        "nothing walked on the UI thread"
    );
    until(&mut app, &rx, |a| a.replay.search.searching().is_none());
    // The view's setting (fs is active) walks the runs, so run 1 has misses of its own.
    let run = app.replay.run().expect("replaying");
    assert!(at(&app) > (0, 0) && run.current().is_some_and(|s| !s.hit));
    assert!(
        steps_walked() - before <= 2,
        "showing the miss walks its step"
    );
}
