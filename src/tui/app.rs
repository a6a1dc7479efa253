//! The application state. The app owns its data (toolkit, files, layout), so a reload can
//! swap them in place and keep the user's context (seeds, parameters, selection, viewport).

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use petgraph::visit::NodeIndexable;

use std::sync::Arc;
use toolscope_core::layout::Layout;
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{Params, Recommendation, recommend, resolve_seeds};
use toolscope_core::source::Loaded;

use super::theme::Theme;
use crate::tui::navigator::{Navigator, natural_cmp};

/// The pane that receives list and pan keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Navigator,
    Graph,
    Inspector,
}

impl Focus {
    pub fn next(self) -> Focus {
        match self {
            Focus::Navigator => Focus::Graph,
            Focus::Graph => Focus::Inspector,
            Focus::Inspector => Focus::Navigator,
        }
    }

    pub fn prev(self) -> Focus {
        self.next().next()
    }
}

pub use crate::tui::graph_pane::geometry::Zoom;

/// What a one-line prompt edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `:` commands.
    Command,
    /// `/` navigator filter (applied as it is typed).
    Filter,
}

/// A modal layer over the panes; it receives keys first.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help,
    /// An editor or confirmation: the dialog lives in the overlay that shows it.
    Dialog(Box<crate::tui::editing::dialog::Dialog>),
    Prompt {
        kind: PromptKind,
        text: String,
    },
    /// The prompt preview: the offered tools as the model would read them; `scroll` is
    /// the first line shown.
    Preview {
        scroll: u16,
    },
    /// The message log, whole and wrapped; `scroll` lines up from the newest.
    Messages {
        scroll: u16,
    },
}

pub use super::status::{Level, Log, Status};

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

pub use super::reload::Kept;

pub use toolscope_core::session::Opened;

/// What a new app shows: the graph, the files and the problems found reading them.
struct Shown<'a> {
    tk: Arc<Toolkit>,
    files: Vec<Opened>,
    diagnostics: &'a [toolscope_core::diag::Diagnostic],
}

/// Everything the TUI shows and edits.
pub struct App {
    /// The graph shown: the workspace's own (shared, not copied) when there is one.
    pub tk: Arc<Toolkit>,
    pub files: Vec<Opened>,
    /// What was opened, for the title and status line.
    pub source: String,
    pub theme: Theme,
    pub seeds: Vec<NodeIndex>,
    /// Index into `tk.operators` of the active operator.
    pub operator: Option<usize>,
    /// Seeds were changed by hand since the operator was chosen.
    pub seeds_edited: bool,
    pub rec: Recommendation,
    /// The whole-graph layout, computed on a thread when the app runs in a terminal.
    layout: crate::tui::graph_pane::whole::WholeLayout,
    pub neighbourhood: Option<Neighbourhood>,
    /// Radius used when the neighbourhood view is next opened.
    pub radius: u32,
    pub selected: Option<NodeIndex>,
    pub view: Viewport,
    pub zoom: Zoom,
    pub show_scores: bool,
    pub focus: Focus,
    pub overlay: Option<Overlay>,
    pub nav: Navigator,
    pub inspector_scroll: u16,
    /// First line of the help overlay shown (j/k scroll it on small terminals).
    pub help_scroll: u16,
    /// Index into [`App::node_edges`] of the edge under the inspector's cursor.
    pub edge_cursor: usize,
    pub status: Option<Status>,
    /// Terminal size in cells.
    pub size: (u16, u16),
    /// Mouse position where a graph drag started, with the viewport at that time.
    pub drag: Option<((u16, u16), Viewport)>,
    /// The editing session: workspace, watcher, conflicts, recovery (in the core).
    pub session: toolscope_core::session::Session,
    /// Source of an edge being added (`a`, then select the target and `a` again).
    pub link_from: Option<(toolscope_core::model::NodeKind, String)>,
    /// What the last reload changed, marked for a moment.
    pub marks: crate::tui::graph_pane::marks::Marks,
    /// The loop's channel, for timers and background jobs (None in tests without a loop).
    pub tx: Option<std::sync::mpsc::Sender<super::msg::Msg>>,
    /// Said on stderr once the terminal is restored (where unsaved edits were written).
    pub farewell: Option<String>,
    /// Critical values, sweep, explanation, baseline diff and the tool filters stage.
    pub insight: crate::tui::insight::InsightState,
    /// The inspector shows the baseline diff instead of the selected node.
    pub diff_panel: bool,
    /// The graph pane's mode: focus view or whole graph (see [`crate::tui::graph_pane`]).
    pub graph_view: crate::tui::graph_pane::GraphView,
    pub quit: bool,
    /// Context a reload left out, restored by name when it comes back.
    pub kept: Kept,
    /// Every message of the session, whole (`:messages`, `M`).
    pub log: Log,
    /// Loaded traces and their evaluation (see `tui::evidence`).
    pub evidence: crate::tui::evidence_panel::EvidenceState,
    /// A `:mcp discover` is running on a background thread.
    pub mcp_running: bool,
    /// Stops the running `:mcp discover` (Esc, Ctrl-C).
    pub mcp_cancel: crate::tui::mcp_discovery::Cancel,
    /// What reading the files found (lint's load diagnostics), for `:diagnostics`.
    pub load_diagnostics: Vec<toolscope_core::diag::Diagnostic>,
}

