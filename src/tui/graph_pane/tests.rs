//! The focus view on real configs: for every operator of the shipped toolkits and of a
//! Chat2Graph-shaped file with one long flattened chain, the whole recommendation is on the
//! first screen with distinct labels; a threshold step moves nothing that stays.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use petgraph::stable_graph::NodeIndex;
use ratatui::layout::Rect;
use unicode_width::UnicodeWidthStr;

use crate::tui::app::App;
use crate::tui::graph_pane::draw::shown;
use crate::tui::graph_pane::geometry::WRect;
use crate::tui::panes::Panes;
use crate::tui::tests::{press, render};
use crate::tui::theme::Theme;
use toolscope_core::load::{load_example, load_paths};
use toolscope_core::source::{EXAMPLE_NAME, Loaded};
use toolscope_core::text::sanitize;

fn file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn open(which: &str, w: u16, h: u16) -> App {
    let loaded: Loaded = match which {
        "example" => load_example(),
        path => load_paths(&[file(path)], None).expect("loads"),
    };
    App::new(loaded, EXAMPLE_NAME.into(), Theme::default(), (w, h))
}

/// Where each recommended node's label is drawn, checked against the pane and the buffer.
fn assert_recommendation_visible(app: &App, what: &str) {
    let inner: Rect = Panes::new(app.size, app.layout_hint()).graph_inner();
    let geo = app.geometry();
    let view = WRect {
        x: app.graph_pane.viewport.x,
        y: app.graph_pane.viewport.y,
        w: i32::from(inner.width),
        h: i32::from(inner.height),
    };
    let boxes = shown(
        &crate::tui::view::graph_sources(app),
        &app.ctx(),
        &geo,
        view,
    );
    let t = render(app);
    let buf = t.backend().buffer();
    let mut labels = HashSet::new();
    for s in &boxes {
        assert!(
            labels.insert(s.label.clone())
                || boxes
                    .iter()
                    .filter(|b| b.label == s.label)
                    .all(|b| app.tk.name(b.ix) == app.tk.name(s.ix)),
            "{what}: two nodes show `{}`",
            s.label
        );
    }
    let members: Vec<NodeIndex> = app
        .rec
        .actions
        .iter()
        .chain(&app.rec.tools)
        .copied()
        .collect();
    assert!(!members.is_empty(), "{what}: nothing recommended");
    for ix in members {
        let name = sanitize(app.tk.name(ix)).into_owned();
        let s = boxes
            .iter()
            .find(|b| b.ix == ix)
            .unwrap_or_else(|| panic!("{what}: {name} is not on screen"));
        let keep: String = name
            .chars()
            .take(toolscope_core::layout::labels::KEEP)
            .collect();
        assert!(
            s.label.starts_with(&keep),
            "{what}: `{}` cut below 8",
            s.label
        );
        // The label starts after the border, the marker and a space.
        let x = i32::from(inner.x) + s.rect.x + 3 - view.x;
        let y = i32::from(inner.y) + s.rect.y + geo.box_h / 2 - view.y;
        let w = s.label.width() as i32;
        let right = i32::from(inner.x + inner.width);
        let bottom = i32::from(inner.y + inner.height);
        assert!(
            x >= i32::from(inner.x) && x + w <= right && y >= i32::from(inner.y) && y < bottom,
            "{what}: `{}` at ({x}, {y}) outside the graph pane {inner:?}",
            s.label
        );
        let drawn: String = (x..x + w)
            .map(|cx| buf[(cx as u16, y as u16)].symbol().to_string())
            .collect::<String>();
        let want: String = s.label.chars().collect();
        // Wide characters leave an empty symbol in their second cell.
        assert_eq!(drawn.replace(' ', ""), want.replace(' ', ""), "{what}");
    }
}

/// The acceptance test of issues 11 and 25: on every operator of the Chat2Graph-shaped
/// configs, at 80x24, 100x30 and 160x48, the whole recommendation is on screen with
/// distinct labels when the operator is chosen and after each of two hops steps.
#[test]
fn every_operator_shows_its_whole_recommendation_with_distinct_labels() {
    for (which, loaded) in crate::tui::graph_pane::configs::configs() {
        for (w, h) in [(160, 48), (100, 30), (80, 24)] {
            let mut app = App::new(
                loaded.clone(),
                EXAMPLE_NAME.into(),
                Theme::default(),
                (w, h),
            );
            let n = app.tk.operators.len();
            assert!(n > 0, "{which} has operators");
            for i in 0..n {
                crate::tui::update::editing::choose_operator(&mut app, i);
                let op = app.tk.operators[i].name.clone();
                assert_recommendation_visible(&app, &format!("{which} {op} at {w}x{h}"));
                for step in 1..=2 {
                    press(&mut app, "]");
                    let what = format!("{which} {op} at {w}x{h} after {step} ]");
                    assert_recommendation_visible(&app, &what);
                }
            }
        }
    }
}

