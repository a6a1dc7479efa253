//! The editing session the TUI and `toolscope set` drive: loaded files with their own
//! graphs, the merged toolkit the user sees, undo/redo, verified atomic saves, conflict
//! detection, reload and reapplying pending edits onto new content.
//!
//! ```no_run
//! use toolscope_core::edit::Edit;
//! use toolscope_core::workspace::{SaveErrorKind, Workspace};
//! use toolscope_core::model::NodeKind;
//!
//! let mut ws = Workspace::open(&["toolkit.yaml".into()], None)?;
//! let applied = ws.apply(Edit::SetScore {
//!     from: "plan".into(),
//!     to: "search".into(),
//!     to_kind: NodeKind::Tool,
//!     score: 0.75,
//! })?;
//! for note in &applied.notes {
//!     println!("{note}"); // e.g. an anchored definition changed for every use
//! }
//! ws.undo();
//! ws.redo();
//! match ws.save_all() {
//!     Ok(_) => {}
//!     // Changed on disk since loaded: reload (drop edits), reapply them, or overwrite.
//!     Err(e) if e.kind == SaveErrorKind::Conflict => {
//!         let report = ws.reapply()?;
//!         println!("{} edits no longer apply", report.dropped.len());
//!         ws.save_all()?;
//!     }
//!     Err(e) => return Err(e.into()),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::model::{NodeKind, Toolkit};
use crate::source::patch::{self, Splice};
use crate::source::{self, Format, Limits, LoadError, SourceFile};

pub use crate::source::save::{SaveError, SaveErrorKind};

mod batch;
mod io;
mod names;
mod window_proof;
mod window_reread;

// A native file's member scores through the workspace, with an MCP sidecar cache that
// `load` reads (the module was toolscope-edit's `formats::native::member_tests`).
#[cfg(test)]
mod member_tests;
// Chat2Graph's removal of a tool's last call, through the workspace's undo and recovery.
#[cfg(test)]
mod remove_tests;

use io::loads_back;

use crate::edit::{Edit, EditError, Patch, Transaction};
use window_proof::WindowEdit;

/// One loaded file.
#[derive(Debug, Clone)]
pub struct WsFile {
    /// Path, format and the current (possibly edited) text.
    pub source: SourceFile,
    /// The text on disk when loaded or last saved.
    pub disk: String,
    /// The graph this file alone gives, with the edits made to it.
    pub own: Toolkit,
    /// Transactions made since the last save or load, in order, with their history ids.
    pending: Vec<(u64, Transaction)>,
    /// An edit since the positions were read added or removed lines.
    shifted: bool,
    /// Not on disk (the bundled example): only `save_as` writes it.
    pub detached: bool,
    /// The one windowed edit since the last load or save, for the save's windowed verify.
    window: Option<WindowEdit>,
    /// `next` references to no action of this file, as read; linked to the other files'
    /// actions when the workspace is put together.
    unresolved: Vec<source::Unresolved>,
    /// An MCP sidecar cache was beside the file when it was read (its members are in the
    /// graph), so a change on disk loads the whole file again.
    had_sidecar: bool,
}

impl WsFile {
    pub fn dirty(&self) -> bool {
        self.source.text != self.disk
    }

    /// The transactions not yet saved, in order.
    pub fn pending(&self) -> impl Iterator<Item = &Transaction> {
        self.pending.iter().map(|(_, t)| t)
    }
}

#[derive(Debug, Clone)]
struct Step {
    id: u64,
    file: usize,
    txn: Transaction,
    inverse: Transaction,
    /// Splices on the whole file text (BOM included) that redo and undo the step.
    forward: Vec<Splice>,
    backward: Vec<Splice>,
    /// Made in one item's lines of a file unchanged since load or save (see `window_proof`).
    window: Option<WindowEdit>,
    /// How many of the edits the batch path made (see `batch`).
    batched: usize,
}

/// What an applied edit changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub file: usize,
    pub path: PathBuf,
    /// Notes for the user, e.g. that an anchored definition changed for every use.
    pub notes: Vec<String>,
    /// Whether the file text changed (a score set to its current value changes nothing).
    pub text_changed: bool,
}

