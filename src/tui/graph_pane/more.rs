//! What the focus view cannot show: when the recommendation is larger than the pane (or
//! the user panned), each side beyond which nodes lie says how many (`▼ 3 more`, on the
//! pane's border), and `n` moves the view there: down a page while there is more below,
//! then right a page (back to the top), then back to the start.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::tui::app::App;
use crate::tui::graph_pane::draw::put_str;
use crate::tui::graph_pane::geometry::WRect;

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

/// The view in layout cells.
fn view(app: &App) -> WRect {
    let area = crate::tui::panes::Panes::new(app.size, app.layout_hint()).graph_inner();
    WRect {
        x: app.view.x,
        y: app.view.y,
        w: i32::from(area.width),
        h: i32::from(area.height),
    }
}

/// Counts the focus view's nodes not wholly inside the view (each once: below or above
/// first, then beside).
pub fn hidden(app: &App) -> Hidden {
    let mut out = Hidden::default();
    if !crate::tui::graph_pane::active(app) {
        return out;
    }
    let v = view(app);
    let geo = app.geometry();
    let layout = app.layout();
    for (ix, _) in layout.placed() {
        let Some(r) = geo.node_rect(layout, &app.tk, ix) else {
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
pub fn go(app: &mut App) {
    let h = hidden(app);
    if !h.any() {
        app.set_status(
            crate::tui::app::Level::Info,
            "the whole focus view is on screen",
        );
        return;
    }
    let v = view(app);
    let (ew, eh) = app.geometry().extent(app.layout());
    if h.down > 0 {
        app.view.y = (v.y + v.h - 1).min((eh - v.h).max(0));
    } else if h.right > 0 {
        app.view.x = (v.x + v.w - 1).min((ew - v.w).max(0));
        app.view.y = 0;
    } else {
        app.view.x = 0;
        app.view.y = 0;
    }
}

/// Writes the marks on the graph pane's border (`area` includes the border).
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    let h = hidden(app);
    if !h.any() || area.width < 12 || area.height < 3 {
        return;
    }
    let (up, down, left, right) = if app.theme.ascii {
        ("^", "v", "<", ">")
    } else {
        ("▲", "▼", "◀", "▶")
    };
    let style = app.theme.title();
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
