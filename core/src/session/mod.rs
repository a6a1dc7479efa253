//! The editing session: the [`Workspace`] (files, graph, history, pending transactions), the
//! watcher state ([`Live`]), the conflict state, the pending threshold/hops and the
//! recovery file. Its operations return an [`Outcome`]: plain data (a message, a
//! [`Question`] for the user, what changed), never a widget. It owns no view state and
//! holds no front end's channel (the watcher's events go to an [`EventSink`]), so any front
//! end can drive it, and tests drive it with no terminal.
//!
//! Conflicts: "keep mine" records the content on disk at that moment as the base of the
//! next save, so the save overwrites exactly what the user chose to overwrite; a later
//! change on disk is a new conflict, never overwritten silently.

mod changes;
pub mod inputs;
mod live;
pub mod recovery;
mod status;
#[cfg(test)]
mod tests;
pub mod view_history;

pub use changes::{Changes, changed};
pub use live::{EventSink, Live};
pub use status::{Level, Status};
pub use view_history::{ViewHistory, ViewParams};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::edit::{Edit, Transaction};
use crate::model::Operator;
use crate::recommend::Params;
use crate::source::{Format, SourceFile};
use crate::watch::WatchEvent;
use crate::workspace::{SaveErrorKind, Workspace};

/// An opened file as the view knows it: where it is and how it is read. Its text stays in
/// the session's workspace (one copy, not one per view).
#[derive(Debug, Clone, PartialEq)]
pub struct Opened {
    pub path: std::path::PathBuf,
    pub format: Format,
}

impl From<&SourceFile> for Opened {
    fn from(f: &SourceFile) -> Opened {
        Opened {
            path: f.path.clone(),
            format: f.format,
        }
    }
}

/// The editing session.
#[derive(Default)]
pub struct Session {
    /// None only for sessions over a bare `Loaded` (tests, benches): editing is off.
    pub ws: Option<Workspace>,
    pub live: Live,

    /// Where recovery files go (see `recovery`); tests point it at a temp dir.
    pub recovery_dir: Option<PathBuf>,
    /// The threshold and hops the view recommends with. Where they differ from the active
    /// operator's values in the file they are pending: unsaved (`[+]`), written as
    /// `SetThreshold`/`SetHops` edits on save or when another operator is chosen.
    pub params: Params,
    /// Why the graph shown is not the files' current content (a file that does not parse
    /// or was caught empty): the last good graph stays until a reload succeeds.
    pub stale: Option<String>,
    /// The view's threshold, hops and seed changes as steps of undo (see `view_history`).
    pub view_history: ViewHistory,
}

/// Which of the pending parameters differ from the operator's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PendingParams {
    pub threshold: bool,
    pub hops: bool,
}

/// What an operation changed, for the view to catch up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Changed {
    #[default]
    Nothing,
    /// The graph changed by an edit, undo, redo or save: show the workspace's graph.
    Graph,
    /// The files were read again: show the graph and mark what changed on disk.
    Reloaded,
}

/// A decision only the user can make; the front end asks it its own way and calls the
/// operation the answer names.
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// Files changed on disk while they had unsaved edits (or a save found them changed):
    /// [`Session::reload`], [`Session::reapply`] or [`Session::keep_mine`].
    Conflict { paths: Vec<PathBuf> },
    /// Unsaved edits of a session that ended without asking were found:
    /// [`Session::recover`] or [`Session::discard_recovery`].
    Recover { edits: Vec<Transaction> },
}

/// The result of a session operation.
#[derive(Debug, Default, PartialEq)]
pub struct Outcome {
    pub message: Option<Status>,
    pub question: Option<Question>,
    pub changed: Changed,
    /// An undo or redo of a view step: the parameters and seeds the view shows again.
    pub restore: Option<ViewParams>,
}

impl Outcome {
    pub fn info(text: impl Into<String>) -> Outcome {
        Outcome {
            message: Some(Status::info(text)),
            ..Outcome::default()
        }
    }

    pub fn error(text: impl Into<String>) -> Outcome {
        Outcome {
            message: Some(Status::error(text)),
            ..Outcome::default()
        }
    }

    pub fn changed(mut self, changed: Changed) -> Outcome {
        self.changed = changed;
        self
    }

    pub fn asking(mut self, question: Question) -> Outcome {
        self.question = Some(question);
        self
    }

