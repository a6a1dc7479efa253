//! Mouse input: click to select (graph, navigator) or make the inspector the active pane,
//! drag to pan the graph, wheel to pan or scroll the pane under the pointer.

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use crate::tui::app::{ActivePane, App};
use crate::tui::navigator::Row;
use crate::tui::navigator::commands::list_step;
use crate::tui::panes::{self, Panes};
use crate::tui::update::navigator::hook;

/// Applies one mouse event.
pub fn mouse(app: &mut App, m: MouseEvent) {
    let p = Panes::new(app.size, app.layout_hint());
    let g = p.graph_inner();
    let in_graph = panes::contains(g, m.column, m.row);
    match m.kind {
        MouseEventKind::Down(MouseButton::Left) if in_graph => {
            app.active_pane = ActivePane::Graph;
            let (wx, wy) = (
                app.graph_pane.viewport.x + i32::from(m.column - g.x),
                app.graph_pane.viewport.y + i32::from(m.row - g.y),
            );
            let geo = app.geometry();
            match geo.hit(app.layout(), &app.tk, wx, wy) {
                Some(ix) => app.select(ix),
                None => app.graph_pane.start_drag((m.column, m.row)),
            }
        }
        MouseEventKind::Down(MouseButton::Left)
            if panes::contains(p.nav_inner(), m.column, m.row) =>
        {
            app.active_pane = ActivePane::Navigator;
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
            app.active_pane = ActivePane::Inspector;
        }
        MouseEventKind::Drag(MouseButton::Left) => {
            app.graph_pane.drag_to((m.column, m.row));
        }
        MouseEventKind::Up(_) => app.graph_pane.end_drag(),
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            let d: i32 = if m.kind == MouseEventKind::ScrollDown {
                1
            } else {
                -1
            };
            if in_graph {
                app.graph_pane.pan(0, 3 * d);
            } else if panes::contains(p.nav, m.column, m.row) {
                let was = app.active_pane;
                app.active_pane = ActivePane::Navigator;
                hook(app, |n, c| list_step(n, c, 3 * d as isize));
                app.active_pane = was;
            } else if panes::contains(p.inspector, m.column, m.row) {
                app.inspector.scroll_by(i64::from(3 * d));
            }
        }
        _ => {}
    }
}
