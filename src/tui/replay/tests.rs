//! The replay driven by keys through `update`, and its screens on `TestBackend`.
//!
//! The fixture is shaped as `init` writes kits (`call <tool>` per tool): operator `fs`
//! seeds `call ls` and `call cd` at threshold 0.35, hops 1. Run 1 (`ls cd ls cat`) hits
//! every step; run 2 (`cd mv touch`) misses `mv` after `cd` (`call cd -> call mv` is 0.3)
//! and `touch` after `mv` (no edge leads to `call touch`); run 3 had only ls, grep and
//! cat; run 4 calls `find`, no tool of the kit.

use petgraph::stable_graph::NodeIndex;

use crate::tui::app::App;
use crate::tui::tests::screen;
use crate::tui::update::editing::tests::{Fixture, fixture, keys, open};

const TK: &str = include_str!("../../../tests/fixtures/replay/fs-kit.yaml");
const RUNS: &str = include_str!("../../../tests/fixtures/replay/fs-runs.jsonl");

fn setup(w: u16, h: u16) -> (Fixture, std::path::PathBuf, App) {
    let f = fixture(TK);
    let runs = f.path.with_file_name("runs.jsonl");
    std::fs::write(&runs, RUNS).expect("write runs");
    let mut app = open(&f.path);
    crate::tui::update::update(&mut app, crate::tui::msg::Msg::Resize(w, h));
    keys(&mut app, &format!(":traces {}<Enter>", runs.display()));
    (f, runs, app)
}

fn ix(app: &App, name: &str) -> NodeIndex {
    toolscope_core::evidence::eval::tool_named(&app.tk, name)
        .or_else(|| app.tk.action(name))
        .expect("node")
}

/// What the panel says of the current step's miss, joined.
fn why(app: &App) -> String {
    let run = app.replay.run().expect("replaying");
    let s = run.current().expect("a step");
    let sources = super::draw::Sources {
        replay: &app.replay,
        insight: &app.insight,
        evidence: &app.evidence,
        graph_pane: &app.graph_pane,
        whole: app.whole_layout(),
    };
    super::draw::why(&sources, &app.ctx(), run, s).join(" ")
}

fn step(app: &App) -> (usize, usize, bool) {
    let run = app.replay.run().expect("replaying");
    let s = run.current().expect("a step");
    (run.record, run.step, s.hit)
}

#[test]
fn replay_walks_a_run_with_keys_and_cuts_the_offer() {
    let (_f, _runs, mut app) = setup(160, 48);
    keys(&mut app, ":replay 1 0<Enter>");
    assert_eq!(step(&app), (0, 0, true));
    // Step 1: after ls, its callers seed the graph; cd is offered.
    keys(&mut app, "l");
    assert_eq!(step(&app), (0, 1, true));
    assert_eq!(app.seeds, vec![ix(&app, "call ls")]);
    assert!(app.rec.contains(ix(&app, "cd")));
    assert_eq!(app.selected, Some(ix(&app, "cd")));
    keys(&mut app, "G");
    assert_eq!(step(&app).1, 3);
    keys(&mut app, "hg");
    assert_eq!(step(&app).1, 0);
    // Run 3 had ls, grep and cat: cd is recommended after ls but not offered.
    keys(&mut app, ":replay r3 1<Enter>");
    assert_eq!(step(&app), (2, 1, false));
    assert!(!app.rec.contains(ix(&app, "cd")));
    assert!(app.rec.contains(ix(&app, "cat")));
    // Esc leaves: the operator's seeds and the whole recommendation come back.
    keys(&mut app, "<Esc>");
    assert!(app.replay.is_off());
    assert_eq!(app.seeds.len(), 2);
    assert!(app.rec.contains(ix(&app, "cd")));
}

#[test]
fn replay_refuses_what_is_not_there() {
    let (_f, _runs, mut app) = setup(160, 48);
    for (line, says) in [
        (":replay 9 0", "records are numbered 1 to 4"),
        (":replay 1 7", "steps 0 to 3"),
        (":replay nope", "no record numbered or with id `nope`"),
        (":replay 1 x", "`x` is no step number"),
    ] {
        keys(&mut app, &format!("{line}<Enter>"));
        let s = app.status.clone().expect("status");
        assert!(s.text.contains(says), "{line}: {}", s.text);
        assert!(app.replay.is_off(), "{line}");
    }
}