/// `o` chooses the next operator in the navigator's order and visits every one.
#[test]
fn o_visits_every_operator() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 100, 30);
    let n = app.tk.operators.len();
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..n {
        seen.insert(app.operator.expect("an operator is active"));
        assert_recommendation_visible(&app, "after o");
        press(&mut app, "o");
    }
    assert_eq!(seen.len(), n);
}

/// A threshold step keeps every staying node in its slot; what leaves stays drawn with the
/// left mark until the next refit (`v`), which lays the view out afresh.
#[test]
fn a_threshold_step_moves_nothing_and_marks_what_left() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 100, 30);
    let i = app
        .tk
        .operators
        .iter()
        .position(|o| o.name == "Q&A Expert/1")
        .expect("operator");
    app.choose_operator(i);
    let before = crate::tui::tests::screen(&app);
    let slots: Vec<_> = app.layout().placed().collect();
    let cu3 = app.tk.action("content_understanding_3").expect("action");
    assert!(app.rec.contains(cu3));
    press(&mut app, "++");
    assert!(!app.rec.contains(cu3), "0.56 < 0.60: it leaves");
    for (ix, s) in slots {
        if app.layout().slot(ix).is_some() {
            assert_eq!(app.layout().slot(ix), Some(s), "{} moved", app.tk.name(ix));
        }
    }
    assert!(
        app.layout().slot(cu3).is_some(),
        "a leaving node stays drawn"
    );
    let after = crate::tui::tests::screen(&app);
    assert!(after.contains("content_understanding_3▼"), "{after}");
    insta::assert_snapshot!("focus_before_threshold_step_100x30", before);
    insta::assert_snapshot!("focus_after_threshold_step_100x30", after);
    press(&mut app, "v");
    let refitted = crate::tui::tests::screen(&app);
    assert!(
        refitted.contains("content_understanding_3"),
        "still on the frontier"
    );
    assert!(
        !refitted.contains("3▼"),
        "a refit starts afresh: {refitted}"
    );
}

/// Choosing an operator or a seed refits: the viewport goes back to the origin and the
/// view holds the new recommendation.
#[test]
fn choosing_an_operator_or_a_seed_refits() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 100, 30);
    press(&mut app, "jjjj");
    app.graph_pane.viewport.x = 40;
    press(&mut app, "o");
    assert_eq!(
        (app.graph_pane.viewport.x, app.graph_pane.viewport.y),
        (0, 0)
    );
    assert_recommendation_visible(&app, "after o");
    // Seeding another action (Space on the selection) refits too.
    let other = app.tk.action("web_browsing").expect("action");
    app.select(other);
    press(&mut app, "<Space>");
    assert!(app.layout().slot(other).is_some());
    assert_recommendation_visible(&app, "after seeding");
}

/// `f` switches to the whole graph and back; without seeds there is no focus view.
#[test]
fn f_toggles_the_whole_graph() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 100, 30);
    assert!(app.graph_pane.shows_focus());
    let focus_nodes = app.layout().placed().count();
    press(&mut app, "f");
    assert!(!app.graph_pane.shows_focus());
    assert_eq!(app.layout().placed().count(), app.tk.graph.node_count());
    assert!(focus_nodes < app.tk.graph.node_count());
    press(&mut app, "f");
    assert!(app.graph_pane.shows_focus());
    press(&mut app, "x");
    assert!(!app.graph_pane.shows_focus(), "no seeds, no focus");
    assert!(crate::tui::tests::screen(&app).contains("[detailed]"));
}

/// `z` cycles detailed, compact and fit; fit folds the whole chain to the pane's width.
#[test]
fn z_cycles_detailed_compact_fit_and_fit_folds_to_the_pane() {
    use crate::tui::app::Zoom;
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 100, 30);
    press(&mut app, "z");
    assert_eq!(app.graph_pane.zoom, Zoom::Compact);
    assert!(!app.graph_pane.shows_focus(), "z zooms the whole graph");
    assert!(crate::tui::tests::screen(&app).contains("[compact]"));
    press(&mut app, "z");
    assert_eq!(app.graph_pane.zoom, Zoom::Fit);
    let inner = Panes::new(app.size, app.layout_hint()).graph_inner();
    let geo = app.geometry();
    let (w, _) = geo.extent(app.layout());
    assert!(w <= i32::from(inner.width), "{w} > {}", inner.width);
    assert_eq!(app.layout().placed().count(), app.tk.graph.node_count());
    // Every node is drawn once, and none is drawn over another.
    let mut cells = HashSet::new();
    for (ix, _) in app.layout().placed() {
        let r = geo.node_rect(app.layout(), &app.tk, ix).expect("placed");
        assert!(cells.insert((r.x, r.y)), "{} overlaps", app.tk.name(ix));
    }
    press(&mut app, "z");
    assert_eq!(app.graph_pane.zoom, Zoom::Detailed);
    let (w, _) = app.geometry().extent(app.layout());
    assert!(
        w > i32::from(inner.width),
        "detailed runs wider than the pane"
    );
}

