//! Edge routes of the views that are not routed once per layout: the whole graph, the
//! neighbourhood view, and a focus view too large to route whole (see [`super::wires`]).
//! The edges among the nodes in and around the visible window are routed on the cell grid
//! by the core's router, so the focus view's rule holds in every view: two edges that
//! share neither source nor target never run along the same cells, and crossings are
//! drawn as crossings.
//!
//! Where the room cannot hold that, less is drawn rather than a knot: an edge with no
//! clean route, or whose other end lies beyond the margin around the window, is not
//! drawn, and its ends on screen say how many of theirs are not (`+2 edges` under the
//! box, or `+2` beside it when it found no clean route after the line was planned).
//!
//! A window's routes are asked of the core as one [`RouteRequest`] (budget [`WINDOW`]),
//! routed before the frame is drawn ([`prepare`], which the app calls before each draw)
//! and kept in the graph pane's state by their input, compared by equality
//! ([`RouteMemo`]): a frame that changes none of it (no pan, zoom or other structure)
//! routes nothing, and the last few windows are kept, so stepping back to a replay step
//! just shown, or panning back, routes nothing either. The draw reads them.

use std::collections::{HashMap, HashSet};

use petgraph::Direction;
use petgraph::stable_graph::NodeIndex;
use petgraph::visit::EdgeRef;

use toolscope_core::layout::route::CellRect;
use toolscope_core::layout::routing::budget::{WINDOW_MARGIN, WINDOWS_KEPT};
use toolscope_core::layout::routing::{Ranked, RouteRequest, WINDOW};

use crate::tui::app::App;
use crate::tui::graph_pane::draw::{boxes_meeting, stubbed};
use crate::tui::graph_pane::geometry::{Geometry, WRect};
use crate::tui::graph_pane::wires::Routes;
use crate::tui::panes::Panes;

/// The routes of one window.
#[derive(Debug, Default, Clone)]
pub struct WindowRoutes {
    /// The routes, and the nodes in the window with edges not drawn.
    pub routes: Routes,
    /// Nodes with a line kept free under their box, where their count is written (the
    /// others' counts go beside the box, on free cells).
    pub lined: HashSet<NodeIndex>,
}

/// The windows routed last, each with what it was routed from, the newest first (at most
/// [`WINDOWS_KEPT`]): a plain value in the graph pane's state, filled before a frame is
/// drawn ([`prepare`]) and read by the draw.
#[derive(Debug, Default, Clone)]
pub struct RouteMemo {
    kept: Vec<(Input, WindowRoutes)>,
    /// Windows routed so far (tests tell a kept window from one routed again by it).
    routed: usize,
}

impl RouteMemo {
    /// The routes kept for `input` (equal to the one they were routed from).
    fn get(&self, input: &Input) -> Option<&WindowRoutes> {
        self.kept.iter().find(|(k, _)| k == input).map(|(_, r)| r)
    }

    /// Keeps the routes of `input` first, routing it when none equal to it are kept.
    fn fill(&mut self, input: Input) {
        if let Some(i) = self.kept.iter().position(|(k, _)| *k == input) {
            let hit = self.kept.remove(i);
            self.kept.insert(0, hit);
            return;
        }
        let routes = input.route();
        self.kept.insert(0, (input, routes));
        self.kept.truncate(WINDOWS_KEPT);
        self.routed += 1;
    }

    /// How many windows were routed (not found kept) so far.
    pub fn routed(&self) -> usize {
        self.routed
    }
}

/// Routes the window the graph pane will show (its viewport, the pane's inner size at the
/// app's terminal size) unless the routes of an equal input are kept. Called before each
/// frame is drawn (`App::prepare_draw`); nothing to do when the focus view draws its own.
pub fn prepare(app: &mut App) {
    if app.graph_pane.focus_routes().is_some() {
        return;
    }
    let view = shown_window(app);
    prepare_view(app, view);
}

/// Routes `view`, as [`prepare`] the shown window (a test drawing another view).
pub fn prepare_view(app: &mut App, view: WRect) {
    let input = Input::of(app, &app.geometry(), view);
    app.graph_pane.memo.fill(input);
}

/// The window the graph pane shows at the app's terminal size.
fn shown_window(app: &App) -> WRect {
    let inner = Panes::new(app.size, app.layout_hint()).graph_inner();
    WRect {
        x: app.graph_pane.viewport.x,
        y: app.graph_pane.viewport.y,
        w: i32::from(inner.width),
        h: i32::from(inner.height),
    }
}

/// The routes of `view` for a frame: those kept for its input (see [`prepare`]); a frame
/// drawn without that (a terminal resized before the app heard of it, a test drawing a
/// state it set by hand) routes its window for itself, keeping nothing.
pub fn for_frame<'a>(app: &'a App, geo: &Geometry, view: WRect) -> Frame<'a> {
    let input = Input::of(app, geo, view);
    match app.graph_pane.memo.get(&input) {
        Some(kept) => Frame::Kept(kept),
        None => Frame::Unprepared(Box::new(input.route())),
    }
}

/// The routes a frame draws, see [`for_frame`].
pub enum Frame<'a> {
    Kept(&'a WindowRoutes),
    Unprepared(Box<WindowRoutes>),
}

impl std::ops::Deref for Frame<'_> {
    type Target = WindowRoutes;

    fn deref(&self) -> &WindowRoutes {
        match self {
            Frame::Kept(w) => w,
            Frame::Unprepared(w) => w,
        }
    }
}

