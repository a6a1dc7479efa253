//! The graph pane's view state: the focus view (the recommendation and its frontier, laid
//! out to fit the pane) or the whole graph. The focus view is on whenever there are seeds,
//! unless the user switched to the whole graph.
//!
//! When the focus is laid out again:
//! - *refit* (fresh layout, fitted to the pane, viewport to the origin): the seeds, the
//!   operator, the structure or the pane size changed, or the user asked for it;
//! - *follow* (nothing moves, see [`toolscope_core::layout::focus::keep_places`]): any other change,
//!   such as a threshold or hops step. Nodes that left the recommendation since the last
//!   refit stay on screen, dimmed and marked, until the next refit.

pub(crate) mod canvas;
#[cfg(test)]
mod configs;
pub mod draw;
pub mod fit;
pub(crate) mod geometry;
pub(crate) mod marks;
pub mod more;
pub(crate) mod route;
pub mod shapes;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;
pub mod whole;
#[cfg(test)]
mod whole_tests;
pub mod wires;

use std::collections::HashMap;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use toolscope_core::layout::focus::{self, Blocked, Cells};
use toolscope_core::layout::labels::NameIndex;
use toolscope_core::layout::pack::{self, Look};
use toolscope_core::layout::{Layout, structure_key};

use crate::tui::app::{App, Viewport, Zoom};
use crate::tui::insight::Change;
use crate::tui::panes::{Panes, Split};

/// What the focus view shows and how.
#[derive(Debug, Clone)]
pub struct Focused {
    pub layout: Layout,
    /// Box height, name cap and channel width.
    pub look: Look,
    /// Rows per column.
    rows: u32,
    /// Columns of the fit.
    cols: u32,
    /// The frontier: left-out nodes one edge beyond the recommendation.
    blocked: HashMap<NodeIndex, Blocked>,
    /// Members of the recommendation when the view was last fitted (for the marks).
    base: Vec<bool>,
    /// What the fit was made for: seeds, operator, structure, terminal size.
    fitted_for: (Vec<NodeIndex>, Option<usize>, u64, (u16, u16)),
    /// The side panes hidden to make room (see [`fit`]).
    pub split: Split,
    /// The edges' routes (`None`: too large to route; drawn the cheap way).
    pub routes: Option<wires::Routes>,
    /// Cells of the layout (kept with it: computing the indents walks every column).
    pub geometry: geometry::Geometry,
}

/// The graph pane's mode.
#[derive(Debug, Clone, Default)]
pub struct GraphView {
    /// The user switched to the whole graph.
    pub whole: bool,
    /// The user's choice of side panes with `m` (true: hidden); `None`: the focus view
    /// hides them when it needs the room.
    pub side_panes_hidden: Option<bool>,
    pub focus: Option<Focused>,
    /// Every node name, so a cut label never reads as another node's name.
    pub names: NameIndex,
    /// Structure key `names` was built for.
    names_key: Option<u64>,
    /// The whole graph folded to the pane, in the fit zoom: (structure key, pane width).
    fold: Option<((u64, i32), Layout)>,
}

impl GraphView {
    /// The frontier entry of `ix`, when the focus view shows it.
    pub fn blocked(&self, ix: NodeIndex) -> Option<&Blocked> {
        self.focus.as_ref()?.blocked.get(&ix)
    }

    /// Whether `e` blocks a frontier node of the focus view.
    pub fn blocks(&self, e: EdgeIndex, target: NodeIndex) -> bool {
        self.blocked(target).is_some_and(|b| b.edge == e)
    }
}

/// Whether the graph pane shows the focus view.
pub fn active(app: &App) -> bool {
    !app.graph_view.whole && app.neighbourhood.is_none() && app.graph_view.focus.is_some()
}

/// The focus view's layout, when it is shown.
pub fn layout(app: &App) -> Option<&Layout> {
    if active(app) {
        app.graph_view.focus.as_ref().map(|f| &f.layout)
    } else {
        None
    }
}

