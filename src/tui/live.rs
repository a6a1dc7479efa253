//! Live reload: watcher events are collected as they arrive ([`Live::queue`]) and handled once per
//! batch of messages (`Session::flush`, called by the loop before drawing), so a write storm
//! reloads once per batch rather than once per event.
//!
//! - A changed file with unsaved edits whose content differs from what was loaded opens the
//!   conflict question (reload / reapply / keep mine); nothing is reloaded behind the user.
//! - Otherwise the workspace reloads (reapplying edits still pending in other files); a
//!   file that fails to parse leaves the last good graph and shows file:line:column; the
//!   next change event retries, so fixing the file recovers by itself.
//! - A file appearing in an opened directory (or a `Rescan`) re-opens the opened paths.
//! - Nodes whose description or edges changed are marked `~`, and added or rescored edges
//!   show their score as `~0.35`, until a timer message
//!   ([`Msg::MarksExpired`]) clears them: no redraw on a timer.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use toolscope_core::model::{NodeKind, Toolkit};
use toolscope_core::source::Format;
use toolscope_core::watch::{WatchEvent, Watcher};

use super::msg::Msg;
use super::status::Status;

/// How long nodes changed by a reload stay marked.
pub const MARK_FOR: Duration = Duration::from_secs(2);

/// Watch state of the session.
#[derive(Default)]
pub struct Live {
    watcher: Option<Watcher>,
    tx: Option<Sender<Msg>>,
    /// The paths the user opened (re-listed when a new file appears in a directory).
    opened: Vec<PathBuf>,
    forced: Option<Format>,
    changed: BTreeSet<PathBuf>,
    rescan: bool,
    /// Nodes changed by the last reload (indices into `App.tk`).
    pub marked: HashSet<NodeIndex>,
    /// Edges added or rescored by the last reload.
    pub marked_edges: HashSet<EdgeIndex>,
    generation: u64,
    /// Reloads done from watcher events (tests count them to see own saves ignored).
    pub reloads: u64,
}

impl Live {
    /// Announces bytes about to be written, so the save does not come back as a reload.
    pub fn expect_own_write(&self, path: &Path, bytes: &[u8]) {
        if let Some(w) = &self.watcher {
            w.expect_own_write(path, bytes);
        }
    }

    pub fn forget_own_write(&self, path: &Path) {
        if let Some(w) = &self.watcher {
            w.forget_own_write(path);
        }
    }

    /// Starts watching a newly written file (`:w FILE`), starting the watcher if needed.
    pub fn watch(&mut self, path: &Path) {
        self.opened = vec![path.to_path_buf()];
        if let Some(w) = &self.watcher {
            let _ = w.watch(path);
        } else if let Some(tx) = self.tx.clone() {
            self.watcher = start_watcher(&self.opened, tx).ok();
        }
    }

    pub fn is_watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// The app's message channel, for background jobs (`:mcp discover`).
    pub fn sender(&self) -> Option<Sender<Msg>> {
        self.tx.clone()
    }

    /// The paths the user opened.
    pub fn opened(&self) -> &[PathBuf] {
        &self.opened
    }

    /// Marks what a reload changed and schedules the end of the marks.
    pub fn mark(&mut self, changes: Changes) {
        self.marked = changes.nodes;
        self.marked_edges = changes.edges;
        self.generation += 1;
        if self.marked.is_empty() {
            return;
        }
        if let Some(tx) = self.tx.clone() {
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
            self.marked.clear();
            self.marked_edges.clear();
        }
    }

    /// Records a watcher event; `Session::flush` acts on it.
    pub fn queue(&mut self, ev: WatchEvent) -> Option<Status> {
        match ev {
            // A changed MCP cache reloads the toolkit file it belongs to.
            WatchEvent::Changed(paths) => self.changed.extend(
                paths
                    .into_iter()
                    .map(|p| toolscope_core::source::mcp_cache::config_of(&p).unwrap_or(p)),
            ),
            WatchEvent::Rescan => self.rescan = true,
            WatchEvent::Error(e) => return Some(Status::error(format!("watching: {e}"))),
        }
        None
    }
}

fn start_watcher(paths: &[PathBuf], tx: Sender<Msg>) -> Result<Watcher, String> {
    Watcher::new(paths, move |ev| {
        let _ = tx.send(Msg::Watch(ev));
    })
    .map_err(|e| format!("not watching {}: {}", e.path.display(), e.message))
}

