//! The one vocabulary of the TUI: what a pane's handler asks the shell to do. A handler
//! takes its own state and the read-only [`Ctx`](crate::tui::ctx::Ctx) and returns
//! [`Action`]s; `update` applies them in order (`update::apply`) and marks the
//! recommendation stale where they change what it is computed from, so it is computed once
//! before the screen is drawn (`ensure_fresh` in `app.rs`).
//!
//! The per-pane enums are nested in [`Action`]; what every pane may say (a status line, a
//! message for the log, "recompute") is said once, at the top. This file names only core
//! types, so every pane can name it and it names no pane back.

use petgraph::stable_graph::NodeIndex;
use toolscope_core::edit::Edit;
use toolscope_core::session::{Level, Status};
use toolscope_core::workspace::Workspace;

/// What should happen after a handler, in order.
#[derive(Debug)]
pub enum Action {
    /// A status line (also kept in the message log).
    Status(Level, String),
    /// An entry of the messages (`M`) only.
    Log(Status),
    /// The recommendation and everything derived from it are out of date.
    Stale,
    Params(ParamsAction),
    Graph(GraphAction),
    Navigator(NavigatorAction),
    Evidence(EvidenceAction),
    Insight(InsightAction),
    Replay(ReplayAction),
}

impl Action {
    /// An informational status line.
    pub fn info(text: String) -> Action {
        Action::Status(Level::Info, text)
    }

    /// An error in the status line.
    pub fn error(text: String) -> Action {
        Action::Status(Level::Error, text)
    }
}

/// The recommendation's parameters (`params`): each change marks the recommendation stale.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamsAction {
    Threshold(f64),
    Hops(u32),
    /// The seeds are these now, chosen by hand (no operator's own).
    Seeds(Vec<NodeIndex>),
    /// Make operator `index` active (committing the parameters changed for the one left);
    /// `announce`: then say its name.
    Operator {
        index: usize,
        announce: bool,
    },
}

/// The graph pane's views (`graph_pane`): each is applied to the pane with the scene it
/// draws (`App::with_graph`), so the pane's commands need not reach the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphAction {
    /// The focus view / the whole graph.
    FocusView,
    /// Hide or show the side panes.
    SidePanes,
    /// Fit the focus view to the whole recommendation again.
    Refit,
    /// Go to the nodes beyond the pane's edge, then back.
    ShowMore,
    /// Show or hide edge scores, keeping the selection centred.
    ToggleScores,
    /// Detailed / compact / fit, keeping the selection centred.
    CycleZoom,
    /// The neighbourhood view of the selection, on or off.
    Neighbourhood,
    /// The neighbourhood's radius by this many hops (kept within 1 to 50).
    Radius(i32),
    /// Move the viewport by these many cells.
    Pan(i32, i32),
}

/// The lists (`navigator`, and the inspector's edge cursor the same keys move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavigatorAction {
    /// Move the inspector's edge cursor by this many edges.
    EdgeStep(isize),
    /// Scroll the inspector (or the diff panel in its place).
    Scroll(i64),
    /// Select a node, then centre the graph on it (`centre`) or only bring it into view.
    Select { node: NodeIndex, centre: bool },
    /// Centre the graph on the selection.
    Centre,
    /// Make operator `i` active.
    Operator(usize),
    /// The inspector: show the whole description, or fold it to its first lines again.
    ToggleFold,
}

/// The evidence panel (`evidence_panel`).
#[derive(Debug)]
pub enum EvidenceAction {
    /// The panel was opened: the diff panel closes, the evidence is evaluated, and the
    /// right-hand pane comes back where it was hidden.
    PanelOpened,
    /// A fit's workspace replaces the session's, shown as an outcome that changed the graph.
    Fitted { ws: Box<Workspace>, said: String },
}

/// The insight features (`insight`).
#[derive(Debug, Clone, PartialEq)]
pub enum InsightAction {
    /// Show the diff panel in the right-hand pane, closing the evidence panel there and
    /// bringing the pane back where it was hidden.
    OpenDiffPanel,
    /// Only mark the diff panel shown or not.
    DiffPanel(bool),
    /// Open the prompt preview at its top.
    Preview,
    /// Enable or disable a tool: the registry's `enabled` edit when a file is editable,
    /// else in memory.
    Enable { tool: NodeIndex, enabled: bool },
    /// `:export FORMAT FILE` (`force`: replacing FILE if it exists, never an input): checked,
    /// then written on a thread (a line when done); a refusal goes to the status line.
    Export { arg: String, force: bool },
}

/// The replay (`replay`).
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayAction {
    /// Show a step: make `operator` active (when named and not active), the seeds the
    /// step's, and select `select`.
    Show {
        operator: Option<String>,
        seeds: Vec<NodeIndex>,
        select: Option<NodeIndex>,
    },
    /// Apply the edits as one undoable step, then take these parameters.
    Apply {
        edits: Vec<Edit>,
        threshold: Option<f64>,
        hops: Option<u32>,
        what: String,
    },
    /// Send a play tick of this generation after the replay's pace.
    Tick(u64),
    /// The replay's panel (in the inspector's place) must be seen: where the focus view or
    /// `m` hid the right-hand pane, bring it back and say so.
    ShowPanel,
    /// The replay ended: the operator's own seeds come back.
    Leave,
}
