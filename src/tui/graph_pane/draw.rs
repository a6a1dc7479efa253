//! The graph pane: edges routed on a line canvas (box-drawing junctions merge where routes
//! meet), arrowheads, optional score labels, then node boxes on top. Only the visible
//! window is rasterised; boxes are found by column and row range, edges by bounding box.

use petgraph::Direction;
use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::tui::ctx::Ctx;
use crate::tui::graph_pane::geometry::{Geometry, WRect};
use crate::tui::panes::ActivePane;
use crate::tui::theme::Level;
use toolscope_core::layout::Slot;
use toolscope_core::text::sanitize;

use crate::tui::graph_pane::canvas::{Canvas, Mark};
use crate::tui::graph_pane::shapes::{self, State};
use crate::tui::graph_pane::window_routes::{self, under};
use crate::tui::graph_pane::wires::Routes;

/// What the graph pane draws from besides the context: its own state, the insight's
/// baseline diff (nodes that entered or left are marked), what the last reload changed,
/// the whole-graph layout (`None` while it is computed), and the inspector's edge.
pub struct Sources<'a> {
    pub pane: &'a super::GraphPane,
    pub insight: &'a crate::tui::insight::InsightState,
    pub marks: &'a super::marks::Marks,
    pub whole: Option<&'a toolscope_core::layout::Layout>,
    pub selected_edge: Option<EdgeIndex>,
}

impl<'a> Sources<'a> {
    /// Cell geometry of the layout being drawn (see `GraphPane::geometry`).
    pub fn geometry(&self) -> Geometry {
        self.pane.geometry(self.whole)
    }

    /// The layout being drawn (see `GraphPane::layout`).
    pub fn layout(&self) -> &'a toolscope_core::layout::Layout {
        self.pane.layout(self.whole)
    }

    /// The node whose box covers a cell of the drawing, if any.
    pub fn hit(&self, ctx: &Ctx, x: i32, y: i32) -> Option<NodeIndex> {
        self.pane.hit(ctx.tk, self.whole, x, y)
    }
}

/// Draws the graph into its area.
pub struct GraphWidget<'a> {
    pub gp: &'a Sources<'a>,
    pub ctx: &'a Ctx<'a>,
}

impl Widget for GraphWidget<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let (gp, ctx) = (self.gp, self.ctx);
        let geo = gp.geometry();
        let view = WRect {
            x: gp.pane.viewport.x,
            y: gp.pane.viewport.y,
            w: i32::from(area.width),
            h: i32::from(area.height),
        };
        let drawn = Drawn::of(gp, ctx, &geo, view);
        let mut canvas = Canvas::new(view);
        drawn.lines(gp, ctx, &geo, &mut canvas);
        canvas.draw(buf, area, ctx.theme);
        highlight(gp, ctx, &drawn, view, area, buf);
        draw_boxes(gp, ctx, (&geo, &drawn), view, area, buf);
    }
}

