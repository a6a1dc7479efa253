//! The graph pane's commands: the focus view and the whole graph, zoom, the
//! neighbourhood view, scores, panning and walking along edges.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::EdgeKind;

use crate::tui::action::{Action, NavigatorAction};
use crate::tui::ctx::Ctx;
use crate::tui::update::apply::with_ctx;
use crate::tui::update::row::{Command, cmd};

/// Keys pan by this many cells across, and by this many down.
const PAN_X: i32 = 8;
const PAN_Y: i32 = 3;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("focus-view", [], None, "", Graph hint "focus", "focus view (recommendation + frontier) / whole graph", |a, _| {
        a.with_graph(|g, s| g.toggle(s));
        Ok(())
    }),
    cmd!("side-panes", [], None, "", Graph, "hide / show the side panes (the graph takes the width)", |a, _| {
        a.with_graph(|g, s| g.toggle_side_panes(s));
        Ok(())
    }),
    cmd!("refit", [], None, "", Graph, "fit the focus view to the whole recommendation again", |a, _| {
        a.with_graph(|g, s| g.refit_command(s));
        Ok(())
    }),
    cmd!("show-more", [], None, "", Graph, "focus view: go to the nodes beyond the pane's edge (the `N more` marks), then back", |a, _| {
        a.with_graph(|g, s| g.show_more(s));
        Ok(())
    }),
    cmd!("toggle-scores", [], None, "", Graph hint "scores", "show or hide edge scores", |a, _| {
        a.keeping_centre(|a| a.graph_pane.show_scores = !a.graph_pane.show_scores);
        Ok(())
    }),
    cmd!("toggle-zoom", [], None, "", Graph hint "zoom", "zoom: detailed / compact / fit", |a, _| {
        a.keeping_centre(|a| a.with_graph(|g, s| g.cycle_zoom(s)));
        Ok(())
    }),
    cmd!("neighbourhood", [], None, "", Graph, "neighbourhood view of the selection", |a, _| {
        a.with_graph(|g, s| g.toggle_neighbourhood(s));
        Ok(())
    }),
    cmd!("radius-up", [], None, "", Graph, "neighbourhood: one hop more", |a, _| {
        let r = a.graph_pane.radius.saturating_add(1).min(50);
        a.with_graph(|g, s| g.set_radius(s, r));
        Ok(())
    }),
    cmd!("radius-down", [], None, "", Graph, "neighbourhood: one hop less", |a, _| {
        let r = a.graph_pane.radius.saturating_sub(1).max(1);
        a.with_graph(|g, s| g.set_radius(s, r));
        Ok(())
    }),
    cmd!("centre", [], None, "", Graph, "centre on the selection", |a, _| {
        a.centre_on_selection();
        Ok(())
    }),
    cmd!("parent", [], None, "", Graph, "select a parent (along an incoming edge)", |a, _| {
        with_ctx(a, |c| walk(c, false));
        Ok(())
    }),
    cmd!("child", [], None, "", Graph, "select a child (along an outgoing edge)", |a, _| {
        with_ctx(a, |c| walk(c, true));
        Ok(())
    }),
    cmd!("pan-left", [], None, "", Graph, "pan left (mouse: drag)", |a, _| {
        a.graph_pane.pan(-PAN_X, 0);
        Ok(())
    }),
    cmd!("pan-right", [], None, "", Graph, "pan right", |a, _| {
        a.graph_pane.pan(PAN_X, 0);
        Ok(())
    }),
    cmd!("pan-up", [], None, "", Graph, "pan up (mouse: wheel)", |a, _| {
        a.graph_pane.pan(0, -PAN_Y);
        Ok(())
    }),
    cmd!("pan-down", [], None, "", Graph, "pan down", |a, _| {
        a.graph_pane.pan(0, PAN_Y);
        Ok(())
    }),
];

/// Selects a neighbour: along outgoing (`forward`) or incoming edges, `Next` first.
fn walk(ctx: &Ctx, forward: bool) -> Vec<Action> {
    let Some(ix) = ctx.selected else {
        return Vec::new();
    };
    let mut around: Vec<(bool, String, NodeIndex)> = if forward {
        ctx.tk
            .out_edges(ix)
            .map(|(e, v)| {
                (
                    ctx.tk.graph[e].kind != EdgeKind::Next,
                    ctx.tk.name(v).to_string(),
                    v,
                )
            })
            .collect()
    } else {
        ctx.tk
            .in_edges(ix)
            .map(|(e, v)| {
                (
                    ctx.tk.graph[e].kind != EdgeKind::Next,
                    ctx.tk.name(v).to_string(),
                    v,
                )
            })
            .collect()
    };
    around.sort();
    match around.first() {
        Some(&(_, _, node)) => vec![Action::Navigator(NavigatorAction::Select {
            node,
            centre: false,
        })],
        None => vec![Action::info(
            if forward { "no child" } else { "no parent" }.into(),
        )],
    }
}
