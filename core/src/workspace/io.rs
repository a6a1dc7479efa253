//! The disk side of a [`Workspace`]: verification, conflict checks, saving, reloading and
//! reapplying pending edits.

use std::path::{Path, PathBuf};

use crate::model::Toolkit;
use crate::source::save::{check_unchanged, lock_for_write, replace, write_atomic};
use crate::source::{self, FileLoad, Limits, LoadError, SourceFile};

use super::{ReapplyReport, SaveError, SaveErrorKind, Workspace, load_file};
use crate::edit::Transaction;

impl Workspace {
    /// Checks that a file's current text loads back into its expected graph.
    pub fn loads_back(&self, file: usize) -> Result<Toolkit, SaveError> {
        let f = &self.files[file];
        loads_back(&f.source, &f.source.text, &f.own).map(|load| load.toolkit)
    }

    /// Files whose content on disk differs from what was loaded (or last saved).
    pub fn conflicts(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|f| !f.detached && check_unchanged(&f.source.path, &f.disk).is_err())
            .map(|f| f.source.path.clone())
            .collect()
    }

    /// "Keep mine" after a conflict: the content of `paths` on disk now becomes the base
    /// the next save checks against, so that save overwrites exactly this content; a
    /// later change on disk is a conflict again.
    pub fn keep_mine(&mut self, paths: &[PathBuf]) -> Result<(), LoadError> {
        let limits = Limits::default();
        for f in self.files.iter_mut() {
            if f.detached || !paths.contains(&f.source.path) {
                continue;
            }
            f.disk = source::read_file(&f.source.path, &limits)?;
            f.window = None;
        }
        Ok(())
    }

    /// Saves every changed file: verified, conflict-checked, atomic. Stops at the first
    /// refusal (files saved before it stay saved). Returns the paths written.
    pub fn save_all(&mut self) -> Result<Vec<PathBuf>, SaveError> {
        self.save_dirty(false)
    }

    /// Like [`Workspace::save_all`] but overwrites files changed on disk.
    pub fn save_all_overwrite(&mut self) -> Result<Vec<PathBuf>, SaveError> {
        self.save_dirty(true)
    }

    fn save_dirty(&mut self, overwrite: bool) -> Result<Vec<PathBuf>, SaveError> {
        let mut written = Vec::new();
        for i in 0..self.files.len() {
            if !self.files[i].dirty() || self.files[i].detached {
                continue;
            }
            if let Some(diags) = self.window_proof(i) {
                let f = &self.files[i];
                let expected = (!overwrite).then_some(f.disk.as_str());
                replace(&f.source.path, expected, &f.source.text)?;
                written.push(f.source.path.clone());
                self.saved_window(i, diags);
                continue;
            }
            let f = &self.files[i];
            let checked = loads_back(&f.source, &f.source.text, &f.own)?;
            let f = &self.files[i];
            // Under the write lock, checked against the text loaded (unless overwriting)
            // before writing and again right before the rename.
            let expected = (!overwrite).then_some(f.disk.as_str());
            replace(&f.source.path, expected, &f.source.text)?;
            written.push(f.source.path.clone());
            let name = f.source.path.display().to_string();
            self.saved(i, checked, &name);
        }
        Ok(written)
    }

    /// The windowed verify of file `file`'s one edit since load or save (see
    /// `window_proof`): the file's new diagnostics, or `None` to verify the whole file.
    fn window_proof(&self, file: usize) -> Option<Vec<crate::diag::Diagnostic>> {
        let f = &self.files[file];
        let w = f.window.as_ref()?;
        let name = f.source.path.display().to_string();
        let diags: Vec<_> = self
            .diagnostics
            .iter()
            .filter(|d| d.file == name)
            .cloned()
            .collect();
        let path = &f.source.path;
        super::window_proof::prove(path, &f.disk, &f.source.text, w, &f.own, &diags)
    }

    /// Records a file written after a windowed verify: its graph already is the edited one
    /// (positions after the window may be stale: `shifted` says so), its diagnostics are
    /// the proof's.
    fn saved_window(&mut self, file: usize, diags: Vec<crate::diag::Diagnostic>) {
        let name = self.files[file].source.path.display().to_string();
        self.diagnostics.retain(|d| d.file != name);
        self.diagnostics.extend(diags);
        let f = &mut self.files[file];
        f.disk.clone_from(&f.source.text);
        f.pending.clear();
        f.window = None;
        self.windowed_saves += 1;
    }

    /// Records a written file: its text is the disk text, its graph and diagnostics are
    /// the ones just verified (fresh positions).
    fn saved(&mut self, file: usize, checked: FileLoad, old_name: &str) {
        self.diagnostics.retain(|d| d.file != old_name);
        self.diagnostics.extend(checked.diagnostics);
        let f = &mut self.files[file];
        f.disk.clone_from(&f.source.text);
        f.pending.clear();
        f.shifted = false;
        f.window = None;
        f.own = checked.toolkit;
        if self.files.len() == 1 {
            // Positions only changed; keep the edited graph, refresh origins.
            self.toolkit = std::sync::Arc::new(self.files[0].own.clone());
        } else {
            self.rebuild();
        }
    }

    /// Writes file `file` to a new path (the bundled example, or "save as"); the file then
    /// lives there. Refuses an existing path unless `overwrite`.
    pub fn save_as(&mut self, file: usize, path: &Path, overwrite: bool) -> Result<(), SaveError> {
        crate::source::save::replaceable(path)?;
        let _lock = lock_for_write(path)?;
        if !overwrite && path.exists() {
            return Err(SaveError::new(
                path,
                SaveErrorKind::Exists,
                "the file exists; use overwrite",
            ));
        }
        let f = &self.files[file];
        let old_name = f.source.path.display().to_string();
        let mut checked = loads_back(&f.source, &f.source.text, &f.own)?;
        let new_name = path.display().to_string();
        for d in &mut checked.diagnostics {
            d.file.clone_from(&new_name);
        }
        for p in &mut checked.toolkit.files {
            *p = path.to_path_buf();
        }
        write_atomic(path, &self.files[file].source.text)?;
        let f = &mut self.files[file];
        f.source.path = path.to_path_buf();
        f.detached = false;
        self.saved(file, checked, &old_name);
        Ok(())
    }

    /// Reloads every file from disk, dropping unsaved edits and the history.
    pub fn reload(&mut self) -> Result<(), LoadError> {
        self.reload_with(false).map(|_| ())
    }

    /// Reloads every file from disk and reapplies the pending edits onto the new content,
    /// reporting those that no longer apply. The history restarts from the reapplied edits.
    pub fn reapply(&mut self) -> Result<ReapplyReport, LoadError> {
        self.reload_with(true)
    }

    fn reload_with(&mut self, reapply: bool) -> Result<ReapplyReport, LoadError> {
        if !reapply && self.reread()? {
            return Ok(ReapplyReport::default());
        }
        let limits = Limits::default();
        let mut fresh = Vec::new();
        for f in &self.files {
            if f.detached {
                fresh.push((f.clone(), Vec::new()));
                continue;
            }
            let text = source::read_file(&f.source.path, &limits)?;
            if source::mid_write(&text, &f.disk) {
                return Err(LoadError {
                    file: f.source.path.display().to_string(),
                    line: 0,
                    col: 0,
                    code: crate::diag::Code::Io,
                    message: "the file is empty (a write in progress?); keeping what was loaded"
                        .into(),
                });
            }
            let (mut nf, d) = load_file(
                &f.source.path,
                text,
                self.forced.or(Some(f.source.format)),
                false,
            )?;
            nf.pending = if reapply {
                f.pending.clone()
            } else {
                Vec::new()
            };
            fresh.push((nf, d));
        }
        let mut report = ReapplyReport::default();
        let pending: Vec<(usize, Transaction)> = fresh
            .iter_mut()
            .enumerate()
            .flat_map(|(i, (f, _))| {
                std::mem::take(&mut f.pending)
                    .into_iter()
                    .map(move |(_, e)| (i, e))
            })
            .collect();
        let kept = (self.each_edit_bytes, self.windowed_saves, self.rereads);
        *self = Workspace::from_files(fresh, self.forced, &self.roots);
        (self.each_edit_bytes, self.windowed_saves, self.rereads) = kept;
        for (file, edit) in pending {
            let result = self.prepare(file, &edit, &|| false).map(|(step, _)| step);
            let id = result.as_ref().map_or(0, |s| s.id);
            match result.and_then(|step| self.finish(step, true)) {
                Ok(()) => {
                    self.files[file].pending.push((id, edit.clone()));
                    report.reapplied.push(edit);
                }
                Err(e) => report.dropped.push((edit, e.to_string())),
            }
        }
        self.merge_history();
        Ok(report)
    }

    /// The incremental reload: one file without unsaved edits whose change on disk lies in
    /// one item's lines and is provably local (`window_reread::reread`) is updated in place
    /// (text, graph, diagnostics; the history is dropped as a reload drops it). `false`:
    /// nothing changed, load the files again.
    fn reread(&mut self) -> Result<bool, LoadError> {
        if self.files.len() != 1 || self.is_dirty() {
            return Ok(false);
        }
        let f = &self.files[0];
        if f.detached || f.shifted {
            return Ok(false);
        }
        // An MCP sidecar cache (FILE.mcp.json) is read on load too: when there was one at
        // load, or is one now, it may be what changed (or was deleted), so the file loads
        // again. MCP groups the file declares itself (with their member lists) are only
        // text, like any other item.
        let sidecar = crate::mcp::cache::sidecar_path(&f.source.path);
        if f.had_sidecar || sidecar.exists() {
            return Ok(false);
        }
        let text = source::read_file(&f.source.path, &Limits::default())?;
        let name = f.source.path.display().to_string();
        // Unchanged text: something read with it (a cache) may have changed; load again.
        if text == f.disk {
            return Ok(false);
        }
        {
            let diags: Vec<_> = self
                .diagnostics
                .iter()
                .filter(|d| d.file == name)
                .cloned()
                .collect();
            let path = &f.source.path;
            let Some(r) = super::window_reread::reread(path, &f.disk, &text, &f.own, &diags) else {
                return Ok(false);
            };
            if !r.applies(&f.own) || !r.applies(&self.toolkit) {
                return Ok(false);
            }
            r.apply(std::sync::Arc::make_mut(&mut self.toolkit), 0);
            let f = &mut self.files[0];
            r.apply(&mut f.own, 0);
            f.disk.clone_from(&text);
            f.source.text = text;
            self.diagnostics.retain(|d| d.file != name);
            self.diagnostics.extend(r.diags);
            self.rereads += 1;
        }
        let f = &mut self.files[0];
        f.pending.clear();
        f.window = None;
        self.undo.clear();
        self.redo.clear();
        Ok(true)
    }

    /// A unified diff of a file's unsaved changes (for `--dry-run` and previews).
    pub fn diff(&self, file: usize) -> String {
        let f = &self.files[file];
        let shown = f.source.path.display().to_string();
        let name = shown.trim_start_matches('/');
        similar::TextDiff::from_lines(&f.disk, &f.source.text)
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{name}"), &format!("b/{name}"))
            .to_string()
    }
}

/// Loads `new_text` as `file` and compares it with the expected graph.
pub(super) fn loads_back(
    file: &SourceFile,
    new_text: &str,
    expected: &Toolkit,
) -> Result<FileLoad, SaveError> {
    let fail = |m: String| SaveError::new(&file.path, SaveErrorKind::Verify, m);
    let mut load = crate::load::load_text(
        &file.path,
        new_text.to_string(),
        Some(file.format),
        &Limits::default(),
    )
    .map_err(|e| fail(format!("the new text does not parse: {e}")))?;
    // A `next` into another opened file is an edge to a stand-in in the expected graph.
    source::join::keep_stand_ins(&mut load, expected);
    if crate::edit::graph::same_graph(expected, &load.toolkit) {
        return Ok(load);
    }
    let d = expected
        .difference(&load.toolkit)
        .unwrap_or_else(|| "the graphs differ".into());
    Err(fail(format!(
        "the written file would not give the graph you see: {d}"
    )))
}