/// The routes a frame draws: the focus view's own, or those of the window (routed before
/// the frame, see [`window_routes::RouteMemo::prepare`]).
pub enum Drawn<'a> {
    Focus(&'a Routes),
    Window(window_routes::Frame<'a>),
}

impl<'a> Drawn<'a> {
    /// The routes for `view` of what the pane shows.
    pub fn of(gp: &Sources<'a>, ctx: &Ctx, geo: &Geometry, view: WRect) -> Drawn<'a> {
        match gp.pane.focus_routes() {
            Some(r) => Drawn::Focus(r),
            None => Drawn::Window(gp.pane.memo.for_frame(&window(gp, ctx, geo, view))),
        }
    }

    pub fn routes(&self) -> &Routes {
        match self {
            Drawn::Focus(r) => r,
            Drawn::Window(w) => &w.routes,
        }
    }

    /// How many of `ix`'s edges are not drawn, when that is written under its box (the
    /// views routed by window keep that line free; the focus view writes it beside).
    pub fn unshown(&self, ix: NodeIndex) -> usize {
        match self {
            Drawn::Window(w) if w.lined.contains(&ix) => {
                w.routes.unshown.get(&ix).copied().unwrap_or(0)
            }
            _ => 0,
        }
    }

    /// Adds the lines, arrowheads and labels (and, in the focus view, the counts of edges
    /// not drawn beside their boxes).
    pub fn lines(&self, gp: &Sources, ctx: &Ctx, geo: &Geometry, canvas: &mut Canvas) {
        let counts = match self {
            Drawn::Focus(r) => counts_beside(gp, ctx, geo, r, |_| true),
            Drawn::Window(w) => counts_beside(gp, ctx, geo, &w.routes, |ix| !w.lined.contains(&ix)),
        };
        draw_routed(gp, ctx, self.routes(), counts, canvas);
    }
}

/// What the window's routes read of the pane and the context (see
/// [`window_routes::Window`]).
pub fn window<'a>(
    gp: &Sources<'a>,
    ctx: &Ctx<'a>,
    geo: &'a Geometry,
    view: WRect,
) -> window_routes::Window<'a> {
    window_routes::Window {
        tk: ctx.tk,
        layout: gp.layout(),
        geo,
        focus: gp.pane.shows_focus(),
        view,
    }
}

/// Counts of edges not drawn that go beside their box (the focus view's, and the other
/// views' where no line under the box was kept free): the cells where one may go.
fn counts_beside(
    gp: &Sources,
    ctx: &Ctx,
    geo: &Geometry,
    routes: &Routes,
    wanted: impl Fn(NodeIndex) -> bool,
) -> Vec<(Vec<(i32, i32)>, String)> {
    let mut nodes: Vec<(&NodeIndex, &usize)> = routes
        .unshown
        .iter()
        .filter(|(ix, _)| wanted(**ix))
        .collect();
    nodes.sort();
    let mut out = Vec::new();
    for (&ix, &n) in nodes {
        let Some(r) = geo.node_rect(gp.layout(), ctx.tk, ix) else {
            continue;
        };
        let text = format!("+{n}");
        let w = text.width() as i32;
        let mid = r.y + r.h / 2;
        let at = vec![
            (r.x + r.w + 1, mid),
            (r.x - w - 1, mid),
            (r.x + r.w - w - 1, r.y + r.h),
        ];
        out.push((at, text));
    }
    out
}

/// Adds every edge that meets the canvas's view: the focus view's routes, else the routes
/// of the window (see [`super::window_routes`]).
pub fn lines(gp: &Sources, ctx: &Ctx, geo: &Geometry, canvas: &mut Canvas) {
    Drawn::of(gp, ctx, geo, canvas.view()).lines(gp, ctx, geo, canvas);
}

