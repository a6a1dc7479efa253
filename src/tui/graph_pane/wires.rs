//! The focus view's edges, routed once per layout (not per frame) with the core's grid
//! router ([`toolscope_core::layout::route::route_clean`]): two edges that share neither
//! source nor target never run along the same cells nor straight side by side, so each
//! can be followed alone. Recommended edges are routed first (they get the plainest
//! routes), then the others, shorter ones first. An edge the room cannot hold apart is
//! not drawn; its ends are counted (see [`Routes::unshown`]).
//!
//! A focus view beyond [`MOST_WIRES`] edges or [`MOST_CELLS`] cells is far from fitting any
//! screen; its edges are routed by window, as in the whole graph
//! ([`super::window_routes`]).

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;

use toolscope_core::layout::Layout;
use toolscope_core::layout::route::{CellRect, Routed, WHOLE_BUDGET, Wire, route_clean_within};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::Recommendation;

use crate::tui::graph_pane::geometry::Geometry;

/// The most edges routed on the grid.
pub const MOST_WIRES: usize = 300;
/// The largest grid routed.
pub const MOST_CELLS: i64 = 1 << 17;
/// Search states one routing may take in all: a view whose edges mostly find no clean
/// route would otherwise search its whole grid per edge, on the key path (a threshold
/// step routes again). Edges left when they are spent are counted, not drawn.
pub const MOST_STATES: u32 = 30_000;

/// Every routed edge of a view, and what was left out.
#[derive(Debug, Clone, Default)]
pub struct Routes {
    pub by_edge: HashMap<EdgeIndex, Routed>,
    /// Edges that found no clean route, so are not drawn.
    pub left_out: usize,
    /// Nodes with edges not drawn (found no clean route, or lead to a frontier node the
    /// view had no room for), and how many (each says so on screen).
    pub unshown: HashMap<NodeIndex, usize>,
}

/// The edges a step drawn as its reasons routes (see
/// [`toolscope_core::layout::step`]): the rest among its nodes are counted on their
/// sources. `first` (the called tool's path) is routed before everything else, the
/// recommendation's edges included, so the edge that keeps a miss out gets the plainest
/// route.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Only {
    pub edges: HashSet<EdgeIndex>,
    pub first: HashSet<EdgeIndex>,
}

/// Routes the edges between laid-out nodes on a grid covering the drawing and the pane
/// (with `only`, just those edges; the others are counted on their sources).
pub fn route(
    tk: &Toolkit,
    rec: &Recommendation,
    threshold: f64,
    layout: &Layout,
    geo: &Geometry,
    pane: (i32, i32),
    only: Option<&Only>,
) -> Option<Routes> {
    let (ew, eh) = geo.extent(layout);
    let (w, h) = (ew.max(pane.0), eh.max(pane.1));
    if i64::from(w) * i64::from(h) > MOST_CELLS {
        return None;
    }
    let mut boxes = Vec::new();
    let mut rects = HashMap::new();
    for (ix, _) in layout.placed() {
        if let Some(r) = geo.node_rect(layout, tk, ix) {
            let c = CellRect {
                x: r.x,
                y: r.y,
                w: r.w,
                h: r.h,
            };
            boxes.push((ix.index() as u32, c));
            rects.insert(ix, c);
        }
    }
    let mut drawn = Vec::new();
    // A member's edges to frontier nodes the view had no room to draw: counted beside it.
    let mut beyond: HashMap<NodeIndex, usize> = HashMap::new();
    for (ix, _) in layout.placed() {
        for e in tk.graph.edges(ix) {
            let v = e.target();
            if v != ix && !rects.contains_key(&v) && rec.contains(ix) {
                *beyond.entry(ix).or_default() += 1;
            }
            if v == ix || !rects.contains_key(&v) {
                continue;
            }
            if only.is_some_and(|o| !o.edges.contains(&e.id())) {
                *beyond.entry(ix).or_default() += 1;
                continue;
            }
            drawn.push((e.id(), e.weight().score, ix, v));
        }
    }
    // Too many to route: known before ranking them (a large step's view on the key path).
    if drawn.len() > MOST_WIRES {
        return None;
    }
    let mut edges: Vec<_> = drawn
        .into_iter()
        .map(|(e, score, ix, v)| {
            // The called tool's path goes first, before the recommendation's edges (a
            // learned kit's fan of them would leave its long edges no clean way).
            let first = only.is_some_and(|o| o.first.contains(&e));
            let rank = if first {
                0
            } else if rec.has_edge(tk, e, threshold) {
                1
            } else if score < threshold {
                3
            } else {
                2
            };
            let (a, b) = (rects[&ix], rects[&v]);
            let length = (a.x - b.x).abs() + (a.y - b.y).abs();
            (rank, length, e, ix, v)
        })
        .collect();
    edges.sort();
    let wires: Vec<Wire> = edges
        .iter()
        .map(|&(_, _, _, u, v)| Wire {
            from: u.index() as u32,
            to: v.index() as u32,
        })
        .collect();
    let routed = route_clean_within(w, h, &boxes, &wires, (MOST_STATES, WHOLE_BUDGET));
    let mut out = Routes {
        unshown: beyond,
        ..Routes::default()
    };
    for (&(_, _, e, u, v), r) in edges.iter().zip(routed) {
        match r {
            Some(r) => {
                out.by_edge.insert(e, r);
            }
            None => {
                out.left_out += 1;
                *out.unshown.entry(u).or_default() += 1;
                *out.unshown.entry(v).or_default() += 1;
            }
        }
    }
    Some(out)
}
