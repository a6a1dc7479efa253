//! The window routes a frame draws are computed before it (`App::prepare_draw`, as the
//! loop calls it after a batch of messages) and kept by their input, compared by equality:
//! the draw reads them, an equal input routes nothing, and a few windows are kept.

use crate::tui::app::App;
use crate::tui::graph_pane::draw::window;
use crate::tui::graph_pane::geometry::WRect;
use crate::tui::graph_pane::window_routes::Frame;
use crate::tui::panes::Panes;
use crate::tui::tests::{app, press};
use toolscope_core::layout::routing::budget::WINDOWS_KEPT;

/// Whether the frame of the shown window would read kept routes (not route for itself).
fn reads_kept(app: &App) -> bool {
    let inner = Panes::new(app.size, app.layout_hint()).graph_inner();
    let view = WRect {
        x: app.graph_pane.viewport.x,
        y: app.graph_pane.viewport.y,
        w: i32::from(inner.width),
        h: i32::from(inner.height),
    };
    let geo = app.geometry();
    let (gp, ctx) = (crate::tui::view::graph_sources(app), app.ctx());
    let w = window(&gp, &ctx, &geo, view);
    matches!(app.graph_pane.memo.for_frame(&w), Frame::Kept(_))
}

#[test]
fn frames_read_the_routes_prepared_before_them() {
    let mut app = app(100, 30);
    assert!(
        app.graph_pane.focus_routes().is_some(),
        "opens on the focus view"
    );
    assert_eq!(
        app.graph_pane.memo.routed(),
        0,
        "the focus view routes its own"
    );
    press(&mut app, "f");
    assert!(
        app.graph_pane.focus_routes().is_none(),
        "f shows the whole graph"
    );
    assert!(reads_kept(&app), "the frame after a key reads kept routes");
    let routed = app.graph_pane.memo.routed();
    assert!(routed >= 1);

    // A pan is another input: not kept until prepared, then routed once.
    app.graph_pane.pan(7, 0);
    assert!(!reads_kept(&app), "a pan's window is not the one kept");
    app.prepare_draw();
    assert!(reads_kept(&app));
    assert_eq!(app.graph_pane.memo.routed(), routed + 1);
    app.prepare_draw();
    assert_eq!(app.graph_pane.memo.routed(), routed + 1, "an equal input");

    // Panning back finds the first window kept.
    app.graph_pane.pan(-7, 0);
    app.prepare_draw();
    assert!(reads_kept(&app));
    assert_eq!(app.graph_pane.memo.routed(), routed + 1, "panned back");

    // More windows than are kept: the first is routed again.
    for _ in 0..WINDOWS_KEPT {
        app.graph_pane.pan(7, 0);
        app.prepare_draw();
    }
    let before = app.graph_pane.memo.routed();
    app.graph_pane.pan(-7 * WINDOWS_KEPT as i32, 0);
    app.prepare_draw();
    assert_eq!(
        app.graph_pane.memo.routed(),
        before + 1,
        "the first was dropped"
    );
}
