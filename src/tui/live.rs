//! Live reload: watcher events are collected as they arrive ([`queue`]) and handled once per
//! batch of messages ([`flush`], called by the loop before drawing), so a write storm
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

use super::app::{App, Level};
use super::edit::Dialog;
use super::msg::Msg;

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
}

fn start_watcher(paths: &[PathBuf], tx: Sender<Msg>) -> Result<Watcher, String> {
    Watcher::new(paths, move |ev| {
        let _ = tx.send(Msg::Watch(ev));
    })
    .map_err(|e| format!("not watching {}: {}", e.path.display(), e.message))
}

/// Connects the app to the message channel and, when files are open, watches them.
pub fn start(app: &mut App, tx: Sender<Msg>, opened: &[PathBuf], forced: Option<Format>) {
    let live = &mut app.session.live;
    live.opened = opened.to_vec();
    live.forced = forced;
    live.tx = Some(tx.clone());
    if opened.is_empty() {
        return;
    }
    match start_watcher(opened, tx) {
        Ok(w) => {
            watch_mcp_caches(&w, opened);
            live.watcher = Some(w);
        }
        Err(e) => app.set_status(Level::Error, e),
    }
}

/// Watches each toolkit file's MCP cache (`FILE.mcp.json`, which need not exist yet), so
/// that a discovery run elsewhere shows up like an edit of the file.
fn watch_mcp_caches(w: &Watcher, opened: &[PathBuf]) {
    for file in crate::source::expand_paths(opened).unwrap_or_default() {
        let _ = w.watch(&crate::source::mcp_cache::sidecar_path(&file));
    }
}

/// Records a watcher event; [`flush`] acts on it.
pub fn queue(app: &mut App, ev: WatchEvent) {
    let live = &mut app.session.live;
    match ev {
        // A changed MCP cache reloads the toolkit file it belongs to.
        WatchEvent::Changed(paths) => live.changed.extend(
            paths
                .into_iter()
                .map(|p| crate::source::mcp_cache::config_of(&p).unwrap_or(p)),
        ),
        WatchEvent::Rescan => live.rescan = true,
        WatchEvent::Error(e) => app.set_status(Level::Error, format!("watching: {e}")),
    }
}

/// Clears the marks of reload `generation` (a newer reload keeps its own).
pub fn expire(app: &mut App, generation: u64) {
    if app.session.live.generation == generation {
        app.session.live.marked.clear();
        app.session.live.marked_edges.clear();
    }
}

/// Handles the changes queued since the last flush.
pub fn flush(app: &mut App) {
    let changed = std::mem::take(&mut app.session.live.changed);
    let rescan = std::mem::take(&mut app.session.live.rescan);
    if changed.is_empty() && !rescan {
        return;
    }
    let Some(ws) = &app.session.ws else { return };
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
        app.session.dialog = Some(Dialog::Conflict { paths });
        app.overlay = Some(super::app::Overlay::Edit);
        return;
    }
    if !appeared && !changed.iter().any(|p| known.contains(&p.as_path())) {
        return;
    }
    // An editor that truncates before writing leaves the file empty for a moment; an empty
    // toolkit is almost never what was meant, so keep the last good graph until the write
    // that follows (it always brings another event).
    if let Some(empty) = changed
        .iter()
        .find(|p| known.contains(&p.as_path()) && std::fs::metadata(p).is_ok_and(|m| m.len() == 0))
    {
        app.set_status(
            Level::Error,
            format!("{} is empty; showing the last good graph", empty.display()),
        );
        return;
    }
    let result = if appeared {
        reopen(app)
    } else {
        reload_keeping(app)
    };
    match result {
        Ok(()) => {
            app.session.live.reloads += 1;
            after_reload(app);
            app.set_status(Level::Info, format!("reloaded {}", names(&changed)));
        }
        Err(e) => app.set_status(Level::Error, format!("{e} (showing the last good graph)")),
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

/// Reloads the workspace's files; edits pending in unchanged files are reapplied.
fn reload_keeping(app: &mut App) -> Result<(), String> {
    let Some(ws) = app.session.ws.as_mut() else {
        return Ok(());
    };
    if ws.is_dirty() {
        let rep = ws.reapply().map_err(|e| e.to_string())?;
        if !rep.dropped.is_empty() {
            app.set_status(
                Level::Error,
                format!("{} edit(s) dropped", rep.dropped.len()),
            );
        }
        Ok(())
    } else {
        ws.reload().map_err(|e| e.to_string())
    }
}

/// Opens the user's paths again (a file appeared in an opened directory, or the user
/// chose to drop their edits), or re-reads the files when nothing was opened by path.
pub fn reopen(app: &mut App) -> Result<(), String> {
    let live = &app.session.live;
    if live.opened.is_empty() {
        let ws = app.session.ws.as_mut().ok_or("editing is off")?;
        return ws.reload().map_err(|e| e.to_string());
    }
    let ws = Workspace::open(&live.opened, live.forced).map_err(|e| e.to_string())?;
    app.session.ws = Some(ws);
    Ok(())
}

/// Shows the reloaded workspace: marks what changed, swaps the toolkit keeping the
/// context, and schedules the end of the marks.
pub fn after_reload(app: &mut App) {
    let Some(ws) = &app.session.ws else { return };
    let changes = changed(&app.tk, &ws.toolkit);
    super::edit::sync(app);
    let live = &mut app.session.live;
    live.marked = changes.nodes;
    live.marked_edges = changes.edges;
    live.generation += 1;
    if live.marked.is_empty() {
        return;
    }
    if let Some(tx) = live.tx.clone() {
        let generation = live.generation;
        std::thread::spawn(move || {
            std::thread::sleep(MARK_FOR);
            let _ = tx.send(Msg::MarksExpired(generation));
        });
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
