//! What the key commands do: each `Cmd` of the keymap to its handler.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::{EdgeKind, NodeKind};

use crate::tui::app::{App, Focus, Overlay, PromptKind};
use crate::tui::navigator::Row;
use crate::tui::panes::Panes;

use super::keymap::Cmd;

const STEP: f64 = 0.05;
const FINE: f64 = 0.01;

/// Runs a named command.
pub fn apply(app: &mut App, cmd: Cmd) {
    match cmd {
        Cmd::Quit => crate::tui::editing::request_quit(app),
        Cmd::EditScore
        | Cmd::EditDesc
        | Cmd::AddEdge
        | Cmd::AddNode
        | Cmd::RemoveEdge
        | Cmd::RemoveNode
        | Cmd::Undo
        | Cmd::Redo
        | Cmd::Save => crate::tui::editing::command(app, cmd),
        Cmd::Help => app.overlay = Some(Overlay::Help),
        Cmd::Messages => app.overlay = Some(Overlay::Messages { scroll: 0 }),
        Cmd::CommandLine => open_prompt(app, PromptKind::Command, String::new()),
        Cmd::Filter => {
            app.focus = Focus::Navigator;
            open_prompt(app, PromptKind::Filter, app.nav.filter.clone());
        }
        Cmd::FocusNext => app.focus = app.focus.next(),
        Cmd::FocusPrev => app.focus = app.focus.prev(),
        Cmd::Escape => escape(app),
        Cmd::ThresholdUp => nudge_threshold(app, STEP),
        Cmd::ThresholdDown => nudge_threshold(app, -STEP),
        Cmd::ThresholdUpFine => nudge_threshold(app, FINE),
        Cmd::ThresholdDownFine => nudge_threshold(app, -FINE),
        Cmd::HopsUp => set_hops(app, app.session.params.hops.saturating_add(1).min(1000)),
        Cmd::HopsDown => set_hops(app, app.session.params.hops.saturating_sub(1)),
        Cmd::ToggleSeed => {
            if let Some(ix) = app.selected {
                toggle_seed(app, ix);
            }
        }
        Cmd::ClearSeeds => {
            app.seeds.clear();
            app.seeds_edited = true;
            app.kept = Default::default();
            app.recompute();
        }
        Cmd::NextOperator => cycle_operator(app, 1),
        Cmd::PrevOperator => cycle_operator(app, -1),
        Cmd::ToggleScores => keep_centre(app, |a| a.show_scores = !a.show_scores),
        Cmd::ToggleZoom => keep_centre(app, crate::tui::graph_pane::cycle_zoom),
        Cmd::ToggleNeighbourhood => toggle_neighbourhood(app),
        Cmd::ToggleFocus => crate::tui::graph_pane::toggle(app),
        Cmd::Refit => crate::tui::graph_pane::refit_command(app),
        Cmd::ShowMore => crate::tui::graph_pane::more::go(app),
        Cmd::ToggleSidePanes => crate::tui::graph_pane::toggle_side_panes(app),
        Cmd::RadiusUp => set_radius(app, app.radius.saturating_add(1).min(50)),
        Cmd::RadiusDown => set_radius(app, app.radius.saturating_sub(1).max(1)),
        Cmd::Centre => app.centre_on_selection(),
        Cmd::Parent => walk(app, false),
        Cmd::Child => walk(app, true),
        Cmd::PanLeft => pan(app, -8, 0),
        Cmd::PanRight => pan(app, 8, 0),
        Cmd::PanUp => pan(app, 0, -3),
        Cmd::PanDown => pan(app, 0, 3),
        Cmd::CursorUp => list_step(app, -1),
        Cmd::CursorDown => list_step(app, 1),
        Cmd::PageUp => list_step(app, -page(app)),
        Cmd::PageDown => list_step(app, page(app)),
        Cmd::Home => list_step(app, isize::MIN / 2),
        Cmd::End => list_step(app, isize::MAX / 2),
        Cmd::Open => open(app),
        Cmd::PinBaseline
        | Cmd::ToggleDiffPanel
        | Cmd::PromptPreview
        | Cmd::ToggleFilters
        | Cmd::ChooseTool
        | Cmd::ToggleEnabled => crate::tui::insight::commands::apply(app, cmd),
        Cmd::ToggleEvidence => crate::tui::evidence_panel::commands::toggle_panel(app),
    }
}

fn open_prompt(app: &mut App, kind: PromptKind, text: String) {
    app.overlay = Some(Overlay::Prompt { kind, text });
}

fn escape(app: &mut App) {
    if app.link_from.take().is_some() {
        app.set_status(crate::tui::app::Level::Info, "edge not added");
    } else if app.neighbourhood.is_some() {
        app.neighbourhood = None;
        app.centre_on_selection();
    } else if !app.nav.filter.is_empty() {
        set_filter(app, String::new());
    }
}

fn nudge_threshold(app: &mut App, delta: f64) {
    let t = ((app.session.params.threshold + delta) * 100.0).round() / 100.0;
    app.session.params.threshold = t.clamp(0.0, 1.0);
    app.recompute();
}

fn set_hops(app: &mut App, h: u32) {
    app.session.params.hops = h;
    app.recompute();
}

