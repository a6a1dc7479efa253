//! The graph pane's view state: the focus view (the recommendation and its frontier, laid
//! out to fit the pane) or the whole graph. The focus view is on whenever there are seeds,
//! unless the user switched to the whole graph.
//!
//! When the focus is laid out again:
//! - *refit* (fresh layout, fitted to the pane, viewport to the origin): the seeds, the
//!   operator, the structure or the pane size changed, or the user asked for it;
//! - *follow* (what stays keeps its place, see [`toolscope_core::layout::pack::keep_within`]):
//!   any other change, such as a threshold or hops step. Nodes that left the recommendation
//!   since the last refit stay on screen, dimmed and marked, while there is room; a step
//!   whose nodes would not all be on screen lays the view out afresh (keeping the marks).

pub(crate) mod canvas;
pub(crate) mod commands;
#[cfg(test)]
mod configs;
pub mod draw;
pub mod fit;
mod focused;
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

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use toolscope_core::layout::focus::{self, Blocked, Cells};
use toolscope_core::layout::labels::NameIndex;
use toolscope_core::layout::{Layout, structure_key};

use crate::tui::app::{App, Zoom};
use crate::tui::insight::Change;
use crate::tui::panes::{Panes, Split};

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
    if app.graph_view.whole && app.graph_view.focus.is_some() {
        // The whole graph is shown: the focus view is laid out again when `f` brings it
        // back, not on every step meanwhile.
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

pub use focused::{Focused, refit};
use focused::{fit_key, follow};