impl App {
    /// A new app on a loaded toolkit; the first operator (if any) is active.
    pub fn new(loaded: Loaded, source: String, theme: Theme, size: (u16, u16)) -> App {
        App::with_layout(loaded, source, theme, size, Default::default())
    }

    /// As [`App::new`], with the whole-graph layout computed the way `layout` does it (on a
    /// thread in the terminal, so the first screen never waits for it).
    pub fn with_layout(
        loaded: Loaded,
        source: String,
        theme: Theme,
        size: (u16, u16),
        layout: crate::tui::graph_pane::whole::WholeLayout,
    ) -> App {
        let shown = Shown {
            tk: Arc::new(loaded.toolkit),
            files: loaded.files.iter().map(Opened::from).collect(),
            diagnostics: &loaded.diagnostics,
        };
        App::with_shown(shown, source, theme, size, layout)
    }

    fn with_shown(
        shown: Shown<'_>,
        source: String,
        theme: Theme,
        size: (u16, u16),
        layout: crate::tui::graph_pane::whole::WholeLayout,
    ) -> App {
        let status = diagnostics_status(shown.diagnostics);
        let mut app = App {
            tk: shown.tk,
            files: shown.files,
            source,
            theme,
            seeds: Vec::new(),
            operator: None,
            seeds_edited: false,
            rec: Recommendation::default(),
            layout,
            neighbourhood: None,
            radius: 1,
            selected: None,
            view: Viewport::default(),
            zoom: Zoom::Detailed,
            show_scores: false,
            focus: Focus::Graph,
            overlay: None,
            nav: Navigator::default(),
            inspector_scroll: 0,
            help_scroll: 0,
            edge_cursor: 0,
            status: None,
            size,
            drag: None,
            session: toolscope_core::session::Session::default(),
            link_from: None,
            marks: Default::default(),
            tx: None,
            farewell: None,
            insight: Default::default(),
            diff_panel: false,
            graph_view: Default::default(),
            quit: false,
            kept: Default::default(),
            log: Log::default(),
            evidence: Default::default(),
            mcp_running: false,
            mcp_cancel: crate::tui::mcp_discovery::Cancel::default(),
            load_diagnostics: shown.diagnostics.to_vec(),
        };
        app.layout.refresh(&app.tk);
        if !app.tk.operators.is_empty() {
            app.activate_operator(0);
        }
        app.nav.rebuild(&app.tk);
        let first = app
            .seeds
            .first()
            .copied()
            .or_else(|| app.tk.graph.node_indices().next());
        if let Some(ix) = first {
            app.select(ix);
            app.ensure_selection_visible();
        }
        app.recompute();
        if let (None, Some(s)) = (&app.status, status) {
            app.set_status(s.level, s.text);
        }
        app
    }

    /// An app over an editing session: the workspace's toolkit, files and diagnostics.
    pub fn with_workspace(
        ws: toolscope_core::edit::Workspace,
        source: String,
        theme: Theme,
        size: (u16, u16),
    ) -> App {
        App::with_workspace_in(ws, source, theme, size, Default::default())
    }

    /// As [`App::with_workspace`], with the whole-graph layout computed as `layout` does.
    pub fn with_workspace_in(
        ws: toolscope_core::edit::Workspace,
        source: String,
        theme: Theme,
        size: (u16, u16),
        layout: crate::tui::graph_pane::whole::WholeLayout,
    ) -> App {
        let shown = Shown {
            tk: Arc::clone(&ws.toolkit),
            files: toolscope_core::session::opened_of(&ws),
            diagnostics: &ws.diagnostics,
        };
        let mut app = App::with_shown(shown, source, theme, size, layout);
        let params = app.session.params;
        app.session = toolscope_core::session::Session::new(ws);
        app.session.params = params;
        app
    }

