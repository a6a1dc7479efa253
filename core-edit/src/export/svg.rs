//! SVG drawn by toolscope itself (no Graphviz), with node kinds as shapes, scores on the
//! edges, the recommendation highlighted, a title line and a legend.
//!
//! With a recommendation the picture is the focus view, as in the TUI: the recommended
//! subgraph and its frontier (left-out nodes one edge beyond it); [`to_svg_whole`] draws
//! the whole graph with the recommendation highlighted. Both are laid out on a cell grid
//! like the TUI's focus view ([`grid`]): nodes packed into columns in reading order, names
//! whole, the columns as many as bring the picture closest to a 4:3 page, and edges routed
//! so that two edges sharing neither source nor target never run along the same line and
//! none passes under a box; score labels sit on a stretch of their own edge no other line
//! touches. A picture of more than [`grid::MOST_NODES`] nodes is drawn layered instead,
//! one column per layer, its edges in the gaps between columns ([`route`]).
//!
//! Everything must read without colour too (printed, or for colour-blind readers): seeds
//! and recommended nodes carry the same `*` / `+` marks as the TUI and a heavier outline,
//! recommended edges are thick, edges below the threshold are dashed. Styling lives in
//! CSS classes (`node action seed`, `edge rec`, ...) so the file is easy to restyle and
//! to test. Text from YAML is XML-escaped, with control characters and bidi overrides
//! marked visibly (`^[`, `\u{202e}`).

use std::fmt::Write as _;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use unicode_width::UnicodeWidthStr;

use petgraph::visit::NodeIndexable;

use crate::layout::Layout;
use crate::layout::focus::{self, Cells};
use crate::layout::step::{CalledPath, Reasons};
use crate::model::{EdgeKind, NodeKind, Toolkit};
use crate::recommend::Params;

use super::Highlight;

mod grid;
mod route;
pub use route::{Path, Rect, crosses};

/// Approximate advance of one character of the 12px font, in pixels.
const CHAR_W: f64 = 7.2;
const NODE_H: f64 = 30.0;
const ROW_GAP: f64 = 20.0;
const COL_GAP: f64 = 90.0;
const MARGIN: f64 = 24.0;
const LEGEND_H: f64 = 86.0;
/// The legend's widest row, so a narrow picture never clips it.
const LEGEND_W: f64 = 830.0;
/// The title line and the space under it.
const TITLE_H: f64 = 30.0;

/// The widest name drawn in a box or named in an edge's tooltip, in columns: a longer
/// one is cut with `…` (the node's own tooltip keeps it whole), so the grid the picture
/// is laid out on and the file stay in proportion to the toolkit (a 16 MB toolkit of long
/// names took over 1 GB).
pub const MAX_LABEL: usize = 60;

/// `name` cut to [`MAX_LABEL`] columns, with `…` when cut.
fn short(name: &str) -> std::borrow::Cow<'_, str> {
    use unicode_width::UnicodeWidthChar;
    if name.len() <= MAX_LABEL || name.width() <= MAX_LABEL {
        return name.into();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in name.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw > MAX_LABEL - 1 {
            break;
        }
        w += cw;
        out.push(c);
    }
    out.push('…');
    out.into()
}

/// Widest focus drawing, in characters (names plus gaps), before its layers fold (layered
/// pictures only).
const FOCUS_WIDTH: i32 = 200;

/// What the title line names besides the parameters and counts.
#[derive(Debug, Clone, Default)]
pub struct Title {
    /// The file (or files) drawn.
    pub file: String,
    /// The operator whose recommendation is drawn, if one was named.
    pub operator: Option<String>,
    pub hops: Option<u32>,
    /// A replayed step (`export --replay`, `:export svg` while replaying): the tool the
    /// run called next, outlined as a hit or a miss, and the step said under the title.
    pub called: Option<Called>,
}

/// The call a replayed step made, for the picture.
#[derive(Debug, Clone, PartialEq)]
pub struct Called {
    /// The toolkit's tool of that name (`None`: not in the graph at all).
    pub node: Option<NodeIndex>,
    /// It was offered.
    pub hit: bool,
    /// The step in words, e.g. `record 2, step 1 of 3: after cd, called mv: a miss`.
    pub caption: String,
}

