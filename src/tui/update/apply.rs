//! Applies the [`Action`]s the panes' handlers return, in order: the one place a pane's
//! wish becomes a change of the app. What changes the recommendation's inputs marks it
//! stale (`App::mark_stale`); it is computed once, before it is next read or drawn.

use std::sync::Arc;

use petgraph::stable_graph::NodeIndex;
use toolscope_core::edit::Transaction;
use toolscope_core::recommend::resolve_seeds;

use crate::tui::action::{
    Action, EvidenceAction, GraphAction, InsightAction, NavigatorAction, ParamsAction, ReplayAction,
};
use crate::tui::app::{App, Level, Overlay};
use crate::tui::msg::Msg;

/// Applies actions in order.
pub fn apply(app: &mut App, actions: Vec<Action>) {
    for a in actions {
        one(app, a);
    }
}

fn one(app: &mut App, a: Action) {
    match a {
        Action::Status(level, text) => app.set_status(level, text),
        Action::Log(entry) => app.log.push(&entry),
        Action::Stale => app.mark_stale(),
        Action::Params(p) => params(app, p),
        Action::Graph(g) => graph(app, g),
        Action::Navigator(n) => navigator(app, n),
        Action::Evidence(e) => evidence(app, e),
        Action::Insight(i) => insight(app, i),
        Action::Replay(r) => replay(app, r),
    }
}

fn params(app: &mut App, p: ParamsAction) {
    match p {
        ParamsAction::Threshold(t) => {
            app.session.params.threshold = t;
            app.mark_stale();
        }
        ParamsAction::Hops(h) => {
            app.session.params.hops = h;
            app.mark_stale();
        }
        ParamsAction::Seeds(seeds) => {
            app.seeds = seeds;
            app.seeds_edited = true;
            // The user chose: context a reload left out is no longer wanted back.
            app.kept = Default::default();
            app.mark_stale();
        }
        ParamsAction::Operator { index, announce } => {
            crate::tui::update::editing::choose_operator(app, index);
            if announce {
                let said = format!("operator {}", app.tk.operators[index].name);
                app.set_status(Level::Info, said);
            }
        }
    }
}

fn graph(app: &mut App, g: GraphAction) {
    match g {
        GraphAction::FocusView => app.with_graph(|g, s| g.toggle(s)),
        GraphAction::SidePanes => app.with_graph(|g, s| g.toggle_side_panes(s)),
        GraphAction::Refit => app.with_graph(|g, s| g.refit_command(s)),
        GraphAction::ShowMore => app.with_graph(|g, s| g.show_more(s)),
        GraphAction::ToggleScores => {
            app.keeping_centre(|a| a.graph_pane.show_scores = !a.graph_pane.show_scores)
        }
        GraphAction::CycleZoom => app.keeping_centre(|a| a.with_graph(|g, s| g.cycle_zoom(s))),
        GraphAction::Neighbourhood => app.with_graph(|g, s| g.toggle_neighbourhood(s)),
        GraphAction::Radius(delta) => {
            let r = app
                .graph_pane
                .radius
                .saturating_add_signed(delta)
                .clamp(1, 50);
            app.with_graph(|g, s| g.set_radius(s, r));
        }
        GraphAction::Pan(dx, dy) => app.graph_pane.pan(dx, dy),
    }
}

fn navigator(app: &mut App, n: NavigatorAction) {
    match n {
        NavigatorAction::EdgeStep(delta) => {
            let edges = app.node_edges().len();
            app.inspector.step_edge(delta, edges);
        }
        NavigatorAction::Scroll(delta) => app.inspector.scroll_by(delta),
        NavigatorAction::Select { node, centre } => {
            app.select(node);
            if centre {
                app.centre_on_selection();
            } else {
                app.ensure_selection_visible();
            }
        }
        NavigatorAction::Centre => app.centre_on_selection(),
        NavigatorAction::Operator(i) => crate::tui::update::editing::choose_operator(app, i),
        NavigatorAction::ToggleFold => app.inspector.toggle_fold(),
    }
}

fn evidence(app: &mut App, e: EvidenceAction) {
    match e {
        EvidenceAction::PanelOpened => {
            app.diff_panel = false;
            app.refresh_evidence();
            app.with_graph(|g, s| g.show_right_pane(s, "evidence panel"));
        }
        EvidenceAction::Fitted { ws, said } => {
            app.session.ws = Some(*ws);
            let out = toolscope_core::session::Outcome::info(said)
                .changed(toolscope_core::session::Changed::Graph);
            crate::tui::update::editing::show(app, out);
        }
    }
}