    /// Whether the operation was refused or failed.
    pub fn failed(&self) -> bool {
        self.message
            .as_ref()
            .is_some_and(|m| m.level == Level::Error)
    }
}

const OFF: &str = "editing is not available here";

impl Session {
    pub fn new(ws: Workspace) -> Session {
        Session {
            ws: Some(ws),
            recovery_dir: recovery::state_dir(),
            ..Session::default()
        }
    }

    pub fn is_dirty(&self) -> bool {
        self.ws.as_ref().is_some_and(Workspace::is_dirty)
    }

    /// Makes a change as one step of undo.
    pub fn apply(&mut self, txn: impl Into<Transaction>) -> Outcome {
        let txn = txn.into();
        let Some(ws) = self.ws.as_mut() else {
            return Outcome::error(OFF);
        };
        let what = txn.describe();
        match ws.apply(txn) {
            Ok(applied) => {
                self.view_history.forget_redo();
                let mut text = what;
                for n in &applied.notes {
                    text.push_str("; ");
                    text.push_str(n);
                }
                Outcome::info(text).changed(Changed::Graph)
            }
            Err(e) => Outcome::error(e.to_string()),
        }
    }

    /// Which parameters differ from `op`'s values (the operator as the view shows it).
    pub fn pending_params(&self, op: Option<&Operator>) -> PendingParams {
        match op {
            Some(op) if self.ws.is_some() => PendingParams {
                threshold: (self.params.threshold - op.threshold).abs() > 1e-12,
                hops: self.params.hops != op.hops,
            },
            _ => PendingParams::default(),
        }
    }

    /// The edits that write the pending parameters into `op`.
    pub fn param_edits(&self, op: Option<&Operator>) -> Vec<Edit> {
        let pending = self.pending_params(op);
        let Some(op) = op else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if pending.threshold {
            out.push(Edit::SetThreshold {
                operator: op.name.clone(),
                value: self.params.threshold,
            });
        }
        if pending.hops {
            out.push(Edit::SetHops {
                operator: op.name.clone(),
                value: self.params.hops,
            });
        }
        out
    }

    /// Writes the pending parameters into `op` as one step of undo; the view keeps them.
    pub fn commit_params(&mut self, op: Option<&Operator>) -> Outcome {
        let edits = self.param_edits(op);
        if edits.is_empty() {
            return Outcome::default();
        }
        let params = self.params;
        let out = self.apply(Transaction::from(edits));
        self.params = params;
        out
    }

    /// After the graph changed under the view (an undo, a reload): the parameters that were
    /// not pending follow `op`'s values in the new graph, so a later save never writes
    /// back stale values.
    pub fn follow_params(&mut self, op: &Operator, pending: PendingParams) {
        if !pending.threshold {
            self.params.threshold = op.threshold;
        }
        if !pending.hops {
            self.params.hops = op.hops;
        }
    }

    pub fn undo(&mut self) -> Outcome {
        self.history(true)
    }

    pub fn redo(&mut self) -> Outcome {
        self.history(false)
    }

    /// Records a change of the view's parameters or seeds made by `key` as a step of undo
    /// (see `view_history`); the file gets the parameters at save, as before.
    pub fn record_view(
        &mut self,
        before: ViewParams,
        after: ViewParams,
        key: &'static str,
        now: std::time::Instant,
    ) {
        let Some(ws) = self.ws.as_mut() else {
            return;
        };
        let (depth, _) = ws.history_depths();
        if self.view_history.record(before, after, key, now, depth) {
            ws.forget_redo();
        }
    }

    fn history(&mut self, undo: bool) -> Outcome {
        let Some(ws) = self.ws.as_mut() else {
            return Outcome::error(OFF);
        };
        let (ws_undo, ws_redo) = ws.history_depths();
        let view = match undo {
            true => self.view_history.undo(ws_undo, ws_redo),
            false => self.view_history.redo(ws_undo, ws_redo),
        };
        if let Some((restore, was)) = view {
            let verb = if undo { "undid" } else { "redid" };
            let text = format!(
                "{verb}: {} now (was {})",
                restore.differences(&was),
                was.differences(&restore)
            );
            let mut out = Outcome::info(text);
            out.restore = Some(restore);
            return out;
        }
        let done = if undo { ws.undo() } else { ws.redo() };
        match (done, undo) {
            (Some(t), true) => Outcome::info(format!(
                "undid: {}{}",
                t.describe(),
                left_by_undo(&t, &ws.toolkit)
            )),
            (Some(t), false) => Outcome::info(format!("redid: {}", t.describe())),
            (None, true) => return Outcome::error("nothing to undo"),
            (None, false) => return Outcome::error("nothing to redo"),
        }
        .changed(Changed::Graph)
    }

