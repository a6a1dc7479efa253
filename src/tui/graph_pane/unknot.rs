//! Knots in a step drawn as its reasons (issue 44): a crossing right beside another
//! crossing or a junction, where the lines through it cannot be told apart. The router
//! keeps edges of different ends off each other's cells, but not off each other's
//! neighbours, and a learned kit's step (a seed with an edge to every offered action, a
//! frontier, the called tool's path) crosses its own fan. Such a step leaves out, one at a
//! time, the longest edge through a knot (never one of the called tool's path), and
//! counts it on its ends like an edge the room could not hold apart, until no knot is
//! left.

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::EdgeIndex;

use toolscope_core::layout::Layout;
use toolscope_core::model::Toolkit;

use crate::tui::graph_pane::canvas::Canvas;
use crate::tui::graph_pane::geometry::{Geometry, WRect};
use crate::tui::graph_pane::wires::Routes;
use crate::tui::theme::Level;

/// Cells of a crossing (all four directions) with a crossing or junction (three or four)
/// beside it, each with the edges drawn through the two cells; cells under boxes and
/// arrowheads (drawn over the lines) are not looked at.
fn knots(routes: &Routes, covered: &dyn Fn(i32, i32) -> bool) -> Vec<Vec<EdgeIndex>> {
    let Some(view) = extent(routes) else {
        return Vec::new();
    };
    let mut canvas = Canvas::new(view);
    canvas.trace();
    let mut order: Vec<_> = routes.by_edge.iter().collect();
    order.sort_by_key(|(e, _)| e.index());
    let mut heads = HashSet::new();
    for (e, r) in order {
        let mut pts = vec![r.tail()];
        pts.extend(r.points());
        canvas.owner(e.index() as u32);
        canvas.polyline(&pts, Level::Normal);
        heads.insert(r.head().0);
    }
    let mut through: HashMap<(i32, i32), Vec<u32>> = HashMap::new();
    for t in canvas.traced() {
        through.entry((t.x, t.y)).or_default().push(t.edge);
    }
    let hidden = |x: i32, y: i32| heads.contains(&(x, y)) || covered(x, y);
    let arms = |x: i32, y: i32| {
        if hidden(x, y) {
            0
        } else {
            canvas.bits_at(x, y).count_ones()
        }
    };
    let mut out = Vec::new();
    for y in view.y..view.y + view.h {
        for x in view.x..view.x + view.w {
            if arms(x, y) < 4 {
                continue;
            }
            for (dx, dy) in [(1, 0), (0, 1), (-1, 0), (0, -1)] {
                if arms(x + dx, y + dy) >= 3 {
                    let mut edges: Vec<EdgeIndex> = [(x, y), (x + dx, y + dy)]
                        .iter()
                        .flat_map(|c| through.get(c).into_iter().flatten())
                        .map(|&e| EdgeIndex::new(e as usize))
                        .collect();
                    edges.sort();
                    edges.dedup();
                    out.push(edges);
                }
            }
        }
    }
    out
}

/// The rectangle holding every route, with a cell to spare on each side.
fn extent(routes: &Routes) -> Option<WRect> {
    let cells = routes.by_edge.values().flat_map(|r| {
        let mut c = r.cells.clone();
        c.push(r.tail());
        c
    });
    let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
    for (x, y) in cells {
        x0 = x0.min(x);
        y0 = y0.min(y);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    (x0 <= x1).then(|| WRect {
        x: x0 - 1,
        y: y0 - 1,
        w: x1 - x0 + 3,
        h: y1 - y0 + 3,
    })
}

/// Leaves out edges of `routes` until no knot is left (see the module comment); the edges
/// of `keep` stay. Returns how many were left out.
pub(super) fn unknot(
    routes: &mut Routes,
    keep: &HashSet<EdgeIndex>,
    tk: &Toolkit,
    layout: &Layout,
    geo: &Geometry,
) -> usize {
    let Some(view) = extent(routes) else {
        return 0;
    };
    // The cells under boxes, once (each round looks at every cell of the routes' extent).
    let mut under = vec![false; (view.w * view.h).max(0) as usize];
    for b in layout
        .placed()
        .filter_map(|(ix, _)| geo.node_rect(layout, tk, ix))
    {
        for y in b.y.max(view.y)..(b.y + b.h).min(view.y + view.h) {
            for x in b.x.max(view.x)..(b.x + b.w).min(view.x + view.w) {
                under[((y - view.y) * view.w + (x - view.x)) as usize] = true;
            }
        }
    }
    let covered = |x: i32, y: i32| {
        view.contains(x, y) && under[((y - view.y) * view.w + (x - view.x)) as usize]
    };
    let mut dropped = 0;
    // Each round leaves one edge out, so this ends.
    loop {
        let found = knots(routes, &covered);
        let worst = found
            .iter()
            .flatten()
            .filter(|e| !keep.contains(e))
            .filter_map(|&e| routes.by_edge.get(&e).map(|r| (r.cells.len(), e)))
            .max();
        let Some((_, e)) = worst else {
            return dropped;
        };
        routes.by_edge.remove(&e);
        routes.left_out += 1;
        if let Some((u, v)) = tk.graph.edge_endpoints(e) {
            *routes.unshown.entry(u).or_default() += 1;
            *routes.unshown.entry(v).or_default() += 1;
        }
        dropped += 1;
    }
}