/// The focus view with `hl` (the recommendation and its frontier), else the whole graph.
pub fn to_svg(tk: &Toolkit, hl: Option<&Highlight<'_>>) -> String {
    to_svg_titled(tk, hl, false, &Title::default())
}

/// The whole graph, with `hl` highlighted.
pub fn to_svg_whole(tk: &Toolkit, hl: Option<&Highlight<'_>>) -> String {
    to_svg_titled(tk, hl, true, &Title::default())
}

/// The focus view (or with `whole` the whole graph) under a title line naming the file,
/// the operator, the threshold, the hops and the counts.
pub fn to_svg_titled(
    tk: &Toolkit,
    hl: Option<&Highlight<'_>>,
    whole: bool,
    title: &Title,
) -> String {
    let called = title.called.as_ref().and_then(|c| c.node);
    if let (Some(h), Some(c), Some(hops), false) = (hl, &title.called, title.hops, whole) {
        let params = Params {
            threshold: h.threshold,
            hops,
        };
        let reasons = Reasons::of(tk, h.seeds, params, h.rec, c.node);
        let (pic, untold) = step_picture(tk, h, &reasons);
        let mut title = title.clone();
        if let (Some(c), true) = (title.called.as_mut(), untold > 0) {
            c.caption
                .push_str(&format!(" ({untold} more offered tools not drawn)"));
        }
        return render(tk, &pic, hl, &title, reasons.called.as_ref());
    }
    let pic = picture(tk, hl, whole, called);
    render(tk, &pic, hl, title, None)
}

/// Offered tools a step's picture draws at most, by rank (a step may offer thousands: the
/// picture is for a slide, and routing them all took minutes).
pub const MOST_STEP_TOOLS: usize = 40;

/// A replayed step as the reasons for its offer ([`crate::layout::step`]): the seeds,
/// the offered actions and tools (the best [`MOST_STEP_TOOLS`] tools by rank) with the
/// path that offers each, the called tool with the path that would bring it in, and the
/// best five of the frontier; only those edges. With how many offered tools were left out.
fn step_picture(tk: &Toolkit, h: &Highlight<'_>, r: &Reasons) -> (Picture, usize) {
    let d = r.drawn(tk, h.rec, MOST_STEP_TOOLS);
    let mut keep = vec![false; tk.graph.node_bound()];
    for &n in d.nodes.iter().chain(d.frontier.iter().map(|b| &b.node)) {
        keep[n.index()] = true;
    }
    let edges: std::collections::HashSet<EdgeIndex> = d.edges.iter().copied().collect();
    let path: std::collections::HashSet<EdgeIndex> = r
        .called
        .iter()
        .flat_map(|c| c.path.iter().map(|s| s.edge))
        .collect();
    let is_member = |ix: NodeIndex| h.node(ix);
    let first = |e: EdgeIndex| path.contains(&e) || h.edge(tk, e);
    let pic = Picture::Grid(grid::scene_of(
        tk,
        &keep,
        &is_member,
        h.seeds,
        &first,
        &|e| edges.contains(&e),
    ));
    (pic, d.untold)
}

/// A picture laid out: on the grid, or layered when too large for it.
enum Picture {
    Grid(grid::Scene),
    Layered(Layout),
}

/// The nodes drawn: the focus view's (the recommendation and its frontier, and `also`,
/// a replayed step's called tool, which a miss may leave out of both) or all.
fn picture(
    tk: &Toolkit,
    hl: Option<&Highlight<'_>>,
    whole: bool,
    also: Option<NodeIndex>,
) -> Picture {
    let focus = hl.filter(|h| !whole && !h.rec.is_empty());
    let mut keep = vec![focus.is_none(); tk.graph.node_bound()];
    if let Some(slot) = also.and_then(|ix| keep.get_mut(ix.index())) {
        *slot = true;
    }
    if let Some(h) = focus {
        let members: Vec<NodeIndex> = h.rec.actions.iter().chain(&h.rec.tools).copied().collect();
        for &m in &members {
            keep[m.index()] = true;
        }
        for b in focus::frontier(tk, &members, &|ix| h.rec.contains(ix)) {
            keep[b.node.index()] = true;
        }
    }
    let shown = tk
        .graph
        .node_indices()
        .filter(|ix| keep[ix.index()])
        .count();
    let is_member = |ix: NodeIndex| hl.is_some_and(|h| h.node(ix));
    if shown <= grid::MOST_NODES {
        let roots: &[NodeIndex] = hl.map_or(&[], |h| h.seeds);
        let first = |e: EdgeIndex| hl.is_some_and(|h| h.edge(tk, e));
        return Picture::Grid(grid::scene(tk, &keep, &is_member, roots, &first));
    }
    Picture::Layered(match focus {
        Some(_) => {
            let cells = Cells {
                cap: MAX_LABEL,
                gap: (COL_GAP / CHAR_W) as i32,
            };
            focus::fit(tk, &keep, &is_member, FOCUS_WIDTH, cells).layout
        }
        None => Layout::compute(tk),
    })
}