#[test]
fn a_miss_says_what_keeps_the_call_out_and_tuning_applies_one_undoable_edit() {
    let (f, _runs, mut app) = setup(160, 48);
    keys(&mut app, ":replay 2 1<Enter>");
    assert_eq!(step(&app), (1, 1, false));
    let w = why(&app);
    assert!(
        w.contains("blocked at threshold 0.35 by call cd -> call mv (0.3)"),
        "{w}"
    );
    assert!(w.contains("enter at threshold 0.3"), "{w}");
    keys(&mut app, "t");
    let tune = app
        .replay
        .run()
        .and_then(|r| r.tune.as_ref())
        .expect("tune");
    let said: Vec<String> = tune.list.iter().map(|c| c.describe(&app.tk)).collect();
    assert_eq!(said, ["threshold -> 0.3", "call cd -> call mv 0.3 -> 0.35"]);
    let c = &tune.list[0];
    assert!(c.after.steps.hits > c.before.steps.hits, "{c:?}");
    // The second: the edge's score, one edit; the step is shown again, now a hit.
    keys(&mut app, "j<Enter>");
    assert_eq!(step(&app), (1, 1, true));
    assert!(app.is_modified());
    let st = app.status.clone().expect("status").text;
    assert!(st.contains("tuned: call cd -> call mv"), "{st}");
    keys(&mut app, "u");
    assert_eq!(step(&app), (1, 1, false));
    keys(&mut app, "w");
    assert_eq!(std::fs::read_to_string(&f.path).expect("read"), TK);
    // The threshold candidate moves the view's threshold with the file's.
    keys(&mut app, "t<Enter>");
    assert_eq!(app.session.params.threshold, 0.3);
    assert_eq!(app.active_operator().map(|o| o.threshold), Some(0.3));
    assert_eq!(step(&app), (1, 1, true));
    keys(&mut app, "u");
    assert_eq!(app.session.params.threshold, 0.35);
    assert_eq!(step(&app), (1, 1, false));
}

#[test]
fn misses_out_of_the_graph_or_out_of_the_run_are_said() {
    let (_f, _runs, mut app) = setup(160, 48);
    keys(&mut app, ":replay 4 1<Enter>");
    assert!(why(&app).contains("find is not in the graph at all"));
    keys(&mut app, "t");
    let note = app
        .replay
        .run()
        .and_then(|r| r.tune.as_ref())
        .and_then(|t| t.note.clone());
    assert_eq!(
        note.as_deref(),
        Some("the call is no tool of the toolkit: add it first")
    );
    keys(&mut app, "<Esc>:replay 3 2<Enter>");
    assert!(why(&app).contains("rm was not available to the run"));
    // touch: no edge reaches it; the link is the candidate.
    keys(&mut app, ":replay 2 2<Enter>t");
    let tune = app
        .replay
        .run()
        .and_then(|r| r.tune.as_ref())
        .expect("tune");
    let said: Vec<String> = tune.list.iter().map(|c| c.describe(&app.tk)).collect();
    assert_eq!(said, ["link call mv -> call touch at 0.35"]);
}

#[test]
fn play_ticks_advance_and_stale_ticks_do_nothing() {
    let (_f, _runs, mut app) = setup(160, 48);
    keys(&mut app, ":replay 1 0<Enter><Space>");
    assert!(app.replay.run().is_some_and(|r| r.playing));
    let generation = app.replay.generation;
    crate::tui::update::replay::tick(&mut app, generation);
    assert_eq!(step(&app).1, 1);
    crate::tui::update::replay::tick(&mut app, generation - 1);
    assert_eq!(step(&app).1, 1, "a stale tick");
    keys(&mut app, "<Space>");
    let generation = app.replay.generation;
    crate::tui::update::replay::tick(&mut app, generation);
    assert_eq!(step(&app).1, 1, "paused");
}

#[test]
fn the_run_list_and_following_a_growing_file() {
    let (_f, runs, mut app) = setup(160, 48);
    keys(&mut app, "R");
    assert!(screen(&app).contains("runs · file order"));
    assert!(screen(&app).contains("o order · f misses · Enter · Esc"));
    keys(&mut app, "jj<Enter>");
    assert_eq!(step(&app), (2, 0, true));
    // `:replay` alone follows the newest record, at its last step.
    keys(&mut app, ":replay<Enter>");
    assert_eq!(step(&app), (3, 1, false));
    let mut text = RUNS.to_string();
    text.push_str("{\"id\": \"r5\", \"operator\": \"fs\", \"calls\": [\"cd\", \"ls\"]}\n");
    std::fs::write(&runs, text).expect("append");
    app.evidence.changed_on_disk();
    crate::tui::update::flush(&mut app);
    assert_eq!(step(&app), (4, 1, true));
    assert!(screen(&app).contains("(following)"));
}