/// What a window's routes follow from: the request to the router (the grid, the boxes
/// and the lines kept free under some, the edges in routing order, the budget) and what
/// the window counts beside it. Compared whole: two equal inputs have equal routes.
#[derive(Debug, Clone, PartialEq)]
struct Input {
    request: RouteRequest,
    /// Edges not given to the router (their other end beyond the margin, or beyond the
    /// budget's `most_wires`), counted per node.
    unshown: HashMap<NodeIndex, usize>,
    /// Nodes whose box meets the view itself (only they carry counts).
    in_view: HashSet<NodeIndex>,
    /// Nodes with a line kept free under their box (for their stubs and counts).
    lined: HashSet<NodeIndex>,
}

impl Input {
    fn of(app: &App, geo: &Geometry, view: WRect) -> Input {
        let region = WRect {
            x: view.x - WINDOW_MARGIN.0,
            y: view.y - WINDOW_MARGIN.1,
            w: view.w + 2 * WINDOW_MARGIN.0,
            h: view.h + 2 * WINDOW_MARGIN.1,
        };
        let near = boxes_meeting(app, geo, region);
        let inside: HashSet<NodeIndex> = near
            .iter()
            .filter(|(_, r)| within(*r, region))
            .map(|(ix, _)| *ix)
            .collect();
        let in_view: HashSet<NodeIndex> = near
            .iter()
            .filter(|(_, r)| meets(*r, view))
            .map(|(ix, _)| *ix)
            .collect();
        let near_set: HashSet<NodeIndex> = near.iter().map(|(ix, _)| *ix).collect();
        let mut unshown: HashMap<NodeIndex, usize> = HashMap::new();
        let mut edges = Vec::new();
        let layout = app.layout();
        for &(u, _) in &near {
            let Some(su) = layout.slot(u) else { continue };
            for e in app.tk.graph.edges_directed(u, Direction::Outgoing) {
                let v = e.target();
                let Some(sv) = layout.slot(v) else { continue };
                if u == v || stubbed(app, e.id(), su, sv) {
                    continue;
                }
                if inside.contains(&u) && inside.contains(&v) {
                    edges.push(Ranked {
                        edge: e.id(),
                        from: u,
                        to: v,
                        rank: 0,
                    });
                } else {
                    *unshown.entry(u).or_default() += 1;
                    if near_set.contains(&v) {
                        *unshown.entry(v).or_default() += 1;
                    }
                }
            }
            // Edges into `u` from laid-out nodes beyond the region.
            for e in app.tk.graph.edges_directed(u, Direction::Incoming) {
                let w = e.source();
                let far = layout
                    .slot(w)
                    .filter(|_| w != u && !near_set.contains(&w))
                    .is_some_and(|sw| !stubbed(app, e.id(), sw, su));
                if far {
                    *unshown.entry(u).or_default() += 1;
                }
            }
        }
        let area = CellRect {
            x: region.x,
            y: region.y,
            w: region.w,
            h: region.h,
        };
        let boxes = near.iter().map(|&(ix, r)| (ix, cell(r))).collect();
        let request = RouteRequest::new(area, boxes, edges, WINDOW);
        // The shortest edges are routed; the others are counted, as their lines are kept.
        for e in request.skipped() {
            *unshown.entry(e.from).or_default() += 1;
            *unshown.entry(e.to).or_default() += 1;
        }
        let mut input = Input {
            request,
            unshown,
            in_view,
            lined: HashSet::new(),
        };
        // The line under a box naming its away tools or its undrawn edges is kept free.
        for &(ix, r) in &near {
            if (input.unshown.contains_key(&ix) || has_stubs(app, ix)) && input.lined.insert(ix) {
                input.request.keep_clear.push(cell(under(geo, r)));
            }
        }
        input
    }

    /// Routes the edges; one with no clean route is counted at both ends instead (beside
    /// the box where no line under it was kept free, see [`WindowRoutes::lined`]).
    fn route(&self) -> WindowRoutes {
        let routed = self.request.route();
        let mut routes = Routes::of(routed, self.unshown.clone());
        routes.unshown.retain(|n, _| self.in_view.contains(n));
        WindowRoutes {
            routes,
            lined: self.lined.clone(),
        }
    }
}

/// The line under a box where its stubs and counts are written.
pub fn under(geo: &Geometry, r: WRect) -> WRect {
    WRect {
        x: r.x + 2,
        y: r.y + geo.box_h,
        w: (r.w + geo.gap - 4).max(1),
        h: 1,
    }
}

/// Whether `ix` names away tools under its box (the whole graph's stubs).
fn has_stubs(app: &App, ix: NodeIndex) -> bool {
    let layout = app.layout();
    let Some(su) = layout.slot(ix) else {
        return false;
    };
    app.tk
        .graph
        .edges_directed(ix, Direction::Outgoing)
        .any(|e| {
            layout
                .slot(e.target())
                .is_some_and(|sv| stubbed(app, e.id(), su, sv))
        })
}

fn cell(r: WRect) -> CellRect {
    CellRect {
        x: r.x,
        y: r.y,
        w: r.w,
        h: r.h,
    }
}

fn within(r: WRect, outer: WRect) -> bool {
    r.x >= outer.x
        && r.y >= outer.y
        && r.x + r.w <= outer.x + outer.w
        && r.y + r.h <= outer.y + outer.h
}

fn meets(a: WRect, b: WRect) -> bool {
    a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}
