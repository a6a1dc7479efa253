//! Live reload: watcher events are collected as they arrive ([`Live::queue`]) and handled once per
//! batch of messages ([`Session::flush`], called by the loop before drawing), so a write storm
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

use crate::edit::Workspace;
use crate::model::{NodeKind, Toolkit};
use crate::source::Format;
use crate::watch::{WatchEvent, Watcher};

use super::dialog::Dialog;
use super::msg::Msg;
use super::session::{Changed, Outcome, Session};
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

    /// Records a watcher event; [`Session::flush`] acts on it.
    pub fn queue(&mut self, ev: WatchEvent) -> Option<Status> {
        match ev {
            // A changed MCP cache reloads the toolkit file it belongs to.
            WatchEvent::Changed(paths) => self.changed.extend(
                paths
                    .into_iter()
                    .map(|p| crate::source::mcp_cache::config_of(&p).unwrap_or(p)),
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

/// Connects the session to the message channel and, when files are open, watches them.
/// Returns why watching failed, if it did.
pub fn start(
    session: &mut Session,
    tx: Sender<Msg>,
    opened: &[PathBuf],
    forced: Option<Format>,
) -> Option<Status> {
    let live = &mut session.live;
    live.opened = opened.to_vec();
    live.forced = forced;
    live.tx = Some(tx.clone());
    if opened.is_empty() {
        return None;
    }
    match start_watcher(opened, tx) {
        Ok(w) => {
            watch_mcp_caches(&w, opened);
            live.watcher = Some(w);
            None
        }
        Err(e) => Some(Status::error(e)),
    }
}

/// Watches each toolkit file's MCP cache (`FILE.mcp.json`, which need not exist yet), so
/// that a discovery run elsewhere shows up like an edit of the file.
fn watch_mcp_caches(w: &Watcher, opened: &[PathBuf]) {
    for file in crate::source::expand_paths(opened).unwrap_or_default() {
        let _ = w.watch(&crate::source::mcp_cache::sidecar_path(&file));
    }
}

impl Session {
    /// Handles the changes queued since the last flush.
    pub fn flush(&mut self) -> Outcome {
        let changed = std::mem::take(&mut self.live.changed);
        let rescan = std::mem::take(&mut self.live.rescan);
        if changed.is_empty() && !rescan {
            return Outcome::default();
        }
        let Some(ws) = &self.ws else {
            return Outcome::default();
        };
        let known: Vec<&Path> = ws.files().iter().map(|f| f.source.path.as_path()).collect();
        let appeared = rescan || changed.iter().any(|p| !known.contains(&p.as_path()));
        let touched = |p: &Path| rescan || changed.contains(p);
        let conflicts: Vec<PathBuf> = ws
            .files()
            .iter()
            .filter(|f| f.dirty() && !f.detached && touched(&f.source.path))
            .filter(|f| crate::watch::content_changed(&f.source.path, f.disk.as_bytes()))
            .map(|f| f.source.path.clone())
            .collect();
        if !conflicts.is_empty() || (appeared && ws.is_dirty()) {
            let paths = if conflicts.is_empty() {
                changed.into_iter().collect()
            } else {
                conflicts
            };
            return Outcome::default().with_dialog(Dialog::Conflict { paths });
        }
        if !appeared && !changed.iter().any(|p| known.contains(&p.as_path())) {
            return Outcome::default();
        }
        // An editor that truncates before writing leaves the file empty for a moment; an
        // empty toolkit is almost never what was meant, so keep the last good graph until
        // the write that follows (it always brings another event).
        if let Some(empty) = changed.iter().find(|p| {
            known.contains(&p.as_path()) && std::fs::metadata(p).is_ok_and(|m| m.len() == 0)
        }) {
            return Outcome::error(format!(
                "{} is empty; showing the last good graph",
                empty.display()
            ));
        }
        let result = if appeared {
            self.reopen().map(|()| None)
        } else {
            self.reload_keeping()
        };
        match result {
            Ok(dropped) => {
                self.live.reloads += 1;
                let out = match dropped {
                    Some(d) => Outcome::error(d),
                    None => Outcome::info(format!("reloaded {}", names(&changed))),
                };
                out.changed(Changed::Reloaded)
            }
            Err(e) => Outcome::error(format!("{e} (showing the last good graph)")),
        }
    }

    /// Reloads the workspace's files; edits pending in unchanged files are reapplied.
    /// Returns a message when some no longer apply.
    fn reload_keeping(&mut self) -> Result<Option<String>, String> {
        let Some(ws) = self.ws.as_mut() else {
            return Ok(None);
        };
        if ws.is_dirty() {
            let rep = ws.reapply().map_err(|e| e.to_string())?;
            Ok((!rep.dropped.is_empty()).then(|| format!("{} edit(s) dropped", rep.dropped.len())))
        } else {
            ws.reload().map(|()| None).map_err(|e| e.to_string())
        }
    }

    /// Opens the user's paths again (a file appeared in an opened directory, or the user
    /// chose to drop their edits), or re-reads the files when nothing was opened by path.
    pub fn reopen(&mut self) -> Result<(), String> {
        let live = &self.live;
        if live.opened.is_empty() {
            let ws = self.ws.as_mut().ok_or("editing is off")?;
            return ws.reload().map_err(|e| e.to_string());
        }
        let ws = Workspace::open(&live.opened, live.forced).map_err(|e| e.to_string())?;
        self.ws = Some(ws);
        Ok(())
    }
}

fn names(paths: &BTreeSet<PathBuf>) -> String {
    let v: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    if v.is_empty() {
        "all files".into()
    } else {
        v.join(", ")
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