/// The whole graph folded to the pane, when the fit zoom shows it.
pub fn folded(app: &App) -> Option<&Layout> {
    if app.zoom != Zoom::Fit || app.neighbourhood.is_some() {
        return None;
    }
    let whole = app.whole_layout()?.key;
    app.graph_view
        .fold
        .as_ref()
        .filter(|f| f.0.0 == whole)
        .map(|f| &f.1)
}

/// `z`: detailed, compact (one-line boxes), fit to the pane. The focus view stays fitted
/// its own way; the zoom applies to the whole graph.
pub fn cycle_zoom(app: &mut App) {
    app.zoom = match app.zoom {
        Zoom::Detailed => Zoom::Overview,
        Zoom::Overview => Zoom::Fit,
        Zoom::Fit => Zoom::Detailed,
    };
    if active(app) {
        app.graph_view.whole = true;
    }
    refold(app);
}

/// Folds the whole graph to the pane's width for the fit zoom (only when it is shown and
/// the structure or the width changed).
fn refold(app: &mut App) {
    if app.zoom != Zoom::Fit {
        return;
    }
    let key = app
        .graph_view
        .names_key
        .unwrap_or_else(|| structure_key(&app.tk));
    let width = i32::from(Panes::new(app.size, app.layout_hint()).graph_inner().width);
    if app
        .graph_view
        .fold
        .as_ref()
        .is_some_and(|f| f.0 == (key, width))
    {
        return;
    }
    let Some(whole) = app.whole_layout().filter(|l| l.key == key) else {
        return;
    };
    // As the fit zoom's geometry measures it: one lane, plus room for scores if shown.
    let cells = Cells {
        cap: toolscope_core::layout::labels::NARROW,
        gap: 2 + 3 + if app.show_scores { 5 } else { 0 },
    };
    let fitted = focus::fold(&app.tk, &whole.layers, width, cells);
    app.graph_view.fold = Some(((key, width), fitted.layout));
}

/// Entered / left mark of a node: against the pinned baseline when there is one, else
/// against the recommendation at the last refit of the focus view.
pub fn mark(app: &App, ix: NodeIndex) -> Option<Change> {
    if app.insight.pinned.is_some() || !active(app) {
        return app.insight.marks.node(ix);
    }
    let f = app.graph_view.focus.as_ref()?;
    let was = f.base.get(ix.index()).copied().unwrap_or(false);
    match (was, app.rec.contains(ix)) {
        (false, true) => Some(Change::Entered),
        (true, false) => Some(Change::Left),
        _ => None,
    }
}

/// Brings the focus view up to date after the recommendation was recomputed: refits when
/// what it was fitted for changed, else follows without moving anything.
pub fn sync(app: &mut App) {
    let key = structure_key(&app.tk);
    if app.graph_view.names_key != Some(key) {
        let tk = &app.tk;
        app.graph_view.names = NameIndex::new(tk.graph.node_indices().map(|ix| tk.name(ix)));
        app.graph_view.names_key = Some(key);
    }
    refold(app);
    if app.seeds.is_empty() {
        app.graph_view.focus = None;
        return;
    }
    let wanted = fit_key(app);
    let stale = app
        .graph_view
        .focus
        .as_ref()
        .is_none_or(|f| f.fitted_for != wanted);
    if stale {
        refit(app);
    } else {
        follow(app);
    }
}

/// The terminal changed size: the pane changed shape, so the focus is fitted again.
pub fn resized(app: &mut App) {
    refold(app);
    if app.graph_view.focus.is_some() {
        refit(app);
    }
}

