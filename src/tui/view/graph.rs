//! The graph pane: edges routed on a line canvas (box-drawing junctions merge where routes
//! meet), arrowheads, optional score labels, then node boxes on top. Only the visible
//! window is rasterised; boxes are found by column and row range, edges by bounding box.

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::layout::Slot;
use crate::model::NodeKind;
use crate::tui::app::{App, Focus};
use crate::tui::geometry::{Geometry, WRect};
use crate::tui::sanitize::sanitize;
use crate::tui::theme::{Level, Theme};

use super::canvas::{Canvas, Mark};

/// Draws the graph of `app` into its area.
pub struct GraphWidget<'a> {
    pub app: &'a App,
}

impl Widget for GraphWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.app;
        let geo = Geometry::new(app);
        let view = WRect {
            x: app.view.x,
            y: app.view.y,
            w: i32::from(area.width),
            h: i32::from(area.height),
        };
        let mut canvas = Canvas::new(view);
        route_edges(app, &geo, &mut canvas);
        canvas.draw(buf, area, &app.theme);
        if app.focus == Focus::Inspector
            && let Some(e) = app.selected_edge()
        {
            highlight_edge(app, &geo, e, view, area, buf);
        }
        draw_boxes(app, &geo, view, area, buf);
    }
}

fn edge_level(app: &App, e: petgraph::stable_graph::EdgeIndex) -> Level {
    let t = app.params.threshold;
    if app.rec.has_edge(&app.tk, e, t) {
        Level::Recommended
    } else if app.tk.graph[e].score < t {
        Level::Dimmed
    } else {
        Level::Normal
    }
}

/// Shows the route of edge `e` in reverse video (the inspector's edge cursor).
fn highlight_edge(
    app: &App,
    geo: &Geometry,
    e: EdgeIndex,
    view: WRect,
    area: Rect,
    buf: &mut Buffer,
) {
    let layout = app.layout();
    let Some((u, v)) = app.tk.graph.edge_endpoints(e) else {
        return;
    };
    let (Some(su), Some(sv)) = (layout.slot(u), layout.slot(v)) else {
        return;
    };
    let (Some(ru), Some(rv)) = (
        geo.node_rect(layout, &app.tk, u),
        geo.node_rect(layout, &app.tk, v),
    ) else {
        return;
    };
    if u == v {
        return;
    }
    let ends = Ends {
        lu: su.layer as usize,
        lv: sv.layer as usize,
        ou: su.order,
        ov: sv.order,
        ru,
        rv,
    };
    let route = plan(geo, &ends);
    let style = app.theme.selected();
    let mut cells: Vec<(i32, i32)> = route.lines.iter().flat_map(|l| route_cells(l)).collect();
    cells.push(route.head);
    for (x, y) in cells {
        if view.contains(x, y) {
            let at = (area.x + (x - view.x) as u16, area.y + (y - view.y) as u16);
            if let Some(cell) = buf.cell_mut(at) {
                cell.set_style(style);
            }
        }
    }
}

/// Every cell of an axis-parallel polyline.
fn route_cells(line: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let mut out = Vec::new();
    for w in line.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        for x in x0.min(x1)..=x0.max(x1) {
            for y in y0.min(y1)..=y0.max(y1) {
                out.push((x, y));
            }
        }
    }
    out
}

/// Edges spanning more layers than this are drawn as two stubs (out of the source, into the
/// target) marked with an ellipsis, so long jumps on big graphs do not fill the screen.
const FAR: usize = 6;

