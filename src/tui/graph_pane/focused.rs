//! The focus view's layout: fitting it to the terminal (which side panes stay, the look,
//! the columns; see [`super::fit`]), following a step without moving what stays, and
//! routing its edges ([`super::wires`]). A layout whose edges cannot all be routed apart is
//! tried again with more room.

use std::collections::HashMap;

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;

use toolscope_core::layout::focus::{self, Blocked};
use toolscope_core::layout::pack::{self, Look};
use toolscope_core::layout::{Layout, structure_key};

use crate::tui::app::{App, Viewport};
use crate::tui::graph_pane::{fit, geometry, split, wires};
use crate::tui::panes::{Panes, Split};

/// What the focus view shows and how.
#[derive(Debug, Clone)]
pub struct Focused {
    pub layout: Layout,
    /// Box height, name cap and channel width.
    pub look: Look,
    /// Rows per column.
    pub(super) rows: u32,
    /// Columns of the fit.
    pub(super) cols: u32,
    /// The frontier: left-out nodes one edge beyond the recommendation.
    pub(super) blocked: HashMap<NodeIndex, Blocked>,
    /// Members of the recommendation when the view was last fitted (for the marks).
    pub(super) base: Vec<bool>,
    /// What the fit was made for: seeds, operator, structure, terminal size.
    pub(super) fitted_for: (Vec<NodeIndex>, Option<usize>, u64, (u16, u16)),
    /// The side panes hidden to make room (see [`fit`]).
    pub split: Split,
    /// The edges' routes (`None`: too large to route; drawn the cheap way).
    pub routes: Option<wires::Routes>,
    /// Cells of the layout (kept with it: computing the indents walks every column).
    pub geometry: geometry::Geometry,
}

pub(super) fn fit_key(app: &App) -> (Vec<NodeIndex>, Option<usize>, u64, (u16, u16)) {
    let key = app
        .graph_view
        .names_key
        .unwrap_or_else(|| structure_key(&app.tk));
    (app.seeds.clone(), app.operator, key, app.size)
}

fn members(app: &App) -> Vec<NodeIndex> {
    app.rec
        .actions
        .iter()
        .chain(&app.rec.tools)
        .copied()
        .collect()
}

/// The members, their frontier, and which nodes to keep.
fn focus_set(app: &App) -> (Vec<bool>, HashMap<NodeIndex, Blocked>) {
    let members = members(app);
    let rec = &app.rec;
    let frontier = focus::frontier(&app.tk, &members, &|ix| rec.contains(ix));
    let mut keep = vec![false; app.tk.graph.node_bound()];
    for &m in &members {
        keep[m.index()] = true;
    }
    for b in &frontier {
        keep[b.node.index()] = true;
    }
    let blocked = frontier.into_iter().map(|b| (b.node, b)).collect();
    (keep, blocked)
}

/// A fresh layout fitted to the terminal (see [`fit`]), with the viewport at its origin.
pub fn refit(app: &mut App) {
    lay_out(app, None);
}

/// Lays the focus view out afresh. `since`: the members at the last fit, when a step
/// needs the room of a new layout; what entered and left since then stays marked, and
/// nodes that left are kept (after everything else) while there is room.
fn lay_out(app: &mut App, since: Option<(Vec<bool>, Vec<NodeIndex>)>) {
    let (mut keep, blocked) = focus_set(app);
    let members = members(app);
    let base = match since {
        Some((base, left)) => {
            for ix in left {
                keep[ix.index()] = true;
            }
            base
        }
        None => {
            let mut base = vec![false; app.tk.graph.node_bound()];
            for &m in &members {
                base[m.index()] = true;
            }
            base
        }
    };
    let was = split(app);
    let splits = fit::splits(app.graph_view.side_panes_hidden);
    // A layout some edge of which cannot be routed apart from the others is tried again
    // with more room (the next split), keeping the best.
    let mut best: Option<Focused> = None;
    let tries = (0..splits.len()).flat_map(|from| [(from, false), (from, true)]);
    for (from, roomy) in tries {
        let rec = &app.rec;
        let is_member = |ix: NodeIndex| rec.contains(ix);
        let want = fit::Want {
            tk: &app.tk,
            keep: &keep,
            is_member: &is_member,
            members: members.len(),
            roots: &app.seeds,
        };
        let choice = fit::choose(&want, app.size, &splits[from..], roomy);
        let layout = pack::pack(&app.tk, &choice.seq, choice.rows, fit_key(app).2);
        let geometry = geometry::Geometry::packed(&layout, &app.tk, choice.look);
        let pane = Panes::new(app.size, choice.split).graph_inner();
        let routes = wires::route(
            &app.tk,
            &app.rec,
            app.session.params.threshold,
            &layout,
            &geometry,
            (i32::from(pane.width), i32::from(pane.height)),
        );
        let forced = routes.as_ref().map_or(0, |r| r.forced);
        let tried = Focused {
            geometry,
            cols: layout.layers.len() as u32,
            layout,
            look: choice.look,
            rows: choice.rows as u32,
            blocked: blocked.clone(),
            base: base.clone(),
            fitted_for: fit_key(app),
            split: choice.split,
            routes,
        };
        let better = best
            .as_ref()
            .is_none_or(|b| forced < b.routes.as_ref().map_or(0, |r| r.forced) && choice.fits);
        if better {
            best = Some(tried);
        }
        // More room helps a view that fits; one that overflows the pane keeps its look.
        if forced == 0 || !choice.fits {
            break;
        }
    }
    app.graph_view.focus = best;
    app.view = Viewport::default();
    let now = split(app);
    if now != was {
        panes_changed(app, now);
    }
}

