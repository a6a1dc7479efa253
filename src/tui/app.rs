//! The application state. The app owns its data (toolkit, files, layout), so a reload can
//! swap them in place and keep the user's context (seeds, parameters, selection, viewport).

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use std::sync::Arc;
use toolscope_core::layout::Layout;
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{Params, Recommendation, recommend, resolve_seeds};
use toolscope_core::source::Loaded;

use super::theme::Theme;
use crate::tui::navigator::{Navigator, natural_cmp};

pub use super::panes::ActivePane;

pub use crate::tui::graph_pane::{GraphPane, Neighbourhood, Viewport, Zoom};
use crate::tui::graph_pane::{Scene, Show, Step};

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
    Dialog(Box<crate::tui::update::editing::dialog::Dialog>),
    Prompt {
        kind: PromptKind,
        text: crate::tui::field::Field,
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
    /// The command the keymap or the `:` line is running (a view step's key, see
    /// `params::shell::recorded`).
    pub running: &'static str,
    pub rec: Recommendation,
    /// What `rec` (and the insight, evidence, replay cut and focus view derived from it) is
    /// computed from changed since it was computed: [`App::ensure_fresh`] computes it.
    stale: bool,
    /// The whole-graph layout, computed on a thread when the app runs in a terminal.
    layout: crate::tui::graph_pane::whole::WholeLayout,
    pub selected: Option<NodeIndex>,
    pub active_pane: ActivePane,
    pub overlay: Option<Overlay>,
    pub nav: Navigator,
    /// The inspector's scroll and edge cursor.
    pub inspector: crate::tui::inspector::state::InspectorPane,
    /// First line of the help overlay shown (j/k scroll it on small terminals).
    pub help_scroll: u16,
    pub status: Option<Status>,
    /// Terminal size in cells.
    pub size: (u16, u16),
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
    /// The graph pane: its view, zoom, viewport (see [`crate::tui::graph_pane`]).
    pub graph_pane: GraphPane,
    pub quit: bool,
    /// Context a reload left out, restored by name when it comes back.
    pub kept: Kept,
    /// Every message of the session, whole (`:messages`, `M`).
    pub log: Log,
    /// Loaded traces and their evaluation (see `tui::evidence`).
    pub evidence: crate::tui::evidence_panel::EvidencePane,
    /// A `:mcp discover` running on a background thread, and its stop switch.
    pub mcp: crate::tui::mcp_discovery::state::Discovery,
    /// What reading the files found (lint's load diagnostics), for `:diagnostics`.
    pub load_diagnostics: Vec<toolscope_core::diag::Diagnostic>,
    /// Runs on the graph: a step, a replayed record, tuning from a miss.
    pub replay: crate::tui::replay::ReplayPane,
}