#[test]
fn the_step_after_a_tool_and_the_opening_of_a_step_kit() {
    let (_f, _runs, mut app) = setup(160, 48);
    // The opening: the tool most runs call first (ls: 3 of 4).
    crate::tui::update::replay::opening(&mut app);
    assert_eq!(app.seeds, vec![ix(&app, "call ls")]);
    assert!(screen(&app).contains("step after ls"));
    keys(&mut app, "<Esc>");
    assert_eq!(app.seeds.len(), 2);
    // S on a selected tool.
    let cd = ix(&app, "cd");
    app.select(cd);
    keys(&mut app, "S");
    assert_eq!(app.seeds, vec![ix(&app, "call cd")]);
    let a = app.replay.after().expect("step view");
    let mut want = vec![ix(&app, "ls"), cd];
    want.sort();
    assert_eq!(a.offer.offered, want);
    // A key of the keymap still works (threshold down): the step follows it.
    keys(&mut app, "-");
    let a = app.replay.after().expect("step view");
    assert!(a.offer.offered.contains(&ix(&app, "mv")));
}

#[test]
fn replayed_steps_on_screen() {
    for (w, h) in [(100, 30), (80, 24)] {
        let (f, _runs, mut app) = setup(w, h);
        // The status line names the toolkit's temporary folder: the same in every run.
        let dir = f.path.parent().expect("a folder").display().to_string();
        let shot = |app: &App| screen(app).replace(&dir, "<tmp>");
        keys(&mut app, ":replay 1 1<Enter>");
        insta::assert_snapshot!(format!("replay_hit_{w}x{h}"), shot(&app));
        keys(&mut app, ":replay 2 1<Enter>");
        insta::assert_snapshot!(format!("replay_miss_{w}x{h}"), shot(&app));
        keys(&mut app, "t");
        insta::assert_snapshot!(format!("replay_tune_{w}x{h}"), shot(&app));
    }
}

/// Where `m` (or the focus view) hid the right-hand pane, replaying a run and opening the
/// tune list bring it back: the hit or miss, what keeps a miss out and the list are there.
#[test]
fn the_replay_panel_shows_itself_where_the_side_panes_were_hidden() {
    let (_f, _runs, mut app) = setup(100, 30);
    let inspector_width = |app: &App| {
        crate::tui::panes::Panes::new(app.size, app.layout_hint())
            .inspector
            .width
    };
    keys(&mut app, "m");
    assert_eq!(inspector_width(&app), 0, "`m` hid the right-hand pane");
    keys(&mut app, ":replay 2 1<Enter>");
    let s = screen(&app);
    assert!(inspector_width(&app) > 0, "{s}");
    assert!(s.contains("blocked at"), "{s}");
    keys(&mut app, "m");
    assert_eq!(
        inspector_width(&app),
        0,
        "`m` still hides it during a replay"
    );
    keys(&mut app, "t");
    let s = screen(&app);
    assert!(inspector_width(&app) > 0, "{s}");
    assert!(s.contains("threshold -> 0.3"), "{s}");
}

/// Where the step's offer is larger than the pane, the replay's line on the bottom border
/// and the "more" marks share it: the caption is cut before the marks, not drawn over them.
#[test]
fn the_replay_line_leaves_room_for_the_more_marks() {
    let (_f, _runs, mut app) = setup(60, 15);
    keys(&mut app, ":replay 1 1<Enter>");
    let h = crate::tui::graph_pane::more::hidden(&app.graph_pane, &app.ctx());
    assert!(h.any(), "the fixture overflows a 60x15 terminal");
    let s = screen(&app);
    let bottom = s
        .lines()
        .find(|l| l.starts_with('└') && l.contains("1/3"))
        .unwrap_or_else(|| panic!("the replay line on the border:\n{s}"));
    assert!(bottom.contains("more (n)"), "{bottom}\n{s}");
}

