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
#[cfg(test)]
mod memo_tests;
pub mod more;
pub mod shapes;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;
mod unknot;
pub mod whole;
#[cfg(test)]
mod whole_tests;
pub mod window_routes;
#[cfg(test)]
mod window_trace_tests;
pub mod wires;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use toolscope_core::layout::focus::{self, Blocked, Cells};
use toolscope_core::layout::labels::NameIndex;
use toolscope_core::layout::{Layout, structure_key};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::Recommendation;

pub use geometry::Zoom;

use crate::tui::panes::{Panes, Split};

/// Top-left corner of the graph viewport, in layout cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Viewport {
    pub x: i32,
    pub y: i32,
}

/// The neighbourhood view: a small layout around one node.
#[derive(Debug, Clone)]
pub struct Neighbourhood {
    pub centre: NodeIndex,
    pub radius: u32,
    pub layout: Layout,
}

/// The graph pane's state: which view it shows (focus view, whole graph, neighbourhood),
/// how (zoom, scores, side panes) and where (the viewport). Only this folder changes it;
/// the shell hands it a [`Scene`] and applies the [`Step`] it returns.
#[derive(Debug, Clone)]
pub struct GraphPane {
    /// The user switched to the whole graph.
    pub whole: bool,
    /// The user's choice of side panes with `m` (true: hidden); `None`: the focus view
    /// hides them when it needs the room.
    pub side_panes_hidden: Option<bool>,
    pub focus_view: Option<Focused>,
    /// Every node name, so a cut label never reads as another node's name.
    pub names: NameIndex,
    /// Structure key `names` was built for.
    names_key: Option<u64>,
    /// The whole graph folded to the pane, in the fit zoom: (structure key, pane width).
    fold: Option<((u64, i32), Layout)>,
    /// Top-left corner of what the pane shows, in layout cells.
    pub viewport: Viewport,
    pub zoom: Zoom,
    pub show_scores: bool,
    pub neighbourhood: Option<Neighbourhood>,
    /// Radius used when the neighbourhood view is next opened.
    pub radius: u32,
    /// Mouse position where a graph drag started, with the viewport at that time.
    drag: Option<((u16, u16), Viewport)>,
    /// The routes of the last windows drawn without the focus view's own, by their input
    /// (filled before a frame, see [`window_routes::RouteMemo::prepare`]).
    pub memo: window_routes::RouteMemo,
}

impl Default for GraphPane {
    fn default() -> GraphPane {
        GraphPane {
            whole: false,
            side_panes_hidden: None,
            focus_view: None,
            names: NameIndex::default(),
            names_key: None,
            fold: None,
            viewport: Viewport::default(),
            zoom: Zoom::Detailed,
            show_scores: false,
            neighbourhood: None,
            radius: 1,
            drag: None,
            memo: window_routes::RouteMemo::default(),
        }
    }
}

/// What the graph pane reads from the rest of the app when it lays itself out.
pub struct Scene<'a> {
    pub tk: &'a Toolkit,
    pub seeds: &'a [NodeIndex],
    pub rec: &'a Recommendation,
    pub operator: Option<usize>,
    pub threshold: f64,
    /// The hops (a step drawn as its reasons explains paths within them).
    pub hops: u32,
    /// A replayed step's called tool, drawn with the path that would bring it in.
    pub called: Option<NodeIndex>,
    /// The seeds are a step's (a replay or the step after a tool): a step too large for
    /// the pane is cut to the offered tools that fit, by rank.
    pub step: bool,
    /// Terminal size in cells.
    pub size: (u16, u16),
    /// The whole-graph layout (`None` while its thread computes it).
    pub whole: Option<&'a Layout>,
    /// Nodes of the whole-graph layout being computed, while it is.
    pub pending: Option<usize>,
    pub selected: Option<NodeIndex>,
    pub ascii: bool,
}

/// What the shell does after a graph pane handler: the pane changed only itself.
#[must_use]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Step {
    /// The focus view hid or showed side panes: the active pane must stay a shown one.
    pub panes: Option<Split>,
    /// A message for the status line.
    pub say: Option<String>,
    /// Bring the selection into view.
    pub show: Option<Show>,
}

