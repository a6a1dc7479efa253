//! The picture on a cell grid, as the TUI's focus view draws it: the nodes packed into
//! columns in reading order ([`crate::layout::pack`]), names whole, and every edge routed
//! by [`crate::layout::route`], so no two edges that share neither source nor target run
//! along the same line. The grid is then scaled to pixels; the number of columns is the
//! one whose picture comes closest to a 4:3 page.
//!
//! Used for pictures of up to [`MOST_NODES`] nodes; larger ones are drawn layered (see the
//! parent module), as routing them on a grid would take too long.

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;

use crate::layout::Layout;
use crate::layout::pack::{self, Look, Placement};
use crate::layout::route::{CellRect, Routed};
use crate::layout::routing::budget::EXPORT_MOST_NODES;
use crate::layout::routing::{EXPORT, Ranked, RouteRequest};
use crate::model::Toolkit;

/// Pixels per cell: a character of the 12px font (bold included) wide, a third of a box
/// high.
pub const CW: f64 = 8.0;
pub const CH: f64 = 10.0;
/// The largest picture laid out on the grid (the router's tuning is in one file).
pub const MOST_NODES: usize = EXPORT_MOST_NODES;

/// Boxes three cells (30 px) high with two free rows under them; channels of 8 cells.
pub const LOOK: Look = Look {
    box_h: 3,
    cap: super::MAX_LABEL,
    gap: 8,
    margin: 2,
    row_gap: 2,
};

/// The width-to-height ratio aimed at.
const ASPECT: f64 = 4.0 / 3.0;

/// A picture laid out and routed on the grid.
pub struct Scene {
    pub layout: Layout,
    pub boxes: Vec<(NodeIndex, CellRect)>,
    pub routes: Vec<(EdgeIndex, Routed)>,
    pub w: i32,
    pub h: i32,
    /// Cells a line, an arrowhead or a box takes (labels go elsewhere).
    busy: Vec<bool>,
}

/// Lays out the nodes with `keep` in reading order from `roots`, and routes every edge
/// between them, `first` ones first (the recommendation's).
pub fn scene(
    tk: &Toolkit,
    keep: &[bool],
    is_member: &dyn Fn(NodeIndex) -> bool,
    roots: &[NodeIndex],
    first: &dyn Fn(EdgeIndex) -> bool,
) -> Scene {
    scene_of(tk, keep, is_member, roots, first, &|_| true)
}

/// [`scene`] routing only the edges `drawn` accepts (a step drawn as its reasons).
pub fn scene_of(
    tk: &Toolkit,
    keep: &[bool],
    is_member: &dyn Fn(NodeIndex) -> bool,
    roots: &[NodeIndex],
    first: &dyn Fn(EdgeIndex) -> bool,
    drawn: &dyn Fn(EdgeIndex) -> bool,
) -> Scene {
    let seq = pack::sequence(tk, keep, is_member, roots, false);
    let look = look_for(tk, &seq, drawn);
    let rows = rows_for_aspect(tk, &seq, look);
    let layout = pack::pack(tk, &seq, rows, crate::layout::structure_key(tk));
    let place: Placement = pack::place(tk, &layout, look);
    let (w, h) = place.extent(&layout, look);
    let (w, h) = (w + look.margin, h + 2);
    let boxes: Vec<(NodeIndex, CellRect)> = seq
        .iter()
        .filter_map(|&ix| place.rect(tk, &layout, look, ix).map(|r| (ix, r)))
        .collect();
    let mut edges = Vec::new();
    for &(u, _) in &boxes {
        for e in tk.graph.edges(u) {
            let v = e.target();
            if v == u || layout.slot(v).is_none() || !drawn(e.id()) {
                continue;
            }
            edges.push(Ranked {
                edge: e.id(),
                from: u,
                to: v,
                rank: u8::from(!first(e.id())),
            });
        }
    }
    let area = CellRect { x: 0, y: 0, w, h };
    let routes = RouteRequest::new(area, boxes.clone(), edges, EXPORT)
        .route()
        .routed;
    let mut busy = vec![false; (w.max(0) * h.max(0)) as usize];
    let mut mark = |x: i32, y: i32| {
        if x >= 0 && y >= 0 && x < w && y < h {
            busy[(y * w + x) as usize] = true;
        }
    };
    for (_, r) in &boxes {
        for y in r.y..r.y + r.h {
            for x in r.x..r.x + r.w {
                mark(x, y);
            }
        }
    }
    for (_, r) in &routes {
        for &(x, y) in &r.cells {
            mark(x, y);
        }
    }
    Scene {
        layout,
        boxes,
        routes,
        w,
        h,
        busy,
    }
}