    /// Unsaved edits in a file, or threshold/hops of the active operator not yet written.
    pub fn is_modified(&self) -> bool {
        self.session.is_dirty() || !self.param_edits().is_empty()
    }

    /// `SetThreshold`/`SetHops` edits for the active operator's changed parameters.
    pub fn param_edits(&self) -> Vec<toolscope_core::edit::Edit> {
        self.session.param_edits(self.active_operator())
    }

    /// The active operator, as the view shows it.
    pub fn active_operator(&self) -> Option<&toolscope_core::model::Operator> {
        self.operator.and_then(|i| self.tk.operators.get(i))
    }

    /// The dialog on screen, if any.
    pub fn dialog(&self) -> Option<&crate::tui::editing::dialog::Dialog> {
        match &self.overlay {
            Some(Overlay::Dialog(d)) => Some(d),
            _ => None,
        }
    }

    /// The layout being drawn: the neighbourhood's when that view is open.
    pub fn layout(&self) -> &Layout {
        static EMPTY: std::sync::OnceLock<Layout> = std::sync::OnceLock::new();
        if let Some(l) =
            crate::tui::graph_pane::layout(self).or_else(|| crate::tui::graph_pane::folded(self))
        {
            return l;
        }
        match &self.neighbourhood {
            Some(n) => &n.layout,
            None => self
                .layout
                .current()
                .unwrap_or_else(|| EMPTY.get_or_init(Layout::default)),
        }
    }

    /// The cached layout of the whole graph (`None` while it is being computed).
    pub fn whole_layout(&self) -> Option<&Layout> {
        self.layout.current()
    }

    /// Nodes of the whole-graph layout being computed on its thread, while it is.
    pub fn layout_pending(&self) -> Option<usize> {
        self.layout.pending()
    }

    /// Takes the whole-graph layout if its thread finished (a stale one is dropped), and
    /// brings the views that need it up to date.
    pub fn layout_ready(&mut self) {
        if self.layout.poll() {
            crate::tui::graph_pane::whole_ready(self);
        }
    }

    /// Cell geometry of the layout being drawn: the focus view's own, or the whole graph's
    /// at the current zoom.
    pub fn geometry(&self) -> crate::tui::graph_pane::geometry::Geometry {
        use crate::tui::graph_pane::geometry::Geometry;
        if crate::tui::graph_pane::active(self)
            && let Some(f) = &self.graph_view.focus
        {
            return f.geometry.clone();
        }
        Geometry::for_layout(self.layout(), self.zoom, self.show_scores)
    }

    /// The diagnostics of the files as they are now (the workspace's, else the load's).
    pub fn diagnostics(&self) -> &[toolscope_core::diag::Diagnostic] {
        match &self.session.ws {
            Some(ws) => &ws.diagnostics,
            None => &self.load_diagnostics,
        }
    }

    /// The node whose box covers a cell of the drawing, if any.
    pub fn geometry_hit(&self, x: i32, y: i32) -> Option<NodeIndex> {
        match &self.graph_view.focus {
            Some(f) if crate::tui::graph_pane::active(self) => {
                f.geometry.hit(&f.layout, &self.tk, x, y)
            }
            _ => self.geometry().hit(self.layout(), &self.tk, x, y),
        }
    }

    /// Replaces the toolkit and files, carrying the user's context over by name (see
    /// `reload`); returns how many seeds were dropped because their action is gone.
    pub fn replace(&mut self, tk: Arc<Toolkit>, files: Vec<Opened>) -> usize {
        let old = std::mem::replace(&mut self.tk, tk);
        self.evidence.graph_changed();
        self.files = files;
        let now = super::reload::Context {
            seeds: std::mem::take(&mut self.seeds),
            operator: self.operator,
            selected: self.selected,
            centre: self.neighbourhood.as_ref().map(|n| n.centre),
        };
        let carried = self.kept.carry(&old, &self.tk, &now);
        let ctx = carried.context;
        (self.seeds, self.operator, self.selected) = (ctx.seeds, ctx.operator, ctx.selected);
        match (ctx.centre, self.neighbourhood.as_mut()) {
            (Some(c), Some(n)) => n.centre = c,
            _ => self.neighbourhood = None,
        }
        self.nav.rebuild(&self.tk);
        if let Some(ix) = self.selected {
            self.nav.point_at(ix);
        }
        self.refresh_layout();
        self.recompute();
        carried.dropped
    }