/// The routed edges meeting the view, with their arrowheads, then their labels: a label
/// goes on a stretch of its own edge that no other line touches, else beside its
/// arrowhead on cells nothing else uses; without either it is left out.
fn draw_routed(
    gp: &Sources,
    ctx: &Ctx,
    routes: &Routes,
    counts: Vec<(Vec<(i32, i32)>, String)>,
    canvas: &mut Canvas,
) {
    let mut order: Vec<(&EdgeIndex, &toolscope_core::layout::route::Routed)> =
        routes.by_edge.iter().collect();
    // Weakest first, so the stronger edges' levels win where lines merge; then by index,
    // so every frame draws the same.
    order.sort_by_key(|(e, _)| (edge_level(ctx, **e), e.index()));
    let mut heads = std::collections::HashSet::new();
    let mut wanted = Vec::new();
    for (&e, r) in order {
        // From the source's border cell (drawn over by the box), so the line joins it.
        let mut pts = vec![r.tail()];
        pts.extend(r.points());
        let (head, dir) = r.head();
        heads.insert(head);
        if !canvas.touches(&pts) {
            continue;
        }
        let level = edge_level(ctx, e);
        canvas.owner(e.index() as u32);
        canvas.polyline(&pts, level);
        canvas.mark(head, Mark::Arrow(dir), level);
        let text = label_text(gp, ctx, e);
        if !text.is_empty() {
            let blocks = ctx
                .tk
                .graph
                .edge_endpoints(e)
                .is_some_and(|(_, v)| gp.pane.blocks(e, v));
            wanted.push((r, text, level, blocks, e));
        }
    }
    let mut taken: Vec<(i32, i32, i32)> = Vec::new();
    // A label goes on cells of the view only: one cut at the view's edge would read as
    // another number (`1.00` cut to `0`).
    let clear = |x: i32, y: i32, w: i32, taken: &[(i32, i32, i32)], canvas: &Canvas| {
        let v = canvas.view();
        let inside = x >= v.x && x + w <= v.x + v.w && y >= v.y && y < v.y + v.h;
        inside
            && (x..x + w).all(|cx| {
                canvas.bits_at(cx, y) == 0
                    && !heads.contains(&(cx, y))
                    && gp.hit(ctx, cx, y).is_none()
            })
            && !taken
                .iter()
                .any(|&(lx, ly, lw)| ly == y && lx < x + w && x < lx + lw)
    };
    // The labels of edges that keep a node out first (a replayed miss's says why the
    // step missed), then the counts of edges not drawn (what the picture leaves out), then
    // the other labels.
    let (first, rest): (Vec<_>, Vec<_>) = wanted.into_iter().partition(|w| w.3);
    let keeping = gp
        .pane
        .focus_view
        .as_ref()
        .and_then(|f| f.keeping)
        .map(|k| k.step.edge);
    for (r, text, level, _, e) in first {
        let placed = place_label(
            (gp, ctx),
            canvas,
            &mut taken,
            &clear,
            r,
            text.clone(),
            level,
        );
        if !placed && keeping == Some(e) {
            place_near(canvas, &mut taken, &clear, r, text, level);
        }
    }
    for (at, text) in counts {
        let w = text.width() as i32;
        if let Some(&(x, y)) = at.iter().find(|&&(x, y)| clear(x, y, w, &taken, canvas)) {
            taken.push((x, y, w));
            canvas.mark((x, y), Mark::Text(text), Level::Normal);
        }
    }
    for (r, text, level, _, _) in rest {
        place_label((gp, ctx), canvas, &mut taken, &clear, r, text, level);
    }
}

type Clear<'a> = dyn Fn(i32, i32, i32, &[(i32, i32, i32)], &Canvas) -> bool + 'a;

/// One edge's label: on a stretch of its own edge no other line touches, else beside its
/// arrowhead or after its target's box on free cells; else left out.
fn place_label(
    (gp, ctx): (&Sources, &Ctx),
    canvas: &mut Canvas,
    taken: &mut Vec<(i32, i32, i32)>,
    clear: &Clear<'_>,
    r: &toolscope_core::layout::route::Routed,
    text: String,
    level: Level,
) -> bool {
    let w = text.width() as i32;
    let on_line = r.spans.iter().find_map(|&(x, y, len)| {
        let at = x + (len - w) / 2;
        let free = !taken
            .iter()
            .any(|&(lx, ly, lw)| ly == y && lx < at + w && at < lx + lw);
        let v = canvas.view();
        let inside = at >= v.x && at + w <= v.x + v.w && y >= v.y && y < v.y + v.h;
        (len >= w + 2 && free && inside).then_some((at, y))
    });
    let ((hx, hy), dir) = r.head();
    // Beside the arrowhead, else after the target's box (its score reads as why it
    // is left out).
    let (dx, dy) = dir.step();
    let after = gp
        .hit(ctx, hx + dx, hy + dy)
        .and_then(|v| gp.geometry().node_rect(gp.layout(), ctx.tk, v))
        .map(|b| (b.x + b.w + 1, b.y + b.h / 2));
    let beside = [Some((hx + 1, hy)), Some((hx - w, hy)), after]
        .into_iter()
        .flatten()
        .find(|&(x, y)| clear(x, y, w, taken, canvas));
    if let Some((x, y)) = on_line.or(beside) {
        taken.push((x, y, w));
        canvas.mark((x, y), Mark::Text(text), level);
        return true;
    }
    false
}