/// `f`: switches between the focus view and the whole graph.
pub fn toggle(app: &mut App) {
    if app.seeds.is_empty() {
        app.set_status(
            crate::tui::app::Level::Info,
            "no seeds: the focus view needs an operator or seeds",
        );
        return;
    }
    if !app.graph_view.whole
        && let Some(n) = app.layout_pending()
    {
        // Never wait for the whole-graph layout on a key: say how far it is instead.
        let text = format!(
            "{}; f shows the whole graph when it is ready",
            progress(app, n)
        );
        app.set_status(crate::tui::app::Level::Info, text);
        return;
    }
    app.graph_view.whole = !app.graph_view.whole;
    app.neighbourhood = None;
    if app.graph_view.whole {
        app.centre_on_selection();
    } else {
        refit(app);
    }
}

/// What the parameter bar says while the whole-graph layout is computed on its thread.
pub fn progress(app: &App, nodes: usize) -> String {
    let dots = if app.theme.ascii { "..." } else { "…" };
    format!("laying out {} nodes{dots}", thousands(nodes))
}

/// `100000` as `100,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The whole-graph layout arrived from its thread: fold it for the fit zoom and, when the
/// whole graph is on screen, bring the selection into view.
pub fn whole_ready(app: &mut App) {
    refold(app);
    // A progress message from `f` would now be stale.
    if app
        .status
        .as_ref()
        .is_some_and(|s| s.text.starts_with("laying out"))
    {
        app.set_status(
            crate::tui::app::Level::Info,
            "the whole graph is laid out: f shows it",
        );
    }
    if !active(app) && app.neighbourhood.is_none() {
        app.ensure_selection_visible();
    }
}

/// `m`: hides or shows the side panes (overriding what the focus view chose); the focus
/// view is fitted to the new pane.
pub fn toggle_side_panes(app: &mut App) {
    let now = split(app);
    let hide = !(now.hide_nav || now.hide_inspector);
    app.graph_view.side_panes_hidden = Some(hide);
    if hide && app.focus != crate::tui::app::Focus::Graph {
        app.focus = crate::tui::app::Focus::Graph;
    }
    resized(app);
    app.ensure_selection_visible();
}

/// Which side panes are shown: the user's choice with `m`, else the focus view's.
pub fn split(app: &App) -> Split {
    match app.graph_view.side_panes_hidden {
        Some(true) => Split {
            hide_nav: true,
            hide_inspector: true,
        },
        Some(false) => Split::default(),
        None => match &app.graph_view.focus {
            Some(f) if active(app) => f.split,
            _ => Split::default(),
        },
    }
}

/// What the graph title adds: side panes the focus view hid to make room.
pub fn title_note(app: &App) -> Option<&'static str> {
    let s = split(app);
    let auto = app.graph_view.side_panes_hidden.is_none();
    match (auto, s.hide_nav, s.hide_inspector) {
        (true, true, _) => Some("panes hidden: m"),
        (true, false, true) => Some("inspector hidden: m"),
        _ => None,
    }
}

/// `v`: lays the focus view out afresh so the whole recommendation shows.
pub fn refit_command(app: &mut App) {
    if app.seeds.is_empty() {
        app.set_status(crate::tui::app::Level::Info, "no seeds: nothing to fit");
        return;
    }
    app.graph_view.whole = false;
    app.neighbourhood = None;
    refit(app);
}

fn fit_key(app: &App) -> (Vec<NodeIndex>, Option<usize>, u64, (u16, u16)) {
    let key = app
        .graph_view
        .names_key
        .unwrap_or_else(|| structure_key(&app.tk));
    (app.seeds.clone(), app.operator, key, app.size)
}

fn members(app: &App) -> Vec<NodeIndex> {
    app.rec
        .actions
        .iter()
        .chain(&app.rec.tools)
        .copied()
        .collect()
}

/// The members, their frontier, and which nodes to keep.
fn focus_set(app: &App) -> (Vec<bool>, HashMap<NodeIndex, Blocked>) {
    let members = members(app);
    let rec = &app.rec;
    let frontier = focus::frontier(&app.tk, &members, &|ix| rec.contains(ix));
    let mut keep = vec![false; app.tk.graph.node_bound()];
    for &m in &members {
        keep[m.index()] = true;
    }
    for b in &frontier {
        keep[b.node.index()] = true;
    }
    let blocked = frontier.into_iter().map(|b| (b.node, b)).collect();
    (keep, blocked)
}