    /// Re-lays out if (and only if) the structure changed; call after loads and edits.
    pub fn refresh_layout(&mut self) {
        self.layout.refresh(&self.tk);
        if let Some(n) = &self.neighbourhood {
            let (c, r) = (n.centre, n.radius);
            self.open_neighbourhood(c, r);
        }
    }

    /// Runs the recommendation for the current seeds and parameters.
    pub fn recompute(&mut self) {
        self.rec = recommend(&self.tk, &self.seeds, self.session.params);
        self.insight.refresh(
            &self.tk,
            &self.seeds,
            self.session.params,
            &self.rec,
            self.selected,
        );
        self.refresh_evidence();
        crate::tui::graph_pane::sync(self);
    }

    /// Evaluates the loaded traces for the active operator (or seeds) at the current
    /// parameters, and counts the offer's tokens; nothing until traces or tokens are asked for.
    pub fn refresh_evidence(&mut self) {
        let operator = match self.operator.and_then(|i| self.tk.operators.get(i)) {
            Some(op) if !self.seeds_edited => Some(op.name.as_str()),
            _ => None,
        };
        let active = crate::tui::evidence_panel::Active {
            tk: &self.tk,
            operator,
            seeds: &self.seeds,
            params: self.session.params,
            offer: self.insight.shown_tools(&self.rec),
            filters: self
                .insight
                .filters_on
                .then(|| self.insight.filters.clone()),
        };
        self.evidence.refresh(&active);
    }

    /// Makes operator `i` active and selects (and shows) its first seed. Threshold/hops
    /// changed for the operator being left must be committed first (`edit::choose_operator`
    /// does both).
    pub fn choose_operator(&mut self, i: usize) {
        // The user chose: context left out by a reload is no longer wanted back.
        self.kept = Default::default();
        self.activate_operator(i);
        if let Some(&first) = self.seeds.first() {
            self.select(first);
            self.ensure_selection_visible();
        }
    }

    /// Makes operator `i` active: its seeds, threshold and hops.
    pub fn activate_operator(&mut self, i: usize) {
        let Some(op) = self.tk.operators.get(i) else {
            return;
        };
        let (seeds, unknown) = resolve_seeds(&self.tk, &op.actions);
        self.session.params = Params {
            threshold: op.threshold,
            hops: op.hops,
        };
        self.seeds = seeds;
        self.operator = Some(i);
        self.seeds_edited = false;
        self.status = None;
        if !unknown.is_empty() {
            let text = format!("operator names unknown actions: {}", unknown.join(", "));
            self.set_status(Level::Error, text);
        }
        self.recompute();
    }

    pub fn is_seed(&self, ix: NodeIndex) -> bool {
        self.seeds.contains(&ix)
    }

    /// Selects a node (inspector follows; the neighbourhood view re-centres).
    pub fn select(&mut self, ix: NodeIndex) {
        if !self.tk.graph.contains_node(ix) {
            return;
        }
        self.selected = Some(ix);
        self.insight
            .reselect(&self.tk, &self.seeds, self.session.params, self.selected);
        self.inspector_scroll = 0;
        self.edge_cursor = 0;
        self.nav.point_at(ix);
        let h = super::panes::Panes::new(self.size, self.layout_hint())
            .nav_inner()
            .height;
        self.nav.scroll_to_cursor(usize::from(h));
        if let Some(n) = &self.neighbourhood
            && n.centre != ix
        {
            let r = n.radius;
            self.open_neighbourhood(ix, r);
        }
    }

    /// Opens (or re-centres) the neighbourhood view.
    pub fn open_neighbourhood(&mut self, centre: NodeIndex, radius: u32) {
        let keep = neighbourhood_mask(&self.tk, centre, radius);
        let layout = Layout::compute_subset(&self.tk, Some(&keep));
        self.neighbourhood = Some(Neighbourhood {
            centre,
            radius,
            layout,
        });
        self.radius = radius;
        self.centre_on_selection();
    }