/// The caption on the border keeps whole parts: a cut `recall 1/2` would read `recall 1`.
#[test]
fn the_replay_caption_drops_whole_parts_that_do_not_fit() {
    let parts: Vec<Vec<String>> = vec![
        vec!["run 6 step 1 of 2".into(), "run 6 1/2".into(), "1/2".into()],
        vec!["✗ CypherExecutor miss".into(), "✗ CypherExecutor".into()],
        vec!["recall 1/2".into()],
    ];
    let full = " run 6 step 1 of 2 · ✗ CypherExecutor miss · recall 1/2 ";
    assert_eq!(super::draw::caption(&parts, 80), full);
    assert_eq!(super::draw::caption(&parts, full.chars().count()), full);
    // Shorter: the step in short form first, then the verdict, every part kept.
    assert_eq!(
        super::draw::caption(&parts, 50),
        " run 6 1/2 · ✗ CypherExecutor miss · recall 1/2 "
    );
    assert_eq!(
        super::draw::caption(&parts, 42),
        " 1/2 · ✗ CypherExecutor miss · recall 1/2 "
    );
    assert_eq!(
        super::draw::caption(&parts, 37),
        " 1/2 · ✗ CypherExecutor · recall 1/2 "
    );
    // Then whole parts go from the end.
    assert_eq!(super::draw::caption(&parts, 24), " 1/2 · ✗ CypherExecutor ");
    assert_eq!(super::draw::caption(&parts, 8), " 1/2 ");
    assert_eq!(super::draw::caption(&parts, 4), " 1…");
    assert_eq!(super::draw::caption(&parts, 2), "");
}

/// On a panel too short for the explanation and the tune list, the list and its keys come
/// first: a miss's changes can be chosen and applied at 100x24.
#[test]
fn a_short_panel_keeps_the_tune_list_and_its_keys_on_screen() {
    let (_f, _runs, mut app) = setup(100, 24);
    keys(&mut app, ":replay 2 1<Enter>t");
    let s = screen(&app);
    let run = app.replay.run().expect("replaying");
    let tune = run.tune.as_ref().expect("the tune list is open");
    assert!(tune.list.len() >= 2, "the fixture's miss has changes: {s}");
    assert!(s.contains("Enter applies"), "{s}");
    assert!(s.contains("threshold -> 0.3"), "{s}");
}

/// The Chat2Graph recorder numbers its runs, so a record's id is often its number: the
/// panel's first line says `run 2` once, and a different id after it.
#[test]
fn a_record_id_equal_to_its_number_is_said_once() {
    let (_f, runs, mut app) = setup(120, 40);
    let numbered = RUNS.replacen("\"id\": \"r2\"", "\"id\": \"2\"", 1);
    std::fs::write(&runs, numbered).expect("write runs");
    keys(&mut app, &format!(":traces {}<Enter>", runs.display()));
    keys(&mut app, ":replay 2 1<Enter>");
    let s = screen(&app);
    assert!(s.contains("│run 2 "), "{s}");
    assert!(!s.contains("run 2 2"), "{s}");
    keys(&mut app, ":replay 1 1<Enter>");
    assert!(screen(&app).contains("run 1 r1"), "{}", screen(&app));
}

/// `m` says what it did, replacing what the focus view said when it hid the panes (which
/// `m` has just made wrong).
#[test]
fn m_says_whether_it_hid_or_showed_the_side_panes() {
    let (_f, _runs, mut app) = setup(100, 30);
    keys(&mut app, "m");
    let s = screen(&app);
    assert!(s.contains("side panes hidden (m shows them)"), "{s}");
    keys(&mut app, "m");
    let s = screen(&app);
    assert!(s.contains("side panes shown (m hides them)"), "{s}");
    assert!(!s.contains("m shows them"), "{s}");
}