fn insight(app: &mut App, i: InsightAction) {
    match i {
        InsightAction::OpenDiffPanel => {
            app.diff_panel = true;
            app.evidence.close_panel();
            app.with_graph(|g, s| g.show_right_pane(s, "diff panel"));
        }
        InsightAction::DiffPanel(on) => app.diff_panel = on,
        InsightAction::Preview => app.overlay = Some(Overlay::Preview { scroll: 0 }),
        InsightAction::Export { arg, force } => {
            let started = crate::tui::update::insight::export(app, &arg, force)
                .and_then(|job| crate::tui::update::insight::start_export(app, job));
            if let Err(e) = started {
                app.set_status(Level::Error, e);
            }
        }
        InsightAction::Enable { tool, enabled } => {
            if app.session.ws.is_some() {
                // The registry's `enabled`, as `:enabled` runs it: written on save, undoable.
                let values = [
                    ("TOOL", app.tk.name(tool).to_string()),
                    ("VALUE", enabled.to_string()),
                    ("kind", app.tk.kind(tool).as_str().to_string()),
                ];
                if let Err(e) = crate::tui::update::editing::run_row(app, "enabled", &values) {
                    app.set_status(Level::Error, e);
                }
            } else {
                // No editable workspace: the view's own copy changes.
                let node = Arc::make_mut(&mut app.tk).node_mut(tool);
                node.meta.get_or_insert_with(Default::default).enabled = enabled;
            }
        }
    }
}

fn replay(app: &mut App, r: ReplayAction) {
    match r {
        ReplayAction::Show {
            operator,
            seeds,
            select,
        } => show(app, operator, seeds, select),
        ReplayAction::Apply {
            edits,
            threshold,
            hops,
            what,
        } => {
            let r = crate::tui::update::editing::apply_edit(app, Transaction::from(edits));
            match r {
                Ok(()) => {
                    if let Some(t) = threshold {
                        app.session.params.threshold = t;
                    }
                    if let Some(h) = hops {
                        app.session.params.hops = h;
                    }
                    app.mark_stale();
                    app.set_status(
                        Level::Info,
                        format!("tuned: {what} (one edit: u undoes it)"),
                    );
                }
                Err(e) => app.set_status(Level::Error, e),
            }
        }
        ReplayAction::Tick(generation) => {
            if let Some(tx) = app.tx.clone() {
                let pace = app.replay.pace();
                std::thread::spawn(move || {
                    std::thread::sleep(pace);
                    let _ = tx.send(Msg::ReplayTick(generation));
                });
            }
        }
        ReplayAction::ShowPanel => app.with_graph(|g, s| g.show_right_pane(s, "replay panel")),
        ReplayAction::Leave => leave(app),
    }
}

/// Shows a step: its operator active, its seeds, the called tool selected.
fn show(app: &mut App, operator: Option<String>, seeds: Vec<NodeIndex>, select: Option<NodeIndex>) {
    if let Some(name) = operator {
        let active = app.active_operator().is_some_and(|o| o.name == name);
        let i = app.tk.operators.iter().position(|o| o.name == name);
        if let (false, Some(i)) = (active, i) {
            crate::tui::update::editing::choose_operator(app, i);
        }
    }
    app.seeds = seeds;
    app.seeds_edited = true;
    // Selected before the recommendation is laid out, so a missed call in the frontier is
    // drawn even where the rest of the frontier is not (`fit::Want::pinned`).
    if let Some(ix) = select.filter(|&ix| app.tk.graph.contains_node(ix)) {
        app.selected = Some(ix);
    }
    app.mark_stale();
    if let Some(ix) = select {
        app.select(ix);
    }
}

/// The replay ended: the active operator's seeds come back (its parameters stay).
fn leave(app: &mut App) {
    let Some(op) = app.active_operator() else {
        return;
    };
    let (seeds, _) = resolve_seeds(&app.tk, &op.actions);
    app.seeds = seeds;
    app.seeds_edited = false;
    app.mark_stale();
    if let Some(&first) = app.seeds.first() {
        app.select(first);
    }
}