/// Adds every edge whose route may cross the view to the canvas.
fn route_edges(app: &App, geo: &Geometry, canvas: &mut Canvas) {
    let layout = app.layout();
    let ell = app.theme.glyphs().ellipsis;
    for e in app.tk.graph.edge_references() {
        let (u, v) = (e.source(), e.target());
        if u == v {
            continue;
        }
        let (Some(su), Some(sv)) = (layout.slot(u), layout.slot(v)) else {
            continue;
        };
        if !may_touch(geo, canvas.view(), su, sv) {
            continue;
        }
        let (Some(ru), Some(rv)) = (
            geo.node_rect(layout, &app.tk, u),
            geo.node_rect(layout, &app.tk, v),
        ) else {
            continue;
        };
        let ends = Ends {
            lu: su.layer as usize,
            lv: sv.layer as usize,
            ou: su.order,
            ov: sv.order,
            ru,
            rv,
        };
        let route = plan(geo, &ends);
        if !route.lines.iter().any(|l| canvas.touches(l)) {
            continue;
        }
        let level = edge_level(app, e.id());
        for line in &route.lines {
            canvas.polyline(line, level);
        }
        for &at in &route.cuts {
            canvas.mark(at, Mark::Text(ell.to_string()), level);
        }
        canvas.mark(route.head, Mark::Arrow(route.down), level);
        if app.show_scores {
            let label = format!("{:.2}", e.weight().score);
            canvas.mark(route.label, Mark::Text(label), level);
        }
    }
}

/// A cheap test from slots alone (no names, no routing): whether the edge's route can
/// reach the view. Far edges are two stubs, so only the regions around their ends count.
fn may_touch(geo: &Geometry, view: WRect, su: Slot, sv: Slot) -> bool {
    let (lu, lv) = (su.layer as usize, sv.layer as usize);
    let around = |l: usize, o: u32| WRect {
        x: geo.col_x[l] - geo.gap,
        y: geo.row_top(o) - 2,
        w: geo.col_w[l] + 2 * geo.gap,
        h: geo.box_h + 3,
    };
    let (a, b) = (around(lu, su.order), around(lv, sv.order));
    if lu.abs_diff(lv) > FAR {
        return meets(a, view) || meets(b, view);
    }
    let x0 = a.x.min(b.x);
    let y0 = a.y.min(b.y);
    let hull = WRect {
        x: x0,
        y: y0,
        w: (a.x + a.w).max(b.x + b.w) - x0,
        h: (a.y + a.h).max(b.y + b.h) - y0,
    };
    meets(hull, view)
}

fn meets(a: WRect, b: WRect) -> bool {
    a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h
}

/// Both ends of an edge: layers, orders within the layer, boxes.
struct Ends {
    lu: usize,
    lv: usize,
    ou: u32,
    ov: u32,
    ru: WRect,
    rv: WRect,
}

/// A routed edge: its polylines, where its arrowhead goes, where a score label fits and
/// where a far edge is cut.
struct Route {
    lines: Vec<Vec<(i32, i32)>>,
    head: (i32, i32),
    down: bool,
    label: (i32, i32),
    cuts: Vec<(i32, i32)>,
}

/// Routes `u -> v`. Forward edges enter the target from the left through a lane in the gap
/// before its column; longer and backward edges travel along the free row above the target;
/// far edges become two stubs.
fn plan(geo: &Geometry, e: &Ends) -> Route {
    let mid = geo.box_h / 2;
    let (yu, yv) = (e.ru.y + mid, e.rv.y + mid);
    let start = (e.ru.x + e.ru.w, yu);
    let lanes = geo.lanes.max(1);
    let out_lane = geo.col_x[e.lu] + geo.col_w[e.lu] + 1 + (e.ou as i32 % lanes);
    let free_row = e.rv.y - 1;
    let span = e.lu.abs_diff(e.lv);
    if e.lv > e.lu {
        let in_lane = geo.col_x[e.lv] - 2 - geo.label_room - (e.ov as i32 % lanes);
        let head = (geo.col_x[e.lv] - 1, yv);
        let label = (head.0 - 4, yv);
        if span > FAR {
            let stub_in = vec![(in_lane - 1, yv), head];
            let stub_out = vec![start, (out_lane, yu)];
            let cuts = vec![(out_lane + 1, yu), (in_lane - 2, yv)];
            return Route {
                lines: vec![stub_out, stub_in],
                head,
                down: false,
                label,
                cuts,
            };
        }
        // A neighbour on the same row is reached straight. Other edges leave through a
        // lane next to the source and travel on the free row above the target, so an edge
        // only ever shares a row with edges of the same source or the same target.
        let points = if span == 1 && yu == yv {
            vec![start, head]
        } else {
            vec![
                start,
                (out_lane, yu),
                (out_lane, free_row),
                (in_lane, free_row),
                (in_lane, yv),
                head,
            ]
        };
        Route {
            lines: vec![points],
            head,
            down: false,
            label,
            cuts: Vec::new(),
        }
    } else {
        let tx = e.rv.x + 2 + (e.ou as i32 % 3);
        let head = (tx, free_row);
        let label = (tx + 2, free_row);
        if span > FAR {
            let stub_out = vec![start, (out_lane, yu)];
            let stub_in = vec![(tx - 2, free_row), head];
            let cuts = vec![(out_lane + 1, yu), (tx - 3, free_row)];
            return Route {
                lines: vec![stub_out, stub_in],
                head,
                down: true,
                label,
                cuts,
            };
        }
        let points = vec![start, (out_lane, yu), (out_lane, free_row), head];
        Route {
            lines: vec![points],
            head,
            down: true,
            label,
            cuts: Vec::new(),
        }
    }
}

