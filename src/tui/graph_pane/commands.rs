//! The graph pane's commands: the focus view and the whole graph, zoom, the
//! neighbourhood view, scores, panning and walking along edges.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::EdgeKind;

use crate::tui::action::{Action, GraphAction, NavigatorAction};
use crate::tui::ctx::Ctx;
use crate::tui::update::apply::{say, with_ctx};
use crate::tui::update::row::{Command, cmd};

/// Keys pan by this many cells across, and by this many down.
const PAN_X: i32 = 8;
const PAN_Y: i32 = 3;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("focus-view", [], None, "", Graph hint "focus", "focus view (recommendation + frontier) / whole graph", |a, _| say(a, Action::Graph(GraphAction::FocusView))),
    cmd!("side-panes", [], None, "", Graph, "hide / show the side panes (the graph takes the width)", |a, _| say(a, Action::Graph(GraphAction::SidePanes))),
    cmd!("refit", [], None, "", Graph, "fit the focus view to the whole recommendation again", |a, _| say(a, Action::Graph(GraphAction::Refit))),
    cmd!("show-more", [], None, "", Graph, "focus view: go to the nodes beyond the pane's edge (the `N more` marks), then back", |a, _| say(a, Action::Graph(GraphAction::ShowMore))),
    cmd!("toggle-scores", [], None, "", Graph hint "scores", "show or hide edge scores", |a, _| say(a, Action::Graph(GraphAction::ToggleScores))),
    cmd!("toggle-zoom", [], None, "", Graph hint "zoom", "zoom: detailed / compact / fit", |a, _| say(a, Action::Graph(GraphAction::CycleZoom))),
    cmd!("neighbourhood", [], None, "", Graph, "neighbourhood view of the selection", |a, _| say(a, Action::Graph(GraphAction::Neighbourhood))),
    cmd!("radius-up", [], None, "", Graph, "neighbourhood: one hop more", |a, _| say(a, Action::Graph(GraphAction::Radius(1)))),
    cmd!("radius-down", [], None, "", Graph, "neighbourhood: one hop less", |a, _| say(a, Action::Graph(GraphAction::Radius(-1)))),
    cmd!("centre", [], None, "", Graph, "centre on the selection", |a, _| say(a, Action::Navigator(NavigatorAction::Centre))),
    cmd!("parent", [], None, "", Graph, "select a parent (along an incoming edge)", |a, _| {
        with_ctx(a, |c| walk(c, false));
        Ok(())
    }),
    cmd!("child", [], None, "", Graph, "select a child (along an outgoing edge)", |a, _| {
        with_ctx(a, |c| walk(c, true));
        Ok(())
    }),
    cmd!("pan-left", [], None, "", Graph, "pan left (mouse: drag)", |a, _| say(a, Action::Graph(GraphAction::Pan(-PAN_X, 0)))),
    cmd!("pan-right", [], None, "", Graph, "pan right", |a, _| say(a, Action::Graph(GraphAction::Pan(PAN_X, 0)))),
    cmd!("pan-up", [], None, "", Graph, "pan up (mouse: wheel)", |a, _| say(a, Action::Graph(GraphAction::Pan(0, -PAN_Y)))),
    cmd!("pan-down", [], None, "", Graph, "pan down", |a, _| say(a, Action::Graph(GraphAction::Pan(0, PAN_Y)))),
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