/// How the selection is brought into view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Centre the viewport on it.
    Centre,
    /// Centre only when it is not wholly visible.
    IfHidden,
}

impl Step {
    fn say(text: impl Into<String>) -> Step {
        Step {
            say: Some(text.into()),
            ..Step::default()
        }
    }

    fn show(show: Show) -> Step {
        Step {
            show: Some(show),
            ..Step::default()
        }
    }

    /// Both steps: `later`'s message and showing win where both have one.
    pub fn then(self, later: Step) -> Step {
        Step {
            panes: later.panes.or(self.panes),
            say: later.say.or(self.say),
            show: later.show.or(self.show),
        }
    }
}

impl GraphPane {
    /// The frontier entry of `ix`, when the focus view shows it.
    pub fn blocked(&self, ix: NodeIndex) -> Option<&Blocked> {
        self.focus_view.as_ref()?.blocked.get(&ix)
    }

    /// Whether `e` blocks a frontier node of the focus view.
    pub fn blocks(&self, e: EdgeIndex, target: NodeIndex) -> bool {
        self.blocked(target).is_some_and(|b| b.edge == e)
    }

    /// Whether the pane shows the focus view.
    pub fn shows_focus(&self) -> bool {
        !self.whole && self.neighbourhood.is_none() && self.focus_view.is_some()
    }

    /// The focus view's routes, when it is shown and was routed (else the window's are
    /// drawn).
    pub fn focus_routes(&self) -> Option<&wires::Routes> {
        if !self.shows_focus() {
            return None;
        }
        self.focus_view.as_ref()?.routes.as_ref()
    }

    /// The layout being drawn: the focus view's, the folded whole graph's (fit zoom), the
    /// neighbourhood's, else the whole graph's (`whole`; empty while it is computed).
    pub fn layout<'a>(&'a self, whole: Option<&'a Layout>) -> &'a Layout {
        static EMPTY: std::sync::OnceLock<Layout> = std::sync::OnceLock::new();
        if let Some(f) = self.focus_view.as_ref().filter(|_| self.shows_focus()) {
            return &f.layout;
        }
        if let Some(l) = self.folded(whole) {
            return l;
        }
        match &self.neighbourhood {
            Some(n) => &n.layout,
            None => whole.unwrap_or_else(|| EMPTY.get_or_init(Layout::default)),
        }
    }

    /// The whole graph folded to the pane, when the fit zoom shows it.
    fn folded(&self, whole: Option<&Layout>) -> Option<&Layout> {
        if self.zoom != Zoom::Fit || self.neighbourhood.is_some() {
            return None;
        }
        let whole = whole?.key;
        self.fold.as_ref().filter(|f| f.0.0 == whole).map(|f| &f.1)
    }

    /// Cell geometry of the layout being drawn: the focus view's own, or the whole graph's
    /// at the current zoom.
    pub fn geometry(&self, whole: Option<&Layout>) -> geometry::Geometry {
        if let Some(f) = self.focus_view.as_ref().filter(|_| self.shows_focus()) {
            return f.geometry.clone();
        }
        geometry::Geometry::for_layout(self.layout(whole), self.zoom, self.show_scores)
    }

    /// The node whose box covers a cell of the drawing, if any.
    pub fn hit(&self, tk: &Toolkit, whole: Option<&Layout>, x: i32, y: i32) -> Option<NodeIndex> {
        match &self.focus_view {
            Some(f) if self.shows_focus() => f.geometry.hit(&f.layout, tk, x, y),
            _ => self.geometry(whole).hit(self.layout(whole), tk, x, y),
        }
    }

    /// Which side panes are shown: the user's choice with `m`, else the focus view's.
    pub fn split(&self) -> Split {
        match self.side_panes_hidden {
            Some(true) => Split {
                hide_nav: true,
                hide_inspector: true,
            },
            Some(false) => Split::default(),
            None => match &self.focus_view {
                Some(f) if self.shows_focus() => f.split,
                _ => Split::default(),
            },
        }
    }

