//! The focus view's layout: the recommended subgraph plus its frontier (left-out nodes one
//! edge beyond it), small enough to fit a pane. Tools sit one layer after their home (the
//! first caller), and the layers are folded into bands as wide as the pane, so a chain of
//! any length reads left to right, then on the next band.
//!
//! [`fit`] folds the layers into bands: the whole graph's fit zoom and large SVG pictures
//! use it. The TUI's focus view packs the same set into columns instead
//! ([`super::pack`]).

use std::collections::HashMap;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use unicode_width::UnicodeWidthStr;

use super::{Layout, Slot, layered};
use crate::model::Toolkit;

/// A left-out node one edge beyond the recommendation, with the edge that blocks it (the
/// best-scored edge into it from a member).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blocked {
    pub node: NodeIndex,
    pub edge: EdgeIndex,
    pub score: f64,
}

/// The frontier of `members`: every non-member reached by one outgoing edge of a member.
pub fn frontier(
    tk: &Toolkit,
    members: &[NodeIndex],
    is_member: &dyn Fn(NodeIndex) -> bool,
) -> Vec<Blocked> {
    let mut best: HashMap<NodeIndex, Blocked> = HashMap::new();
    for &u in members {
        for (e, v) in tk.out_edges(u) {
            if is_member(v) {
                continue;
            }
            let score = tk.graph[e].score;
            let b = Blocked {
                node: v,
                edge: e,
                score,
            };
            best.entry(v)
                .and_modify(|old| {
                    if score > old.score || (score == old.score && e < old.edge) {
                        *old = b;
                    }
                })
                .or_insert(b);
        }
    }
    let mut out: Vec<Blocked> = best.into_values().collect();
    out.sort_by_key(|b| b.node);
    out
}

/// How layout slots become cells, as the drawing measures them: a column is as wide as its
/// widest name (at most `cap` cells) plus [`BOX_EXTRA`]; columns are `gap` cells apart and
/// the drawing has a one-cell margin on each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cells {
    pub cap: usize,
    pub gap: i32,
}

/// Cells a box adds to its name: two borders, the marker and its space, the mark cell.
pub const BOX_EXTRA: i32 = 5;

impl Cells {
    fn column(&self, name_width: usize) -> i32 {
        name_width.min(self.cap) as i32 + BOX_EXTRA
    }

    /// Width in cells of a drawing whose columns hold names this wide.
    pub fn width(&self, name_widths: &[usize]) -> i32 {
        let cols: i32 = name_widths.iter().map(|&w| self.column(w)).sum();
        let gaps = (name_widths.len() as i32 - 1).max(0) * self.gap;
        2 + cols + gaps
    }
}

/// A fitted focus layout and the number of columns its bands have.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub layout: Layout,
    pub cols: u32,
}

/// Layers of the kept nodes (tools after their home caller). Within a layer, members of
/// the recommendation come before the frontier, so they are drawn first when space runs
/// out. Independent of the pane, so it is computed once per refit.
pub fn prepare(
    tk: &Toolkit,
    keep: &[bool],
    is_member: &dyn Fn(NodeIndex) -> bool,
) -> Vec<Vec<NodeIndex>> {
    let mut layers = layered(tk, Some(keep));
    for layer in &mut layers {
        // Stable: the barycenter order holds within members and within the frontier.
        layer.sort_by_key(|&ix| !is_member(ix));
    }
    layers
}

/// Columns per band and rows in all, of `layers` folded to `width` cells: what [`fold`]
/// would lay out, without building it (to compare ways of fitting cheaply).
pub fn fold_shape(
    tk: &Toolkit,
    layers: &[Vec<NodeIndex>],
    width: i32,
    cells: Cells,
) -> (usize, u32) {
    let widths: Vec<usize> = layers
        .iter()
        .map(|l| l.iter().map(|&ix| tk.name(ix).width()).max().unwrap_or(0))
        .collect();
    let cols = fold_width(&widths, width, cells);
    let rows = layers
        .chunks(cols.max(1))
        .map(|band| band.iter().map(Vec::len).max().unwrap_or(0) as u32)
        .sum();
    (cols, rows)
}

/// Folds `layers` into bands no wider than `width` cells.
pub fn fold(tk: &Toolkit, layers: &[Vec<NodeIndex>], width: i32, cells: Cells) -> Fitted {
    let (cols, _) = fold_shape(tk, layers, width, cells);
    let mut placed = Vec::new();
    let mut top = 0u32;
    for band in layers.chunks(cols.max(1)) {
        for (c, layer) in band.iter().enumerate() {
            for (o, &ix) in layer.iter().enumerate() {
                let slot = Slot {
                    layer: c as u32,
                    order: top + o as u32,
                };
                placed.push((ix, slot));
            }
        }
        top += band.iter().map(Vec::len).max().unwrap_or(0) as u32;
    }
    Fitted {
        layout: Layout::from_slots(tk, &placed),
        cols: cols as u32,
    }
}

/// [`prepare`] then [`fold`].
pub fn fit(
    tk: &Toolkit,
    keep: &[bool],
    is_member: &dyn Fn(NodeIndex) -> bool,
    width: i32,
    cells: Cells,
) -> Fitted {
    fold(tk, &prepare(tk, keep, is_member), width, cells)
}

/// The most columns per band (at least one) whose drawing fits `width`.
/// Wider bands need more room almost always, so the count is found by bisection: a few
/// linear passes even for a 100k-layer chain.
fn fold_width(widths: &[usize], width: i32, cells: Cells) -> usize {
    let fits = |k: usize| {
        let mut cols = vec![0usize; k];
        for (l, &w) in widths.iter().enumerate() {
            cols[l % k] = cols[l % k].max(w);
        }
        cells.width(&cols) <= width
    };
    let (mut lo, mut hi) = (1, widths.len().max(1));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}
