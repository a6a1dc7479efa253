//! A learned kit's replayed misses on screen (issue 44): the kit `init` + `fit --write`
//! learned from 200 `gen` runs (30 tools, one `call <tool>` action each, thresholds at
//! `fit`'s suggestion) and 12 held-out runs. Every action there leads to most others, so
//! each step is drawn as the reasons for its offer: the missed call is marked inside the
//! graph with the edge or hop that keeps it out, and no crossing sits beside another
//! crossing or a junction.

use toolscope_core::evidence::steps::replay::replay;

use crate::tui::app::App;
use crate::tui::tests::screen;
use crate::tui::update::editing::tests::{Fixture, fixture, keys, open};

const TK: &str = include_str!("../../../tests/fixtures/replay/learned-kit.yaml");
const RUNS: &str = include_str!("../../../tests/fixtures/replay/learned-runs.jsonl");

/// The kit `init` + `fit --write` learned from BFCL's training runs (its operator at
/// `init`'s threshold 0.02, hops 1) and the first ten held-out runs
/// (tests/fixtures/replay/README.md says where they came from).
const BFCL_TK: &str = include_str!("../../../tests/fixtures/replay/bfcl-kit.yaml");
const BFCL_RUNS: &str = include_str!("../../../tests/fixtures/replay/bfcl-runs.jsonl");

/// The kit learned from 300 `gen --actions 60 --tools 40` runs (thresholds at `fit`'s
/// suggestion) and 12 held-out runs of another seed.
const GEN_TK: &str = include_str!("../../../tests/fixtures/replay/gen-kit.yaml");
const GEN_RUNS: &str = include_str!("../../../tests/fixtures/replay/gen-runs.jsonl");

fn setup(w: u16, h: u16) -> (Fixture, App) {
    setup_with(TK, RUNS, w, h)
}

fn setup_with(tk: &str, runs_text: &str, w: u16, h: u16) -> (Fixture, App) {
    let f = fixture(tk);
    let runs = f.path.with_file_name("runs.jsonl");
    std::fs::write(&runs, runs_text).expect("write runs");
    let mut app = open(&f.path);
    crate::tui::update::update(&mut app, crate::tui::msg::Msg::Resize(w, h));
    keys(&mut app, &format!(":traces {}<Enter>", runs.display()));
    (f, app)
}

/// The first `n` misses (after a first call, unless `firsts`): (record from 1, step,
/// called tool).
fn misses(app: &App, n: usize, firsts: bool) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (i, r) in app.evidence.records().iter().enumerate() {
        let mut played = replay(&app.tk, r, None, 1).expect("replays");
        for (k, s) in played.all_steps(&app.tk).iter().enumerate() {
            if (k > 0 || firsts) && !s.hit && out.len() < n {
                out.push((i + 1, k, s.next.clone()));
            }
        }
    }
    out
}

/// The graph pane's lines: the screen's rows between its top and bottom borders, the
/// columns inside its frame.
fn graph_rows(text: &str) -> Vec<Vec<char>> {
    let lines: Vec<&str> = text.lines().collect();
    let top = lines
        .iter()
        .position(|l| l.contains("Graph:"))
        .expect("the graph pane");
    let chars: Vec<char> = lines[top].chars().collect();
    let title = lines[top][..lines[top].find("Graph:").expect("title")]
        .chars()
        .count();
    let start = (0..title).rev().find(|&i| chars[i] == '┌').unwrap_or(0);
    let width = lines[top]
        .chars()
        .skip(start)
        .take_while(|&c| c != '┐')
        .count();
    lines[top + 1..]
        .iter()
        .take_while(|l| l.chars().nth(start).is_none_or(|c| c != '└'))
        .map(|l| {
            l.chars()
                .skip(start + 1)
                .take(width.saturating_sub(1))
                .collect()
        })
        .collect()
}

/// A crossing with another crossing or a junction right beside it (left, right, above or
/// below): where lines cannot be told apart.
fn knots(rows: &[Vec<char>]) -> Vec<(usize, usize)> {
    let crossing = |c: char| matches!(c, '╋' | '┼');
    let joint = |c: char| matches!(c, '╋' | '┼' | '┣' | '┫' | '┳' | '┻' | '├' | '┤' | '┬' | '┴');
    let at = |x: i64, y: i64| -> char {
        if x < 0 || y < 0 {
            return ' ';
        }
        rows.get(y as usize)
            .and_then(|r| r.get(x as usize))
            .copied()
            .unwrap_or(' ')
    };
    let mut out = Vec::new();
    for (y, r) in rows.iter().enumerate() {
        for (x, &c) in r.iter().enumerate() {
            let (x, y) = (x as i64, y as i64);
            if crossing(c)
                && [(1, 0), (-1, 0), (0, 1), (0, -1)]
                    .iter()
                    .any(|(dx, dy)| joint(at(x + dx, y + dy)))
            {
                out.push((x as usize, y as usize));
            }
        }
    }
    out
}

#[test]
fn a_learned_kits_misses_are_marked_in_the_graph_without_a_knot() {
    first_misses_are_marked_without_a_knot("learned", TK, RUNS);
}

#[test]
fn the_bfcl_kits_misses_are_marked_in_the_graph_without_a_knot() {
    first_misses_are_marked_without_a_knot("bfcl", BFCL_TK, BFCL_RUNS);
}