/// What is drawn: which node goes in which slot (columns and rows).
pub fn picture_layout(tk: &Toolkit, hl: Option<&Highlight<'_>>, whole: bool) -> Layout {
    match picture(tk, hl, whole, None) {
        Picture::Grid(s) => s.layout,
        Picture::Layered(l) => l,
    }
}

/// Every box and every edge route of a picture, as drawn (for tests and for drawing), with
/// where each edge's score label goes (its middle, and its width in pixels).
pub struct Drawing {
    pub boxes: Vec<(NodeIndex, Rect)>,
    pub edges: Vec<(EdgeIndex, Path)>,
    /// Width and height of the drawing, without the margins, title and legend.
    pub size: (f64, f64),
}

/// The boxes and routes of the picture `to_svg` (or with `whole`, `to_svg_whole`) draws,
/// in the picture's pixels.
pub fn drawing(tk: &Toolkit, hl: Option<&Highlight<'_>>, whole: bool) -> Drawing {
    drawing_of(tk, &picture(tk, hl, whole, None))
}

fn drawing_of(tk: &Toolkit, pic: &Picture) -> Drawing {
    match pic {
        Picture::Grid(s) => grid_drawing(tk, s),
        Picture::Layered(l) => layered_drawing(tk, l),
    }
}

/// The grid picture in pixels, the drawing starting at the margin under the title; each
/// score label on a stretch of its own edge no other line touches, else beside its
/// arrowhead on free cells, else (rarely, in a crowded picture) only in the edge's tooltip.
fn grid_drawing(tk: &Toolkit, s: &grid::Scene) -> Drawing {
    let (x0, y0) = (MARGIN, MARGIN + TITLE_H);
    let boxes = s
        .boxes
        .iter()
        .map(|&(ix, r)| {
            let (x, y) = grid::px(x0, y0, r.x, r.y);
            (
                ix,
                (x, y, f64::from(r.w) * grid::CW, f64::from(r.h) * grid::CH),
            )
        })
        .collect();
    let mut free = grid::Labels::new(s);
    let edges = s
        .routes
        .iter()
        .map(|(e, r)| {
            let points = grid::path_points(r, x0, y0);
            let text = score_text(tk.graph[*e].score);
            let label = free
                .place(r, text.len(), x0, y0)
                .unwrap_or((f64::NAN, f64::NAN));
            (*e, Path { points, label })
        })
        .collect();
    Drawing {
        boxes,
        edges,
        size: (f64::from(s.w) * grid::CW, f64::from(s.h) * grid::CH),
    }
}

/// The boxes and routes of a layered layout.
pub fn layered_drawing(tk: &Toolkit, layout: &Layout) -> Drawing {
    let geo = Geo::new(tk, layout);
    let boxes = layout
        .placed()
        .filter_map(|(ix, _)| geo.rect(layout, ix).map(|r| (ix, r)))
        .collect();
    let edges = tk
        .graph
        .edge_indices()
        .filter_map(|e| edge_path(tk, layout, &geo, e).map(|p| (e, p)))
        .collect();
    Drawing {
        boxes,
        edges,
        size: (geo.width, geo.height),
    }
}

