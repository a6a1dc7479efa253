//! The focus view's edge rule on the drawn cells of the other views (issue 33): the whole
//! graph at every zoom and after pans, the neighbourhood view at two radii, and a
//! generated graph far larger than the pane. Each frame is traced as in [`super::trace_tests`]: no
//! two edges sharing neither end draw the same segment, every line drawn is on screen,
//! and every node on screen whose edges are not all drawn says how many are not.

use std::collections::HashSet;

use petgraph::stable_graph::NodeIndex;

use crate::tui::app::App;
use crate::tui::graph_pane::draw::Drawn;
use crate::tui::graph_pane::geometry::WRect;
use crate::tui::graph_pane::trace_tests::{hidden_lines, shared_runs, side_by_side_runs, traced};
use crate::tui::graph_pane::window_routes::under;
use crate::tui::panes::Panes;
use crate::tui::tests::{press, screen};
use crate::tui::theme::Theme;
use toolscope_core::source::{EXAMPLE_NAME, Loaded};

const SIZES: [(u16, u16); 3] = [(80, 24), (100, 30), (160, 48)];

fn view(app: &App) -> (WRect, ratatui::layout::Rect) {
    let inner = Panes::new(app.size, app.layout_hint()).graph_inner();
    let v = WRect {
        x: app.graph_pane.viewport.x,
        y: app.graph_pane.viewport.y,
        w: i32::from(inner.width),
        h: i32::from(inner.height),
    };
    (v, inner)
}

/// Checks one frame; returns how many edges it draws.
fn check(app: &App, what: &str) -> usize {
    let shared = shared_runs(app);
    assert!(shared.is_empty(), "{what}: {shared:#?}\n{}", screen(app));
    let beside = side_by_side_runs(app);
    assert!(beside.is_empty(), "{what}: {beside:#?}\n{}", screen(app));
    let hidden = hidden_lines(app);
    assert!(hidden.is_empty(), "{what}: {hidden:#?}\n{}", screen(app));
    check_counts(app, what);
    let (_, t) = traced(app);
    t.iter().map(|c| c.edge).collect::<HashSet<_>>().len()
}

/// Every node on screen with edges not drawn says how many, whole, under its box.
fn check_counts(app: &App, what: &str) {
    let (v, inner) = view(app);
    let geo = app.geometry();
    let drawn = Drawn::of(&crate::tui::view::graph_sources(app), &app.ctx(), &geo, v);
    let term = crate::tui::tests::render(app);
    let buf = term.backend().buffer();
    for (ix, r) in app.layout().placed().filter_map(|(ix, _)| {
        let r = geo.node_rect(app.layout(), &app.tk, ix)?;
        Some((ix, r))
    }) {
        let n = drawn.unshown(ix);
        let line = under(&geo, r);
        let on_screen = line.y >= v.y && line.y < v.y + v.h && line.x >= v.x;
        if n == 0 || !on_screen || line.x + line.w > v.x + v.w {
            continue;
        }
        let y = inner.y + (line.y - v.y) as u16;
        let x0 = inner.x + (line.x - v.x) as u16;
        let row: String = (x0..x0 + line.w as u16)
            .map(|x| buf[(x, y)].symbol().to_string())
            .collect();
        assert!(
            row.contains(&format!("+{n}")),
            "{what}: {} has {n} edges not drawn, its line reads `{row}`\n{}",
            app.tk.name(ix),
            screen(app)
        );
    }
}

fn open(loaded: &Loaded, w: u16, h: u16) -> App {
    App::new(
        loaded.clone(),
        EXAMPLE_NAME.into(),
        Theme::default(),
        (w, h),
    )
}

/// The whole graph (`f`) of every Chat2Graph-shaped config, at three sizes, in each zoom,
/// from its origin and panned right and down.
#[test]
fn whole_graph_edges_never_share_a_run() {
    let mut drawn = 0;
    for (which, loaded) in crate::tui::graph_pane::configs::configs() {
        for (w, h) in SIZES {
            let mut app = open(&loaded, w, h);
            if app.graph_pane.shows_focus() {
                press(&mut app, "f");
            }
            assert!(
                !app.graph_pane.shows_focus(),
                "{which}: f shows the whole graph"
            );
            for zoom in ["detailed", "compact", "fit"] {
                for (dx, dy) in [(0, 0), (w as i32 / 3, 0), (0, h as i32 / 3)] {
                    app.graph_pane.viewport = Default::default();
                    app.graph_pane.pan(dx, dy);
                    drawn += check(&app, &format!("{which} whole {zoom} {w}x{h} at {dx},{dy}"));
                }
                press(&mut app, "z");
            }
        }
    }
    assert!(drawn > 200, "only {drawn} edges drawn in all");
}

/// The neighbourhood view (`N`, radius 1 and 2) around the first nodes of each config.
#[test]
fn neighbourhood_edges_never_share_a_run() {
    let mut drawn = 0;
    for (which, loaded) in crate::tui::graph_pane::configs::configs() {
        for (w, h) in SIZES {
            let mut app = open(&loaded, w, h);
            let nodes: Vec<NodeIndex> = app.tk.graph.node_indices().take(8).collect();
            for ix in nodes {
                app.select(ix);
                press(&mut app, "N");
                assert!(
                    app.graph_pane.neighbourhood.is_some(),
                    "{which}: N opens it"
                );
                for r in ["", "}"] {
                    press(&mut app, r);
                    let what = format!("{which} {w}x{h} around {} {r}", app.tk.name(ix));
                    drawn += check(&app, &what);
                }
                press(&mut app, "{N");
            }
        }
    }
    assert!(drawn > 100, "only {drawn} edges drawn in all");
}

/// A generated graph far larger than the pane: the whole graph at several places, in the
/// detailed and compact zooms.
#[test]
fn large_views_keep_the_rule_and_count_what_they_leave_out() {
    let text = toolscope_core::generate::generate(toolscope_core::generate::GenOptions {
        actions: 1_500,
        tools: Some(300),
        seed: 11,
    });
    let file = toolscope_core::load::load_text(
        std::path::Path::new("g.yaml"),
        text,
        None,
        &toolscope_core::source::Limits::default(),
    )
    .expect("loads");
    let loaded = Loaded {
        toolkit: file.toolkit,
        files: vec![file.source],
        diagnostics: Vec::new(),
    };
    let mut app = open(&loaded, 160, 48);
    if app.graph_pane.shows_focus() {
        press(&mut app, "f");
    }
    let mut drawn = 0;
    for zoom in ["detailed", "compact"] {
        for (dx, dy) in [(0, 0), (90, 40), (300, 200)] {
            app.graph_pane.viewport = Default::default();
            app.graph_pane.pan(dx, dy);
            drawn += check(&app, &format!("generated whole {zoom} at {dx},{dy}"));
        }
        press(&mut app, "z");
    }
    // Most of a generated graph's edges reach far beyond the window (counted, not drawn).
    assert!(drawn > 30, "only {drawn} edges drawn");
}
