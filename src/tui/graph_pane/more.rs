//! What the focus view cannot show: when the recommendation is larger than the pane (or
//! the user panned), each side beyond which nodes lie says how many (`▼ 3 more`, on the
//! pane's border), and `n` moves the view there: down a page while there is more below,
//! then right a page (back to the top), then back to the start.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use toolscope_core::model::Toolkit;

use crate::tui::ctx::Ctx;
use crate::tui::graph_pane::draw::put_str;
use crate::tui::graph_pane::geometry::WRect;
use crate::tui::graph_pane::{GraphPane, Scene, Step, Viewport};

/// Nodes of the focus view outside the viewport, by the side they lie beyond.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hidden {
    pub up: usize,
    pub down: usize,
    pub left: usize,
    pub right: usize,
}

impl Hidden {
    pub fn any(&self) -> bool {
        self.up + self.down + self.left + self.right > 0
    }
}

impl GraphPane {
    /// The viewport in layout cells, as large as the pane for a terminal of `size`.
    fn view_rect(&self, size: (u16, u16)) -> WRect {
        let (w, h) = self.inner(size);
        WRect {
            x: self.viewport.x,
            y: self.viewport.y,
            w,
            h,
        }
    }

    /// Counts the focus view's nodes not wholly inside the view (each once: below or above
    /// first, then beside).
    pub fn hidden(&self, tk: &Toolkit, size: (u16, u16)) -> Hidden {
        let mut out = Hidden::default();
        let Some(f) = self.focus_view.as_ref().filter(|_| self.shows_focus()) else {
            return out;
        };
        let v = self.view_rect(size);
        for (ix, _) in f.layout.placed() {
            let Some(r) = f.geometry.node_rect(&f.layout, tk, ix) else {
                continue;
            };
            if r.y + r.h > v.y + v.h {
                out.down += 1;
            } else if r.y < v.y {
                out.up += 1;
            } else if r.x + r.w > v.x + v.w {
                out.right += 1;
            } else if r.x < v.x {
                out.left += 1;
            }
        }
        out
    }

    /// `n`: shows the next part of the drawing (see the module comment).
    pub fn show_more(&mut self, s: &Scene<'_>) -> Step {
        let h = self.hidden(s.tk, s.size);
        let Some(f) = self.focus_view.as_ref().filter(|_| h.any()) else {
            return Step::say("the whole focus view is on screen");
        };
        let v = self.view_rect(s.size);
        let (ew, eh) = f.geometry.extent(&f.layout);
        if h.down > 0 {
            self.viewport.y = (v.y + v.h - 1).min((eh - v.h).max(0));
        } else if h.right > 0 {
            self.viewport.x = (v.x + v.w - 1).min((ew - v.w).max(0));
            self.viewport.y = 0;
        } else {
            self.viewport = Viewport::default();
        }
        Step::default()
    }
}

/// The focus view's nodes beyond the edges of the pane (see [`GraphPane::hidden`]).
pub fn hidden(g: &GraphPane, ctx: &Ctx) -> Hidden {
    g.hidden(ctx.tk, ctx.size)
}

/// The marks as one short text (`▼ 5 ▶ 12 more (n)`), for a border whose bottom line
/// already holds a caption; `None` when the whole view is on screen.
pub fn compact(g: &GraphPane, ctx: &Ctx) -> Option<String> {
    let h = hidden(g, ctx);
    if !h.any() {
        return None;
    }
    let (up, down, left, right) = if ctx.theme.ascii {
        ("^", "v", "<", ">")
    } else {
        ("▲", "▼", "◀", "▶")
    };
    let parts: Vec<String> = [(h.down, down), (h.right, right), (h.left, left), (h.up, up)]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, arrow)| format!("{arrow} {n}"))
        .collect();
    Some(format!(" {} more (n) ", parts.join(" ")))
}

/// Writes the marks on the graph pane's border (`area` includes the border).
pub fn draw(g: &GraphPane, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    let h = hidden(g, ctx);
    if !h.any() || area.width < 12 || area.height < 3 {
        return;
    }
    let (up, down, left, right) = if ctx.theme.ascii {
        ("^", "v", "<", ">")
    } else {
        ("▲", "▼", "◀", "▶")
    };
    let style = ctx.theme.title();
    let border = WRect {
        x: i32::from(area.x),
        y: i32::from(area.y),
        w: i32::from(area.width),
        h: i32::from(area.height),
    };
    let screen = Rect::new(area.x, area.y, area.width, area.height);
    let bottom = border.y + border.h - 1;
    let put = |buf: &mut Buffer, x: i32, y: i32, s: &str| {
        put_str(buf, screen, border, x, y, s, style);
    };
    let text = |n: usize, arrow: &str, key: bool| {
        if key {
            format!(" {arrow} {n} more (n) ")
        } else {
            format!(" {arrow} {n} more ")
        }
    };
    if h.down > 0 {
        let t = text(h.down, down, true);
        let x = border.x + (border.w - t.chars().count() as i32) / 2;
        put(buf, x, bottom, &t);
    }
    if h.left > 0 {
        put(buf, border.x + 1, bottom, &text(h.left, left, false));
    }
    if h.right > 0 {
        let t = text(h.right, right, h.down == 0);
        put(
            buf,
            border.x + border.w - 1 - t.chars().count() as i32,
            bottom,
            &t,
        );
    }
    if h.up > 0 {
        let t = text(h.up, up, false);
        put(
            buf,
            border.x + border.w - 1 - t.chars().count() as i32,
            border.y,
            &t,
        );
    }
}