impl App {
    /// A new app on a loaded toolkit; the navigator's first operator (by name), if any, is
    /// active.
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
            running: "",
            rec: Recommendation::default(),
            stale: true,
            layout,
            selected: None,
            active_pane: ActivePane::Graph,
            overlay: None,
            nav: Navigator::default(),
            inspector: Default::default(),
            help_scroll: 0,
            status: None,
            size,
            session: toolscope_core::session::Session::default(),
            link_from: None,
            marks: Default::default(),
            tx: None,
            farewell: None,
            insight: Default::default(),
            diff_panel: false,
            graph_pane: GraphPane::default(),
            quit: false,
            kept: Default::default(),
            log: Log::default(),
            evidence: Default::default(),
            mcp: Default::default(),
            load_diagnostics: shown.diagnostics.to_vec(),
            replay: Default::default(),
        };
        app.layout.refresh(&app.tk);
        if let Some(first) = crate::tui::navigator::first_operator(&app.tk) {
            app.activate_operator(first);
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
        app.ensure_fresh();
        if let (None, Some(s)) = (&app.status, status) {
            app.set_status(s.level, s.text);
        }
        app
    }

    /// An app over an editing session: the workspace's toolkit, files and diagnostics.
    pub fn with_workspace(
        ws: toolscope_core::workspace::Workspace,
        source: String,
        theme: Theme,
        size: (u16, u16),
    ) -> App {
        App::with_workspace_in(ws, source, theme, size, Default::default())
    }

    /// As [`App::with_workspace`], with the whole-graph layout computed as `layout` does.
    pub fn with_workspace_in(
        ws: toolscope_core::workspace::Workspace,
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
    pub fn dialog(&self) -> Option<&crate::tui::update::editing::dialog::Dialog> {
        match &self.overlay {
            Some(Overlay::Dialog(d)) => Some(d),
            _ => None,
        }
    }

    /// The layout being drawn (see [`GraphPane::layout`]).
    pub fn layout(&self) -> &Layout {
        self.graph_pane.layout(self.layout.current())
    }

    /// What every pane reads (see [`Ctx`](crate::tui::ctx::Ctx)). A handler that changes
    /// its pane takes the pane out of the app first (`update::with`), so the context
    /// reads the rest.
    pub fn ctx(&self) -> crate::tui::ctx::Ctx<'_> {
        crate::tui::ctx::Ctx {
            tk: &self.tk,
            rec: &self.rec,
            params: self.session.params,
            seeds: &self.seeds,
            selected: self.selected,
            operator: self.operator,
            theme: &self.theme,
            size: self.size,
            split: self.layout_hint(),
            active: self.active_pane,
            diff_panel: self.diff_panel,
            // Sorting the inspector's edges is left to the lists' keys, which read it.
            edge_target: None,
            ws: self.session.ws.as_ref(),
            files: &self.files,
            records: self.evidence.shared_records(),
            tx: self.tx.as_ref(),
        }
    }

    /// The other end of the edge under the inspector's cursor.
    pub fn selected_edge_target(&self) -> Option<NodeIndex> {
        self.node_edges()
            .get(self.inspector.edge_cursor())
            .map(|e| e.1)
    }

    /// What the graph pane reads of the rest of the app.
    fn scene(&self) -> Scene<'_> {
        Scene {
            tk: &self.tk,
            seeds: &self.seeds,
            rec: &self.rec,
            operator: self.operator,
            threshold: self.session.params.threshold,
            hops: self.session.params.hops,
            called: self.replay.called_node(&self.seeds),
            step: self.replay.shown(&self.seeds),
            size: self.size,
            whole: self.layout.current(),
            pending: self.layout.pending(),
            selected: self.selected,
            ascii: self.theme.ascii,
        }
    }

    /// Runs a graph pane handler on the scene, then applies the step it returns.
    pub fn with_graph(&mut self, f: impl FnOnce(&mut GraphPane, &Scene<'_>) -> Step) {
        self.ensure_fresh();
        let mut pane = std::mem::take(&mut self.graph_pane);
        let step = f(&mut pane, &self.scene());
        self.graph_pane = pane;
        self.apply(step);
    }

    /// What a graph pane handler asked for: the active pane stays a shown one, a message,
    /// the selection brought into view.
    fn apply(&mut self, step: Step) {
        if let Some(now) = step.panes {
            let hidden = match self.active_pane {
                ActivePane::Navigator => now.hide_nav,
                ActivePane::Inspector => now.hide_inspector,
                ActivePane::Graph => false,
            };
            if hidden {
                self.active_pane = ActivePane::Graph;
            }
        }
        if let Some(text) = step.say {
            self.set_status(Level::Info, text);
        }
        match step.show {
            Some(Show::Centre) => self.centre_on_selection(),
            Some(Show::IfHidden) => self.ensure_selection_visible(),
            None => {}
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
            let progress = self
                .status
                .as_ref()
                .is_some_and(|s| s.text.starts_with("laying out"));
            self.with_graph(|g, s| g.whole_ready(s, progress));
        }
    }

    /// Cell geometry of the layout being drawn (see [`GraphPane::geometry`]).
    pub fn geometry(&self) -> crate::tui::graph_pane::geometry::Geometry {
        self.graph_pane.geometry(self.layout.current())
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
        self.graph_pane.hit(&self.tk, self.layout.current(), x, y)
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
            centre: self.graph_pane.neighbourhood.as_ref().map(|n| n.centre),
        };
        let carried = self.kept.carry(&old, &self.tk, &now);
        let ctx = carried.context;
        (self.seeds, self.operator, self.selected) = (ctx.seeds, ctx.operator, ctx.selected);
        match (ctx.centre, self.graph_pane.neighbourhood.as_mut()) {
            (Some(c), Some(n)) => n.centre = c,
            _ => self.graph_pane.neighbourhood = None,
        }
        self.nav.rebuild(&self.tk);
        if let Some(ix) = self.selected {
            self.nav.point_at(ix);
        }
        self.refresh_layout();
        self.mark_stale();
        carried.dropped
    }

    /// Re-lays out if (and only if) the structure changed; call after loads and edits.
    pub fn refresh_layout(&mut self) {
        self.layout.refresh(&self.tk);
        let centre = self.graph_pane.neighbourhood.as_ref().map(|n| n.centre);
        self.with_graph(|g, s| g.recentre(s.tk, centre));
    }

    /// The recommendation's inputs (toolkit, seeds, parameters, operator, traces) changed:
    /// it is computed again before it is next read ([`App::ensure_fresh`]), once however
    /// many changes a message makes.
    pub fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Computes what the next frame reads but the draw does not compute: the recommendation
    /// if stale, then the routes of the graph pane's window, kept by their input. Call after
    /// the updates, before each draw.
    pub fn prepare_draw(&mut self) {
        self.ensure_fresh();
        use crate::tui::{
            graph_pane::geometry::WRect, graph_pane::window_routes::Window, panes::Panes,
        };
        if self.graph_pane.focus_routes().is_some() {
            return; // the focus view draws its own routes
        }
        let inner = Panes::new(self.size, self.layout_hint()).graph_inner();
        let view = WRect {
            x: self.graph_pane.viewport.x,
            y: self.graph_pane.viewport.y,
            w: i32::from(inner.width),
            h: i32::from(inner.height),
        };
        let (geo, mut memo) = (self.geometry(), std::mem::take(&mut self.graph_pane.memo));
        let (tk, layout, focus) = (&self.tk, self.layout(), self.graph_pane.shows_focus());
        memo.prepare(&Window {
            tk,
            layout,
            geo: &geo,
            focus,
            view,
        });
        self.graph_pane.memo = memo;
    }

    /// Computes the recommendation and what derives from it if its inputs changed since.
    /// Called at the end of each message (`update::update`, `update::flush`), so the
    /// screen and a test reading `rec` after `update` see fresh results, and by the app's
    /// own moves that read the laid-out graph (selecting, centring, a graph pane handler),
    /// so they see what the change laid out.
    pub fn ensure_fresh(&mut self) {
        if std::mem::take(&mut self.stale) {
            self.recompute();
        }
    }

    /// Runs the recommendation for the current seeds and parameters (only through
    /// [`App::ensure_fresh`]).
    fn recompute(&mut self) {
        self.rec = recommend(&self.tk, &self.seeds, self.session.params);
        // The replay's walk follows the graph and the parameters, and a replayed step's
        // recommendation is cut to what its run had. Built here, not by the replay's shell,
        // so the app calls no function that takes the app (no import circle).
        // The replay reads the context, not the recommendation it cuts (taken out meanwhile).
        let mut rec = std::mem::take(&mut self.rec);
        let mut replay = std::mem::take(&mut self.replay);
        replay.refresh(&self.ctx(), &self.seeds, &mut rec);
        (self.rec, self.replay) = (rec, replay);
        // The insight and the evidence do not read the focus view, nor it them: they are
        // brought up to date on the second core while the focus view is laid out (at 10k
        // actions each is a few milliseconds of a replay step's key).
        let mut pane = std::mem::take(&mut self.graph_pane);
        let mut insight = std::mem::take(&mut self.insight);
        let mut evidence = std::mem::take(&mut self.evidence);
        let (side, scene) = (self.side(), self.scene());
        let step = std::thread::scope(|sc| {
            let other = sc.spawn(|| side.refresh(&mut insight, &mut evidence));
            let step = pane.sync(&scene);
            if let Err(panic) = other.join() {
                std::panic::resume_unwind(panic);
            }
            step
        });
        (self.graph_pane, self.insight, self.evidence) = (pane, insight, evidence);
        self.apply(step);
    }

    /// What the insight and the evidence are brought up to date from.
    fn side(&self) -> Side<'_> {
        Side {
            tk: &self.tk,
            seeds: &self.seeds,
            params: self.session.params,
            rec: &self.rec,
            selected: self.selected,
            operator: evaluated_operator(&self.tk, self.operator, self.seeds_edited),
        }
    }

    /// Evaluates the loaded traces for the active operator (or seeds) at the current
    /// parameters, and counts the offer's tokens; nothing until traces or tokens are asked for.
    pub fn refresh_evidence(&mut self) {
        let mut evidence = std::mem::take(&mut self.evidence);
        self.side().evidence(&self.insight, &mut evidence);
        self.evidence = evidence;
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
        self.mark_stale();
    }

    pub fn is_seed(&self, ix: NodeIndex) -> bool {
        self.seeds.contains(&ix)
    }

    /// Selects a node (inspector follows; the neighbourhood view re-centres).
    pub fn select(&mut self, ix: NodeIndex) {
        if !self.tk.graph.contains_node(ix) {
            return;
        }
        self.ensure_fresh();
        self.selected = Some(ix);
        self.insight
            .reselect(&self.tk, &self.seeds, self.session.params, self.selected);
        self.inspector.reset();
        self.nav.point_at(ix);
        let h = super::panes::Panes::new(self.size, self.layout_hint())
            .nav_inner()
            .height;
        self.nav.scroll_to_cursor(usize::from(h));
        let step = self.graph_pane.selected(&self.tk, ix);
        self.apply(step);
    }

    /// Opens (or re-centres) the neighbourhood view.
    pub fn open_neighbourhood(&mut self, centre: NodeIndex, radius: u32) {
        let step = self.graph_pane.open_neighbourhood(&self.tk, centre, radius);
        self.apply(step);
    }

    /// Changes a view setting while keeping the selection at the same place on screen.
    pub fn keeping_centre(&mut self, f: impl FnOnce(&mut App)) {
        f(self);
        self.centre_on_selection();
    }

    /// Centres the graph viewport on the selected node.
    pub fn centre_on_selection(&mut self) {
        self.ensure_fresh();
        let Some(ix) = self.selected else { return };
        let mut pane = std::mem::take(&mut self.graph_pane);
        pane.centre_on(&self.scene(), ix);
        self.graph_pane = pane;
    }

    /// Centres only when the selected node is not fully visible.
    pub fn ensure_selection_visible(&mut self) {
        self.ensure_fresh();
        let Some(ix) = self.selected else { return };
        let mut pane = std::mem::take(&mut self.graph_pane);
        pane.ensure_visible(&self.scene(), ix);
        self.graph_pane = pane;
    }

    /// Which side panes are shown: the user's choice (`m`), else what the focus view needed.
    pub fn layout_hint(&self) -> super::panes::Split {
        self.graph_pane.split()
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
        self.node_edges()
            .get(self.inspector.edge_cursor())
            .map(|e| e.0)
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
    let level = if errors > 0 {
        Level::Error
    } else {
        Level::Info
    };
    // A file that holds no toolkit is said whole: what a toolkit needs.
    if let Some(d) = diags
        .iter()
        .find(|d| d.code == toolscope_core::diag::Code::NoToolkit && d.severity == Severity::Error)
    {
        return Some(Status {
            text: format!("{}: {} {}", d.file, d.code.as_str(), d.message),
            level,
        });
    }
    Some(Status {
        text: format!(
            "{errors} error(s), {warnings} warning(s) while loading; see `toolscope lint` or :diagnostics"
        ),
        level,
    })
}