impl Live {
    /// Connects to the message channel and, when files are open, watches them. Returns
    /// why watching failed, if it did.
    pub fn start(
        &mut self,
        tx: Sender<Msg>,
        opened: &[PathBuf],
        forced: Option<Format>,
    ) -> Option<Status> {
        self.opened = opened.to_vec();
        self.forced = forced;
        self.tx = Some(tx.clone());
        if opened.is_empty() {
            return None;
        }
        match start_watcher(opened, tx) {
            Ok(w) => {
                watch_mcp_caches(&w, opened);
                self.watcher = Some(w);
                None
            }
            Err(e) => Some(Status::error(e)),
        }
    }

    /// The changed paths and whether to rescan, queued since the last call.
    pub fn take_queued(&mut self) -> (BTreeSet<PathBuf>, bool) {
        (
            std::mem::take(&mut self.changed),
            std::mem::take(&mut self.rescan),
        )
    }

    /// The forced input format of the opened paths.
    pub fn forced(&self) -> Option<Format> {
        self.forced
    }
}

/// Watches each toolkit file's MCP cache (`FILE.mcp.json`, which need not exist yet), so
/// that a discovery run elsewhere shows up like an edit of the file.
fn watch_mcp_caches(w: &Watcher, opened: &[PathBuf]) {
    for file in toolscope_core::source::expand_paths(opened).unwrap_or_default() {
        let _ = w.watch(&toolscope_core::source::mcp_cache::sidecar_path(&file));
    }
}

/// A node's outgoing edges as `(target kind, target name, score bits)`, sorted.
fn out_edges(tk: &Toolkit, u: NodeIndex) -> Vec<(NodeKind, &str, u64)> {
    let mut v: Vec<_> = tk
        .out_edges(u)
        .map(|(e, t)| (tk.kind(t), tk.name(t), tk.graph[e].score.to_bits()))
        .collect();
    v.sort_unstable();
    v
}

/// Whether `u` in `a` and `v` in `b` have the same outgoing edges in the same order.
fn same_out_edges(a: &Toolkit, u: NodeIndex, b: &Toolkit, v: NodeIndex) -> bool {
    let row =
        |tk: &Toolkit, (e, t): (EdgeIndex, NodeIndex)| (tk.kind(t), tk.graph[e].score.to_bits(), t);
    let mut left = a.out_edges(u).map(|r| row(a, r));
    let mut right = b.out_edges(v).map(|r| row(b, r));
    loop {
        match (left.next(), right.next()) {
            (None, None) => return true,
            (Some((k1, s1, t1)), Some((k2, s2, t2)))
                if k1 == k2 && s1 == s2 && a.name(t1) == b.name(t2) => {}
            _ => return false,
        }
    }
}

/// What a reload changed, as indices into the new graph.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Changes {
    /// New nodes, nodes with another description, and both ends of an added, removed or
    /// rescored edge.
    pub nodes: HashSet<NodeIndex>,
    /// Added or rescored edges (a removed edge shows through its marked ends).
    pub edges: HashSet<EdgeIndex>,
}

/// Compares two graphs by node kind and name, edges as sorted lists: no per-node string
/// copies, since this runs on every reload (10k actions: about 15 ms).
pub fn changed(old: &Toolkit, new: &Toolkit) -> Changes {
    let mut out = Changes::default();
    for ix in new.graph.node_indices() {
        let Some(was) = old.find(new.kind(ix), new.name(ix)) else {
            out.nodes.insert(ix);
            out.edges.extend(new.out_edges(ix).map(|(e, _)| e));
            continue;
        };
        if old.node(was).desc != new.node(ix).desc {
            out.nodes.insert(ix);
        }
        // A reload builds the graph in file order, so unchanged edges usually come in the
        // same order: compared in place first, without building and sorting two lists.
        if same_out_edges(old, was, new, ix) {
            continue;
        }
        let (before, after) = (out_edges(old, was), out_edges(new, ix));
        if before == after {
            continue;
        }
        out.nodes.insert(ix);
        for &(kind, name, _) in before.iter().filter(|e| !after.contains(e)) {
            out.nodes.extend(new.find(kind, name));
        }
        for (e, t) in new.out_edges(ix) {
            let row = (new.kind(t), new.name(t), new.graph[e].score.to_bits());
            if !before.contains(&row) {
                out.nodes.insert(t);
                out.edges.insert(e);
            }
        }
    }
    out
}