/// Draws the boxes of the nodes inside the view.
fn draw_boxes(app: &App, geo: &Geometry, view: WRect, area: Rect, buf: &mut Buffer) {
    let layout = app.layout();
    let first_col = geo
        .col_x
        .partition_point(|&x| x + geo.col_w[0].max(0) < view.x);
    let first_col = first_col.saturating_sub(1);
    let row_lo = ((view.y - 1).div_euclid(geo.row_h)).max(0) as usize;
    let row_hi = ((view.y + view.h).div_euclid(geo.row_h) + 1).max(0) as usize;
    for l in first_col..layout.layers.len() {
        if geo.col_x[l] > view.x + view.w {
            break;
        }
        let layer = &layout.layers[l];
        for &ix in layer.iter().take(row_hi.min(layer.len())).skip(row_lo) {
            if let Some(r) = geo.node_rect(layout, &app.tk, ix) {
                draw_box(app, geo, ix, r, view, area, buf);
            }
        }
    }
}

fn draw_box(
    app: &App,
    geo: &Geometry,
    ix: NodeIndex,
    r: WRect,
    view: WRect,
    area: Rect,
    buf: &mut Buffer,
) {
    let seed = app.is_seed(ix);
    let recommended = app.rec.contains(ix);
    let level = if recommended {
        Level::Recommended
    } else {
        Level::Normal
    };
    let mut style = app.theme.node(level, seed);
    if app.selected == Some(ix) {
        style = style.patch(app.theme.selected());
    }
    let g = app.theme.glyphs();
    let set = match (recommended, app.tk.kind(ix)) {
        (true, _) => g.box_heavy,
        (false, NodeKind::Action) => g.box_thin,
        (false, NodeKind::Tool) => g.box_round,
        (false, NodeKind::Group) => g.box_double,
    };
    let inner = (r.w - 2).max(0) as usize;
    let label = fit(
        &sanitize(app.tk.name(ix)),
        inner.saturating_sub(3),
        g.ellipsis,
    );
    let marker = Theme::marker(seed, recommended);
    let pad = " ".repeat(inner.saturating_sub(3).saturating_sub(label.width()));
    let text = format!("{marker} {label}{pad} ");
    let put = |buf: &mut Buffer, x: i32, y: i32, s: &str| put_str(buf, area, view, x, y, s, style);
    if geo.box_h == 1 {
        put(buf, r.x, r.y, set[5]);
        put(buf, r.x + 1, r.y, &text);
        put(buf, r.x + r.w - 1, r.y, set[5]);
        return;
    }
    let hline = set[4].repeat(inner);
    put(buf, r.x, r.y, &format!("{}{hline}{}", set[0], set[1]));
    put(buf, r.x, r.y + 1, set[5]);
    put(buf, r.x + 1, r.y + 1, &text);
    put(buf, r.x + r.w - 1, r.y + 1, set[5]);
    put(buf, r.x, r.y + 2, &format!("{}{hline}{}", set[2], set[3]));
}