/// Recommended of total, for actions and for tools (groups counted as tools).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub actions: (usize, usize),
    pub tools: (usize, usize),
    /// Tools offered after the filters stage, when it is on.
    pub offered: Option<usize>,
}

/// The operator whose runs the evidence evaluates: the active one while its seeds are its
/// own (`None`: the seeds were edited, and the traces are evaluated from them).
fn evaluated_operator(tk: &Toolkit, operator: Option<usize>, edited: bool) -> Option<&str> {
    match operator.and_then(|i| tk.operators.get(i)) {
        Some(op) if !edited => Some(op.name.as_str()),
        _ => None,
    }
}

/// What the insight and the evidence are brought up to date from, apart from the rest of
/// the app (so [`App::recompute`] can run them beside the focus view's layout).
struct Side<'a> {
    tk: &'a Toolkit,
    seeds: &'a [NodeIndex],
    params: Params,
    rec: &'a Recommendation,
    selected: Option<NodeIndex>,
    operator: Option<&'a str>,
}

impl Side<'_> {
    fn refresh(
        &self,
        insight: &mut crate::tui::insight::InsightState,
        evidence: &mut crate::tui::evidence_panel::EvidencePane,
    ) {
        insight.refresh(self.tk, self.seeds, self.params, self.rec, self.selected);
        self.evidence(insight, evidence);
    }

    fn evidence(
        &self,
        insight: &crate::tui::insight::InsightState,
        evidence: &mut crate::tui::evidence_panel::EvidencePane,
    ) {
        let active = crate::tui::evidence_panel::Active {
            tk: self.tk,
            operator: self.operator,
            seeds: self.seeds,
            params: self.params,
            offer: insight.shown_tools(self.rec),
            filters: insight.filters_on.then(|| insight.filters.clone()),
        };
        evidence.refresh(&active);
    }
}
