//! The graph pane's commands: the focus view and the whole graph, zoom, the
//! neighbourhood view, scores, panning and walking along edges.

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::EdgeKind;

use crate::tui::action::{Action, GraphAction, NavigatorAction};
use crate::tui::ctx::Ctx;
use crate::tui::update::row::{Command, cmd};

/// Keys pan by this many cells across, and by this many down.
const PAN_X: i32 = 8;
const PAN_Y: i32 = 3;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("focus-view", [], None, "", Graph hint "focus", "focus view (recommendation + frontier) / whole graph", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::FocusView)])),
    cmd!("side-panes", [], None, "", Graph, "hide / show the side panes (the graph takes the width)", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::SidePanes)])),
    cmd!("refit", [], None, "", Graph, "fit the focus view to the whole recommendation again", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Refit)])),
    cmd!("show-more", [], None, "", Graph, "focus view: go to the nodes beyond the pane's edge (the `N more` marks), then back", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::ShowMore)])),
    cmd!("toggle-scores", [], None, "", Graph hint "scores", "show or hide edge scores", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::ToggleScores)])),
    cmd!("toggle-zoom", [], None, "", Graph hint "zoom", "zoom: detailed / compact / fit", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::CycleZoom)])),
    cmd!("neighbourhood", [], None, "", Graph, "neighbourhood view of the selection", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Neighbourhood)])),
    cmd!("radius-up", [], None, "", Graph, "neighbourhood: one hop more", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Radius(1))])),
    cmd!("radius-down", [], None, "", Graph, "neighbourhood: one hop less", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Radius(-1))])),
    cmd!("centre", [], None, "", Graph, "centre on the selection", @Ctx |_, _| Ok(vec![Action::Navigator(NavigatorAction::Centre)])),
    cmd!("parent", [], None, "", Graph, "select a parent (along an incoming edge)", @Ctx |c, _| Ok(walk(c, false))),
    cmd!("child", [], None, "", Graph, "select a child (along an outgoing edge)", @Ctx |c, _| Ok(walk(c, true))),
    cmd!("pan-left", [], None, "", Graph, "pan left (mouse: drag)", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Pan(-PAN_X, 0))])),
    cmd!("pan-right", [], None, "", Graph, "pan right", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Pan(PAN_X, 0))])),
    cmd!("pan-up", [], None, "", Graph, "pan up (mouse: wheel)", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Pan(0, -PAN_Y))])),
    cmd!("pan-down", [], None, "", Graph, "pan down", @Ctx |_, _| Ok(vec![Action::Graph(GraphAction::Pan(0, PAN_Y))])),
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
