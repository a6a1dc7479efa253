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
//! routed before the frame is drawn ([`RouteMemo::prepare`], which the app calls before each draw)
//! and kept in the graph pane's state by their input, compared by equality
//! ([`RouteMemo`]): a frame that changes none of it (no pan, zoom or other structure)
//! routes nothing, and the last few windows are kept, so stepping back to a replay step
//! just shown, or panning back, routes nothing either. The draw reads them.

use std::collections::{HashMap, HashSet};

use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;

use toolscope_core::layout::route::CellRect;
use toolscope_core::layout::routing::budget::{WINDOW_MARGIN, WINDOWS_KEPT};
use toolscope_core::layout::routing::{Ranked, RouteRequest, WINDOW};
use toolscope_core::layout::{Layout, Slot};
use toolscope_core::model::{EdgeKind, Toolkit};

use crate::tui::graph_pane::geometry::{Geometry, WRect};
use crate::tui::graph_pane::wires::Routes;

/// What a window's routes read of the app: the graph, the layout drawn and its geometry,
/// whether the focus view is shown (the other views draw some calls as stubs), and the
/// window, in layout cells.
pub struct Window<'a> {
    pub tk: &'a Toolkit,
    pub layout: &'a Layout,
    pub geo: &'a Geometry,
    pub focus: bool,
    pub view: WRect,
}

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
/// drawn ([`RouteMemo::prepare`]) and read by the draw ([`RouteMemo::for_frame`]).
#[derive(Debug, Default, Clone)]
pub struct RouteMemo {
    kept: Vec<(Input, WindowRoutes)>,
    /// Windows routed so far (tests tell a kept window from one routed again by it).
    routed: usize,
}

impl RouteMemo {
    /// Keeps the routes of `w` first, routing it unless the routes of an equal input are
    /// kept. Called before each frame is drawn (`App::prepare_draw`), for the window the
    /// frame will show.
    pub fn prepare(&mut self, w: &Window<'_>) {
        let input = Input::of(w);
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

    /// The routes of `w` for a frame: those kept for its input (see [`Self::prepare`]); a
    /// frame drawn without that (a terminal resized before the app heard of it, a test
    /// drawing a state it set by hand) routes its window for itself, keeping nothing.
    pub fn for_frame(&self, w: &Window<'_>) -> Frame<'_> {
        let input = Input::of(w);
        match self.kept.iter().find(|(k, _)| *k == input) {
            Some((_, kept)) => Frame::Kept(kept),
            None => Frame::Unprepared(Box::new(input.route())),
        }
    }

    /// How many windows were routed (not found kept) so far.
    pub fn routed(&self) -> usize {
        self.routed
    }
}

/// Whether edge `e` (from slot `su` to `sv`) is drawn as a stub instead of a route: in
/// the views other than the focus view, a call to a tool (or group) that sits after
/// another caller, its home, elsewhere in the drawing.
pub fn stubbed(tk: &Toolkit, focus: bool, e: EdgeIndex, (su, sv): (Slot, Slot)) -> bool {
    let call = tk.graph[e].kind != EdgeKind::Next;
    call && sv.layer != su.layer + 1 && !focus
}

/// The routes a frame draws, see [`RouteMemo::for_frame`].
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
    fn of(w: &Window<'_>) -> Input {
        let (tk, layout, geo, view) = (w.tk, w.layout, w.geo, w.view);
        let stub = |e, su, sv| stubbed(tk, w.focus, e, (su, sv));
        let region = WRect {
            x: view.x - WINDOW_MARGIN.0,
            y: view.y - WINDOW_MARGIN.1,
            w: view.w + 2 * WINDOW_MARGIN.0,
            h: view.h + 2 * WINDOW_MARGIN.1,
        };
        let near = geo.boxes_meeting(layout, tk, region);
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
        for &(u, _) in &near {
            let Some(su) = layout.slot(u) else { continue };
            for e in tk.graph.edges_directed(u, Direction::Outgoing) {
                let v = e.target();
                let Some(sv) = layout.slot(v) else { continue };
                if u == v || stub(e.id(), su, sv) {
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
            for e in tk.graph.edges_directed(u, Direction::Incoming) {
                let w = e.source();
                let far = layout
                    .slot(w)
                    .filter(|_| w != u && !near_set.contains(&w))
                    .is_some_and(|sw| !stub(e.id(), sw, su));
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
            if (input.unshown.contains_key(&ix) || has_stubs(w, ix)) && input.lined.insert(ix) {
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
fn has_stubs(w: &Window<'_>, ix: NodeIndex) -> bool {
    let Some(su) = w.layout.slot(ix) else {
        return false;
    };
    w.tk.graph.edges_directed(ix, Direction::Outgoing).any(|e| {
        w.layout
            .slot(e.target())
            .is_some_and(|sv| stubbed(w.tk, w.focus, e.id(), (su, sv)))
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