/// `m` hides the side panes: the graph takes the width, the focus view is fitted again
/// (on the fixture at 80x24 that means more columns), and `m` brings them back.
#[test]
fn m_gives_the_graph_the_whole_width_at_80x24() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 80, 24);
    assert_recommendation_visible(&app, "80x24 with side panes");
    let narrow = Panes::new(app.size, app.layout_hint()).graph_inner().width;
    press(&mut app, "m");
    let wide = Panes::new(app.size, app.layout_hint()).graph_inner().width;
    assert_eq!(wide, 78);
    assert!(wide > narrow + 30);
    let screen = crate::tui::tests::screen(&app);
    assert!(!screen.contains("Navigator") && !screen.contains("Inspector"));
    assert_recommendation_visible(&app, "80x24 without side panes");
    press(&mut app, "m");
    assert!(crate::tui::tests::screen(&app).contains("Navigator"));
}

/// In the whole graph a shared tool sits after its first caller; a later caller names it in
/// a stub under its box instead of an edge across the screen.
#[test]
fn later_callers_of_a_shared_tool_name_it_in_a_stub() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 160, 48);
    press(&mut app, "f:goto content_understanding_2<Enter>");
    let screen = crate::tui::tests::screen(&app);
    let lines: Vec<&str> = screen.lines().collect();
    let row = lines
        .iter()
        .position(|l| l.contains("│  content_understanding_2 │"))
        .expect("the caller is on screen");
    // The box is three rows high; the stub is on the free row under it.
    assert!(
        lines[row + 2].contains("▶ DocumentReader"),
        "no stub under the caller:\n{screen}"
    );
    let tk = &app.tk;
    let doc = tk
        .graph
        .node_indices()
        .find(|&i| tk.name(i) == "DocumentReader");
    let first = tk.action("content_understanding").expect("action");
    let layout = app.layout();
    let (d, f) = (
        layout.slot(doc.expect("tool")).expect("placed"),
        layout.slot(first).expect("placed"),
    );
    assert_eq!(d.layer, f.layer + 1, "the tool sits after its first caller");
}

/// Beyond what the pane holds, each side that hides nodes says how many on the pane's
/// border, and `n` moves the view there until everything was shown, then back.
#[test]
fn hidden_nodes_are_counted_on_the_border_and_n_goes_there() {
    let mut app = open("tests/fixtures/gaia-agents.yml", 60, 16);
    let i = app
        .tk
        .operators
        .iter()
        .position(|o| o.name == "DeveloperExpert/1")
        .expect("operator");
    crate::tui::update::editing::choose_operator(&mut app, i);
    let h = crate::tui::graph_pane::more::hidden(&app.graph_pane, &app.ctx());
    assert!(h.any(), "23 nodes cannot fit 60x16");
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("more (n)"), "{screen}");
    let mut seen = std::collections::HashSet::new();
    let mut views = vec![(app.graph_pane.viewport.x, app.graph_pane.viewport.y)];
    for _ in 0..40 {
        // Every node fully inside the view at some point.
        let geo = app.geometry();
        let inner = Panes::new(app.size, app.layout_hint()).graph_inner();
        for (ix, _) in app.layout().placed() {
            let r = geo.node_rect(app.layout(), &app.tk, ix).expect("placed");
            if r.x >= app.graph_pane.viewport.x
                && r.y >= app.graph_pane.viewport.y
                && r.x + r.w <= app.graph_pane.viewport.x + i32::from(inner.width)
                && r.y + r.h <= app.graph_pane.viewport.y + i32::from(inner.height)
            {
                seen.insert(ix);
            }
        }
        press(&mut app, "n");
        views.push((app.graph_pane.viewport.x, app.graph_pane.viewport.y));
        if (app.graph_pane.viewport.x, app.graph_pane.viewport.y) == (0, 0) {
            break;
        }
    }
    assert_eq!(
        (app.graph_pane.viewport.x, app.graph_pane.viewport.y),
        (0, 0),
        "n comes back: {views:?}"
    );
    let members: Vec<NodeIndex> = app
        .rec
        .actions
        .iter()
        .chain(&app.rec.tools)
        .copied()
        .collect();
    for m in members {
        assert!(seen.contains(&m), "{} never shown by n", app.tk.name(m));
    }
}