    /// Saves every changed file, announcing the bytes to the watcher first so the save
    /// does not come back as a reload. A file changed on disk since it was loaded (or since
    /// the user chose to keep theirs over it) opens the conflict question.
    pub fn save(&mut self) -> Outcome {
        let Some(ws) = self.ws.as_mut() else {
            return Outcome::error(OFF);
        };
        if ws.files().iter().any(|f| f.detached && f.dirty()) {
            return Outcome::error("the bundled example is not on disk: save it with :w FILE");
        }
        let dirty: Vec<(PathBuf, String)> = ws
            .files()
            .iter()
            .filter(|f| f.dirty() && !f.detached)
            .map(|f| (f.source.path.clone(), f.source.text.clone()))
            .collect();
        if dirty.is_empty() {
            return Outcome::info("nothing to save");
        }
        for (p, t) in &dirty {
            self.live.expect_own_write(p, t.as_bytes());
        }
        // Chat2Graph's own loader ignores the tuning toolscope writes there: say so.
        let c2g_tuning = ws.files().iter().any(|f| {
            f.dirty()
                && f.source.format == crate::source::Format::Chat2Graph
                && f.pending()
                    .any(|t| t.edits.iter().any(crate::edit::Edit::is_tuning))
        });
        let result = ws.save_all();
        let written = result.clone().unwrap_or_default();
        for (p, _) in dirty.iter().filter(|(p, _)| !written.contains(p)) {
            self.live.forget_own_write(p);
        }
        match result {
            Ok(w) => {
                let note = match c2g_tuning {
                    true => format!("; note: {}", crate::source::CHAT2GRAPH_TUNING_NOTE),
                    false => String::new(),
                };
                Outcome::info(format!("saved {}{note}", names(&w))).changed(Changed::Graph)
            }
            Err(e) if e.kind == SaveErrorKind::Conflict => {
                Outcome::error(e.to_string()).asking(Question::Conflict {
                    paths: vec![e.path.clone()],
                })
            }
            Err(e) => Outcome::error(e.to_string()),
        }
    }

    /// `:w FILE`: writes the (single) open file to a new path; edits then go there.
    pub fn save_as(&mut self, path: &Path, overwrite: bool) -> Outcome {
        let Some(ws) = self.ws.as_mut() else {
            return Outcome::error(OFF);
        };
        if ws.files().len() != 1 {
            return Outcome::error(":w FILE needs exactly one open file");
        }
        let text = ws.files()[0].source.text.clone();
        self.live.expect_own_write(path, text.as_bytes());
        if let Err(e) = ws.save_as(0, path, overwrite) {
            self.live.forget_own_write(path);
            return Outcome::error(match e.kind {
                SaveErrorKind::Exists => {
                    format!("{} exists; :w! FILE overwrites it", e.path.display())
                }
                _ => e.to_string(),
            });
        }
        self.live.watch(path);
        Outcome::info(format!("wrote {}", path.display())).changed(Changed::Graph)
    }

    /// Reads every file again, dropping unsaved edits.
    pub fn reload(&mut self) -> Outcome {
        match self.reopen() {
            Ok(()) => Outcome::info("reloaded from disk; your edits were dropped")
                .changed(Changed::Reloaded),
            Err(e) => Outcome::error(e),
        }
    }

    /// `:reload`: asks first when there are unsaved edits, the pending parameters of
    /// `active` (the operator the view shows) included.
    pub fn reload_asking(&mut self, active: Option<&Operator>) -> Outcome {
        let held = self.hold_params(active, |_| true);
        if held.failed() {
            return held;
        }
        match &self.ws {
            Some(ws) if ws.is_dirty() => Outcome::default().asking(Question::Conflict {
                paths: ws.dirty_files(),
            }),
            _ => match self.reopen() {
                Ok(()) => Outcome::info("reloaded from disk").changed(Changed::Reloaded),
                Err(e) => Outcome::error(e),
            },
        }
    }