/// Result of reapplying pending edits onto content reloaded from disk.
#[derive(Debug, Clone, Default)]
pub struct ReapplyReport {
    pub reapplied: Vec<Transaction>,
    /// Transactions that no longer apply, with the reason.
    pub dropped: Vec<(Transaction, String)>,
}

/// An editing session over one or more toolkit files.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The merged graph of all files, as the user sees it; shared with the views that show
    /// it (the TUI's), so an edit copies it only while a view still holds the old one.
    pub toolkit: std::sync::Arc<Toolkit>,
    pub diagnostics: Vec<Diagnostic>,
    files: Vec<WsFile>,
    forced: Option<Format>,
    undo: Vec<Step>,
    redo: Vec<Step>,
    next_id: u64,
    /// Files up to this size are verified on every edit ([`Limits::verify_each_edit_bytes`](crate::source::Limits::verify_each_edit_bytes)).
    each_edit_bytes: usize,
    /// Saves verified by the windowed proof (for tests that it carries the load).
    windowed_saves: usize,
    /// Reloads made in place by `reread` (for tests).
    rereads: usize,
    /// Edits made by the batch path (for tests that it carries `fit`).
    batched: usize,
    /// Transactions leading with at least this many scores and added edges take the
    /// batch path ([`batch::MIN_EDITS`]; tests lower it, or turn the batch off).
    min_batch: usize,
    /// The paths opened, that file names are shown relative to.
    roots: Vec<PathBuf>,
    /// Operators several files define, with the names shown (`NAME @ FILE`).
    names: Vec<source::join::OperatorName>,
}

impl Workspace {
    /// Loads files or directories (merged in order).
    pub fn open(paths: &[PathBuf], forced: Option<Format>) -> Result<Workspace, LoadError> {
        let limits = Limits::default();
        let found = source::expand_paths(paths)?;
        if found.is_empty() {
            return Err(crate::load::no_files(paths));
        }
        let mut files = Vec::new();
        for path in found {
            let text = source::read_file(&path, &limits)?;
            files.push((path.clone(), load_file(&path, text, forced, false)?));
        }
        let (files, notes) = crate::load::skip_non_toolkits(paths, files, |f| &f.1)?;
        let mut ws = Workspace::from_files(files, forced, paths);
        ws.diagnostics.extend(notes);
        Ok(ws)
    }

    /// The bundled example, detached from disk (save it with [`Workspace::save_as`]).
    pub fn example() -> Result<Workspace, LoadError> {
        let path = Path::new(source::EXAMPLE_NAME);
        let file = load_file(
            path,
            source::EXAMPLE.to_string(),
            Some(Format::Native),
            true,
        )?;
        Ok(Workspace::from_files(vec![file], Some(Format::Native), &[]))
    }

    /// A session over no file: what the TUI shows while the opened files do not load, until
    /// a change on disk lets them load.
    pub fn empty(forced: Option<Format>) -> Workspace {
        Workspace::from_files(Vec::new(), forced, &[])
    }

    /// A session over one text that did not come from disk (tests, stdin).
    pub fn from_text(
        path: &Path,
        text: String,
        forced: Option<Format>,
    ) -> Result<Workspace, LoadError> {
        let file = load_file(path, text, forced, false)?;
        Ok(Workspace::from_files(vec![file], forced, &[]))
    }

