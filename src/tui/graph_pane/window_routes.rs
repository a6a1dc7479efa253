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
//! box, or `+2` beside it when it found no clean route after the line was planned). The routes are kept until the router's input changes (a pan, a zoom, another
//! structure), so a frame that changes none of it routes nothing; the last few windows are
//! kept, so stepping back to a replay step just shown, or panning back, routes nothing
//! either.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;

use toolscope_core::layout::route::{CellRect, Wire, route_clean_within};

use crate::tui::ctx::Ctx;
use crate::tui::graph_pane::draw::Sources;
use crate::tui::graph_pane::draw::{boxes_meeting, stubbed};
use crate::tui::graph_pane::geometry::{Geometry, WRect};
use crate::tui::graph_pane::wires::Routes;

/// Cells around the window whose nodes' edges are routed too (an edge may leave the
/// window and come back; one reaching farther is counted, not drawn).
pub const MARGIN: (i32, i32) = (24, 8);
/// Routing a window of more edges than this would cost more than a frame: the rest are
/// counted, not drawn (shortest first are routed).
pub const MOST_EDGES: usize = 400;
/// Search states one window's routing may take in all (about 4 ms): a dense window whose
/// edges mostly find no clean route would otherwise cost a search of its whole grid per
/// edge. Edges left when they are spent are counted, not drawn. A 10k-action replay step
/// at 200x60 spends all of them; 30,000 drew 2% more edges for half as much time again.
pub const MOST_STATES: u32 = 20_000;
/// Search states one edge may take on the whole grid after finding no route near its ends
/// (the focus view's routing allows 6,000): in a dense window such an edge seldom has one
/// far away, and five of them spent a replay step's whole budget at 6,000. At 1,000 a
/// 10k-action replay step at 200x60 draws as many edges (194 on average, was 191) within
/// two thirds of the states; a neighbourhood view at 10k draws the same 28.
pub const FAR_STATES: u32 = 1_000;

/// The routes of one window.
#[derive(Debug, Default)]
pub struct WindowRoutes {
    /// Hash of what the router was given.
    key: u64,
    /// The routes, and the nodes in the window with edges not drawn.
    pub routes: Routes,
    /// Nodes with a line kept free under their box, where their count is written (the
    /// others' counts go beside the box, on free cells).
    pub lined: HashSet<NodeIndex>,
}

/// Windows kept routed. A replay step and the step before it are two layouts, so going
/// back and forth between them (or panning back) needs two; a few more cost little (each
/// holds at most [`MOST_EDGES`] routes).
pub const KEPT: usize = 4;

/// The last windows routed (the newest first), shared by the frames that draw them.
#[derive(Debug, Default, Clone)]
pub struct WindowCache(Arc<std::sync::Mutex<Kept>>);

#[derive(Debug, Default)]
struct Kept {
    windows: Vec<Arc<WindowRoutes>>,
    /// Windows routed so far (tests tell a kept window from one routed again by it).
    routed: usize,
}

impl WindowCache {
    /// The routes of `view`: kept ones when the router's input is the same as theirs (the
    /// key hashes all of it: the boxes' places, the edges to route, the counts).
    pub fn get(&self, gp: &Sources, ctx: &Ctx, geo: &Geometry, view: WRect) -> Arc<WindowRoutes> {
        let input = Input::of(gp, ctx, geo, view);
        let key = input.key();
        let mut kept = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = kept.windows.iter().position(|w| w.key == key) {
            let w = kept.windows.remove(i);
            kept.windows.insert(0, Arc::clone(&w));
            return w;
        }
        let routed = Arc::new(input.route(key));
        kept.windows.insert(0, Arc::clone(&routed));
        kept.windows.truncate(KEPT);
        kept.routed += 1;
        routed
    }

    /// How many windows were routed (not found kept) so far.
    pub fn routed(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).routed
    }
}

/// What the router is given for a window: the grid's origin and size, the boxes (nodes
/// and the text lines under them), the edges to route, and the edges already left out.
struct Input {
    origin: (i32, i32),
    size: (i32, i32),
    boxes: Vec<(u32, CellRect)>,
    /// (edge, source, target) in routing order.
    edges: Vec<(u32, NodeIndex, NodeIndex)>,
    unshown: HashMap<NodeIndex, usize>,
    /// Nodes whose box meets the view itself (only they carry counts).
    in_view: HashSet<NodeIndex>,
    /// Nodes with a line kept free under their box (for their stubs and counts).
    lined: HashSet<NodeIndex>,
    /// Each node's box and the line under it, for lines added later.
    under: HashMap<NodeIndex, WRect>,
    region: WRect,
}