/// `:operator` takes an operator as the navigator shows it: by its anchor with its `&`.
#[test]
fn operator_command_takes_the_anchor_as_the_navigator_shows_it() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 100, 30);
    press(&mut app, ":operator &retrieval_operator<Enter>");
    let op = app.active_operator().map(|o| o.name.clone());
    assert_eq!(op.as_deref(), Some("Q&A Expert/1"));
}

/// The navigator cuts names to its width without two rows reading alike: every label
/// could stand for its own name only.
#[test]
fn navigator_labels_stay_apart_when_cut() {
    for (w, h) in [(80, 60), (100, 60)] {
        let app = open("tests/fixtures/chat2graph-flat.yml", w, h);
        let screen = crate::tui::tests::screen(&app);
        let inner = Panes::new(app.size, app.layout_hint()).nav_inner();
        let names: Vec<String> = app
            .tk
            .graph
            .node_indices()
            .map(|ix| sanitize(app.tk.name(ix)).into_owned())
            .chain(
                app.tk
                    .operators
                    .iter()
                    .map(|o| sanitize(&o.name).into_owned()),
            )
            .collect();
        let mut checked = 0;
        for line in screen.lines().skip(1).take(usize::from(inner.height)) {
            let row: String = line
                .chars()
                .skip(usize::from(inner.x))
                .take(usize::from(inner.width))
                .collect();
            let label = row
                .get(2..)
                .unwrap_or("")
                .trim_end()
                .trim_start_matches(' ');
            if !label.contains('…') {
                continue;
            }
            let (front, tail) = label.split_once('…').expect("cut");
            let could: Vec<&String> = names
                .iter()
                .filter(|n| n.starts_with(front) && n.ends_with(tail) && n.len() > front.len())
                .collect();
            assert_eq!(could.len(), 1, "`{label}` could be {could:?} at {w}");
            checked += 1;
        }
        assert!(checked > 3, "few cut rows at {w}: {screen}");
    }
}

/// A message longer than the status line says where the rest is; the load's diagnostics
/// are read in the TUI with `:diagnostics`.
#[test]
fn long_messages_point_to_the_log_and_diagnostics_are_listed() {
    let mut app = open("tests/fixtures/gaia-agents.yml", 80, 24);
    let long = format!("{} the end", "a long message ".repeat(10));
    app.set_status(crate::tui::app::Level::Error, long.clone());
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("(M: more)"), "{screen}");
    assert!(app.log.iter().any(|m| m.text == long), "whole in the log");
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path().join("warn.yaml");
    let yaml = "actions:\n  - name: a\n    next: [{name: b, score: nope}]\n  - name: b\n";
    std::fs::write(&p, yaml).expect("write");
    let loaded = load_paths(&[p], None).expect("loads");
    let want: Vec<String> = loaded.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(!want.is_empty());
    let mut app = App::new(loaded, "warn".into(), Theme::default(), (100, 30));
    press(&mut app, ":diagnostics<Enter>");
    assert!(matches!(
        app.overlay,
        Some(crate::tui::app::Overlay::Messages { .. })
    ));
    for d in &want {
        assert!(app.log.iter().any(|m| &m.text == d), "{d} not in the log");
    }
}

/// Issue 25's sizes: a chain of actions each calling a tool (Chat2Graph's shape, names of
/// 28 characters), all recommended, fits whole: 20 nodes at 80x24, 30 at 100x30, 60 at
/// 160x48, with a frontier action after it.
#[test]
fn twenty_thirty_sixty_nodes_fit_at_the_three_sizes() {
    for (nodes, w, h) in [(20usize, 80u16, 24u16), (30, 100, 30), (60, 160, 48)] {
        let pairs = nodes / 2;
        let mut yaml = String::from("tools:\n");
        for i in 0..pairs {
            yaml.push_str(&format!("  - name: ToolForStepNumber{i:02}Reader\n"));
        }
        yaml.push_str("actions:\n");
        for i in 0..=pairs {
            yaml.push_str(&format!("  - name: chain_step_number_{i:02}_action\n"));
            if i < pairs {
                yaml.push_str(&format!("    tools: [ToolForStepNumber{i:02}Reader]\n"));
                let score = if i + 1 == pairs { 0.2 } else { 0.9 };
                let next = format!("chain_step_number_{:02}_action", i + 1);
                yaml.push_str(&format!("    next: [{{name: {next}, score: {score}}}]\n"));
            }
        }
        yaml.push_str("operators:\n  - name: op\n    actions: [chain_step_number_00_action]\n");
        yaml.push_str(&format!("    threshold: 0.5\n    hops: {pairs}\n"));
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("chain.yaml");
        std::fs::write(&p, yaml).expect("write");
        let loaded = load_paths(&[p], None).expect("loads");
        let app = App::new(loaded, "chain".into(), Theme::default(), (w, h));
        // The last action is the frontier (its edge scores 0.2): the members are the rest.
        assert_eq!(app.rec.len(), nodes, "{nodes} members");
        assert_recommendation_visible(&app, &format!("{nodes} nodes at {w}x{h}"));
    }
}