    /// Puts loaded files together as `source::join` does for read-only loads: references
    /// across files linked to stand-ins, operators several files define shown as
    /// `NAME @ FILE` (`roots`: the paths opened).
    fn from_files(
        files: Vec<(WsFile, Vec<Diagnostic>)>,
        forced: Option<Format>,
        roots: &[PathBuf],
    ) -> Workspace {
        let mut ws = Workspace {
            toolkit: Default::default(),
            diagnostics: Vec::new(),
            files: Vec::new(),
            forced,
            undo: Vec::new(),
            redo: Vec::new(),
            next_id: 1,
            each_edit_bytes: Limits::default().verify_each_edit_bytes,
            windowed_saves: 0,
            rereads: 0,
            batched: 0,
            min_batch: batch::MIN_EDITS,
            roots: roots.to_vec(),
            names: Vec::new(),
        };
        let (mut files, mut diags): (Vec<WsFile>, Vec<Vec<Diagnostic>>) = files.into_iter().unzip();
        let mut parts: Vec<source::join::Part> = files
            .iter_mut()
            .zip(diags.iter_mut())
            .map(|(f, d)| source::join::Part {
                toolkit: &mut f.own,
                diagnostics: d,
                unresolved: &mut f.unresolved,
            })
            .collect();
        source::join::link_across_files(&mut parts);
        ws.files = files;
        ws.diagnostics = diags.into_iter().flatten().collect();
        ws.rebuild();
        ws
    }

    pub fn files(&self) -> &[WsFile] {
        &self.files
    }

    /// Whether any open file is in `format` (`fit` adds no edges to Chat2Graph files).
    pub fn holds(&self, format: Format) -> bool {
        self.files.iter().any(|f| f.source.format == format)
    }