/// Adds or removes an action from the seeds.
pub fn toggle_seed(app: &mut App, ix: NodeIndex) {
    if app.tk.kind(ix) != NodeKind::Action {
        app.set_status(crate::tui::app::Level::Error, "only actions can be seeds");
        return;
    }
    match app.seeds.iter().position(|&s| s == ix) {
        Some(i) => {
            app.seeds.remove(i);
        }
        None => app.seeds.push(ix),
    }
    app.seeds_edited = true;
    app.kept = Default::default();
    app.recompute();
}

/// `o`/`O`: the next or previous operator in the navigator's (natural name) order.
fn cycle_operator(app: &mut App, delta: isize) {
    let ops = &app.tk.operators;
    if ops.is_empty() {
        app.set_status(
            crate::tui::app::Level::Info,
            "this toolkit has no operators",
        );
        return;
    }
    let mut order: Vec<usize> = (0..ops.len()).collect();
    order.sort_by(|a, b| crate::tui::navigator::natural_cmp(&ops[*a].name, &ops[*b].name));
    let n = order.len() as isize;
    let at = match app
        .operator
        .and_then(|i| order.iter().position(|&o| o == i))
    {
        Some(p) => (p as isize + delta).rem_euclid(n),
        None => 0,
    };
    crate::tui::editing::choose_operator(app, order[at as usize]);
}

/// Changes a view setting while keeping the selection at the same place on screen.
fn keep_centre(app: &mut App, f: impl FnOnce(&mut App)) {
    f(app);
    app.centre_on_selection();
}

fn toggle_neighbourhood(app: &mut App) {
    if app.neighbourhood.is_some() {
        app.neighbourhood = None;
        app.centre_on_selection();
    } else if let Some(ix) = app.selected {
        app.open_neighbourhood(ix, app.radius);
    }
}

fn set_radius(app: &mut App, r: u32) {
    app.radius = r;
    if let (Some(n), Some(ix)) = (&app.neighbourhood, app.selected) {
        let _ = n;
        app.open_neighbourhood(ix, r);
    }
}

/// Selects a neighbour: along outgoing (`forward`) or incoming edges, `Next` first.
fn walk(app: &mut App, forward: bool) {
    let Some(ix) = app.selected else { return };
    let mut around: Vec<(bool, String, NodeIndex)> = if forward {
        app.tk
            .out_edges(ix)
            .map(|(e, v)| {
                (
                    app.tk.graph[e].kind != EdgeKind::Next,
                    app.tk.name(v).to_string(),
                    v,
                )
            })
            .collect()
    } else {
        app.tk
            .in_edges(ix)
            .map(|(e, v)| {
                (
                    app.tk.graph[e].kind != EdgeKind::Next,
                    app.tk.name(v).to_string(),
                    v,
                )
            })
            .collect()
    };
    around.sort();
    match around.first() {
        Some(&(_, _, v)) => {
            app.select(v);
            app.ensure_selection_visible();
        }
        None => app.set_status(
            crate::tui::app::Level::Info,
            if forward { "no child" } else { "no parent" },
        ),
    }
}

pub fn pan(app: &mut App, dx: i32, dy: i32) {
    app.view.x += dx;
    app.view.y += dy;
}

fn page(app: &App) -> isize {
    let p = Panes::new(app.size, app.layout_hint());
    (p.nav_inner().height as isize - 1).max(1)
}

pub fn list_step(app: &mut App, delta: isize) {
    match app.focus {
        // The diff panel has no edge cursor: j/k scroll it.
        Focus::Inspector if delta.abs() == 1 && !app.diff_panel => {
            let n = app.node_edges().len();
            let c = app.edge_cursor as isize + delta;
            app.edge_cursor = c.clamp(0, n.saturating_sub(1) as isize) as usize;
        }
        Focus::Inspector => {
            let s = i64::from(app.inspector_scroll) + delta.clamp(-1000, 1000) as i64;
            app.inspector_scroll = s.clamp(0, i64::from(u16::MAX)) as u16;
        }
        _ => {
            app.nav.step(delta);
            let h = Panes::new(app.size, app.layout_hint()).nav_inner().height as usize;
            app.nav.scroll_to_cursor(h);
            if let Some(Row::Node(ix)) = app.nav.current() {
                app.select(ix);
                app.ensure_selection_visible();
            }
        }
    }
}

fn open(app: &mut App) {
    if app.focus == Focus::Inspector {
        if let Some(&(_, other, _)) = app.node_edges().get(app.edge_cursor) {
            app.select(other);
            app.ensure_selection_visible();
        }
        return;
    }
    match app.nav.current() {
        Some(Row::Operator(i)) if app.focus == Focus::Navigator => {
            crate::tui::editing::choose_operator(app, i)
        }
        Some(Row::Node(ix)) if app.focus == Focus::Navigator => {
            // A group of many members: Enter expands / collapses its member rows.
            app.nav.toggle_group(&app.tk, ix);
            app.select(ix);
            app.centre_on_selection();
        }
        _ => app.centre_on_selection(),
    }
}

/// Filters the navigator and selects the first matching node.
pub fn set_filter(app: &mut App, filter: String) {
    app.nav.filter = filter;
    app.nav.rebuild(&app.tk);
    if let Some(Row::Node(ix)) = app.nav.current() {
        app.select(ix);
        app.ensure_selection_visible();
    }
}