/// A fresh layout fitted to the terminal (see [`fit`]), with the viewport at its origin.
pub fn refit(app: &mut App) {
    lay_out(app, None);
}

/// Lays the focus view out afresh. `since`: the members at the last fit, when a step
/// needs the room of a new layout; what entered and left since then stays marked, and
/// nodes that left are kept (after everything else) while there is room.
fn lay_out(app: &mut App, since: Option<(Vec<bool>, Vec<NodeIndex>)>) {
    let (mut keep, blocked) = focus_set(app);
    let members = members(app);
    let base = match since {
        Some((base, left)) => {
            for ix in left {
                keep[ix.index()] = true;
            }
            base
        }
        None => {
            let mut base = vec![false; app.tk.graph.node_bound()];
            for &m in &members {
                base[m.index()] = true;
            }
            base
        }
    };
    let was = split(app);
    let splits = fit::splits(app.graph_view.side_panes_hidden);
    // A layout some edge of which cannot be routed apart from the others is tried again
    // with more room (the next split), keeping the best.
    let mut best: Option<Focused> = None;
    let tries = (0..splits.len()).flat_map(|from| [(from, false), (from, true)]);
    for (from, roomy) in tries {
        let rec = &app.rec;
        let is_member = |ix: NodeIndex| rec.contains(ix);
        let want = fit::Want {
            tk: &app.tk,
            keep: &keep,
            is_member: &is_member,
            members: members.len(),
            roots: &app.seeds,
        };
        let choice = fit::choose(&want, app.size, &splits[from..], roomy);
        let layout = pack::pack(&app.tk, &choice.seq, choice.rows);
        let geometry = geometry::Geometry::packed(&layout, &app.tk, choice.look);
        let pane = Panes::new(app.size, choice.split).graph_inner();
        let routes = wires::route(
            &app.tk,
            &app.rec,
            app.session.params.threshold,
            &layout,
            &geometry,
            (i32::from(pane.width), i32::from(pane.height)),
        );
        let forced = routes.as_ref().map_or(0, |r| r.forced);
        let tried = Focused {
            geometry,
            cols: layout.layers.len() as u32,
            layout,
            look: choice.look,
            rows: choice.rows as u32,
            blocked: blocked.clone(),
            base: base.clone(),
            fitted_for: fit_key(app),
            split: choice.split,
            routes,
        };
        let better = best
            .as_ref()
            .is_none_or(|b| forced < b.routes.as_ref().map_or(0, |r| r.forced) && choice.fits);
        if better {
            best = Some(tried);
        }
        if forced == 0 {
            break;
        }
    }
    app.graph_view.focus = best;
    app.view = Viewport::default();
    let now = split(app);
    if now != was {
        panes_changed(app, now);
    }
}

/// The focus view hid or showed side panes: focus stays on a shown pane, and hiding says
/// so once (the title keeps saying it).
fn panes_changed(app: &mut App, now: Split) {
    use crate::tui::app::Focus;
    let hidden = match app.focus {
        Focus::Navigator => now.hide_nav,
        Focus::Inspector => now.hide_inspector,
        Focus::Graph => false,
    };
    if hidden {
        app.focus = Focus::Graph;
    }
    if app.graph_view.side_panes_hidden.is_none() && (now.hide_nav || now.hide_inspector) {
        let what = if now.hide_nav {
            "side panes hidden"
        } else {
            "inspector hidden"
        };
        app.set_status(
            crate::tui::app::Level::Info,
            format!("{what} so the whole recommendation fits; m shows them"),
        );
    }
}

/// The graph pane's inner size for the current split.
fn pane_size(app: &App) -> (i32, i32) {
    let r = Panes::new(app.size, split(app)).graph_inner();
    (i32::from(r.width), i32::from(r.height))
}