/// `s` cut to `width` cells, ending in an ellipsis when cut.
pub fn fit(s: &str, width: usize, ellipsis: &str) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    let room = width.saturating_sub(ellipsis.width());
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push_str(ellipsis);
    out
}

/// Writes `s` at world position (x, y), clipped to the view. A wide character takes two
/// cells (the second is blanked); one cut by the view's edge is not drawn.
pub fn put_str(buf: &mut Buffer, area: Rect, view: WRect, x: i32, y: i32, s: &str, style: Style) {
    if y < view.y || y >= view.y + view.h {
        return;
    }
    let sy = area.y + (y - view.y) as u16;
    let mut cx = x;
    for c in s.chars() {
        let w = c.width().unwrap_or(0) as i32;
        if w == 0 {
            continue;
        }
        if cx + w > view.x + view.w {
            break;
        }
        if cx >= view.x {
            let sx = area.x + (cx - view.x) as u16;
            let mut tmp = [0u8; 4];
            if let Some(cell) = buf.cell_mut((sx, sy)) {
                cell.set_symbol(c.encode_utf8(&mut tmp)).set_style(style);
            }
            if w == 2
                && let Some(cell) = buf.cell_mut((sx + 1, sy))
            {
                cell.reset();
                cell.set_style(style);
            }
        }
        cx += w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Layout;
    use crate::model::Toolkit;
    use crate::tui::app::Zoom;

    use super::route_cells as cells;

    /// No route cell of any edge lies inside a node box (boxes are drawn over lines, so a
    /// route through a box would be hidden or misread).
    fn assert_routes_avoid_boxes(tk: &Toolkit) {
        let layout = Layout::compute(tk);
        for (zoom, scores) in [
            (Zoom::Detailed, false),
            (Zoom::Detailed, true),
            (Zoom::Overview, false),
        ] {
            let geo = Geometry::for_layout(&layout, zoom, scores);
            let boxes: Vec<WRect> = tk
                .graph
                .node_indices()
                .filter_map(|ix| geo.node_rect(&layout, tk, ix))
                .collect();
            for e in tk.graph.edge_references() {
                let (u, v) = (e.source(), e.target());
                let (Some(su), Some(sv)) = (layout.slot(u), layout.slot(v)) else {
                    continue;
                };
                if u == v {
                    continue;
                }
                let ends = Ends {
                    lu: su.layer as usize,
                    lv: sv.layer as usize,
                    ou: su.order,
                    ov: sv.order,
                    ru: geo.node_rect(&layout, tk, u).expect("placed"),
                    rv: geo.node_rect(&layout, tk, v).expect("placed"),
                };
                let route = plan(&geo, &ends);
                let mut all: Vec<(i32, i32)> = route.lines.iter().flat_map(|l| cells(l)).collect();
                all.push(route.head);
                for (x, y) in all {
                    let hit = boxes.iter().find(|b| b.contains(x, y));
                    assert!(
                        hit.is_none(),
                        "{} crosses a box at ({x}, {y}) in {zoom:?}: {:?} {:?} lu {} lv {} ru {:?} rv {:?}",
                        tk.edge_label(e.id()),
                        route.lines,
                        hit,
                        ends.lu,
                        ends.lv,
                        ends.ru,
                        ends.rv
                    );
                }
            }
        }
    }

    #[test]
    fn example_routes_avoid_boxes() {
        assert_routes_avoid_boxes(&crate::source::load_example().toolkit);
    }

    #[test]
    fn generated_routes_avoid_boxes() {
        let text = crate::synth::generate(crate::synth::GenOptions {
            actions: 300,
            tools: Some(80),
            seed: 3,
        });
        let file = crate::source::load_text(
            std::path::Path::new("gen.yaml"),
            text,
            None,
            &crate::source::Limits::default(),
        )
        .expect("loads");
        assert_routes_avoid_boxes(&file.toolkit);
    }
}