    /// Reloads and reapplies the pending edits, reporting those that no longer apply.
    pub fn reapply(&mut self) -> Outcome {
        let Some(ws) = self.ws.as_mut() else {
            return Outcome::error(OFF);
        };
        let rep = match ws.reapply() {
            Ok(r) => r,
            Err(e) => return Outcome::error(e.to_string()),
        };
        let text = format!("reapplied {} edit(s)", rep.reapplied.len());
        if rep.dropped.is_empty() {
            return Outcome::info(text).changed(Changed::Reloaded);
        }
        let dropped: Vec<String> = rep
            .dropped
            .iter()
            .map(|(e, why)| format!("{} ({why})", e.describe()))
            .collect();
        Outcome::error(format!("{text}; no longer apply: {}", dropped.join("; ")))
            .changed(Changed::Reloaded)
    }

    /// "Keep mine": the next save overwrites the content on disk now, and only that.
    pub fn keep_mine(&mut self, paths: &[PathBuf]) -> Outcome {
        let Some(ws) = self.ws.as_mut() else {
            return Outcome::error(OFF);
        };
        match ws.keep_mine(paths) {
            Ok(()) => Outcome::info(
                "kept your edits; the next save overwrites the file as it is on disk now",
            ),
            Err(e) => Outcome::error(e.to_string()),
        }
    }

    /// Applies transactions recovered from a session that ended without asking, and
    /// drops the recovery file.
    pub fn recover(&mut self, edits: Vec<Transaction>) -> Outcome {
        self.discard_recovery();
        let Some(ws) = self.ws.as_mut() else {
            return Outcome::error(OFF);
        };
        let (mut done, mut refused) = (0, Vec::new());
        for t in edits {
            let what = t.describe();
            match ws.apply(t) {
                Ok(_) => done += 1,
                Err(e) => refused.push(format!("{what} ({e})")),
            }
        }
        let text = format!("recovered {done} edit(s); review and save with w");
        let out = if refused.is_empty() {
            Outcome::info(text)
        } else {
            Outcome::error(format!("{text}; no longer apply: {}", refused.join("; ")))
        };
        out.changed(Changed::Graph)
    }
}

/// Watching, and the recovery file of a session that ends without asking.
impl Session {
    /// Remembers the opened paths and, with a sink, watches them; its events come back
    /// through [`Session::queue`]. Returns why watching failed, if it did.
    pub fn start_watching(
        &mut self,
        sink: Option<EventSink>,
        opened: &[PathBuf],
        forced: Option<Format>,
    ) -> Option<Status> {
        self.live.start(sink, opened, forced)
    }

    /// Records a watcher event; [`Session::flush`] acts on the batch.
    pub fn queue(&mut self, ev: WatchEvent) -> Option<Status> {
        self.live.queue(ev)
    }

    /// Ends the session when asking is impossible (SIGTERM, SIGHUP, input gone): the
    /// unsaved edits, with `extra` (the front end's pending parameters), go to a recovery
    /// file the next start on the same paths offers. Returns what to tell the user.
    pub fn end_without_asking(&mut self, extra: Vec<Transaction>) -> String {
        let mut edits = self.ws.as_ref().map(Workspace::unsaved).unwrap_or_default();
        edits.extend(extra);
        match recovery::write(self.recovery_dir.as_deref(), self.live.opened(), edits) {
            Ok(p) => format!(
                "toolscope: unsaved edits written to {}; the next start on these files offers them",
                crate::text::for_terminal(&p.display().to_string())
            ),
            Err(e) => format!("toolscope: unsaved edits could not be written: {e}"),
        }
    }

    /// The question about edits an earlier session on the same paths left, if any, or why
    /// what is in the recovery file's place was not read.
    pub fn offer_recovery(&self) -> Outcome {
        match recovery::load(self.recovery_dir.as_deref(), self.live.opened()) {
            Ok(Some(edits)) => Outcome::default().asking(Question::Recover { edits }),
            Ok(None) => Outcome::default(),
            Err(e) => Outcome::error(e),
        }
    }

    /// Drops the recovery file (the user reapplied or discarded its edits).
    pub fn discard_recovery(&self) {
        recovery::discard(self.recovery_dir.as_deref(), self.live.opened());
    }
}