/// Routes the focus view's edges for its current layout.
fn reroute(app: &mut App) {
    let pane = pane_size(app);
    let Some(f) = app.graph_view.focus.as_ref() else {
        return;
    };
    let geo = &f.geometry;
    let routes = wires::route(
        &app.tk,
        &app.rec,
        app.session.params.threshold,
        &f.layout,
        geo,
        pane,
    );
    if let Some(f) = app.graph_view.focus.as_mut() {
        f.routes = routes;
    }
}

/// Follows a change of the recommendation without moving what stays: entering nodes take
/// free slots beside a neighbour, nodes that left stay where they were (marked) while
/// there is room. When the recommendation no longer fits that way, the view is laid out
/// afresh (the marks kept). Either way the viewport then holds the whole recommendation.
fn follow(app: &mut App) {
    let (mut keep, blocked) = focus_set(app);
    let pane = pane_size(app);
    let Some(f) = app.graph_view.focus.as_ref() else {
        return;
    };
    let was = |ix: NodeIndex| f.base.get(ix.index()).copied().unwrap_or(false);
    let left: Vec<NodeIndex> = f
        .layout
        .placed()
        .map(|(ix, _)| ix)
        .filter(|&ix| was(ix) && !keep[ix.index()])
        .collect();
    for &ix in &left {
        keep[ix.index()] = true;
    }
    let rec = &app.rec;
    let seq = pack::sequence(&app.tk, &keep, &|ix| rec.contains(ix), &app.seeds, false);
    let rows = (f.look.rows_in(pane.1) as u32).max(f.rows);
    let layout = pack::keep_within(&app.tk, &f.layout, &seq, f.cols + 2, rows);
    let geo = geometry::Geometry::packed(&layout, &app.tk, f.look);
    // Everything shown must fit, or the view is laid out afresh (which shows at least the
    // whole recommendation).
    let all: Vec<NodeIndex> = layout.placed().map(|(ix, _)| ix).collect();
    let Some(bounds) =
        bounds_of(app, &layout, &geo, &all).filter(|b| b.w <= pane.0 && b.h <= pane.1)
    else {
        let base = f.base.clone();
        lay_out(app, Some((base, left)));
        return;
    };
    let base = f.base.clone();
    if let Some(f) = app.graph_view.focus.as_mut() {
        f.layout = layout;
        f.geometry = geo;
        f.blocked = blocked;
    }
    reroute(app);
    let forced = app
        .graph_view
        .focus
        .as_ref()
        .and_then(|f| f.routes.as_ref())
        .is_some_and(|r| r.forced > 0);
    if forced {
        // The nodes that stay leave no room to route the new edges apart: start afresh.
        lay_out(app, Some((base, left)));
        return;
    }
    let v = &mut app.view;
    v.x = v.x.min(bounds.x).max(bounds.x + bounds.w - pane.0);
    v.y = v.y.min(bounds.y).max(bounds.y + bounds.h - pane.1);
}

/// The smallest rectangle holding the boxes of `nodes` (`None` if one is not laid out).
fn bounds_of(
    app: &App,
    layout: &Layout,
    geo: &geometry::Geometry,
    nodes: &[NodeIndex],
) -> Option<geometry::WRect> {
    let mut b: Option<(i32, i32, i32, i32)> = None;
    for &m in nodes {
        let r = geo.node_rect(layout, &app.tk, m)?;
        let (x0, y0, x1, y1) = b.unwrap_or((r.x, r.y, r.x + r.w, r.y + r.h));
        b = Some((
            x0.min(r.x),
            y0.min(r.y),
            x1.max(r.x + r.w),
            y1.max(r.y + r.h),
        ));
    }
    let (x0, y0, x1, y1) = b.unwrap_or_default();
    Some(geometry::WRect {
        x: x0,
        y: y0,
        w: x1 - x0,
        h: y1 - y0,
    })
}