    /// Paths of files with unsaved edits.
    pub fn dirty_files(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|f| f.dirty())
            .map(|f| f.source.path.clone())
            .collect()
    }

    pub fn is_dirty(&self) -> bool {
        self.files.iter().any(WsFile::dirty)
    }

    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// How many steps undo can take back, and redo forward (the session interleaves its
    /// view's parameter steps with these by depth).
    pub fn history_depths(&self) -> (usize, usize) {
        (self.undo.len(), self.redo.len())
    }

    /// Forgets the steps redo could make: a change made elsewhere (the view's parameters)
    /// came after them.
    pub fn forget_redo(&mut self) {
        self.redo.clear();
    }

    /// The merged graph the user sees, from the files' own graphs (see `source::join`),
    /// with the operators several files define renamed and reported (TS075).
    fn rebuild(&mut self) {
        let mut parts: Vec<Toolkit> = self.files.iter().map(|f| f.own.clone()).collect();
        self.names = {
            let ops: Vec<(&Path, &[crate::model::Operator])> = self
                .files
                .iter()
                .zip(&parts)
                .map(|(f, tk)| (f.source.path.as_path(), tk.operators.as_slice()))
                .collect();
            source::join::operator_names(&self.roots, &ops)
        };
        let shared = crate::diag::Code::SharedOperatorName;
        self.diagnostics.retain(|d| d.code != shared);
        for r in &self.names {
            parts[r.file].operators[r.index].name.clone_from(&r.shown);
            self.diagnostics.push(r.diagnostic.clone());
        }
        self.toolkit = std::sync::Arc::new(source::join::merge_all(parts));
    }

    /// The file a transaction goes to (an operator shown as `NAME @ FILE` names it, else
    /// [`Workspace::target_file`]), with the names that file writes.
    fn locate(&self, txn: Transaction) -> Result<(usize, Transaction), EditError> {
        let (file, txn) = self.localize(txn)?;
        match file {
            Some(f) => Ok((f, txn)),
            None => self.target_file(&txn).map(|f| (f, txn)),
        }
    }

    /// The file [`Workspace::apply`] would write a transaction to, if one takes it.
    pub fn file_for(&self, txn: &Transaction) -> Option<&WsFile> {
        let (file, _) = self.locate(txn.clone()).ok()?;
        self.files.get(file)
    }

    /// The file a transaction belongs to: the first whose own graph holds what it names.
    pub fn target_file(&self, txn: &Transaction) -> Result<usize, EditError> {
        if self.files.len() == 1 {
            return Ok(0);
        }
        let mut probe_err = None;
        for (i, f) in self.files.iter().enumerate() {
            if names::acts_on_stand_in(&f.own, txn) {
                continue;
            }
            let mut tk = f.own.clone();
            match txn.apply_graph(&mut tk) {
                Ok(()) => return Ok(i),
                Err(e) => probe_err = probe_err.or(Some(e)),
            }
        }
        Err(probe_err.unwrap_or_else(|| EditError::NotFound("no file is loaded".into())))
    }

    /// Removing a node with its cascade and the seeds naming removed actions, as one
    /// transaction on the file that declares it (see [`Transaction::removal`]).
    pub fn removal(&self, kind: NodeKind, name: &str) -> Result<Transaction, EditError> {
        let probe = Transaction::from(Edit::RemoveNode {
            kind,
            name: name.to_string(),
        });
        let file = self.target_file(&probe)?;
        let txn = Transaction::removal(&self.files[file].own, kind, name)?;
        Ok(self.shown(file, txn))
    }

    /// Applies an edit or a transaction to the graph and to the text of the file it
    /// belongs to, as one step of undo.
    pub fn apply(&mut self, txn: impl Into<Transaction>) -> Result<Applied, EditError> {
        self.apply_or_stop(txn, &|| false)
    }

    /// [`Workspace::apply`] that looks at `stop` before each edit's text is made and gives
    /// up, changing nothing, once it says so (a long `:fit` the user cancels); the error
    /// then says the edit was stopped.
    pub fn apply_or_stop(
        &mut self,
        txn: impl Into<Transaction>,
        stop: &dyn Fn() -> bool,
    ) -> Result<Applied, EditError> {
        let (file, txn) = self.locate(txn.into())?;
        let (txn, mut notes) = self.complete(file, txn);
        let (step, more) = self.prepare(file, &txn, stop)?;
        notes.extend(more);
        let text_changed = !step.forward.is_empty();
        let id = step.id;
        self.batched += step.batched;
        self.finish(step, true)?;
        self.files[file].pending.push((id, txn));
        self.redo.clear();
        Ok(Applied {
            file,
            path: self.files[file].source.path.clone(),
            notes,
            text_changed,
        })
    }

    /// The transaction as the file's format needs it, with notes saying what was added
    /// (in a Chat2Graph file, a tool or MCP server left with no caller leaves the graph).
    fn complete(&self, file: usize, mut txn: Transaction) -> (Transaction, Vec<String>) {
        let f = &self.files[file];
        let (more, notes): (Vec<Edit>, Vec<String>) = crate::formats::of(f.source.format)
            .implied(&f.own, &txn)
            .into_iter()
            .unzip();
        txn.edits.extend(more);
        (txn, notes)
    }

    /// Computes (and checks) a step without changing anything: each edit is patched onto
    /// the text the previous ones left, and the result is verified once.
    fn prepare(
        &mut self,
        file: usize,
        txn: &Transaction,
        stop: &dyn Fn() -> bool,
    ) -> Result<(Step, Vec<String>), EditError> {
        if txn.is_empty() {
            return Err(EditError::Invalid("an empty transaction".into()));
        }
        // Threshold and hops edits change only the operators, so a transaction of them
        // works on the file's own graph, lent, and puts the operators back afterwards: a
        // copy of the graph was most of such a save at 100k actions.
        let params = txn.edits.len() > 1 && txn.operators_only();
        let result = if params {
            let lent = std::mem::take(&mut self.files[file].own);
            let mut own: std::borrow::Cow<'_, Toolkit> = std::borrow::Cow::Owned(lent);
            let operators = own.operators.clone();
            let result = self.prepare_with(file, txn, &mut own, stop);
            let mut own = own.into_owned();
            own.operators = operators;
            self.files[file].own = own;
            result
        } else {
            let mut own = std::borrow::Cow::Borrowed(&self.files[file].own);
            self.prepare_with(file, txn, &mut own, stop)
        };
        if result.is_ok() {
            self.next_id += 1;
        }
        result
    }

    /// [`Workspace::prepare`] with the graph the edits are checked against: borrowed (and
    /// copied only when something reads it after an edit: a later edit of the transaction,
    /// or the verification of a small file), or lent by `prepare` and handed back.
    ///
    /// Each edit's text side is made one of two ways ([`EditText`]): in the lines of the
    /// declaration it changes (a large file whose positions are fresh, when its format can
    /// prove the save from those lines), else on the whole file.
    fn prepare_with<'w>(
        &'w self,
        file: usize,
        txn: &Transaction,
        own: &mut std::borrow::Cow<'w, Toolkit>,
        stop: &dyn Fn() -> bool,
    ) -> Result<(Step, Vec<String>), EditError> {
        let f = &self.files[file];
        let offset = source::bom_len(&f.source.text);
        let small = f.source.text.len() <= self.each_edit_bytes;
        let single = txn.edits.len() == 1;
        let whole = WholeFile {
            check_bytes: self.each_edit_bytes,
            small,
        };
        let in_lines = InItemLines {
            format: crate::formats::of(f.source.format),
        };
        let mut text = std::borrow::Cow::Borrowed(&f.source.text);
        let mut undo = crate::edit::Undo::default();
        let mut notes = Vec::new();
        let mut forward = Vec::new();
        let mut backward = Vec::new();
        let mut window = None;
        // The item every edit so far was patched in, when all were: later edits of the
        // transaction in the same item keep to its lines too (its first line never moves).
        let mut same_item: Option<crate::edit::window::Subject> = None;
        // A long run of scores and added edges first (`fit`): one parse and one check for
        // all of them.
        let lead = batch::leading(&txn.edits, f.source.format);
        let mut start = 0;
        if lead >= self.min_batch.max(1)
            && let Some(made) = batch::edits(
                &f.source,
                own,
                &txn.edits[..lead],
                self.each_edit_bytes,
                stop,
            )?
        {
            let (new_text, _) = patch::apply(&f.source.text, &made.patch.splices, offset)
                .map_err(EditError::Unsupported)?;
            text = std::borrow::Cow::Owned(new_text);
            *own = std::borrow::Cow::Owned(made.graph);
            undo = made.undo;
            notes.extend(made.patch.notes);
            start = lead;
        }
        for (i, edit) in txn.edits.iter().enumerate().skip(start) {
            if stop() {
                return Err(stopped());
            }
            let in_item = i > 0
                && same_item.is_some()
                && crate::edit::window::subject(edit, own) == same_item;
            let later;
            let source = if i == 0 {
                &f.source
            } else {
                // The text so far moves here (the patch below makes the next one).
                later = SourceFile {
                    text: std::mem::take(&mut text).into_owned(),
                    path: f.source.path.clone(),
                    format: f.source.format,
                };
                &later
            };
            // Large files with fresh positions try the declaration's lines first.
            let lines_first = (i == 0 || in_item) && !small && !f.shifted;
            let ways: &[&dyn EditText] = match lines_first {
                true => &[&in_lines, &whole],
                false => &[&whole],
            };
            let made = ways
                .iter()
                .find_map(|w| w.make(edit, source, own))
                .ok_or_else(|| EditError::Unsupported("no way to write this edit".into()))??;
            match &made.window {
                Some(w) if i == 0 => {
                    same_item = Some(w.subject.clone());
                    window = WindowEdit::new(w.clone(), own);
                }
                Some(_) => {}
                // Not all in one item's lines: the save verifies the whole file.
                None => (same_item, window) = (None, None),
            }
            undo.push(edit, own, made.text_undo)?;
            let patch = made.patch;
            // One large edit: nothing reads the new text here (`finish` splices in place).
            let undo_splices = if single && !small {
                patch::undo_of(&text, &patch.splices, offset).map_err(EditError::Unsupported)?
            } else {
                let (new_text, undo_splices) = patch::apply(&source.text, &patch.splices, offset)
                    .map_err(EditError::Unsupported)?;
                text = std::borrow::Cow::Owned(new_text);
                undo_splices
            };
            if !single || small {
                edit.apply_graph(own.to_mut())?;
            }
            if single {
                forward = patch
                    .splices
                    .iter()
                    .map(|s| Splice::new(s.at.start + offset..s.at.end + offset, s.with.clone()))
                    .collect();
                backward = undo_splices;
            }
            notes.extend(patch.notes);
        }
        if small {
            loads_back(&f.source, &text, own).map_err(|e| EditError::Unsupported(e.message))?;
        }
        if !single {
            (forward, backward) = delta(&f.source.text, &text);
        }
        // Taken by `prepare` once the step is made.
        let id = self.next_id;
        let step = Step {
            id,
            file,
            txn: txn.clone(),
            inverse: undo.finish(),
            forward,
            backward,
            window,
            batched: start,
        };
        Ok((step, notes))
    }

    /// Makes a prepared step, or redoes or undoes one: the file's graph first (an edit the
    /// graph refuses changes nothing), then its text and the merged graph.
    fn finish(&mut self, step: Step, forward: bool) -> Result<(), EditError> {
        let f = &mut self.files[step.file];
        let (splices, txn) = if forward {
            (&step.forward, &step.txn)
        } else {
            (&step.backward, &step.inverse)
        };
        patch::undo_of(&f.source.text, splices, 0).map_err(EditError::Unsupported)?;
        // An undo puts back what the file held, valid or not (see `graph::Values`).
        let graph_side = match forward {
            true => Transaction::apply_graph,
            false => Transaction::restore_graph,
        };
        graph_side(txn, &mut f.own)?;
        // A windowed edit stays provable only as the one change since the text on disk.
        f.window = match &step.window {
            Some(w) if forward && f.source.text == f.disk => Some(w.clone()),
            _ => None,
        };
        // Lines move only when a splice changes how many there are (a value rewritten over
        // two lines, as a transaction's delta can be, keeps every later line in place).
        let newlines = |t: &str| t.bytes().filter(|b| *b == b'\n').count();
        f.shifted |= splices.iter().any(|s| {
            f.source
                .text
                .get(s.at.clone())
                .is_none_or(|o| newlines(o) != newlines(&s.with))
        });
        patch::apply_in_place(&mut f.source.text, splices, 0).map_err(EditError::Unsupported)?;
        if self.files.len() == 1 {
            if graph_side(txn, std::sync::Arc::make_mut(&mut self.toolkit)).is_err() {
                self.rebuild();
            }
        } else {
            self.rebuild();
        }
        if forward {
            self.undo.push(step);
        } else {
            self.redo.push(step);
        }
        Ok(())
    }

    /// Makes the whole history one step per file (after a reapply: undoing it goes back to
    /// the content on disk in one step), and the pending log one transaction per file.
    fn merge_history(&mut self) {
        let mut merged: Vec<Step> = Vec::new();
        for s in std::mem::take(&mut self.undo) {
            match merged.iter_mut().find(|m| m.file == s.file) {
                Some(m) => {
                    m.txn.edits.extend(s.txn.edits);
                    let mut inverse = s.inverse.edits;
                    inverse.append(&mut m.inverse.edits);
                    m.inverse.edits = inverse;
                }
                None => merged.push(s),
            }
        }
        for m in &mut merged {
            let f = &mut self.files[m.file];
            (m.forward, m.backward) = delta(&f.disk, &f.source.text);
            f.pending = vec![(m.id, m.txn.clone())];
        }
        self.undo = merged;
    }

    /// Undoes the last transaction; returns it.
    pub fn undo(&mut self) -> Option<Transaction> {
        let step = self.undo.pop()?;
        let (file, id) = (step.file, step.id);
        let (txn, inverse) = (step.txn.clone(), step.inverse.clone());
        // A step that cannot be undone stays in the history (`finish` changed nothing).
        let kept = step.clone();
        if self.finish(step, false).is_err() {
            self.undo.push(kept);
            return None;
        }
        let f = &mut self.files[file];
        if f.pending.last().is_some_and(|(p, _)| *p == id) {
            f.pending.pop();
        } else {
            // Undoing a saved step: its inverse is a change to write like any other.
            f.pending.push((id, inverse));
        }
        Some(self.shown(file, txn))
    }

    /// Redoes the last undone transaction; returns it.
    pub fn redo(&mut self) -> Option<Transaction> {
        let step = self.redo.pop()?;
        let (file, id, txn) = (step.file, step.id, step.txn.clone());
        let kept = step.clone();
        if self.finish(step, true).is_err() {
            self.redo.push(kept);
            return None;
        }
        self.files[file].pending.push((id, txn.clone()));
        Some(self.shown(file, txn))
    }
    /// Treats files above `bytes` as large (patched in windows, verified before writing):
    /// tests of the large-file path on small files.
    #[doc(hidden)]
    pub fn set_verify_each_edit_bytes(&mut self, bytes: usize) {
        self.each_edit_bytes = bytes;
    }

    /// How many saves the windowed proof verified (the rest loaded the whole file).
    #[doc(hidden)]
    pub fn windowed_saves(&self) -> usize {
        self.windowed_saves
    }

    /// How many reloads re-read only the changed item (the rest loaded the files again).
    #[doc(hidden)]
    pub fn rereads(&self) -> usize {
        self.rereads
    }

    /// Sends transactions leading with at least `edits` scores and added edges through the
    /// batch path (`usize::MAX`: none), for tests that compare it with the edits one by one.
    #[doc(hidden)]
    pub fn set_min_batch(&mut self, edits: usize) {
        self.min_batch = edits;
    }

    /// How many edits the batch path made (`fit`'s scores and added edges), the rest
    /// having gone one by one.
    #[doc(hidden)]
    pub fn batched_edits(&self) -> usize {
        self.batched
    }

    /// The expected graph of one file, for tools that adjust it (and for tests that need
    /// a verification failure).
    #[doc(hidden)]
    pub fn expected_mut(&mut self, file: usize) -> &mut Toolkit {
        &mut self.files[file].own
    }
}