/// Every digit just left of an arrowhead ends a whole score (`1.00▼`): a label cut at
/// the pane's edge (`0▼`) reads as another value.
fn cut_labels(screen: &str) -> Vec<String> {
    let mut cut = Vec::new();
    for line in screen.lines() {
        let cells: Vec<char> = line.chars().collect();
        for (i, c) in cells.iter().enumerate() {
            if !matches!(c, '▼' | '▶' | '◀' | '▲') || i == 0 || !cells[i - 1].is_ascii_digit()
            {
                continue;
            }
            let whole = i >= 4
                && cells[i - 4].is_ascii_digit()
                && cells[i - 3] == '.'
                && cells[i - 2].is_ascii_digit();
            if !whole {
                cut.push(line.to_string());
            }
        }
    }
    cut
}

/// The graph pane's inside, row by row.
fn graph_text(app: &App) -> String {
    let inner: Rect = Panes::new(app.size, app.layout_hint()).graph_inner();
    let t = render(app);
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in inner.y..inner.y + inner.height {
        for x in inner.x..inner.x + inner.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

/// Issue 33 item 2, on a config shaped like Chat2Graph's `graph_analysis.yml` (hops 0):
/// the Next edge of 1.00 into the frontier action was labelled `0▼`, the label cut at the
/// pane's left edge, and it read as the score that keeps the action out when the hop
/// count does. Now it says `hops`, whole, at every size, scores shown or not.
#[test]
fn a_frontier_kept_out_by_hops_says_hops_and_no_label_is_cut() {
    for (w, h) in [(80u16, 24u16), (100, 30), (160, 48)] {
        let mut app = open("tests/fixtures/c2g-hops0-frontier.yml", w, h);
        for keys in ["", "s"] {
            press(&mut app, keys);
            let g = graph_text(&app);
            assert!(
                cut_labels(&g).is_empty(),
                "{w}x{h} `{keys}`: a cut label\n{g}"
            );
            assert!(g.contains("hops"), "{w}x{h} `{keys}`: no `hops` label\n{g}");
            if keys.is_empty() {
                assert!(!g.contains("1.00"), "{w}x{h}: the frontier's 1.00\n{g}");
            }
        }
    }
}

#[test]
fn the_cut_label_check_can_fail() {
    assert_eq!(cut_labels("││0▼│\n").len(), 1);
    assert!(cut_labels("││1.00▼│\n").is_empty());
}

/// Issue 33: where the right-hand pane is hidden (by `m`, or by the focus view at 80x24),
/// `V`, `b` and `B` bring it back with their panel and say so; they never open unseen.
#[test]
fn evidence_and_diff_panels_show_themselves_where_the_inspector_was_hidden() {
    let mut app = open("tests/fixtures/chat2graph-flat.yml", 80, 24);
    let screen = |app: &App| crate::tui::tests::screen(app);
    let inspector_width = |app: &App| Panes::new(app.size, app.layout_hint()).inspector.width;
    for (open_keys, close_keys, shows) in [
        ("V", "V", "No traces loaded"),
        ("b", "B", "Diff vs baseline"),
        ("B", "B", "Diff vs baseline"),
    ] {
        press(&mut app, "m");
        assert_eq!(inspector_width(&app), 0, "`m` hid the right-hand pane");
        press(&mut app, open_keys);
        let s = screen(&app);
        assert!(inspector_width(&app) > 0, "{open_keys}: {s}");
        assert!(s.contains(shows), "{open_keys}: {s}");
        let status = app
            .status
            .as_ref()
            .map(|st| st.text.clone())
            .unwrap_or_default();
        assert!(status.contains("side panes shown"), "{open_keys}: {status}");
        press(&mut app, close_keys);
    }
}