/// The focus view hid or showed side panes: focus stays on a shown pane, and hiding says
/// so once (the title keeps saying it).
fn panes_changed(app: &mut App, now: Split) {
    use crate::tui::app::Focus;
    let hidden = match app.focus {
        Focus::Navigator => now.hide_nav,
        Focus::Inspector => now.hide_inspector,
        Focus::Graph => false,
    };
    if hidden {
        app.focus = Focus::Graph;
    }
    if app.graph_view.side_panes_hidden.is_none() && (now.hide_nav || now.hide_inspector) {
        let what = if now.hide_nav {
            "side panes hidden"
        } else {
            "inspector hidden"
        };
        app.set_status(
            crate::tui::app::Level::Info,
            format!("{what} so the whole recommendation fits; m shows them"),
        );
    }
}

/// The graph pane's inner size for the current split.
fn pane_size(app: &App) -> (i32, i32) {
    let r = Panes::new(app.size, split(app)).graph_inner();
    (i32::from(r.width), i32::from(r.height))
}

/// Routes the focus view's edges for its current layout.
fn reroute(app: &mut App) {
    let pane = pane_size(app);
    let Some(f) = app.graph_view.focus.as_ref() else {
        return;
    };
    let geo = &f.geometry;
    let routes = wires::route(
        &app.tk,
        &app.rec,
        app.session.params.threshold,
        &f.layout,
        geo,
        pane,
    );
    if let Some(f) = app.graph_view.focus.as_mut() {
        f.routes = routes;
    }
}

/// Follows a change of the recommendation without moving what stays: entering nodes take
/// free slots beside a neighbour, nodes that left stay where they were (marked) while
/// there is room. When the recommendation no longer fits that way, the view is laid out
/// afresh (the marks kept). Either way the viewport then holds the whole recommendation.
pub(super) fn follow(app: &mut App) {
    let (mut keep, blocked) = focus_set(app);
    let pane = pane_size(app);
    let Some(f) = app.graph_view.focus.as_ref() else {
        return;
    };
    let was = |ix: NodeIndex| f.base.get(ix.index()).copied().unwrap_or(false);
    let left: Vec<NodeIndex> = f
        .layout
        .placed()
        .map(|(ix, _)| ix)
        .filter(|&ix| was(ix) && !keep[ix.index()])
        .collect();
    for &ix in &left {
        keep[ix.index()] = true;
    }
    let rec = &app.rec;
    let seq = pack::sequence(&app.tk, &keep, &|ix| rec.contains(ix), &app.seeds, false);
    let rows = (f.look.rows_in(pane.1) as u32).max(f.rows);
    let key = f.fitted_for.2;
    let layout = pack::keep_within(&app.tk, &f.layout, &seq, f.cols + 2, rows, key);
    let geo = geometry::Geometry::packed(&layout, &app.tk, f.look);
    // Everything shown must fit, or the view is laid out afresh (which shows at least the
    // whole recommendation).
    let all: Vec<NodeIndex> = layout.placed().map(|(ix, _)| ix).collect();
    let Some(bounds) =
        bounds_of(app, &layout, &geo, &all).filter(|b| b.w <= pane.0 && b.h <= pane.1)
    else {
        let base = f.base.clone();
        lay_out(app, Some((base, left)));
        return;
    };
    let base = f.base.clone();
    if let Some(f) = app.graph_view.focus.as_mut() {
        f.layout = layout;
        f.geometry = geo;
        f.blocked = blocked;
    }
    reroute(app);
    let forced = app
        .graph_view
        .focus
        .as_ref()
        .and_then(|f| f.routes.as_ref())
        .is_some_and(|r| r.forced > 0);
    if forced {
        // The nodes that stay leave no room to route the new edges apart: start afresh.
        lay_out(app, Some((base, left)));
        return;
    }
    let v = &mut app.view;
    v.x = v.x.min(bounds.x).max(bounds.x + bounds.w - pane.0);
    v.y = v.y.min(bounds.y).max(bounds.y + bounds.h - pane.1);
}

/// The smallest rectangle holding the boxes of `nodes` (`None` if one is not laid out).
fn bounds_of(
    app: &App,
    layout: &Layout,
    geo: &geometry::Geometry,
    nodes: &[NodeIndex],
) -> Option<geometry::WRect> {
    let mut b: Option<(i32, i32, i32, i32)> = None;
    for &m in nodes {
        let r = geo.node_rect(layout, &app.tk, m)?;
        let (x0, y0, x1, y1) = b.unwrap_or((r.x, r.y, r.x + r.w, r.y + r.h));
        b = Some((
            x0.min(r.x),
            y0.min(r.y),
            x1.max(r.x + r.w),
            y1.max(r.y + r.h),
        ));
    }
    let (x0, y0, x1, y1) = b.unwrap_or_default();
    Some(geometry::WRect {
        x: x0,
        y: y0,
        w: x1 - x0,
        h: y1 - y0,
    })
}