/// A replayed miss is about the call it missed: where the step's recommendation fills the
/// pane and most of its frontier is not drawn, the missed call still is (marked `✗`).
#[test]
fn a_missed_call_in_the_frontier_is_drawn_where_the_rest_of_it_is_not() {
    let mut kit = String::from("name: wide\ntools:\n");
    for i in 0..30 {
        kit.push_str(&format!("  - name: in{i}\n  - name: out{i}\n"));
    }
    kit.push_str("actions:\n  - name: hub\n    tools:\n");
    for i in 0..30 {
        let called = if i < 12 {
            format!("in{i}")
        } else {
            String::new()
        };
        if !called.is_empty() {
            kit.push_str(&format!("      - {called}\n"));
        }
        kit.push_str(&format!("      - {{name: out{i}, score: 0.3}}\n"));
    }
    kit.push_str("operators:\n  - name: op\n    actions: [hub]\n    threshold: 0.5\n");
    let f = fixture(&kit);
    let runs = f.path.with_file_name("runs.jsonl");
    std::fs::write(
        &runs,
        "{\"operator\": \"op\", \"calls\": [\"in0\", \"out29\"]}\n",
    )
    .expect("write runs");
    let mut app = open(&f.path);
    crate::tui::update::update(&mut app, crate::tui::msg::Msg::Resize(80, 24));
    keys(
        &mut app,
        &format!(":traces {}<Enter>:replay 1 1<Enter>", runs.display()),
    );
    assert_eq!(step(&app), (0, 1, false));
    let s = screen(&app);
    assert!(!s.contains("more (n)"), "the recommendation fits:\n{s}");
    // Frontier boxes read `(- out3 )`; the navigator's rows do not.
    let drawn = (0..29)
        .filter(|i| s.contains(&format!("(- out{i} )")))
        .count();
    assert!(drawn < 29, "most of the frontier is not drawn:\n{s}");
    assert!(s.contains("out29✗"), "the missed call is drawn:\n{s}");
}

/// Issue 46 item 5: a long record is walked where it is shown. Two 500-call records at
/// threshold 0 and 20 hops: `:replay`, a step key, PgDn, `R`+Enter, a threshold key and a
/// reload of the trace file each walk the step shown and no more on the UI thread (they
/// walked the whole record, twice for `:replay`); the recall so far comes from a thread,
/// and Esc stops it.
#[test]
fn a_long_record_walks_only_the_step_shown_on_the_ui_thread() {
    use toolscope_core::evidence::steps::replay::steps_walked;
    let (_f, runs, mut app) = setup(160, 48);
    let tools = ["ls", "cd", "cat", "grep", "mv", "touch", "rm"];
    let calls: Vec<&str> = tools.iter().copied().cycle().take(500).collect();
    let line = serde_json::json!({"operator": "fs", "threshold": 0, "hops": 20, "calls": calls});
    std::fs::write(&runs, format!("{line}\n{line}\n")).expect("write runs");
    keys(&mut app, &format!(":traces {}<Enter>", runs.display()));
    let (tx, rx) = std::sync::mpsc::channel();
    app.replay.connect(tx);
    // Each action: how many steps it walked here, at most 2 (the step, and the cut of
    // the recommendation shown is no walk of the record).
    let walked = |app: &mut App, k: &str| {
        let before = steps_walked();
        keys(app, k);
        let n = steps_walked() - before;
        assert!(n <= 2, "{k}: {n} steps walked on the UI thread");
    };
    walked(&mut app, ":replay 1 3<Enter>");
    assert_eq!(step(&app).1, 3);
    walked(&mut app, "l");
    walked(&mut app, "<PgDn>");
    assert_eq!(step(&app), (1, 0, true));
    walked(&mut app, "R");
    walked(&mut app, "<Enter>");
    walked(&mut app, "G");
    assert_eq!(step(&app).1, 499);
    walked(&mut app, "-");
    // The recall so far comes from the thread walking the hits.
    let run = app.replay.run().expect("replaying");
    assert_eq!(run.played.hits_through(499), None);
    // Jobs stopped or replaced may have sent theirs first: those are stale, dropped.
    while app.replay.walking_hits() {
        match rx.recv_timeout(std::time::Duration::from_secs(60)) {
            Ok(m) => crate::tui::update::update(&mut app, m),
            Err(e) => panic!("no hits came back: {e}"),
        }
    }
    let run = app.replay.run().expect("replaying");
    assert_eq!(run.played.hits_through(499).map(|h| h.1), Some(500));
    // A reload of the trace file with the record grown walks the step shown again, not the
    // record.
    let mut grown = calls.clone();
    grown.push("ls");
    let line2 = serde_json::json!({"operator": "fs", "threshold": 0, "hops": 20, "calls": grown});
    std::fs::write(&runs, format!("{line}\n{line2}\n")).expect("rewrite runs");
    walked(&mut app, &format!(":traces {}<Enter>", runs.display()));
    // Esc leaves and stops the walk of the hits.
    assert!(app.replay.walking_hits());
    walked(&mut app, "<Esc>");
    assert!(app.replay.is_off());
    assert!(!app.replay.walking_hits());
}