/// The error of an edit given up because its `stop` said so.
fn stopped() -> EditError {
    EditError::Invalid("stopped before it was finished; nothing changed".into())
}

/// Bytes compared at a time by [`common_prefix`] and [`common_suffix`]: a slice compare
/// (a `memcmp`) instead of byte by byte, which was tens of milliseconds of a transaction's
/// delta (and of a reload's window search) over a 26 MB file.
const BLOCK: usize = 256;

/// How many leading bytes `a` and `b` share.
pub(super) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many trailing bytes `a` and `b` share, at most `max`.
pub(super) fn common_suffix(a: &[u8], b: &[u8], max: usize) -> usize {
    let max = max.min(a.len()).min(b.len());
    let (la, lb) = (a.len(), b.len());
    let mut i = 0;
    while i + BLOCK <= max && a[la - i - BLOCK..la - i] == b[lb - i - BLOCK..lb - i] {
        i += BLOCK;
    }
    let rest = a[..la - i].iter().rev().zip(b[..lb - i].iter().rev());
    i + rest.take(max - i).take_while(|(x, y)| x == y).count()
}

/// One splice each way between two texts: the span between their common prefix and
/// suffix (on char boundaries). Exact, and as small as the change is local.
fn delta(old: &str, new: &str) -> (Vec<Splice>, Vec<Splice>) {
    if old == new {
        return (Vec::new(), Vec::new());
    }
    let mut pre = common_prefix(old.as_bytes(), new.as_bytes());
    while !old.is_char_boundary(pre) || !new.is_char_boundary(pre) {
        pre -= 1;
    }
    let max_suf = old.len().min(new.len()) - pre;
    let mut suf = common_suffix(old.as_bytes(), new.as_bytes(), max_suf);
    while !old.is_char_boundary(old.len() - suf) || !new.is_char_boundary(new.len() - suf) {
        suf -= 1;
    }
    let (o, n) = (pre..old.len() - suf, pre..new.len() - suf);
    (
        vec![Splice::new(o.clone(), &new[n.clone()])],
        vec![Splice::new(pre..pre + n.len(), &old[o])],
    )
}