/// The label of the edge that keeps a replayed call out, when neither its own line nor its
/// arrowhead has room: on free cells beside or above or below its line, nearest the
/// arrowhead first (it says why a replayed call was missed, so it is not left out while
/// the edge has free cells near it).
fn place_near(
    canvas: &mut Canvas,
    taken: &mut Vec<(i32, i32, i32)>,
    clear: &Clear<'_>,
    r: &toolscope_core::layout::route::Routed,
    text: String,
    level: Level,
) {
    let w = text.width() as i32;
    let spot = r.cells.iter().rev().find_map(|&(x, y)| {
        [
            (x + 1, y),
            (x - w, y),
            (x - w / 2, y - 1),
            (x - w / 2, y + 1),
        ]
        .into_iter()
        .find(|&(lx, ly)| clear(lx, ly, w, taken, canvas))
    });
    if let Some((x, y)) = spot {
        taken.push((x, y, w));
        canvas.mark((x, y), Mark::Text(text), level);
    }
}

/// The label of an edge, if it has one: its score (always for the edge blocking a
/// frontier node, else when scores are shown or a reload changed it, marked `~`), after
/// the baseline diff's glyph. An edge whose score passes the threshold but which still
/// keeps its frontier node out does so because the hops ran out: it reads `hops`, never a
/// score that would read as the reason.
fn label_text(gp: &Sources, ctx: &Ctx, e: EdgeIndex) -> String {
    let changed = gp.marks.edges.contains(&e);
    let diff = gp.insight.marks.edge(e);
    let blocks = ctx
        .tk
        .graph
        .edge_endpoints(e)
        .is_some_and(|(_, v)| gp.pane.blocks(e, v));
    if !(gp.pane.show_scores || changed || diff.is_some() || blocks) {
        return String::new();
    }
    let g = diff.map_or("", |c| crate::tui::insight::diff_panel::glyph(ctx.theme, c));
    let mark = if changed { "~" } else { "" };
    let score = ctx.tk.graph[e].score;
    let text = if blocks && score >= ctx.params.threshold {
        "hops".to_string()
    } else if gp.pane.show_scores || changed || blocks {
        format!("{score:.2}")
    } else {
        String::new()
    };
    format!("{g}{mark}{text}")
}

fn edge_level(ctx: &Ctx, e: petgraph::stable_graph::EdgeIndex) -> Level {
    let t = ctx.params.threshold;
    if ctx.rec.has_edge(ctx.tk, e, t) {
        Level::Recommended
    } else if ctx.tk.graph[e].score < t {
        Level::Dimmed
    } else {
        Level::Normal
    }
}

/// The cells edge `e` is drawn on, arrowhead included, when `view` is shown.
pub fn edge_cells(
    gp: &Sources,
    ctx: &Ctx,
    geo: &Geometry,
    view: WRect,
    e: EdgeIndex,
) -> Vec<(i32, i32)> {
    cells_of(&Drawn::of(gp, ctx, geo, view), e)
}

fn cells_of(drawn: &Drawn<'_>, e: EdgeIndex) -> Vec<(i32, i32)> {
    drawn
        .routes()
        .by_edge
        .get(&e)
        .map(|r| r.cells.clone())
        .unwrap_or_default()
}

/// Highlights the selected node's edges along their whole route, and the inspector's edge
/// cursor in reverse video.
fn highlight(
    gp: &Sources,
    ctx: &Ctx,
    drawn: &Drawn<'_>,
    view: WRect,
    area: Rect,
    buf: &mut Buffer,
) {
    let mut paint = |cells: Vec<(i32, i32)>, style: Style| {
        for (x, y) in cells {
            if view.contains(x, y) {
                let at = (area.x + (x - view.x) as u16, area.y + (y - view.y) as u16);
                if let Some(cell) = buf.cell_mut(at) {
                    cell.set_style(style);
                }
            }
        }
    };
    if let Some(ix) = ctx.selected.filter(|&ix| ctx.tk.graph.contains_node(ix)) {
        let style = ctx.theme.selected_edge();
        let own: Vec<EdgeIndex> = ctx
            .tk
            .graph
            .edges_directed(ix, Direction::Outgoing)
            .chain(ctx.tk.graph.edges_directed(ix, Direction::Incoming))
            .map(|e| e.id())
            .collect();
        for e in own {
            paint(cells_of(drawn, e), style);
        }
    }
    if ctx.active == ActivePane::Inspector
        && let Some(e) = gp.selected_edge
    {
        paint(cells_of(drawn, e), ctx.theme.selected());
    }
}

