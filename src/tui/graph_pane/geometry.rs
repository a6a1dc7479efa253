//! From layout slots to cells: column positions, box sizes and edge routes for the current
//! zoom. Cheap (linear in the number of layers), so it is computed per frame and never
//! touches the cached layout.

use petgraph::stable_graph::NodeIndex;

use unicode_width::UnicodeWidthStr;

use toolscope_core::layout::Layout;
use toolscope_core::model::Toolkit;

/// Longest name drawn in full in the detailed view.
const MAX_LABEL: usize = 28;
/// Longest name in the compact zoom.
const COMPACT_LABEL: usize = 12;

/// Detail level of the graph drawing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zoom {
    /// Boxes three lines high with full names.
    Detailed,
    /// One line per node, names shortened.
    Compact,
    /// One line per node, names cut to their first 8 characters, layers folded into bands
    /// as wide as the pane (see [`crate::tui::graph_pane`]).
    Fit,
}

/// A rectangle in layout cells (may be off screen, so signed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WRect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl WRect {
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x && x < self.x + self.w && y >= self.y && y < self.y + self.h
    }
}

/// Cell geometry of a layout at one zoom level.
#[derive(Debug, Clone)]
pub struct Geometry {
    pub box_h: i32,
    pub row_h: i32,
    pub gap: i32,
    /// Parallel vertical lanes per gap, so edges to different targets stay apart.
    pub lanes: i32,
    /// Room reserved before a target for a score label.
    pub label_room: i32,
    pub max_label: usize,
    /// Left edge of each column.
    pub col_x: Vec<i32>,
    pub col_w: Vec<i32>,
    /// Row of the first boxes' tops (the whole graph keeps a free row above them).
    pub top: i32,
    /// Cells after the last column and under the last row that belong to the drawing.
    pub trail: (i32, i32),
    /// Nodes drawn to the right of their column's edge (the focus view's tools under
    /// their action, see [`toolscope_core::layout::pack::indents`]).
    pub indent: std::collections::HashMap<NodeIndex, i32>,
}

impl Geometry {
    /// The nodes of `layout` whose boxes meet `view`, with their boxes.
    pub fn boxes_meeting(
        &self,
        layout: &Layout,
        tk: &Toolkit,
        view: WRect,
    ) -> Vec<(NodeIndex, WRect)> {
        let first_col = self
            .col_x
            .partition_point(|&x| x + self.col_w[0].max(0) < view.x);
        let first_col = first_col.saturating_sub(1);
        let row_lo = ((view.y - self.top).div_euclid(self.row_h)).max(0) as usize;
        let row_hi = ((view.y + view.h).div_euclid(self.row_h) + 1).max(0) as usize;
        let mut out = Vec::new();
        for l in first_col..layout.layers.len() {
            if self.col_x[l] > view.x + view.w {
                break;
            }
            for &ix in layout.rows_of(l, row_lo, row_hi) {
                if let Some(rect) = self.node_rect(layout, tk, ix) {
                    out.push((ix, rect));
                }
            }
        }
        out
    }

    pub fn for_layout(layout: &Layout, zoom: Zoom, scores: bool) -> Geometry {
        let (box_h, lanes, max_label) = match zoom {
            Zoom::Detailed => (3, 3, MAX_LABEL),
            Zoom::Compact => (1, 1, COMPACT_LABEL),
            Zoom::Fit => (1, 1, toolscope_core::layout::labels::NARROW),
        };
        let label_room = if scores { 5 } else { 0 };
        Geometry::with(layout, box_h, lanes, max_label, label_room)
    }

    /// Geometry for boxes `box_h` high with names up to `max_label` cells, `lanes` lanes
    /// per gap and `label_room` cells before each column for score labels.
    pub fn with(
        layout: &Layout,
        box_h: i32,
        lanes: i32,
        max_label: usize,
        label_room: i32,
    ) -> Geometry {
        // Out-lanes, a free cell, in-lanes, the arrowhead.
        let gap = 2 * lanes + 3 + label_room;
        let mut col_x = Vec::with_capacity(layout.layers.len());
        let mut col_w = Vec::with_capacity(layout.layers.len());
        let mut x = 1;
        for &lw in &layout.label_width {
            let w = box_width(usize::from(lw).min(max_label));
            col_x.push(x);
            col_w.push(w);
            x += w + gap;
        }
        Geometry {
            box_h,
            row_h: box_h + 1,
            gap,
            lanes,
            label_room,
            max_label,
            col_x,
            col_w,
            top: 1,
            trail: (1, 0),
            indent: Default::default(),
        }
    }

    /// The focus view's geometry: columns from the left edge, rows from the top, `look`'s
    /// channel between columns (see [`toolscope_core::layout::pack`]).
    pub fn packed(
        layout: &Layout,
        tk: &Toolkit,
        look: toolscope_core::layout::pack::Look,
    ) -> Geometry {
        let p = toolscope_core::layout::pack::place(tk, layout, look);
        Geometry {
            box_h: look.box_h,
            row_h: look.pitch(),
            gap: look.gap,
            lanes: 1,
            label_room: 0,
            max_label: look.cap,
            col_x: p.col_x,
            col_w: p.col_w,
            top: 0,
            trail: (look.trail(), -look.row_gap.max(1)),
            indent: p.indent,
        }
    }

    /// The box of node `ix`, if laid out.
    pub fn node_rect(&self, layout: &Layout, tk: &Toolkit, ix: NodeIndex) -> Option<WRect> {
        let s = layout.slot(ix)?;
        let l = s.layer as usize;
        let label = tk.name(ix).width().min(self.max_label);
        Some(WRect {
            x: *self.col_x.get(l)? + self.indent.get(&ix).copied().unwrap_or(0),
            y: self.row_top(s.order),
            w: box_width(label).max(6),
            h: self.box_h,
        })
    }

    pub fn row_top(&self, order: u32) -> i32 {
        self.top + order as i32 * self.row_h
    }

    /// Size of the whole drawing.
    pub fn extent(&self, layout: &Layout) -> (i32, i32) {
        let w = self
            .col_x
            .last()
            .zip(self.col_w.last())
            .map_or(0, |(x, w)| x + w + self.trail.0);
        let h = self.top + layout.max_rows() as i32 * self.row_h + self.trail.1;
        (w, h.max(0))
    }

    /// The visible node at a point, if any (columns found by search, rows by division).
    pub fn hit(&self, layout: &Layout, tk: &Toolkit, x: i32, y: i32) -> Option<NodeIndex> {
        let l = self.col_x.partition_point(|&cx| cx <= x).checked_sub(1)?;
        let order = (y - self.top).div_euclid(self.row_h);
        let ix = layout.at(l, usize::try_from(order).ok()?)?;
        self.node_rect(layout, tk, ix)
            .filter(|r| r.contains(x, y))
            .map(|_| ix)
    }
}

/// Box width for a label of `chars`: borders, marker and padding.
fn box_width(chars: usize) -> i32 {
    chars as i32 + 5
}
