//! Traceable edges, checked on the drawn cells: the focus view is drawn with a canvas that
//! records which edge set which line of which cell, and the frame's buffer is read back.
//! No two edges that share neither source nor target draw the same segment between two
//! adjacent cells; every recorded line is on screen as a line glyph (or under an arrowhead
//! or a label of its own edge); the selected node's edges are highlighted along their
//! whole route and nothing else is.

use std::collections::HashMap;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use ratatui::style::Modifier;

use crate::tui::app::App;
use crate::tui::graph_pane::canvas::{Canvas, Traced};
use crate::tui::graph_pane::draw::{edge_cells, lines};
use crate::tui::graph_pane::geometry::WRect;
use crate::tui::panes::Panes;
use crate::tui::tests::render;

/// The view in layout cells and the pane's inner area on screen.
fn view(app: &App) -> (WRect, ratatui::layout::Rect) {
    let inner = Panes::new(app.size, app.layout_hint()).graph_inner();
    let v = WRect {
        x: app.graph_pane.viewport.x,
        y: app.graph_pane.viewport.y,
        w: i32::from(inner.width),
        h: i32::from(inner.height),
    };
    (v, inner)
}

/// The lines each edge draws, as the frame draws them.
pub fn traced(app: &App) -> (Canvas, Vec<Traced>) {
    let (v, _) = view(app);
    let mut canvas = Canvas::new(v);
    canvas.trace();
    lines(
        &crate::tui::view::graph_sources(app),
        &app.ctx(),
        &app.geometry(),
        &mut canvas,
    );
    let t = canvas.traced().to_vec();
    (canvas, t)
}

const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

/// Pairs of edges sharing neither end that draw the same segment, with where.
pub fn shared_runs(app: &App) -> Vec<String> {
    let (_, t) = traced(app);
    let mut bits: HashMap<(u32, i32, i32), u8> = HashMap::new();
    for c in &t {
        *bits.entry((c.edge, c.x, c.y)).or_default() |= c.bits;
    }
    let ends = |e: u32| {
        app.tk
            .graph
            .edge_endpoints(EdgeIndex::new(e as usize))
            .unwrap_or((NodeIndex::end(), NodeIndex::end()))
    };
    // Segment -> edges drawing it: (x, y, horizontal) joins (x, y) to its right or below.
    let mut segments: HashMap<(i32, i32, bool), Vec<u32>> = HashMap::new();
    for (&(e, x, y), &b) in &bits {
        let right = bits.get(&(e, x + 1, y)).copied().unwrap_or(0);
        if b & RIGHT != 0 && right & LEFT != 0 {
            segments.entry((x, y, true)).or_default().push(e);
        }
        let below = bits.get(&(e, x, y + 1)).copied().unwrap_or(0);
        if b & DOWN != 0 && below & UP != 0 {
            segments.entry((x, y, false)).or_default().push(e);
        }
    }
    let mut out = Vec::new();
    for ((x, y, h), edges) in segments {
        for (i, &a) in edges.iter().enumerate() {
            for &b in &edges[i + 1..] {
                let ((su, sv), (tu, tv)) = (ends(a), ends(b));
                if su != tu && sv != tv {
                    out.push(format!(
                        "{} and {} share the {} segment at ({x}, {y})",
                        app.tk.edge_label(EdgeIndex::new(a as usize)),
                        app.tk.edge_label(EdgeIndex::new(b as usize)),
                        if h { "horizontal" } else { "vertical" },
                    ));
                }
            }
        }
    }
    out.sort();
    out
}

/// Cells where two edges sharing neither end run straight along the same axis right
/// beside each other (`┃┃`, `━` over `━`): over a few cells the eye cannot keep them apart.
pub fn side_by_side_runs(app: &App) -> Vec<String> {
    let (_, t) = traced(app);
    let mut bits: HashMap<(u32, i32, i32), u8> = HashMap::new();
    for c in &t {
        *bits.entry((c.edge, c.x, c.y)).or_default() |= c.bits;
    }
    // Straight cells by axis: (x, y, horizontal) -> edges.
    let mut straight: HashMap<(i32, i32, bool), Vec<u32>> = HashMap::new();
    for (&(e, x, y), &b) in &bits {
        if b == LEFT | RIGHT || b == UP | DOWN {
            straight
                .entry((x, y, b == LEFT | RIGHT))
                .or_default()
                .push(e);
        }
    }
    let ends = |e: u32| app.tk.graph.edge_endpoints(EdgeIndex::new(e as usize));
    let mut out = Vec::new();
    for (&(x, y, h), edges) in &straight {
        let beside = if h { (x, y + 1, h) } else { (x + 1, y, h) };
        for &a in edges {
            for &b in straight.get(&beside).into_iter().flatten() {
                let (Some((su, sv)), Some((tu, tv))) = (ends(a), ends(b)) else {
                    continue;
                };
                if su != tu && sv != tv {
                    out.push(format!(
                        "{} and {} run side by side at ({x}, {y})",
                        app.tk.edge_label(EdgeIndex::new(a as usize)),
                        app.tk.edge_label(EdgeIndex::new(b as usize)),
                    ));
                }
            }
        }
    }
    out.sort();
    out
}