fn render(
    tk: &Toolkit,
    pic: &Picture,
    hl: Option<&Highlight<'_>>,
    title: &Title,
    called: Option<&CalledPath>,
) -> String {
    let mut d = drawing_of(tk, pic);
    let keeping = called.and_then(|c| c.keeping);
    if let Some(k) = keeping {
        keep_label_visible(&mut d, k.step.edge);
    }
    let mut heading = title_text(tk, hl, title);
    if let Some(why) = called.and_then(|c| why_out(tk, c, hl.map_or(0.0, |h| h.threshold))) {
        heading = format!("{heading}: {why}");
    }
    let heading_w = heading.width() as f64 * 7.8;
    let width = (d.size.0 + 2.0 * MARGIN)
        .max(LEGEND_W + 2.0 * MARGIN)
        .max(heading_w + 2.0 * MARGIN);
    let height = MARGIN + TITLE_H + d.size.1 + MARGIN + LEGEND_H;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">"#
    );
    out.push_str(STYLE);
    let _ = writeln!(
        out,
        r#"<rect class="bg" x="0" y="0" width="{width:.0}" height="{height:.0}"/>"#
    );
    let _ = writeln!(
        out,
        r#"<text class="heading" x="{MARGIN:.0}" y="{:.0}">{}</text>"#,
        MARGIN + 12.0,
        escape(&heading)
    );
    let _ = writeln!(out, r#"<g class="edges">"#);
    let mut edges: Vec<&(EdgeIndex, Path)> = d.edges.iter().collect();
    // Recommended edges last, so they are drawn over the others.
    edges.sort_by_key(|(e, _)| hl.is_some_and(|h| h.edge(tk, *e)));
    for (e, p) in edges {
        let blocking = keeping.filter(|k| k.step.edge == *e).map(|k| k.by_hops);
        edge(&mut out, tk, *e, p, hl, blocking);
    }
    out.push_str("</g>\n<g class=\"nodes\">\n");
    let called = title.called.as_ref();
    for &(ix, r) in &d.boxes {
        let mark = called
            .filter(|c| c.node == Some(ix))
            .map(|c| if c.hit { " called-hit" } else { " called-miss" });
        node(&mut out, tk, ix, r, hl, mark.unwrap_or(""));
    }
    out.push_str("</g>\n");
    legend(&mut out, MARGIN + TITLE_H + d.size.1 + MARGIN, hl);
    out.push_str("</svg>\n");
    out
}

/// `file · operator NAME · threshold 0.50 · hops 2 · recommended 5 of 33 actions, 4 of 30
/// tools`: what the picture shows, so it can be shown on its own.
fn title_text(tk: &Toolkit, hl: Option<&Highlight<'_>>, title: &Title) -> String {
    let mut parts: Vec<String> = Vec::new();
    let file = if title.file.is_empty() {
        tk.name.clone().unwrap_or_else(|| "toolkit".into())
    } else {
        title.file.clone()
    };
    parts.push(file);
    if let Some(op) = &title.operator {
        parts.push(format!("operator {op}"));
    }
    let (actions, tools, groups) = tk.counts();
    match hl {
        Some(h) => {
            // As written: `0.1426` stays whole (two decimals would say `0.14`).
            let two = score_text(h.threshold);
            let t = if two.parse::<f64>().is_ok_and(|x| x == h.threshold) {
                two
            } else {
                crate::recommend::explain::num(h.threshold)
            };
            parts.push(format!("threshold {t}"));
            if let Some(hops) = title.hops {
                parts.push(format!("hops {hops}"));
            }
            parts.push(format!(
                "recommended {} of {actions} actions, {} of {} tools",
                h.rec.actions.len(),
                h.rec.tools.len(),
                tools + groups
            ));
        }
        None => parts.push(format!("{actions} actions, {} tools", tools + groups)),
    }
    if let Some(c) = &title.called {
        parts.push(c.caption.clone());
    }
    parts.join(" \u{b7} ")
}