#[test]
fn the_gen_kits_misses_are_marked_in_the_graph_without_a_knot() {
    first_misses_are_marked_without_a_knot("gen", GEN_TK, GEN_RUNS);
}

/// The first three misses after a first call, replayed at 80x24, 100x30 and 160x48: the
/// missed call marked in the graph with what keeps it out labelled, no knot, a snapshot
/// (`{name}_miss{n}_{w}x{h}`; the small kit's keep their first name), and `t` offering a
/// change of one edge.
fn first_misses_are_marked_without_a_knot(name: &str, tk: &str, runs: &str) {
    for (w, h) in [(80, 24), (100, 30), (160, 48)] {
        let (f, mut app) = setup_with(tk, runs, w, h);
        let dir = f.path.parent().expect("a folder").display().to_string();
        let wanted = misses(&app, 3, false);
        assert_eq!(wanted.len(), 3);
        for (n, (record, step, tool)) in wanted.iter().enumerate() {
            keys(&mut app, &format!(":replay {record} {step}<Enter>"));
            let text = screen(&app).replace(&dir, "<tmp>");
            let rows = graph_rows(&text);
            let graph: String = rows
                .iter()
                .map(|r| r.iter().collect::<String>() + "\n")
                .collect();
            assert!(
                graph.contains(&format!("{tool}✗")),
                "{w}x{h} run {record} step {step}: {tool} is marked in the graph\n{text}"
            );
            let run = app.replay.run().expect("replaying");
            let s = run.current().expect("a step");
            assert!(!s.hit);
            // What keeps it out is labelled on its edge: its score, or `hops`.
            let f = app.graph_pane.focus_view.as_ref().expect("the focus view");
            assert!(
                f.ranked.len() == s.offer.offered.len(),
                "drawn as its reasons"
            );
            // The edge that keeps it out is drawn (routed), not only named in the panel.
            if let Some(k) = f.keeping {
                let routed = f.routes.as_ref().expect("routed");
                assert!(
                    routed.by_edge.contains_key(&k.step.edge),
                    "{w}x{h} run {record} step {step}: the blocking edge is drawn\n{text}"
                );
            }
            let label = match f.keeping {
                Some(k) if k.by_hops => "hops".to_string(),
                Some(k) => format!("{:.2}", k.step.score),
                None => panic!("{tool}: something keeps it out"),
            };
            assert!(
                graph.contains(&label),
                "{w}x{h} run {record} step {step}: the blocking label {label}\n{text}"
            );
            assert_eq!(
                knots(&rows),
                Vec::<(usize, usize)>::new(),
                "{w}x{h} run {record} step {step}: a knot\n{text}"
            );
            insta::assert_snapshot!(format!("{name}_miss{}_{w}x{h}", n + 1), text);
            // `t` offers a change of one edge: a link from the step's seed, or a score.
            keys(&mut app, "t");
            let run = app.replay.run().expect("replaying");
            let tune = run.tune.as_ref().expect("the tune list");
            assert!(
                tune.list.iter().any(|c| c.changes.len() == 1
                    && matches!(
                        c.changes[0],
                        toolscope_core::evidence::steps::tune::Change::Link { .. }
                            | toolscope_core::evidence::steps::tune::Change::Score { .. }
                    )),
                "{w}x{h} run {record} step {step}: a candidate of one edge"
            );
            keys(&mut app, "<Esc>");
        }
        // `R` says how each run went.
        keys(&mut app, "<Esc>R");
        let text = screen(&app);
        assert!(text.contains("all hit") || text.contains(" miss"), "{text}");
        assert!(text.contains(" miss"), "{text}");
    }
}

#[test]
fn parens_jump_to_the_next_and_previous_miss_across_runs() {
    let (_f, mut app) = setup(100, 30);
    let wanted: Vec<_> = misses(&app, 4, true)
        .into_iter()
        .filter(|m| (m.0, m.1) != (1, 0))
        .collect();
    keys(&mut app, ":replay 1 0<Enter>)");
    let at = |app: &App| {
        let run = app.replay.run().expect("replaying");
        (run.record + 1, run.step)
    };
    assert_eq!(at(&app), (wanted[0].0, wanted[0].1));
    keys(&mut app, ")");
    assert_eq!(at(&app), (wanted[1].0, wanted[1].1));
    keys(&mut app, "(");
    assert_eq!(at(&app), (wanted[0].0, wanted[0].1));
}

#[test]
fn at_a_hit_t_says_there_is_nothing_to_tune_and_why() {
    let (_f, mut app) = setup(100, 30);
    let hit = app
        .evidence
        .records()
        .iter()
        .enumerate()
        .find_map(|(i, r)| {
            let steps = replay(&app.tk, r, None, 1).ok()?.all_steps(&app.tk);
            let k = steps.iter().position(|s| s.hit)?;
            Some((i + 1, k, steps[k].next.clone()))
        })
        .expect("a hit");
    keys(&mut app, &format!(":replay {} {}<Enter>t", hit.0, hit.1));
    let run = app.replay.run().expect("replaying");
    let note = run.tune.as_ref().and_then(|t| t.note.clone());
    assert_eq!(
        note.as_deref(),
        Some(
            format!(
                "a hit: {} was offered at this threshold and hops, so nothing needs to change",
                hit.2
            )
            .as_str()
        )
    );
    assert!(screen(&app).contains("tune: a hit"), "{}", screen(&app));
}