/// Watcher events, handled once per batch of messages (see `live`).
impl Session {
    /// Handles the changes queued since the last flush. `active` is the operator the view
    /// shows: its pending parameters count as edits of its file.
    pub fn flush(&mut self, active: Option<&Operator>) -> Outcome {
        let (changed, rescan) = self.live.take_queued();
        if changed.is_empty() && !rescan {
            return Outcome::default();
        }
        let held = self.hold_params(active, |p| rescan || changed.contains(p));
        if held.failed() {
            return held;
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
            return Outcome::default()
                .changed(held.changed)
                .asking(Question::Conflict { paths });
        }
        if !appeared && !changed.iter().any(|p| known.contains(&p.as_path())) {
            return Outcome::default();
        }
        let result = if appeared {
            self.reopen().map(|()| None)
        } else {
            self.reload_keeping()
        };
        match result {
            Ok(dropped) => {
                self.stale = None;
                self.live.reloads += 1;
                let out = match dropped {
                    Some(d) => Outcome::error(d),
                    None => Outcome::info(format!("reloaded {}", changed_names(&changed))),
                };
                out.changed(Changed::Reloaded)
            }
            Err(e) => {
                self.stale = Some(e.clone());
                Outcome::error(format!("{e} (showing the last good graph)"))
            }
        }
    }

    /// Pending parameters are edits like any other: when the file they would be written
    /// to changed on disk (`changed` says which paths may have), they become an undoable
    /// edit now, so the conflict question and its answers (reload drops them, reapply puts
    /// them onto the new content, keep mine overwrites it) cover them too. Left pending,
    /// a reload would keep them over the other writer's values and the next save would
    /// write over those silently. A failure to make the edit is an error that asks the
    /// question too (reloading drops the parameters with the rest).
    fn hold_params(
        &mut self,
        active: Option<&Operator>,
        changed: impl Fn(&Path) -> bool,
    ) -> Outcome {
        let edits = self.param_edits(active);
        let Some(ws) = self.ws.as_ref().filter(|_| !edits.is_empty()) else {
            return Outcome::default();
        };
        let Some(file) = ws.file_for(&Transaction::from(edits)) else {
            return Outcome::default();
        };
        let path = file.source.path.clone();
        if file.detached
            || !changed(&path)
            || !crate::watch::content_changed(&path, file.disk.as_bytes())
        {
            return Outcome::default();
        }
        let out = self.commit_params(active);
        match out.failed() {
            true => out.asking(Question::Conflict { paths: vec![path] }),
            false => Outcome::default().changed(Changed::Graph),
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
        let result = self.reopen_files();
        match &result {
            Ok(()) => self.stale = None,
            Err(e) => self.stale = Some(e.clone()),
        }
        result
    }

    fn reopen_files(&mut self) -> Result<(), String> {
        let live = &self.live;
        if live.opened().is_empty() {
            let ws = self.ws.as_mut().ok_or("editing is off")?;
            return ws.reload().map_err(|e| e.to_string());
        }
        let ws = Workspace::open(live.opened(), live.forced()).map_err(|e| e.to_string())?;
        self.ws = Some(ws);
        Ok(())
    }
}

fn changed_names(paths: &BTreeSet<PathBuf>) -> String {
    let v: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    if v.is_empty() {
        "all files".into()
    } else {
        v.join(", ")
    }
}

/// The opened files as a front end shows them.
pub fn opened_of(ws: &Workspace) -> Vec<Opened> {
    ws.files().iter().map(|f| Opened::from(&f.source)).collect()
}

fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What an undone transaction left, for the values it set (`; hops of op0 = 1 now`), so
/// the message does not read as if the undone value held.
fn left_by_undo(txn: &Transaction, tk: &crate::model::Toolkit) -> String {
    let Some(first) = txn.edits.first() else {
        return String::new();
    };
    let now = (|| match first {
        Edit::SetThreshold { operator, .. } => tk
            .operators
            .iter()
            .find(|o| &o.name == operator)
            .map(|o| format!("threshold of {operator} = {}", o.threshold)),
        Edit::SetHops { operator, .. } => tk
            .operators
            .iter()
            .find(|o| &o.name == operator)
            .map(|o| format!("hops of {operator} = {}", o.hops)),
        Edit::SetScore {
            from, to, to_kind, ..
        } => {
            let (u, v) = (tk.action(from)?, tk.find(*to_kind, to)?);
            let e = tk.edge(u, v)?;
            Some(format!("score {from} -> {to} = {}", tk.graph[e].score))
        }
        _ => None,
    })();
    now.map(|n| format!("; {n} now")).unwrap_or_default()
}