const STYLE: &str = r##"<defs>
<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#6b7280"/></marker>
<marker id="arrow-rec" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1d4ed8"/></marker>
<marker id="arrow-below" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c0c4cc"/></marker>
</defs>
<style>
.bg { fill: #ffffff; }
.edge path { fill: none; stroke: #6b7280; stroke-width: 1.2; stroke-linejoin: round; marker-end: url(#arrow); }
.edge.rec path { stroke: #1d4ed8; stroke-width: 2.6; marker-end: url(#arrow-rec); }
.edge.below path { stroke: #c0c4cc; stroke-dasharray: 5 4; marker-end: url(#arrow-below); }
.edge text { fill: #4b5563; font-size: 10px; }
.edge .halo { fill: #ffffff; stroke: none; }
.heading { font-size: 14px; font-weight: bold; fill: #111827; }
.edge.rec text { fill: #1d4ed8; font-weight: bold; }
.edge.below text { fill: #9ca3af; }
.node .shape { fill: #f9fafb; stroke: #6b7280; stroke-width: 1.2; }
.node.tool .shape { fill: #f0fdf4; }
.node.group .shape { fill: #fffbeb; }
.node .inner { fill: none; stroke: #6b7280; stroke-width: 1; }
.node text { fill: #111827; }
.node.dim .shape { fill: #ffffff; stroke: #d1d5db; }
.node.dim text { fill: #9ca3af; }
.node.rec .shape { fill: #dbeafe; stroke: #1d4ed8; stroke-width: 2.4; }
.node.rec text { font-weight: bold; }
.node.seed .shape { fill: #1d4ed8; stroke: #1e3a8a; stroke-width: 3; }
.node.seed text { fill: #ffffff; font-weight: bold; }
.node.called-hit .shape { stroke: #15803d; stroke-width: 4; }
.node.called-miss .shape { stroke: #b91c1c; stroke-width: 4; stroke-dasharray: 6 3; }
.edge.blocking path { stroke: #b91c1c; stroke-width: 2.2; stroke-dasharray: 6 3; marker-end: url(#arrow); }
.edge.blocking text { fill: #b91c1c; font-weight: bold; }
.legend text { fill: #111827; }
.legend .title { font-weight: bold; }
</style>
"##;

/// Pixel positions: the x of each column and each column's width. Rows are aligned across
/// columns, so the band between two rows is free for edges.
struct Geo {
    col_x: Vec<f64>,
    col_w: Vec<f64>,
    width: f64,
    height: f64,
}

impl Geo {
    fn new(tk: &Toolkit, layout: &Layout) -> Geo {
        let pitch = NODE_H + ROW_GAP;
        let rows = layout.max_rows() as f64;
        let height = (rows * pitch - ROW_GAP).max(NODE_H);
        let mut x = MARGIN;
        let (mut col_x, mut col_w) = (Vec::new(), Vec::new());
        for layer in &layout.layers {
            let chars = layer
                .iter()
                .map(|&ix| label(tk, ix, None).width())
                .max()
                .unwrap_or(0);
            let w = chars as f64 * CHAR_W + 28.0;
            col_x.push(x);
            col_w.push(w);
            x += w + COL_GAP;
        }
        Geo {
            width: (x - COL_GAP - MARGIN).max(0.0),
            height,
            col_x,
            col_w,
        }
    }

    /// The box of a laid-out node: (x, y, w, h).
    fn rect(&self, layout: &Layout, ix: NodeIndex) -> Option<(f64, f64, f64, f64)> {
        let s = layout.slot(ix)?;
        let l = s.layer as usize;
        let y = MARGIN + TITLE_H + f64::from(s.order) * (NODE_H + ROW_GAP);
        Some((*self.col_x.get(l)?, y, *self.col_w.get(l)?, NODE_H))
    }
}

/// The name as drawn, whole: marked `*` (seed) or `+` (recommended) when highlighting.
fn label(tk: &Toolkit, ix: NodeIndex, hl: Option<&Highlight<'_>>) -> String {
    // Every label keeps room for a mark so columns do not change width with the highlight.
    let mark = match hl {
        Some(h) if h.seed(ix) => "* ",
        Some(h) if h.node(ix) => "+ ",
        _ => "  ",
    };
    format!("{mark}{}", short(tk.name(ix)))
}

/// One node's box; `mark` adds classes (a replayed step's called tool).
fn node(
    out: &mut String,
    tk: &Toolkit,
    ix: NodeIndex,
    r: Rect,
    hl: Option<&Highlight<'_>>,
    mark: &str,
) {
    let (x, y, w, h) = r;
    let kind = tk.kind(ix);
    let state = match hl {
        Some(hl) if hl.seed(ix) => " seed",
        Some(hl) if hl.node(ix) => " rec",
        Some(_) => " dim",
        None => "",
    };
    let _ = writeln!(out, r#"<g class="node {}{state}{mark}">"#, kind.as_str());
    let _ = writeln!(
        out,
        "<title>{} ({}){}</title>",
        escape(tk.name(ix)),
        kind.as_str(),
        desc_suffix(tk, ix)
    );
    shape(out, kind, x, y, w, h);
    let _ = writeln!(
        out,
        r#"<text x="{:.1}" y="{:.1}" xml:space="preserve">{}</text>"#,
        x + 10.0,
        // About a third of the font size below the middle: the baseline of centred text.
        y + h / 2.0 + 4.0,
        escape(&label(tk, ix, hl))
    );
    out.push_str("</g>\n");
}

fn desc_suffix(tk: &Toolkit, ix: NodeIndex) -> String {
    let d = tk.node(ix).desc.trim();
    if d.is_empty() {
        String::new()
    } else {
        format!(": {}", escape(d))
    }
}

/// Actions are rectangles, tools rounded pills, groups double-outlined boxes.
fn shape(out: &mut String, kind: NodeKind, x: f64, y: f64, w: f64, h: f64) {
    let rx = match kind {
        NodeKind::Action => 3.0,
        NodeKind::Tool => h / 2.0,
        NodeKind::Group => 6.0,
    };
    let _ = writeln!(
        out,
        r#"<rect class="shape" x="{x:.1}" y="{y:.1}" width="{w:.1}" height="{h:.1}" rx="{rx:.1}"/>"#
    );
    if kind == NodeKind::Group {
        let _ = writeln!(
            out,
            r#"<rect class="inner" x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="4"/>"#,
            x + 3.0,
            y + 3.0,
            w - 6.0,
            h - 6.0
        );
    }
}

/// One edge; `blocking`: it keeps a replayed step's called tool out (`true`: because the
/// hops run out there), drawn in red with its score (or `hops`) always as text.
fn edge(
    out: &mut String,
    tk: &Toolkit,
    e: EdgeIndex,
    p: &Path,
    hl: Option<&Highlight<'_>>,
    blocking: Option<bool>,
) {
    let Some((u, v)) = tk.graph.edge_endpoints(e) else {
        return;
    };
    let data = &tk.graph[e];
    let mut class = match hl {
        Some(h) if h.edge(tk, e) => " rec",
        Some(h) if data.score < h.threshold => " below",
        _ => "",
    }
    .to_string();
    if blocking.is_some() {
        class.push_str(" blocking");
    }
    let mut path = String::new();
    for (i, (x, y)) in p.points.iter().enumerate() {
        let _ = write!(path, "{}{x:.1},{y:.1}", if i == 0 { "M" } else { " L" });
    }
    let _ = writeln!(
        out,
        r#"<g class="edge {}{class}"><title>{} -> {} ({}, score {})</title><path d="{path}"/>"#,
        data.kind.as_str(),
        escape(&short(tk.name(u))),
        escape(&short(tk.name(v))),
        data.kind.as_str(),
        score_text(data.score)
    );
    let (lx, ly) = p.label;
    if data.kind != EdgeKind::Has && lx.is_finite() && ly.is_finite() {
        let text = match blocking {
            Some(true) => "hops".to_string(),
            _ => score_text(data.score),
        };
        // A backdrop the width of the text interrupts the edge's own line under it.
        let w = text.len() as f64 * 6.2 + 4.0;
        let _ = writeln!(
            out,
            r#"<rect class="halo" x="{:.1}" y="{:.1}" width="{w:.1}" height="12"/><text x="{lx:.1}" y="{:.1}" text-anchor="middle">{text}</text>"#,
            lx - w / 2.0,
            ly - 6.0,
            ly + 3.5,
        );
    }
    out.push_str("</g>\n");
}

/// The blocking edge's label is visible text: where the grid found no free cells for it,
/// it goes just before the arrowhead (over whatever lies there, on its backdrop).
fn keep_label_visible(d: &mut Drawing, e: EdgeIndex) {
    for (edge, p) in &mut d.edges {
        if *edge != e || (p.label.0.is_finite() && p.label.1.is_finite()) {
            continue;
        }
        let n = p.points.len();
        if n >= 2 {
            let (a, b) = (p.points[n - 2], p.points[n - 1]);
            p.label = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0);
        }
    }
}

/// Why the called tool is out, for the title: the edge below the threshold, or the hop
/// beyond the hops.
fn why_out(tk: &Toolkit, c: &CalledPath, threshold: f64) -> Option<String> {
    let k = c.keeping?;
    let (u, v) = (short(tk.name(k.step.from)), short(tk.name(k.step.to)));
    Some(if k.by_hops {
        let hop = c
            .path
            .iter()
            .filter(|s| s.kind == EdgeKind::Next)
            .position(|s| s.edge == k.step.edge)
            .map_or(0, |i| i + 1);
        format!("{u} -> {v} is hop {hop}, beyond the hops")
    } else {
        format!(
            "blocked by {u} -> {v} ({} < threshold {})",
            score_text(k.step.score),
            crate::recommend::explain::num(threshold)
        )
    })
}

fn score_text(s: f64) -> String {
    if s.is_finite() {
        format!("{s:.2}")
    } else {
        format!("{s}")
    }
}

/// The route of edge `e`, if both ends are drawn.
fn edge_path(tk: &Toolkit, layout: &Layout, geo: &Geo, e: EdgeIndex) -> Option<Path> {
    let (u, v) = tk.graph.edge_endpoints(e)?;
    let (su, sv) = (layout.slot(u)?, layout.slot(v)?);
    let (lu, lv) = (su.layer as usize, sv.layer as usize);
    Some(route::plan(&route::Ends {
        ru: geo.rect(layout, u)?,
        rv: geo.rect(layout, v)?,
        lu,
        lv,
        ou: su.order,
        ov: sv.order,
        col_right_u: geo.col_x[lu] + geo.col_w[lu],
        col_left_v: geo.col_x[lv],
        band: ROW_GAP,
    }))
}

/// Shapes, marks and line styles explained, with the threshold when highlighting.
fn legend(out: &mut String, top: f64, hl: Option<&Highlight<'_>>) {
    let y = top + 8.0;
    let _ = writeln!(
        out,
        r#"<g class="legend" transform="translate({MARGIN:.0},{y:.0})">"#
    );
    let title = match hl {
        Some(h) => format!(
            "Legend - recommendation at threshold {}",
            score_text(h.threshold)
        ),
        None => "Legend".to_string(),
    };
    let _ = writeln!(
        out,
        r#"<text class="title" x="0" y="0">{}</text>"#,
        escape(&title)
    );
    let items: [(&str, NodeKind, &str); 3] = [
        ("node action", NodeKind::Action, "action"),
        ("node tool", NodeKind::Tool, "tool"),
        ("node group", NodeKind::Group, "tool group"),
    ];
    for (i, (class, kind, text)) in items.into_iter().enumerate() {
        let x = i as f64 * 125.0;
        let _ = writeln!(out, r#"<g class="{class}">"#);
        shape(out, kind, x, 12.0, 110.0, 24.0);
        let _ = writeln!(out, r#"<text x="{:.1}" y="28">{text}</text>"#, x + 10.0);
        out.push_str("</g>\n");
    }
    if hl.is_some() {
        let marks: [(&str, &str); 3] = [
            ("node action seed", "* seed"),
            ("node action rec", "+ recommended"),
            ("node action dim", "not recommended"),
        ];
        for (i, (class, text)) in marks.into_iter().enumerate() {
            let x = 390.0 + i as f64 * 140.0;
            let _ = writeln!(out, r#"<g class="{class}">"#);
            shape(out, NodeKind::Action, x, 12.0, 128.0, 24.0);
            let _ = writeln!(out, r#"<text x="{:.1}" y="28">{text}</text>"#, x + 10.0);
            out.push_str("</g>\n");
        }
    }
    let lines: [(&str, &str); 3] = [
        ("edge rec", "recommended edge (score)"),
        ("edge", "edge at or above the threshold"),
        ("edge below", "below the threshold (dashed)"),
    ];
    for (i, (class, text)) in lines.into_iter().enumerate() {
        let x = i as f64 * 230.0;
        let _ = writeln!(
            out,
            r#"<g class="{class}"><path d="M{x:.0},58 L{:.0},58"/><text x="{:.0}" y="62">{text}</text></g>"#,
            x + 44.0,
            x + 52.0
        );
    }
    out.push_str("</g>\n");
}

/// XML text and attribute escaping; controls (which XML 1.0 mostly forbids) and bidi
/// overrides become their visible escape, so hostile names cannot break the document.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            // Not characters XML 1.0 allows anywhere: the file would not be well-formed.
            '\u{fffe}' | '\u{ffff}' => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            // Other controls and bidi overrides are marked visibly: the drawing shows
            // `\u{202e}` rather than text reordered by it.
            c if crate::text::unsafe_char(c) => out.push_str(&crate::text::visible(c)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