/// A box on screen: its node, its world rectangle and its shortened label.
#[derive(Debug, Clone)]
pub struct Shown {
    pub ix: NodeIndex,
    pub rect: WRect,
    pub label: String,
}

/// The nodes whose boxes meet `view`, with their boxes.
pub fn boxes_meeting(
    gp: &Sources,
    ctx: &Ctx,
    geo: &Geometry,
    view: WRect,
) -> Vec<(NodeIndex, WRect)> {
    geo.boxes_meeting(gp.layout(), ctx.tk, view)
}

/// The boxes that meet the view, with labels shortened together (so two different names
/// never show the same label).
pub fn shown(gp: &Sources, ctx: &Ctx, geo: &Geometry, view: WRect) -> Vec<Shown> {
    let mut out: Vec<Shown> = boxes_meeting(gp, ctx, geo, view)
        .into_iter()
        .map(|(ix, rect)| Shown {
            ix,
            rect,
            label: String::new(),
        })
        .collect();
    let names: Vec<String> = out
        .iter()
        .map(|s| sanitize(ctx.tk.name(s.ix)).into_owned())
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let ell = ctx.theme.glyphs().ellipsis;
    let index = Some(&gp.pane.names);
    let labels = toolscope_core::layout::labels::shorten_all(&refs, geo.max_label, ell, index);
    for (s, l) in out.iter_mut().zip(labels) {
        s.label = l;
    }
    out
}

