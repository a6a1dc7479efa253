//! Edge routes on the cell grid. Edges leave a box through a lane in the gap after its
//! column and arrive along the free row above the target (rows of boxes are aligned across
//! columns, so those rows are always free); a neighbour on the same row is reached straight;
//! edges spanning more than [`FAR`] layers become two marked stubs.

use petgraph::stable_graph::NodeIndex;

use crate::tui::graph_pane::geometry::{Geometry, WRect};
use toolscope_core::layout::{Layout, Slot};
use toolscope_core::model::Toolkit;

/// Every cell of an axis-parallel polyline.
pub fn route_cells(line: &[(i32, i32)]) -> Vec<(i32, i32)> {
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
pub const FAR: usize = 6;

/// A cheap test from slots alone (no names, no routing): whether the edge's route can
/// reach the view. Far edges are two stubs, so only the regions around their ends count.
pub fn may_touch(geo: &Geometry, view: WRect, su: Slot, sv: Slot) -> bool {
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
pub struct Ends {
    pub lu: usize,
    pub lv: usize,
    pub ou: u32,
    pub ov: u32,
    pub ru: WRect,
    pub rv: WRect,
}

/// A routed edge: its polylines, where its arrowhead goes, where a score label fits and
/// where a far edge is cut.
pub struct Route {
    pub lines: Vec<Vec<(i32, i32)>>,
    pub head: (i32, i32),
    pub down: bool,
    pub label: (i32, i32),
    pub cuts: Vec<(i32, i32)>,
}

/// Routes `u -> v`. Forward edges enter the target from the left through a lane in the gap
/// before its column; longer and backward edges travel along the free row above the target;
/// far edges become two stubs.
pub fn plan(geo: &Geometry, e: &Ends) -> Route {
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

impl Ends {
    /// The ends of `u -> v` if both are laid out.
    pub fn of(
        layout: &Layout,
        geo: &Geometry,
        tk: &Toolkit,
        u: NodeIndex,
        v: NodeIndex,
    ) -> Option<Ends> {
        let (su, sv) = (layout.slot(u)?, layout.slot(v)?);
        Some(Ends {
            lu: su.layer as usize,
            lv: sv.layer as usize,
            ou: su.order,
            ov: sv.order,
            ru: geo.node_rect(layout, tk, u)?,
            rv: geo.node_rect(layout, tk, v)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::Zoom;
    use petgraph::visit::{EdgeRef, IntoEdgeReferences};
    use toolscope_core::layout::Layout;
    use toolscope_core::model::Toolkit;

    use super::route_cells as cells;

    /// No route cell of any edge lies inside a node box (boxes are drawn over lines, so a
    /// route through a box would be hidden or misread).
    fn assert_routes_avoid_boxes(tk: &Toolkit) {
        let layout = Layout::compute(tk);
        for (zoom, scores) in [
            (Zoom::Detailed, false),
            (Zoom::Detailed, true),
            (Zoom::Compact, false),
        ] {
            let geo = Geometry::for_layout(&layout, zoom, scores);
            let boxes: Vec<WRect> = tk
                .graph
                .node_indices()
                .filter_map(|ix| geo.node_rect(&layout, tk, ix))
                .collect();
            for e in tk.graph.edge_references() {
                let (u, v) = (e.source(), e.target());
                if u == v {
                    continue;
                }
                let ends = Ends::of(&layout, &geo, tk, u, v).expect("placed");
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
        assert_routes_avoid_boxes(&toolscope_core::load::load_example().toolkit);
    }

    #[test]
    fn generated_routes_avoid_boxes() {
        let text = toolscope_core::generate::generate(toolscope_core::generate::GenOptions {
            actions: 300,
            tools: Some(80),
            seed: 3,
        });
        let file = toolscope_core::load::load_text(
            std::path::Path::new("gen.yaml"),
            text,
            None,
            &toolscope_core::source::Limits::default(),
        )
        .expect("loads");
        assert_routes_avoid_boxes(&file.toolkit);
    }
}
