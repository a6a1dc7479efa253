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
pub(crate) mod commands;
pub mod draw;
pub(crate) mod geometry;
pub(crate) mod marks;
pub(crate) mod route;
pub mod shapes;
#[cfg(test)]
mod tests;
pub mod whole;
#[cfg(test)]
mod whole_tests;

use std::collections::HashMap;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use toolscope_core::layout::focus::{self, Blocked, Cells};
use toolscope_core::layout::labels::NameIndex;
use toolscope_core::layout::{Layout, structure_key};

use crate::tui::app::{App, Viewport, Zoom};
use crate::tui::insight::Change;
use crate::tui::panes::Panes;

/// Box heights and name caps tried in turn; the first whose drawing fits the pane wins.
const TRIES: [(bool, usize); 7] = [
    (false, 28),
    (false, 20),
    (false, 14),
    (true, 28),
    (true, 20),
    (true, 14),
    (true, toolscope_core::layout::labels::NARROW),
];

/// Room before a frontier node for the blocking edge's score.
pub const SCORE_ROOM: i32 = 5;

/// Lanes per gap in the focus view (fewer than the whole graph's: it has few edges).
pub fn lanes(compact: bool) -> i32 {
    if compact { 1 } else { 2 }
}

/// Gap between columns, as [`crate::tui::graph_pane::geometry::Geometry`] computes it.
fn gap(compact: bool) -> i32 {
    2 * lanes(compact) + 3 + SCORE_ROOM
}

/// What the focus view shows and how.
#[derive(Debug, Clone)]
pub struct Focused {
    pub layout: Layout,
    cols: u32,
    /// One-line boxes.
    pub compact: bool,
    /// Longest name drawn in full.
    pub cap: usize,
    /// The frontier: left-out nodes one edge beyond the recommendation.
    blocked: HashMap<NodeIndex, Blocked>,
    /// Members of the recommendation when the view was last fitted (for the marks).
    base: Vec<bool>,
    /// What the fit was made for: seeds, operator, structure, terminal size.
    fitted_for: (Vec<NodeIndex>, Option<usize>, u64, (u16, u16)),
}

/// The graph pane's mode.
#[derive(Debug, Clone, Default)]
pub struct GraphView {
    /// The user switched to the whole graph.
    pub whole: bool,
    /// The side panes are hidden (`m`).
    pub graph_only: bool,
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

/// `m`: hides or shows the side panes; the focus view is fitted to the new pane.
pub fn toggle_side_panes(app: &mut App) {
    app.graph_view.graph_only = !app.graph_view.graph_only;
    if app.graph_view.graph_only && app.focus != crate::tui::app::Focus::Graph {
        app.focus = crate::tui::app::Focus::Graph;
    }
    resized(app);
    app.ensure_selection_visible();
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

/// A fresh layout, the first of [`TRIES`] that fits the graph pane (else the one that
/// needs the fewest rows), with the viewport at its origin.
pub fn refit(app: &mut App) {
    let (keep, blocked) = focus_set(app);
    let area = Panes::new(app.size, app.layout_hint()).graph_inner();
    let (w, h) = (i32::from(area.width), i32::from(area.height));
    let rec = &app.rec;
    let layers = focus::prepare(&app.tk, &keep, &|ix| rec.contains(ix));
    // Only the shapes are compared; the chosen one is laid out once.
    let mut best: Option<(i32, bool, usize)> = None;
    for (compact, cap) in TRIES {
        let cells = Cells {
            cap,
            gap: gap(compact),
        };
        let (_, rows) = focus::fold_shape(&app.tk, &layers, w, cells);
        let row_h = if compact { 2 } else { 4 };
        let need = 1 + rows as i32 * row_h;
        let fits = need <= h;
        if best.is_none_or(|b| need < b.0) || fits {
            best = Some((need, compact, cap));
        }
        if fits {
            break;
        }
    }
    let Some((_, compact, cap)) = best else {
        return;
    };
    let cells = Cells {
        cap,
        gap: gap(compact),
    };
    let fitted = focus::fold(&app.tk, &layers, w, cells);
    let mut base = vec![false; app.tk.graph.node_bound()];
    for m in members(app) {
        base[m.index()] = true;
    }
    app.graph_view.focus = Some(Focused {
        layout: fitted.layout,
        cols: fitted.cols,
        compact,
        cap,
        blocked,
        base,
        fitted_for: fit_key(app),
    });
    app.view = Viewport::default();
}

/// Follows a change of the recommendation without moving what stays. Nodes that left the
/// recommendation since the last refit stay, so their mark shows.
fn follow(app: &mut App) {
    let (mut keep, blocked) = focus_set(app);
    let Some(f) = app.graph_view.focus.as_mut() else {
        return;
    };
    for (ix, _) in f.layout.placed() {
        if f.base.get(ix.index()).copied().unwrap_or(false) {
            keep[ix.index()] = true;
        }
    }
    f.layout = focus::keep_places(&app.tk, &f.layout, &keep, f.cols);
    f.blocked = blocked;
}