    /// Centres the graph viewport on the selected node.
    pub fn centre_on_selection(&mut self) {
        let Some(ix) = self.selected else { return };
        let geo = self.geometry();
        let Some(r) = geo.node_rect(self.layout(), &self.tk, ix) else {
            return;
        };
        let area = super::panes::Panes::new(self.size, self.layout_hint()).graph_inner();
        let (ew, eh) = geo.extent(self.layout());
        let (w, h) = (i32::from(area.width), i32::from(area.height));
        self.view.x = clamp_axis(r.x + r.w / 2 - w / 2, ew, w);
        self.view.y = clamp_axis(r.y + r.h / 2 - h / 2, eh, h);
    }

    /// Centres only when the selected node is not fully visible.
    pub fn ensure_selection_visible(&mut self) {
        let Some(ix) = self.selected else { return };
        let geo = self.geometry();
        let Some(r) = geo.node_rect(self.layout(), &self.tk, ix) else {
            return;
        };
        let area = super::panes::Panes::new(self.size, self.layout_hint()).graph_inner();
        let (w, h) = (i32::from(area.width), i32::from(area.height));
        let inside = r.x >= self.view.x
            && r.y >= self.view.y
            && r.x + r.w <= self.view.x + w
            && r.y + r.h <= self.view.y + h;
        if !inside {
            self.centre_on_selection();
        }
    }

    /// Which side panes are shown: the user's choice (`m`), else what the focus view needed.
    pub fn layout_hint(&self) -> super::panes::Split {
        crate::tui::graph_pane::split(self)
    }

    /// The selected node's edges as the inspector lists them: outgoing, then incoming,
    /// each sorted by the other end's name. `(edge, other end, outgoing)`.
    pub fn node_edges(&self) -> Vec<(EdgeIndex, NodeIndex, bool)> {
        let Some(ix) = self.selected.filter(|&ix| self.tk.graph.contains_node(ix)) else {
            return Vec::new();
        };
        let by_name = |a: &(EdgeIndex, NodeIndex, bool), b: &(EdgeIndex, NodeIndex, bool)| {
            natural_cmp(self.tk.name(a.1), self.tk.name(b.1))
        };
        let mut out: Vec<_> = self.tk.out_edges(ix).map(|(e, v)| (e, v, true)).collect();
        out.sort_by(by_name);
        let mut inc: Vec<_> = self.tk.in_edges(ix).map(|(e, v)| (e, v, false)).collect();
        inc.sort_by(by_name);
        out.extend(inc);
        out
    }

    /// The edge under the inspector's cursor (what an edge editor acts on).
    pub fn selected_edge(&self) -> Option<EdgeIndex> {
        self.node_edges().get(self.edge_cursor).map(|e| e.0)
    }

    /// Total (tools + groups) and recommended counts, for the parameter bar.
    pub fn counts(&self) -> Counts {
        let (actions, tools, groups) = self.tk.counts();
        Counts {
            actions: (self.rec.actions.len(), actions),
            tools: (self.rec.tools.len(), tools + groups),
            offered: self
                .insight
                .filters_on
                .then_some(self.insight.offered.len()),
        }
    }

    pub fn set_status(&mut self, level: Level, text: impl Into<String>) {
        let s = Status {
            text: text.into(),
            level,
        };
        self.log.push(&s);
        self.status = Some(s);
    }
}

/// A status line summing up load diagnostics (`toolscope lint` lists them).
fn diagnostics_status(diags: &[toolscope_core::diag::Diagnostic]) -> Option<Status> {
    use toolscope_core::diag::Severity;
    let errors = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    if errors + warnings == 0 {
        return None;
    }
    Some(Status {
        text: format!(
            "{errors} error(s), {warnings} warning(s) while loading; see `toolscope lint` or :diagnostics"
        ),
        level: if errors > 0 {
            Level::Error
        } else {
            Level::Info
        },
    })
}

/// A centred offset kept inside the drawing: 0 when the drawing fits the view.
fn clamp_axis(want: i32, extent: i32, view: i32) -> i32 {
    if extent <= view {
        0
    } else {
        want.clamp(0, extent - view)
    }
}

/// Recommended of total, for actions and for tools (groups counted as tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub actions: (usize, usize),
    pub tools: (usize, usize),
    /// Tools offered after the filters stage, when it is on.
    pub offered: Option<usize>,
}

/// Nodes within `radius` edges of `centre`, edges taken in either direction.
pub fn neighbourhood_mask(tk: &Toolkit, centre: NodeIndex, radius: u32) -> Vec<bool> {
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