/// Recorded lines that the frame does not show as a line glyph, an arrowhead or a label.
pub fn hidden_lines(app: &App) -> Vec<String> {
    let (canvas, t) = traced(app);
    let (v, inner) = view(app);
    let term = render(app);
    let buf = term.backend().buffer();
    let g = app.theme.glyphs();
    let arrows = [g.arrow_right, g.arrow_down, g.arrow_left, g.arrow_up];
    let geo = app.geometry();
    let boxes: Vec<WRect> = app
        .layout()
        .placed()
        .filter_map(|(ix, _)| geo.node_rect(app.layout(), &app.tk, ix))
        .collect();
    let mut out = Vec::new();
    for c in t {
        // A route starts on its source's border, which the box draws over.
        if !v.contains(c.x, c.y) || boxes.iter().any(|r| r.contains(c.x, c.y)) {
            continue;
        }
        let at = (inner.x + (c.x - v.x) as u16, inner.y + (c.y - v.y) as u16);
        let sym = buf[at].symbol();
        let b = canvas.bits_at(c.x, c.y);
        let line =
            [g.thin[b as usize], g.heavy[b as usize]].contains(&sym) || g.dashed.contains(&sym);
        let label = sym
            .chars()
            .all(|ch| ch.is_ascii_digit() || ".~▲▼<>hops+".contains(ch));
        if !(line || arrows.contains(&sym) || label) {
            out.push(format!("({}, {}) shows `{sym}`", c.x, c.y));
        }
    }
    out
}

/// The cells of `ix`'s edges on screen, and whether each is highlighted.
fn highlighted(app: &App, ix: NodeIndex) -> (usize, usize, usize) {
    let (v, inner) = view(app);
    let term = render(app);
    let buf = term.backend().buffer();
    let geo = app.geometry();
    let want = app.theme.selected_edge();
    let is_lit = |x: i32, y: i32| {
        let at = (inner.x + (x - v.x) as u16, inner.y + (y - v.y) as u16);
        let s = buf[at].style();
        s.fg == want.fg && s.add_modifier.contains(Modifier::BOLD)
    };
    let own: Vec<EdgeIndex> = app
        .tk
        .out_edges(ix)
        .chain(app.tk.in_edges(ix))
        .map(|(e, _)| e)
        .collect();
    let (mut lit, mut total) = (0, 0);
    let mut mine = std::collections::HashSet::new();
    for e in &own {
        for (x, y) in edge_cells(
            &crate::tui::view::graph_sources(app),
            &app.ctx(),
            &geo,
            v,
            *e,
        ) {
            mine.insert((x, y));
            if v.contains(x, y) {
                total += 1;
                lit += usize::from(is_lit(x, y));
            }
        }
    }
    // Other edges' cells that are not also this node's.
    let mut stray = 0;
    for e in app.tk.graph.edge_indices() {
        if own.contains(&e) {
            continue;
        }
        for (x, y) in edge_cells(
            &crate::tui::view::graph_sources(app),
            &app.ctx(),
            &geo,
            v,
            e,
        ) {
            if v.contains(x, y) && !mine.contains(&(x, y)) && is_lit(x, y) {
                stray += 1;
            }
        }
    }
    (lit, total, stray)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::tests::press;
    use crate::tui::theme::Theme;
    use toolscope_core::load::{load_example, load_paths};
    use toolscope_core::source::EXAMPLE_NAME;

    fn open(which: &str, w: u16, h: u16) -> App {
        let loaded = match which {
            "example" => load_example(),
            path => {
                let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
                load_paths(&[p], None).expect("loads")
            }
        };
        App::new(loaded, EXAMPLE_NAME.into(), Theme::default(), (w, h))
    }

    /// Every operator of the Chat2Graph-shaped configs, at three sizes, chosen and after
    /// two hops steps: no shared runs, nothing hidden.
    #[test]
    fn unrelated_edges_never_share_a_run_on_screen() {
        for (which, loaded) in crate::tui::graph_pane::configs::configs() {
            for (w, h) in [(80, 24), (100, 30), (160, 48)] {
                let mut app = App::new(
                    loaded.clone(),
                    EXAMPLE_NAME.into(),
                    Theme::default(),
                    (w, h),
                );
                for i in 0..app.tk.operators.len() {
                    crate::tui::update::editing::choose_operator(&mut app, i);
                    for step in ["", "]", "]"] {
                        press(&mut app, step);
                        let what = format!(
                            "{which} {} {w}x{h} hops {}",
                            app.tk.operators[i].name, app.session.params.hops
                        );
                        let shared = shared_runs(&app);
                        assert!(
                            shared.is_empty(),
                            "{what}: {shared:#?}\n{}",
                            crate::tui::tests::screen(&app)
                        );
                        let beside = side_by_side_runs(&app);
                        assert!(
                            beside.is_empty(),
                            "{what}: {beside:#?}\n{}",
                            crate::tui::tests::screen(&app)
                        );
                        let hidden = hidden_lines(&app);
                        assert!(
                            hidden.is_empty(),
                            "{what}: {hidden:#?}\n{}",
                            crate::tui::tests::screen(&app)
                        );
                    }
                }
            }
        }
    }

    /// Selecting a node lights its in and out edges along their whole route, no other.
    #[test]
    fn a_selected_nodes_edges_are_highlighted_along_their_route() {
        let mut app = open("tests/fixtures/chat2graph-flat.yml", 100, 30);
        let mut checked = 0;
        let placed: Vec<NodeIndex> = app.layout().placed().map(|(ix, _)| ix).collect();
        for ix in placed {
            app.select(ix);
            let (lit, total, stray) = highlighted(&app, ix);
            assert_eq!(
                lit,
                total,
                "{}: {lit} of {total} cells lit",
                app.tk.name(ix)
            );
            assert_eq!(stray, 0, "{}: other edges lit", app.tk.name(ix));
            checked += usize::from(total > 0);
        }
        assert!(checked > 3, "too few nodes with edges on screen");
    }
}
