//! Mouse input: click to select (graph, navigator) or focus (inspector), drag to pan the
//! graph, wheel to pan or scroll the pane under the pointer.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::app::{App, Focus, Viewport};
use super::panes::{self, Panes};
use crate::tui::graph_pane::commands::pan;
use crate::tui::navigator::Row;
use crate::tui::navigator::commands::list_step;

/// Applies one mouse event.
pub fn mouse(app: &mut App, m: MouseEvent) {
    let p = Panes::new(app.size, app.layout_hint());
    let g = p.graph_inner();
    let in_graph = panes::contains(g, m.column, m.row);
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) if in_graph => {
            app.focus = Focus::Graph;
            let (wx, wy) = (
                app.view.x + i32::from(m.column - g.x),
                app.view.y + i32::from(m.row - g.y),
            );
            let geo = app.geometry();
            match geo.hit(app.layout(), &app.tk, wx, wy) {
                Some(ix) => app.select(ix),
                None => app.drag = Some(((m.column, m.row), app.view)),
            }
        }
        MouseEventKind::Down(MouseButton::Left)
            if panes::contains(p.nav_inner(), m.column, m.row) =>
        {
            app.focus = Focus::Navigator;
            let inner = p.nav_inner();
            let row =
                app.nav.first_visible(usize::from(inner.height)) + usize::from(m.row - inner.y);
            if app.nav.rows.get(row).is_some_and(|r| r.selectable()) {
                app.nav.cursor = row;
                if let Some(Row::Node(ix)) = app.nav.current() {
                    app.select(ix);
                    app.ensure_selection_visible();
                }
            }
        }
        MouseEventKind::Down(MouseButton::Left)
            if panes::contains(p.inspector, m.column, m.row) =>
        {
            app.focus = Focus::Inspector;
        }
        MouseEventKind::Drag(MouseButton::Left) => {
            if let Some(((x0, y0), v)) = app.drag {
                app.view = Viewport {
                    x: v.x - (i32::from(m.column) - i32::from(x0)),
                    y: v.y - (i32::from(m.row) - i32::from(y0)),
                };
            }
        }
        MouseEventKind::Up(_) => app.drag = None,
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            let d: i32 = if m.kind == MouseEventKind::ScrollDown {
                1
            } else {
                -1
            };
            if in_graph {
                pan(app, 0, 3 * d);
            } else if panes::contains(p.nav, m.column, m.row) {
                let focus = app.focus;
                app.focus = Focus::Navigator;
                list_step(app, 3 * d as isize);
                app.focus = focus;
            } else if panes::contains(p.inspector, m.column, m.row) {
                app.inspector_scroll = (i32::from(app.inspector_scroll) + 3 * d).max(0) as u16;
            }
        }
        _ => {}
    }
}