    /// What the graph title adds: side panes the focus view hid to make room.
    pub fn title_note(&self) -> Option<&'static str> {
        let s = self.split();
        let auto = self.side_panes_hidden.is_none();
        match (auto, s.hide_nav, s.hide_inspector) {
            (true, true, _) => Some("panes hidden: m"),
            (true, false, true) => Some("inspector hidden: m"),
            _ => None,
        }
    }

    /// The graph pane's inner size for the current split.
    fn inner(&self, size: (u16, u16)) -> (i32, i32) {
        let r = Panes::new(size, self.split()).graph_inner();
        (i32::from(r.width), i32::from(r.height))
    }

    /// Centres the viewport on `ix`.
    pub fn centre_on(&mut self, s: &Scene<'_>, ix: NodeIndex) {
        let geo = self.geometry(s.whole);
        let layout = self.layout(s.whole);
        let Some(r) = geo.node_rect(layout, s.tk, ix) else {
            return;
        };
        let (ew, eh) = geo.extent(layout);
        let (w, h) = self.inner(s.size);
        self.viewport.x = clamp_axis(r.x + r.w / 2 - w / 2, ew, w);
        self.viewport.y = clamp_axis(r.y + r.h / 2 - h / 2, eh, h);
    }

    /// Centres on `ix` only when its box is not wholly visible.
    pub fn ensure_visible(&mut self, s: &Scene<'_>, ix: NodeIndex) {
        let geo = self.geometry(s.whole);
        let Some(r) = geo.node_rect(self.layout(s.whole), s.tk, ix) else {
            return;
        };
        let (w, h) = self.inner(s.size);
        let v = self.viewport;
        let inside = r.x >= v.x && r.y >= v.y && r.x + r.w <= v.x + w && r.y + r.h <= v.y + h;
        if !inside {
            self.centre_on(s, ix);
        }
    }

    /// Opens (or re-centres) the neighbourhood view.
    pub fn open_neighbourhood(&mut self, tk: &Toolkit, centre: NodeIndex, radius: u32) -> Step {
        let keep = neighbourhood_mask(tk, centre, radius);
        let layout = Layout::compute_subset(tk, Some(&keep));
        self.neighbourhood = Some(Neighbourhood {
            centre,
            radius,
            layout,
        });
        self.radius = radius;
        Step::show(Show::Centre)
    }

    /// `N`: opens the neighbourhood of the selection, or closes it.
    pub fn toggle_neighbourhood(&mut self, s: &Scene<'_>) -> Step {
        if self.neighbourhood.take().is_some() {
            return Step::show(Show::Centre);
        }
        match s.selected {
            Some(ix) => self.open_neighbourhood(s.tk, ix, self.radius),
            None => Step::default(),
        }
    }

    /// `{` `}`: the neighbourhood's radius (re-opened around the selection when shown).
    pub fn set_radius(&mut self, s: &Scene<'_>, r: u32) -> Step {
        self.radius = r;
        match (&self.neighbourhood, s.selected) {
            (Some(_), Some(ix)) => self.open_neighbourhood(s.tk, ix, r),
            _ => Step::default(),
        }
    }

    /// The selection moved to `ix`: an open neighbourhood follows it.
    pub fn selected(&mut self, tk: &Toolkit, ix: NodeIndex) -> Step {
        match &self.neighbourhood {
            Some(n) if n.centre != ix => {
                let r = n.radius;
                self.open_neighbourhood(tk, ix, r)
            }
            _ => Step::default(),
        }
    }

    /// The toolkit changed: the neighbourhood keeps its centre (`None`: the view closes),
    /// laid out again for the new structure.
    pub fn recentre(&mut self, tk: &Toolkit, centre: Option<NodeIndex>) -> Step {
        match (centre, self.neighbourhood.as_ref()) {
            (Some(c), Some(n)) => {
                let r = n.radius;
                self.open_neighbourhood(tk, c, r)
            }
            _ => {
                self.neighbourhood = None;
                Step::default()
            }
        }
    }

    /// `z`: detailed, compact (one-line boxes), fit to the pane. The focus view stays
    /// fitted its own way; the zoom applies to the whole graph.
    pub fn cycle_zoom(&mut self, s: &Scene<'_>) -> Step {
        self.zoom = match self.zoom {
            Zoom::Detailed => Zoom::Compact,
            Zoom::Compact => Zoom::Fit,
            Zoom::Fit => Zoom::Detailed,
        };
        if self.shows_focus() {
            self.whole = true;
        }
        self.refold(s);
        Step::default()
    }

    /// Folds the whole graph to the pane's width for the fit zoom (only when it is shown and
    /// the structure or the width changed).
    fn refold(&mut self, s: &Scene<'_>) {
        if self.zoom != Zoom::Fit {
            return;
        }
        let key = self.names_key.unwrap_or_else(|| structure_key(s.tk));
        let width = self.inner(s.size).0;
        if self.fold.as_ref().is_some_and(|f| f.0 == (key, width)) {
            return;
        }
        let Some(whole) = s.whole.filter(|l| l.key == key) else {
            return;
        };
        // As the fit zoom's geometry measures it: one lane, plus room for scores if shown.
        let cells = Cells {
            cap: toolscope_core::layout::labels::NARROW,
            gap: 2 + 3 + if self.show_scores { 5 } else { 0 },
        };
        let fitted = focus::fold(s.tk, &whole.layers, width, cells);
        self.fold = Some(((key, width), fitted.layout));
    }

    /// Brings the focus view up to date after the recommendation was recomputed: refits
    /// when what it was fitted for changed, else follows without moving anything.
    pub fn sync(&mut self, s: &Scene<'_>) -> Step {
        let key = structure_key(s.tk);
        if self.names_key != Some(key) {
            self.names = NameIndex::new(s.tk.graph.node_indices().map(|ix| s.tk.name(ix)));
            self.names_key = Some(key);
        }
        self.refold(s);
        if s.seeds.is_empty() {
            self.focus_view = None;
            return Step::default();
        }
        if self.whole && self.focus_view.is_some() {
            // The whole graph is shown: the focus view is laid out again when `f` brings it
            // back, not on every step meanwhile.
            return Step::default();
        }
        let wanted = focused::fit_key(self, s);
        let stale = self
            .focus_view
            .as_ref()
            .is_none_or(|f| f.fitted_for != wanted);
        if stale { self.refit(s) } else { self.follow(s) }
    }

    /// The terminal changed size: the pane changed shape, so the focus is fitted again.
    pub fn resized(&mut self, s: &Scene<'_>) -> Step {
        self.refold(s);
        let step = if self.focus_view.is_some() {
            self.refit(s)
        } else {
            Step::default()
        };
        step.then(Step::show(Show::IfHidden))
    }

    /// `f`: switches between the focus view and the whole graph.
    pub fn toggle(&mut self, s: &Scene<'_>) -> Step {
        if s.seeds.is_empty() {
            return Step::say("no seeds: the focus view needs an operator or seeds");
        }
        if !self.whole
            && let Some(n) = s.pending
        {
            // Never wait for the whole-graph layout on a key: say how far it is instead.
            return Step::say(format!(
                "{}; f shows the whole graph when it is ready",
                progress(s.ascii, n)
            ));
        }
        self.whole = !self.whole;
        self.neighbourhood = None;
        if self.whole {
            Step::show(Show::Centre)
        } else {
            self.refit(s)
        }
    }

    /// The whole-graph layout arrived from its thread: fold it for the fit zoom and, when
    /// the whole graph is on screen, bring the selection into view. `progress_shown`: the
    /// status line says how far the layout was.
    pub fn whole_ready(&mut self, s: &Scene<'_>, progress_shown: bool) -> Step {
        self.refold(s);
        // A progress message from `f` would now be stale.
        let mut step = if progress_shown {
            Step::say("the whole graph is laid out: f shows it")
        } else {
            Step::default()
        };
        if !self.shows_focus() && self.neighbourhood.is_none() {
            step.show = Some(Show::IfHidden);
        }
        step
    }

    /// `m`: hides or shows the side panes (overriding what the focus view chose); the
    /// focus view is fitted to the new pane. The status line says which, replacing what the
    /// focus view said when it hid them (which would now be wrong).
    pub fn toggle_side_panes(&mut self, s: &Scene<'_>) -> Step {
        let now = self.split();
        let hide = !(now.hide_nav || now.hide_inspector);
        self.side_panes_hidden = Some(hide);
        let step = Step {
            panes: Some(self.split()),
            ..Step::default()
        };
        let said = if hide {
            "side panes hidden (m shows them)"
        } else {
            "side panes shown (m hides them)"
        };
        step.then(self.resized(s)).then(Step::say(said))
    }

    /// A panel of the right-hand pane (`V`, `b`, `B`) was opened: where the focus view or
    /// `m` hid that pane, the side panes come back (the focus view is fitted to the
    /// narrower graph) and the status line says so, so the panel never opens unseen.
    pub fn show_right_pane(&mut self, s: &Scene<'_>, panel: &str) -> Step {
        if !self.split().hide_inspector {
            return Step::default();
        }
        self.side_panes_hidden = Some(false);
        let step = Step {
            panes: Some(self.split()),
            ..Step::default()
        };
        step.then(self.resized(s)).then(Step::say(format!(
            "side panes shown for the {panel} (m hides them)"
        )))
    }

    /// `v`: lays the focus view out afresh so the whole recommendation shows.
    pub fn refit_command(&mut self, s: &Scene<'_>) -> Step {
        if s.seeds.is_empty() {
            return Step::say("no seeds: nothing to fit");
        }
        self.whole = false;
        self.neighbourhood = None;
        self.refit(s)
    }

    /// The mouse went down on the pane's background at `at` (a cell of the screen).
    pub fn start_drag(&mut self, at: (u16, u16)) {
        self.drag = Some((at, self.viewport));
    }

    /// The mouse moved to `at` with its button down: the drawing follows it.
    pub fn drag_to(&mut self, (x, y): (u16, u16)) {
        if let Some(((x0, y0), v)) = self.drag {
            self.viewport = Viewport {
                x: v.x - (i32::from(x) - i32::from(x0)),
                y: v.y - (i32::from(y) - i32::from(y0)),
            };
        }
    }

    pub fn end_drag(&mut self) {
        self.drag = None;
    }

    /// Pans the viewport by cells.
    pub fn pan(&mut self, dx: i32, dy: i32) {
        self.viewport.x += dx;
        self.viewport.y += dy;
    }
}

/// What the parameter bar says while the whole-graph layout is computed on its thread.
pub fn progress(ascii: bool, nodes: usize) -> String {
    let dots = if ascii { "..." } else { "…" };
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

/// A centred offset kept inside the drawing: 0 when the drawing fits the view.
fn clamp_axis(want: i32, extent: i32, view: i32) -> i32 {
    if extent <= view {
        0
    } else {
        want.clamp(0, extent - view)
    }
}

/// Nodes within `radius` edges of `centre`, edges taken in either direction.
pub fn neighbourhood_mask(tk: &Toolkit, centre: NodeIndex, radius: u32) -> Vec<bool> {
    use petgraph::visit::NodeIndexable;
    let mut keep = vec![false; tk.graph.node_bound()];
    if !tk.graph.contains_node(centre) {
        return keep;
    }
    keep[centre.index()] = true;
    let mut frontier = vec![centre];
    for _ in 0..radius {
        let mut next = Vec::new();
        for &u in &frontier {
            let around = tk.out_edges(u).chain(tk.in_edges(u)).map(|(_, v)| v);
            for v in around {
                if !keep[v.index()] {
                    keep[v.index()] = true;
                    next.push(v);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    keep
}

pub use focused::Focused;
