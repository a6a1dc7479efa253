//! The focus view's edges, routed once per layout (not per frame) by a request to the
//! core's grid router ([`toolscope_core::layout::routing`], budget
//! [`FOCUS`]): two edges that share neither source nor target never run along the same
//! cells nor straight side by side, so each can be followed alone. Recommended edges are
//! routed first (they get the plainest routes), then the others, shorter ones first. An
//! edge the room cannot hold apart is not drawn; its ends are counted (see
//! [`Routes::unshown`]).
//!
//! A focus view beyond [`FOCUS`]'s `most_wires` edges or `most_cells` cells is far from
//! fitting any screen; its edges are routed by window, as in the whole graph
//! ([`super::window_routes`]).

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;

use toolscope_core::layout::Layout;
use toolscope_core::layout::route::{CellRect, Routed};
use toolscope_core::layout::routing::{FOCUS, Ranked, RouteRequest, RoutedEdges};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::Recommendation;

use crate::tui::graph_pane::geometry::Geometry;

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
    if !FOCUS.fits_grid(w, h) {
        return None;
    }
    let mut boxes = Vec::new();
    for (ix, _) in layout.placed() {
        if let Some(r) = geo.node_rect(layout, tk, ix) {
            let c = CellRect {
                x: r.x,
                y: r.y,
                w: r.w,
                h: r.h,
            };
            boxes.push((ix, c));
        }
    }
    let boxed: HashSet<NodeIndex> = boxes.iter().map(|b| b.0).collect();
    let mut drawn = Vec::new();
    // A member's edges to frontier nodes the view had no room to draw: counted beside it.
    let mut beyond: HashMap<NodeIndex, usize> = HashMap::new();
    for (ix, _) in layout.placed() {
        for e in tk.graph.edges(ix) {
            let v = e.target();
            if v != ix && !boxed.contains(&v) && rec.contains(ix) {
                *beyond.entry(ix).or_default() += 1;
            }
            if v == ix || !boxed.contains(&v) {
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
    if drawn.len() > FOCUS.most_wires {
        return None;
    }
    let edges: Vec<Ranked> = drawn
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
            Ranked {
                edge: e,
                from: ix,
                to: v,
                rank,
            }
        })
        .collect();
    let area = CellRect { x: 0, y: 0, w, h };
    let routed = RouteRequest::new(area, boxes, edges, FOCUS).route();
    Some(Routes::of(routed, beyond))
}

impl Routes {
    /// The routes of a request's answer, with the edges it left out counted at both ends
    /// (on top of `unshown`, the counts of edges the request was not given).
    pub fn of(routed: RoutedEdges, unshown: HashMap<NodeIndex, usize>) -> Routes {
        let mut out = Routes {
            unshown,
            ..Routes::default()
        };
        out.by_edge.extend(routed.routed);
        for e in routed.unrouted {
            out.left_out += 1;
            *out.unshown.entry(e.from).or_default() += 1;
            *out.unshown.entry(e.to).or_default() += 1;
        }
        out
    }
}
