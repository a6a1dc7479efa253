//! Where each pane goes for a terminal size. Pure, so `update` (mouse hit tests, centring)
//! and the view agree on the same rectangles.

use ratatui::layout::Rect;

/// Smallest usable terminal.
pub const MIN_W: u16 = 60;
pub const MIN_H: u16 = 15;

/// How the width is shared: which side panes give their width to the graph (by `m`, or
/// when the focus view needs the room; see `graph_pane::fit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Split {
    pub hide_nav: bool,
    pub hide_inspector: bool,
}

/// The screen's rectangles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Panes {
    pub nav: Rect,
    pub graph: Rect,
    pub inspector: Rect,
    /// Parameter line, status line and hint line.
    pub bar: Rect,
    pub too_small: bool,
}

impl Panes {
    pub fn new(size: (u16, u16), split: Split) -> Panes {
        let (w, h) = size;
        let full = Rect::new(0, 0, w, h);
        if w < MIN_W || h < MIN_H {
            let z = Rect::default();
            return Panes {
                nav: z,
                graph: z,
                inspector: z,
                bar: z,
                too_small: true,
            };
        }
        let bar_h = 3;
        let main_h = h - bar_h;
        // Side panes shrink first on narrow terminals, so the graph keeps most of the width.
        let (nav_w, insp_w) = if w >= 140 {
            (30, 40)
        } else if w >= 120 {
            (24, 32)
        } else if w >= 100 {
            (20, 26)
        } else {
            (16, 22)
        };
        let nav_w = if split.hide_nav { 0 } else { nav_w };
        let insp_w = if split.hide_inspector { 0 } else { insp_w };
        let graph_w = w - nav_w - insp_w;
        Panes {
            nav: Rect::new(0, 0, nav_w, main_h),
            graph: Rect::new(nav_w, 0, graph_w, main_h),
            inspector: Rect::new(nav_w + graph_w, 0, insp_w, main_h),
            bar: Rect::new(0, main_h, w, bar_h).intersection(full),
            too_small: false,
        }
    }

    /// The graph pane inside its border.
    pub fn graph_inner(&self) -> Rect {
        inner(self.graph)
    }

    pub fn nav_inner(&self) -> Rect {
        inner(self.nav)
    }
}

/// A rectangle inside a one-cell border.
pub fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x.saturating_add(1),
        r.y.saturating_add(1),
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

/// Whether a point lies in a rectangle.
pub fn contains(r: Rect, x: u16, y: u16) -> bool {
    x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
}

/// The pane that receives list and pan keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivePane {
    Navigator,
    Graph,
    Inspector,
}

impl ActivePane {
    pub fn next(self) -> ActivePane {
        match self {
            ActivePane::Navigator => ActivePane::Graph,
            ActivePane::Graph => ActivePane::Inspector,
            ActivePane::Inspector => ActivePane::Navigator,
        }
    }

    pub fn prev(self) -> ActivePane {
        self.next().next()
    }
}