fn load_file(
    path: &Path,
    text: String,
    forced: Option<Format>,
    detached: bool,
) -> Result<(WsFile, Vec<Diagnostic>), LoadError> {
    let had_sidecar = crate::mcp::cache::sidecar_path(path).exists();
    let load = crate::load::load_text(path, text, forced, &Limits::default())?;
    let file = WsFile {
        had_sidecar,
        disk: load.source.text.clone(),
        source: load.source,
        own: load.toolkit,
        pending: Vec::new(),
        shifted: false,
        detached,
        window: None,
        unresolved: load.unresolved,
    };
    Ok((file, load.diagnostics))
}

/// One edit's text side: its splices, what undoes it when the text tells more than the
/// graph, and the declaration's lines it was made in (for the save's windowed proof).
struct Made {
    patch: Patch,
    text_undo: Option<Edit>,
    window: Option<crate::edit::window::Window>,
}

/// A way to make an edit's text side.
trait EditText {
    /// `None` when this way cannot make it (the next way does).
    fn make(&self, edit: &Edit, file: &SourceFile, tk: &Toolkit)
    -> Option<Result<Made, EditError>>;
}

/// In the lines of the declaration the edit changes, parsed alone: a large file's edits
/// and the proof of its save without parsing the whole file (`formats::native::window`).
struct InItemLines {
    format: &'static dyn crate::formats::FileFormat,
}

