//! The one read-only context every pane's handlers (and, in time, its drawing) read: the
//! toolkit, the recommendation, the parameters, seeds and selection, the theme and size,
//! and what the shell holds for them (the workspace, the files, the loaded records, the
//! loop's channel). `app.rs` builds it; a pane never sees the app, only its own state and
//! this, and says what should change as [`Action`](crate::tui::action::Action)s.
//!
//! It names no pane, so every pane can name it.

use std::sync::Arc;
use std::sync::mpsc::Sender;

use petgraph::stable_graph::NodeIndex;
use toolscope_core::evidence::Record;
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{Params, Recommendation};
use toolscope_core::session::Opened;
use toolscope_core::workspace::Workspace;

use crate::tui::msg::Msg;
use crate::tui::panes::{ActivePane, Panes, Split};
use crate::tui::theme::Theme;

/// What the panes read of the rest of the app.
pub struct Ctx<'a> {
    pub tk: &'a Arc<Toolkit>,
    pub rec: &'a Recommendation,
    pub params: Params,
    pub seeds: &'a [NodeIndex],
    pub selected: Option<NodeIndex>,
    /// The active operator's index in `tk.operators`.
    pub operator: Option<usize>,
    pub theme: &'a Theme,
    /// Terminal size in cells.
    pub size: (u16, u16),
    /// Which side panes are shown.
    pub split: Split,
    pub active: ActivePane,
    /// The diff panel is in the inspector's place.
    pub diff_panel: bool,
    /// The other end of the edge under the inspector's cursor (asked for only while the
    /// inspector is the active pane).
    pub edge_target: Option<NodeIndex>,
    /// The editing session's workspace (`None`: nothing is editable).
    pub ws: Option<&'a Workspace>,
    pub files: &'a [Opened],
    /// The loaded trace records (shared with the replay's jobs on their threads).
    pub records: &'a Arc<Vec<Record>>,
    /// The loop's channel for background jobs (`None` in tests without a loop).
    pub tx: Option<&'a Sender<Msg>>,
}

impl<'a> Ctx<'a> {
    /// The active operator's name.
    pub fn operator_name(&self) -> Option<&'a str> {
        let tk: &'a Toolkit = self.tk;
        self.operator
            .and_then(|i| tk.operators.get(i))
            .map(|o| o.name.as_str())
    }

    pub fn is_seed(&self, ix: NodeIndex) -> bool {
        self.seeds.contains(&ix)
    }

    /// A file is open for editing.
    pub fn editable(&self) -> bool {
        self.ws.is_some()
    }

    /// The right-hand pane (inspector, diff, evidence or replay panel) is hidden.
    pub fn right_hidden(&self) -> bool {
        self.split.hide_inspector
    }

    /// Rows of the navigator's list.
    pub fn nav_height(&self) -> usize {
        Panes::new(self.size, self.split).nav_inner().height as usize
    }
}
