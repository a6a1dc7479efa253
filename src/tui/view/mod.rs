//! Drawing the whole screen from the app state. Nothing here changes state.

pub mod bar;
pub(crate) mod dialog;
pub mod help;
mod overlay;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::chrome::{bordered, pane_block};

use super::app::{ActivePane, App, Overlay, Zoom};
use super::panes::{MIN_H, MIN_W, Panes};
use toolscope_core::text::sanitize;

/// Draws one frame.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    let ctx = app.ctx();
    let panes = Panes::new((area.width, area.height), app.layout_hint());
    if panes.too_small {
        too_small(frame, area);
        return;
    }
    // Side panes hidden with `m` have no width and are not drawn.
    if panes.nav.width > 0 {
        let never_called = |ix| app.evidence.never_called(ix);
        let sources = crate::tui::navigator::draw::Sources {
            nav: &app.nav,
            never_called: &never_called,
            names: &app.graph_pane.names,
        };
        crate::tui::navigator::draw::draw(frame, &sources, &ctx, panes.nav);
    }
    draw_graph(frame, app, panes.graph);
    if panes.inspector.width > 0 {
        if app.replay.shown(&app.seeds) {
            crate::tui::replay::draw::panel(frame, &replay_sources(app), &ctx, panes.inspector);
        } else if app.evidence.panel_open() {
            evidence_pane(frame, app, panes.inspector);
        } else if app.diff_panel {
            crate::tui::insight::diff_panel::draw(
                frame,
                &app.insight,
                &ctx,
                app.inspector.scroll(),
                panes.inspector,
            );
        } else {
            let edges = app.node_edges();
            let sources = crate::tui::inspector::Sources {
                pane: &app.inspector,
                nav: &app.nav,
                insight: &app.insight,
                evidence: &app.evidence,
                edges: &edges,
            };
            crate::tui::inspector::draw(frame, &sources, &ctx, panes.inspector);
        }
    }
    crate::tui::view::bar::draw(frame, app, panes.bar);
    match &app.overlay {
        Some(Overlay::Help) => help::draw(frame, app, area),
        Some(Overlay::Prompt { kind, text }) => overlay::prompt(frame, app, panes.bar, *kind, text),
        Some(Overlay::Dialog(d)) => crate::tui::view::dialog::draw(frame, app, d, area),
        Some(Overlay::Preview { scroll }) => {
            crate::tui::insight::preview::draw(frame, &app.insight, &ctx, area, *scroll)
        }
        Some(Overlay::Messages { scroll }) => overlay::messages(frame, app, area, *scroll),
        None => crate::tui::replay::draw::picker(frame, &replay_sources(app), &ctx, panes.graph),
    }
}

/// What the graph pane's drawing reads besides the context.
pub fn graph_sources(app: &App) -> crate::tui::graph_pane::draw::Sources<'_> {
    crate::tui::graph_pane::draw::Sources {
        pane: &app.graph_pane,
        insight: &app.insight,
        marks: &app.marks,
        whole: app.whole_layout(),
        selected_edge: app.selected_edge(),
    }
}

/// What the replay's drawing reads besides the context.
fn replay_sources(app: &App) -> crate::tui::replay::draw::Sources<'_> {
    crate::tui::replay::draw::Sources {
        replay: &app.replay,
        insight: &app.insight,
        evidence: &app.evidence,
        graph_pane: &app.graph_pane,
        whole: app.whole_layout(),
    }
}

/// The evidence panel of the active group, or how to get one.
fn evidence_pane(frame: &mut Frame, app: &App, area: Rect) {
    match app.evidence.report() {
        Some(group) => crate::tui::evidence_panel::draw::draw(
            frame,
            area,
            group,
            app.evidence.steps(),
            app.session.params.threshold,
            app.theme.ascii,
        ),
        None => {
            let text = if app.evidence.loaded() {
                "No loaded record is of the active operator (or these seeds)."
            } else {
                "No traces loaded. :traces FILE (or --traces FILE) loads JSONL or OTLP records."
            };
            let block = bordered(&app.theme).title(" evidence ");
            let p = Paragraph::new(text).wrap(Wrap { trim: true }).block(block);
            frame.render_widget(p, area);
        }
    }
}

fn too_small(frame: &mut Frame, area: Rect) {
    let msg = format!(
        "Terminal too small: {}x{}. toolscope needs at least {MIN_W}x{MIN_H}. Resize, or press q to quit.",
        area.width, area.height
    );
    frame.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
}

fn draw_graph(frame: &mut Frame, app: &App, area: Rect) {
    let zoom = match (app.graph_pane.shows_focus(), app.graph_pane.zoom) {
        (true, _) => "focus",
        (false, Zoom::Detailed) => "detailed",
        (false, Zoom::Compact) => "compact",
        (false, Zoom::Fit) => "fit",
    };
    let what = match &app.graph_pane.neighbourhood {
        Some(n) => format!(
            "neighbourhood of {} ({} hop{})",
            sanitize(app.tk.name(n.centre)),
            n.radius,
            if n.radius == 1 { "" } else { "s" }
        ),
        None => app
            .tk
            .name
            .as_deref()
            .or_else(|| app.files.first().and_then(|f| f.path.file_name()?.to_str()))
            .map(|n| sanitize(n).into_owned())
            .unwrap_or_else(|| "toolkit".into()),
    };
    let modified = if app.is_modified() { " [+]" } else { "" };
    // The file does not parse: what is drawn is the last good graph.
    let empty = app.tk.graph.node_count() == 0;
    let stale = match (&app.session.stale, empty) {
        (Some(_), true) => " [nothing loaded]",
        (Some(_), false) => " [stale: file has errors]",
        (None, _) => "",
    };
    let note = app
        .graph_pane
        .title_note()
        .map(|n| format!(" ({n})"))
        .unwrap_or_default();
    let title = format!(" Graph: {what}{modified}{stale} [{zoom}]{note} ");
    let block = pane_block(&app.ctx(), title, ActivePane::Graph);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // Nothing loaded (an empty folder, no toolkit, a file that does not parse on open):
    // the pane says why, whole, where the graph would be.
    if let (Some(why), true) = (&app.session.stale, empty) {
        let p = Paragraph::new(sanitize(why).into_owned()).wrap(Wrap { trim: true });
        frame.render_widget(p, inner);
        return;
    }
    let gp = graph_sources(app);
    let ctx = app.ctx();
    let widget = crate::tui::graph_pane::draw::GraphWidget { gp: &gp, ctx: &ctx };
    frame.render_widget(widget, inner);
    let ctx = app.ctx();
    if !crate::tui::replay::draw::on_graph(&replay_sources(app), &ctx, area, frame.buffer_mut()) {
        crate::tui::graph_pane::more::draw(&app.graph_pane, &app.ctx(), area, frame.buffer_mut());
    }
}