impl EditText for InItemLines {
    fn make(
        &self,
        edit: &Edit,
        file: &SourceFile,
        tk: &Toolkit,
    ) -> Option<Result<Made, EditError>> {
        // A threshold or hops the operator did not write is undone by removing the key:
        // whether it did is read from the operator's lines too.
        let text_undo = match is_param(edit) {
            true => self.format.text_inverse_in_window(edit, file, tk)?,
            false => None,
        };
        let (patch, window) = self.format.patch_in_window(edit, file, tk)?;
        Some(Ok(Made {
            patch,
            text_undo,
            window: Some(window),
        }))
    }
}

/// On the whole file: always possible. A small file is also checked for its text undo
/// of every edit; a large one only for threshold and hops (the rest is the graph's).
struct WholeFile {
    check_bytes: usize,
    small: bool,
}

impl EditText for WholeFile {
    fn make(
        &self,
        edit: &Edit,
        file: &SourceFile,
        tk: &Toolkit,
    ) -> Option<Result<Made, EditError>> {
        let text_undo = match self.small || is_param(edit) {
            true => crate::formats::text_inverse(file, tk, edit),
            false => None,
        };
        Some(
            crate::formats::patch(edit, file, tk, self.check_bytes).map(|patch| Made {
                patch,
                text_undo,
                window: None,
            }),
        )
    }
}