/// [`LOOK`], with wider channels and more free rows the more edges each node has, so a
/// dense picture still has a lane for every edge.
fn look_for(tk: &Toolkit, seq: &[NodeIndex], drawn: &dyn Fn(EdgeIndex) -> bool) -> Look {
    let shown: std::collections::HashSet<NodeIndex> = seq.iter().copied().collect();
    let edges = seq
        .iter()
        .flat_map(|&u| tk.graph.edges(u))
        .filter(|e| shown.contains(&e.target()) && drawn(e.id()))
        .count();
    let density = edges as f64 / seq.len().max(1) as f64;
    let extra = ((density - 1.5).max(0.0) * 2.0).round() as i32;
    Look {
        gap: LOOK.gap + 3 * extra,
        row_gap: LOOK.row_gap + extra,
        ..LOOK
    }
}

/// Rows per column whose picture comes closest to [`ASPECT`].
fn rows_for_aspect(tk: &Toolkit, seq: &[NodeIndex], look: Look) -> usize {
    let n = seq.len().max(1);
    let measured = pack::measure(tk, seq);
    let mut best = (f64::INFINITY, n);
    for cols in 1..=n {
        let rows = n.div_ceil(cols);
        if cols > 1 && n.div_ceil(cols - 1) == rows {
            continue; // the same rows as fewer columns
        }
        let widths = measured.column_widths(rows, look);
        let (w, h) = pack::extent(&widths, rows, look);
        let ratio = (f64::from(w) * CW) / (f64::from(h.max(1)) * CH);
        let off = (ratio / ASPECT).ln().abs();
        if off < best.0 {
            best = (off, rows);
        }
        if ratio > ASPECT * 2.0 {
            break;
        }
    }
    best.1
}

/// A cell's left edge and top in pixels, the drawing starting at (`x0`, `y0`).
pub fn px(x0: f64, y0: f64, cx: i32, cy: i32) -> (f64, f64) {
    (x0 + f64::from(cx) * CW, y0 + f64::from(cy) * CH)
}

/// The route as pixel points: from the source's border through the middle of its cells to
/// the target's border (where the arrowhead ends).
pub fn path_points(r: &Routed, x0: f64, y0: f64) -> Vec<(f64, f64)> {
    let centre = |(cx, cy): (i32, i32)| {
        let (x, y) = px(x0, y0, cx, cy);
        (x + CW / 2.0, y + CH / 2.0)
    };
    let mut out = Vec::new();
    let first = r.cells.first().copied().unwrap_or_default();
    let (dx, dy) = r.dirs.first().map_or((1, 0), |d| d.step());
    let (fx, fy) = centre(first);
    out.push((fx - f64::from(dx) * CW / 2.0, fy - f64::from(dy) * CH / 2.0));
    for p in r.points() {
        out.push(centre(p));
    }
    let ((hx, hy), dir) = r.head();
    let (dx, dy) = dir.step();
    let (cx, cy) = centre((hx, hy));
    let end = (cx + f64::from(dx) * CW / 2.0, cy + f64::from(dy) * CH / 2.0);
    // The last point runs into the arrowhead's direction (it may have come from aside).
    if let Some(&last) = out.last()
        && (last.0 - end.0).abs() > 0.01
        && (last.1 - end.1).abs() > 0.01
    {
        out.push((cx, cy));
    }
    out.push(end);
    out
}

/// Where score labels go: cells no line, box or other label takes.
pub struct Labels {
    scene_w: i32,
    scene_h: i32,
    taken: Vec<bool>,
}

impl Labels {
    pub fn new(s: &Scene) -> Labels {
        Labels {
            scene_w: s.w,
            scene_h: s.h,
            taken: s.busy.clone(),
        }
    }

    fn free(&self, x: i32, y: i32, len: i32) -> bool {
        y >= 0
            && y < self.scene_h
            && x >= 0
            && x + len <= self.scene_w
            && (x..x + len).all(|cx| !self.taken[(y * self.scene_w + cx) as usize])
    }

    fn take(&mut self, x: i32, y: i32, len: i32) {
        for cx in x.max(0)..(x + len).min(self.scene_w) {
            if y >= 0 && y < self.scene_h {
                self.taken[(y * self.scene_w + cx) as usize] = true;
            }
        }
    }

    /// The middle of a label `chars` long (pixels, the drawing at `x0`, `y0`) for route
    /// `r`: on a stretch of its own line nothing else touches (the label interrupts it),
    /// else on free cells beside its arrowhead; `None` when neither has room.
    pub fn place(&mut self, r: &Routed, chars: usize, x0: f64, y0: f64) -> Option<(f64, f64)> {
        let cells = ((chars as f64 * 6.2 + 4.0) / CW).ceil() as i32;
        let centre = |x: f64, y: i32| (x0 + x * CW, y0 + (f64::from(y) + 0.5) * CH);
        if let Some(&(x, y, len)) = r.spans.iter().find(|s| s.2 >= cells + 2) {
            return Some(centre(f64::from(x) + f64::from(len) / 2.0, y));
        }
        let ((hx, hy), _) = r.head();
        for x in [hx + 1, hx - cells] {
            if self.free(x, hy, cells) {
                self.take(x, hy, cells);
                return Some(centre(f64::from(x) + f64::from(cells) / 2.0, hy));
            }
        }
        None
    }
}
