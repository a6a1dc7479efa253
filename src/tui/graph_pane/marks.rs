//! What a reload changed, marked on the graph for a moment: nodes whose description or
//! edges changed show `~`, added or rescored edges show their score as `~0.35`, until a
//! timer message ([`Msg::MarksExpired`]) clears them. No redraw on a timer.

use std::collections::HashSet;
use std::sync::mpsc::Sender;
use std::time::Duration;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use toolscope_core::session::Changes;

use crate::tui::msg::Msg;

/// How long nodes changed by a reload stay marked.
pub const MARK_FOR: Duration = Duration::from_secs(2);

/// The marks of the last reload (indices into the shown toolkit).
#[derive(Debug, Default)]
pub struct Marks {
    pub nodes: HashSet<NodeIndex>,
    pub edges: HashSet<EdgeIndex>,
    generation: u64,
}

impl Marks {
    /// Marks what a reload changed and, with a channel, schedules the end of the marks.
    pub fn mark(&mut self, changes: Changes, tx: Option<&Sender<Msg>>) {
        self.nodes = changes.nodes;
        self.edges = changes.edges;
        self.generation += 1;
        if self.nodes.is_empty() {
            return;
        }
        if let Some(tx) = tx.cloned() {
            let generation = self.generation;
            std::thread::spawn(move || {
                std::thread::sleep(MARK_FOR);
                let _ = tx.send(Msg::MarksExpired(generation));
            });
        }
    }

    /// Clears the marks of reload `generation` (a newer reload keeps its own).
    pub fn expire(&mut self, generation: u64) {
        if self.generation == generation {
            self.nodes.clear();
            self.edges.clear();
        }
    }
}