/// Draws the boxes of the nodes inside the view, and under them the stubs naming their
/// away tools and the count of their edges not drawn.
fn draw_boxes(
    gp: &Sources,
    ctx: &Ctx,
    (geo, drawn): (&Geometry, &Drawn<'_>),
    view: WRect,
    area: Rect,
    buf: &mut Buffer,
) {
    for s in shown(gp, ctx, geo, view) {
        draw_box(gp, ctx, geo, &s, view, area, buf);
        draw_stubs(gp, ctx, geo, &s, drawn.unshown(s.ix), (view, area), buf);
    }
}

/// Whether edge `e` is drawn as a stub instead of a route: in the whole graph, a call to a
/// tool (or group) that sits after another caller, its home, elsewhere in the drawing.
pub(super) fn stubbed(gp: &Sources, ctx: &Ctx, e: EdgeIndex, su: Slot, sv: Slot) -> bool {
    window_routes::stubbed(ctx.tk, gp.pane.shows_focus(), e, (su, sv))
}

/// One line under a box naming the tools it calls that sit elsewhere (`▶ DocumentReader`)
/// and how many of its edges are not drawn (`+2 edges`: their other end is beyond the
/// window, or no route keeps them apart from the others). The count is whole or absent.
fn draw_stubs(
    gp: &Sources,
    ctx: &Ctx,
    geo: &Geometry,
    s: &Shown,
    unshown: usize,
    (view, area): (WRect, Rect),
    buf: &mut Buffer,
) {
    let layout = gp.layout();
    let Some(su) = layout.slot(s.ix) else { return };
    let mut names = Vec::new();
    let mut level = Level::Dimmed;
    for e in ctx.tk.graph.edges_directed(s.ix, Direction::Outgoing) {
        let Some(sv) = layout.slot(e.target()) else {
            continue;
        };
        if stubbed(gp, ctx, e.id(), su, sv) {
            names.push(sanitize(ctx.tk.name(e.target())).into_owned());
            level = level.max(edge_level(ctx, e.id()));
        }
    }
    if names.is_empty() && unshown == 0 {
        return;
    }
    names.sort();
    let g = ctx.theme.glyphs();
    let line = under(geo, s.rect);
    let room = line.w as usize;
    let count = match unshown {
        0 => String::new(),
        1 => "+1 edge".to_string(),
        n if format!("+{n} edges").len() <= room => format!("+{n} edges"),
        n => format!("+{n}"),
    };
    let stubs = format!("{} {}", g.arrow_right, names.join(", "));
    let text = match (names.is_empty(), count.is_empty()) {
        (true, _) => count,
        (false, true) => fit(&stubs, room, g.ellipsis),
        (false, false) => {
            let rest = room.saturating_sub(count.width() + 1);
            format!("{} {count}", fit(&stubs, rest, g.ellipsis))
        }
    };
    if unshown > 0 {
        level = level.max(Level::Normal);
    }
    put_str(
        buf,
        area,
        view,
        line.x,
        line.y,
        &text,
        ctx.theme.edge(level),
    );
}

/// A node's state: member of the recommendation, left out (focus frontier, or left since
/// the last fit), or neither.
fn state(gp: &Sources, ctx: &Ctx, ix: NodeIndex) -> State {
    if ctx.rec.contains(ix) {
        State::Member
    } else if gp.pane.shows_focus() {
        State::Out
    } else {
        State::Normal
    }
}

fn draw_box(
    gp: &Sources,
    ctx: &Ctx,
    geo: &Geometry,
    s: &Shown,
    view: WRect,
    area: Rect,
    buf: &mut Buffer,
) {
    let (ix, r) = (s.ix, s.rect);
    let seed = ctx.is_seed(ix);
    let st = state(gp, ctx, ix);
    let level = match st {
        State::Member => Level::Recommended,
        State::Normal => Level::Normal,
        State::Out => Level::Dimmed,
    };
    let mut style = ctx.theme.node(level, seed);
    if ctx.selected == Some(ix) {
        style = style.patch(ctx.theme.selected());
    }
    let kind = ctx.tk.kind(ix);
    let ascii = ctx.theme.ascii;
    let set = shapes::box_set(ascii, kind, st);
    let inner = (r.w - 2).max(0) as usize;
    let room = inner.saturating_sub(3);
    let label = if s.label.width() > room {
        fit(&s.label, room, ctx.theme.glyphs().ellipsis)
    } else {
        s.label.clone()
    };
    // A node changed by the last reload is marked `~` for a moment (live::MARK_FOR),
    // beside its membership mark (`+~name`), never over it.
    let marker = shapes::marker(seed, st);
    let reloaded = if gp.marks.nodes.contains(&ix) {
        '~'
    } else {
        ' '
    };
    let pad = " ".repeat(room.saturating_sub(label.width()));
    // The last cell carries the diff mark (entered / left), if any.
    let diff = mark(gp, ctx, ix).map_or(" ", |c| {
        crate::tui::insight::diff_panel::glyph(ctx.theme, c)
    });
    let text = format!("{marker}{reloaded}{label}{pad}{diff}");
    let put = |buf: &mut Buffer, x: i32, y: i32, s: &str| put_str(buf, area, view, x, y, s, style);
    if geo.box_h == 1 {
        let (open, close) = shapes::caps(ascii, kind, st);
        put(buf, r.x, r.y, open);
        put(buf, r.x + 1, r.y, &text);
        put(buf, r.x + r.w - 1, r.y, close);
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

/// Entered / left mark of a node: against the pinned baseline when there is one, else
/// against the recommendation at the last refit of the focus view.
fn mark(gp: &Sources, ctx: &Ctx, ix: NodeIndex) -> Option<crate::tui::insight::Change> {
    use crate::tui::insight::Change;
    if gp.insight.pinned.is_some() || !gp.pane.shows_focus() {
        return gp.insight.marks.node(ix);
    }
    let f = gp.pane.focus_view.as_ref()?;
    let was = f.base.get(ix.index()).copied().unwrap_or(false);
    match (was, ctx.rec.contains(ix)) {
        (false, true) => Some(Change::Entered),
        (true, false) => Some(Change::Left),
        _ => None,
    }
}