impl Input {
    fn of(gp: &Sources, ctx: &Ctx, geo: &Geometry, view: WRect) -> Input {
        let region = WRect {
            x: view.x - MARGIN.0,
            y: view.y - MARGIN.1,
            w: view.w + 2 * MARGIN.0,
            h: view.h + 2 * MARGIN.1,
        };
        let near = boxes_meeting(gp, ctx, geo, region);
        let inside: HashMap<NodeIndex, WRect> = near
            .iter()
            .filter(|(_, r)| within(*r, region))
            .copied()
            .collect();
        let in_view: HashSet<NodeIndex> = near
            .iter()
            .filter(|(_, r)| meets(*r, view))
            .map(|(ix, _)| *ix)
            .collect();
        let near_set: HashSet<NodeIndex> = near.iter().map(|(ix, _)| *ix).collect();
        let mut unshown: HashMap<NodeIndex, usize> = HashMap::new();
        let mut edges = Vec::new();
        let layout = gp.layout();
        for &(u, _) in &near {
            let Some(su) = layout.slot(u) else { continue };
            for e in ctx.tk.graph.edges_directed(u, Direction::Outgoing) {
                let v = e.target();
                let Some(sv) = layout.slot(v) else { continue };
                if u == v || stubbed(gp, ctx, e.id(), su, sv) {
                    continue;
                }
                match (inside.get(&u), inside.get(&v)) {
                    (Some(a), Some(b)) => {
                        let length = (a.x - b.x).abs() + (a.y - b.y).abs();
                        edges.push((length, e.id().index() as u32, u, v));
                    }
                    _ => {
                        *unshown.entry(u).or_default() += 1;
                        if near_set.contains(&v) {
                            *unshown.entry(v).or_default() += 1;
                        }
                    }
                }
            }
            // Edges into `u` from laid-out nodes beyond the region.
            for e in ctx.tk.graph.edges_directed(u, Direction::Incoming) {
                let w = e.source();
                let far = layout
                    .slot(w)
                    .filter(|_| w != u && !near_set.contains(&w))
                    .is_some_and(|sw| !stubbed(gp, ctx, e.id(), sw, su));
                if far {
                    *unshown.entry(u).or_default() += 1;
                }
            }
        }
        edges.sort();
        for &(_, _, u, v) in edges.iter().skip(MOST_EDGES) {
            *unshown.entry(u).or_default() += 1;
            *unshown.entry(v).or_default() += 1;
        }
        edges.truncate(MOST_EDGES);
        let boxes: Vec<(u32, CellRect)> = near
            .iter()
            .map(|&(ix, r)| (ix.index() as u32, cell(r, region)))
            .collect();
        let mut input = Input {
            origin: (region.x, region.y),
            size: (region.w, region.h),
            boxes,
            edges: edges.into_iter().map(|(_, e, u, v)| (e, u, v)).collect(),
            unshown,
            in_view,
            lined: HashSet::new(),
            under: near.iter().map(|&(ix, r)| (ix, under(geo, r))).collect(),
            region,
        };
        // The line under a box naming its away tools or its undrawn edges is kept free.
        let wanted: Vec<NodeIndex> = near
            .iter()
            .map(|(ix, _)| *ix)
            .filter(|ix| input.unshown.contains_key(ix) || has_stubs(gp, ctx, *ix))
            .collect();
        input.keep_lines(&wanted);
        input
    }

    /// Keeps the lines under `nodes` free of routes.
    fn keep_lines(&mut self, nodes: &[NodeIndex]) {
        for ix in nodes {
            let Some(&line) = self.under.get(ix) else {
                continue;
            };
            if self.lined.insert(*ix) {
                let key = u32::MAX - 1 - self.lined.len() as u32;
                self.boxes.push((key, cell(line, self.region)));
            }
        }
    }

    fn key(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.origin.hash(&mut h);
        self.size.hash(&mut h);
        for (k, r) in &self.boxes {
            (k, r.x, r.y, r.w, r.h).hash(&mut h);
        }
        for (e, u, v) in &self.edges {
            (e, u.index(), v.index()).hash(&mut h);
        }
        let mut counts: Vec<(usize, usize)> =
            self.unshown.iter().map(|(n, c)| (n.index(), *c)).collect();
        counts.sort_unstable();
        counts.hash(&mut h);
        h.finish()
    }

    /// Routes the edges; one with no clean route is counted at both ends instead (beside
    /// the box where no line under it was kept free, see [`WindowRoutes::lined`]).
    fn route(self, key: u64) -> WindowRoutes {
        let mut out = self.route_once(key);
        out.lined = self.lined;
        out
    }

    fn route_once(&self, key: u64) -> WindowRoutes {
        let wires: Vec<Wire> = self
            .edges
            .iter()
            .map(|&(_, u, v)| Wire {
                from: u.index() as u32,
                to: v.index() as u32,
            })
            .collect();
        let (w, h) = self.size;
        let routed = route_clean_within(w, h, &self.boxes, &wires, (MOST_STATES, FAR_STATES));
        let mut out = WindowRoutes {
            key,
            routes: Routes {
                unshown: self.unshown.clone(),
                ..Routes::default()
            },
            lined: HashSet::new(),
        };
        let (dx, dy) = self.origin;
        for (&(e, u, v), r) in self.edges.iter().zip(routed) {
            match r {
                Some(mut r) => {
                    for c in &mut r.cells {
                        *c = (c.0 + dx, c.1 + dy);
                    }
                    for s in &mut r.spans {
                        *s = (s.0 + dx, s.1 + dy, s.2);
                    }
                    out.routes.by_edge.insert(EdgeIndex::new(e as usize), r);
                }
                None => {
                    out.routes.left_out += 1;
                    *out.routes.unshown.entry(u).or_default() += 1;
                    *out.routes.unshown.entry(v).or_default() += 1;
                }
            }
        }
        out.routes.unshown.retain(|n, _| self.in_view.contains(n));
        out
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
fn has_stubs(gp: &Sources, ctx: &Ctx, ix: NodeIndex) -> bool {
    let layout = gp.layout();
    let Some(su) = layout.slot(ix) else {
        return false;
    };
    ctx.tk
        .graph
        .edges_directed(ix, Direction::Outgoing)
        .any(|e| {
            layout
                .slot(e.target())
                .is_some_and(|sv| stubbed(gp, ctx, e.id(), su, sv))
        })
}

fn cell(r: WRect, region: WRect) -> CellRect {
    CellRect {
        x: r.x - region.x,
        y: r.y - region.y,
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
