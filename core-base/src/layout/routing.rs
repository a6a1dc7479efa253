//! "Route these edges among these boxes" as one value: a [`RouteRequest`] holds the grid,
//! the boxes, the edges in the order they are routed and the [`RouteBudget`], and
//! [`RouteRequest::route`] answers it with [`RoutedEdges`]. The SVG export, the TUI's
//! focus view and its windows each make one; ranking the edges, making the router's wires,
//! routing ([`super::route`]) and mapping the routes back to edges is written here once.
//!
//! A request is a plain value compared by equality, so a caller can keep the routes of the
//! requests it made and answer an equal one without routing (the TUI keeps a few windows).
//! The budgets and every tuning constant of the router are in [`budget`].

pub mod budget;

pub use budget::{EXPORT, FOCUS, RouteBudget, Stuck, WINDOW};

use std::collections::HashMap;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use super::route::{self, CellRect, Routed, Wire};

/// An edge to route, with its rank: edges of a lower rank are routed first (they get the
/// plainest routes), then, within a rank, the shorter first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub edge: EdgeIndex,
    pub from: NodeIndex,
    pub to: NodeIndex,
    pub rank: u8,
}

/// Edges to route among boxes on a grid, within a budget.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteRequest {
    /// The grid routes may use, in the caller's cells (routes come back in them too).
    pub area: CellRect,
    /// The nodes' boxes, in the caller's cells (a box may reach beyond `area`).
    pub boxes: Vec<(NodeIndex, CellRect)>,
    /// Cells no route may use, such as the line under a box where its counts are written.
    pub keep_clear: Vec<CellRect>,
    /// The edges in routing order (see [`Ranked`]).
    edges: Vec<Ranked>,
    pub budget: RouteBudget,
}

/// The answer to a [`RouteRequest`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoutedEdges {
    /// The edges routed, in routing order, in the caller's cells.
    pub routed: Vec<(EdgeIndex, Routed)>,
    /// Edges with no route: none clean (with [`Stuck::LeaveOut`]), a box missing, or the
    /// budget's states spent before their turn.
    pub unrouted: Vec<Ranked>,
    /// Edges beyond the budget's `most_wires`, not tried.
    pub skipped: Vec<Ranked>,
    /// Search states the routing took.
    pub states: u32,
}

/// Router keys of the cells kept clear (below any node's index, above none).
const CLEAR: u32 = u32::MAX - 2;

impl RouteRequest {
    /// A request routing `edges` among `boxes` on the grid `area`, in rank order.
    pub fn new(
        area: CellRect,
        boxes: Vec<(NodeIndex, CellRect)>,
        edges: Vec<Ranked>,
        budget: RouteBudget,
    ) -> RouteRequest {
        let at: HashMap<NodeIndex, CellRect> = boxes.iter().copied().collect();
        // An edge whose end has no box is routed nowhere: its length does not matter.
        let length = |e: &Ranked| match (at.get(&e.from), at.get(&e.to)) {
            (Some(a), Some(b)) => (a.x - b.x).abs() + (a.y - b.y).abs(),
            _ => 0,
        };
        let mut keyed: Vec<((u8, i32, usize), Ranked)> = edges
            .into_iter()
            .map(|e| ((e.rank, length(&e), e.edge.index()), e))
            .collect();
        keyed.sort_unstable_by_key(|k| k.0);
        RouteRequest {
            area,
            boxes,
            keep_clear: Vec::new(),
            edges: keyed.into_iter().map(|(_, e)| e).collect(),
            budget,
        }
    }

    /// The edges in routing order.
    pub fn edges(&self) -> &[Ranked] {
        &self.edges
    }

    /// The edges beyond the budget's `most_wires`, which are not routed (known before
    /// routing, so a caller can count them first).
    pub fn skipped(&self) -> &[Ranked] {
        &self.edges[self.edges.len().min(self.budget.most_wires)..]
    }

    /// Routes the edges (see the module comment).
    pub fn route(&self) -> RoutedEdges {
        let (ox, oy) = (self.area.x, self.area.y);
        let to_grid = |r: CellRect| CellRect {
            x: r.x - ox,
            y: r.y - oy,
            ..r
        };
        let key = |ix: NodeIndex| ix.index() as u32;
        let mut boxes: Vec<(u32, CellRect)> = self
            .boxes
            .iter()
            .map(|&(ix, r)| (key(ix), to_grid(r)))
            .collect();
        boxes.extend(
            self.keep_clear
                .iter()
                .enumerate()
                .map(|(i, &r)| (CLEAR - i as u32, to_grid(r))),
        );
        let tried = &self.edges[..self.edges.len().min(self.budget.most_wires)];
        let wires: Vec<Wire> = tried
            .iter()
            .map(|e| Wire {
                from: key(e.from),
                to: key(e.to),
            })
            .collect();
        let (found, states) = route::route(self.area.w, self.area.h, &boxes, &wires, &self.budget);
        let mut out = RoutedEdges {
            skipped: self.skipped().to_vec(),
            states,
            ..RoutedEdges::default()
        };
        for (e, r) in tried.iter().zip(found) {
            match r {
                Some(mut r) => {
                    for c in &mut r.cells {
                        *c = (c.0 + ox, c.1 + oy);
                    }
                    for s in &mut r.spans {
                        *s = (s.0 + ox, s.1 + oy, s.2);
                    }
                    out.routed.push((e.edge, r));
                }
                None => out.unrouted.push(*e),
            }
        }
        out
    }
}

impl RouteBudget {
    /// Whether a grid of `w` x `h` cells is small enough for this kind of drawing.
    pub fn fits_grid(&self, w: i32, h: i32) -> bool {
        i64::from(w) * i64::from(h) <= self.most_cells
    }
}

#[cfg(test)]
mod tests;