fn is_param(edit: &Edit) -> bool {
    matches!(edit, Edit::SetThreshold { .. } | Edit::SetHops { .. })
}

#[cfg(test)]
mod delta_tests {
    use super::*;

    fn naive(old: &str, new: &str) -> (usize, usize) {
        let pre = old
            .bytes()
            .zip(new.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        let max = old.len().min(new.len()) - pre;
        let suf = old
            .bytes()
            .rev()
            .zip(new.bytes().rev())
            .take(max)
            .take_while(|(a, b)| a == b)
            .count();
        (pre, suf)
    }

    /// The block compares agree with a byte-by-byte walk around every block boundary,
    /// with changes near either end and texts of different lengths.
    #[test]
    fn common_ends_agree_with_a_byte_walk() {
        let base: String = (0..3000).map(|i| (b'a' + (i % 23) as u8) as char).collect();
        for at in [0, 1, 255, 256, 257, 511, 512, 1500, 2743, 2744, 2745, 2999] {
            for with in ["", "Z", "ZZZZ", "é"] {
                let mut new = base.clone();
                new.replace_range(at..(at + 1).min(base.len()), with);
                let (pre, suf) = naive(&base, &new);
                assert_eq!(
                    common_prefix(base.as_bytes(), new.as_bytes()),
                    pre,
                    "{at} {with:?}"
                );
                let max = base.len().min(new.len()) - pre;
                assert_eq!(
                    common_suffix(base.as_bytes(), new.as_bytes(), max),
                    suf,
                    "{at} {with:?}"
                );
                let (forward, backward) = delta(&base, &new);
                let mut redone = base.clone();
                for s in &forward {
                    redone.replace_range(s.at.clone(), &s.with);
                }
                assert_eq!(redone, new);
                for s in &backward {
                    redone.replace_range(s.at.clone(), &s.with);
                }
                assert_eq!(redone, base);
            }
        }
    }
}
