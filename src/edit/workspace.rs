//! The editing session the TUI and `toolscope set` drive: loaded files with their own
//! graphs, the merged toolkit the user sees, undo/redo, verified atomic saves, conflict
//! detection, reload and reapplying pending edits onto new content.

use std::path::{Path, PathBuf};

use crate::diag::Diagnostic;
use crate::model::Toolkit;
use crate::source::patch::{self, Splice};
use crate::source::save::{check_unchanged, write_atomic};
use crate::source::{self, FileLoad, Format, Limits, LoadError, SourceFile};

pub use crate::source::save::{SaveError, SaveErrorKind};

use super::{Edit, EditError};

/// Files up to this size are verified on every edit (a refused edit changes nothing);
/// larger ones only before writing.
const VERIFY_EACH_EDIT_BYTES: usize = 1 << 20;

/// One loaded file.
#[derive(Debug, Clone)]
pub struct WsFile {
    /// Path, format and the current (possibly edited) text.
    pub source: SourceFile,
    /// The text on disk when loaded or last saved.
    pub disk: String,
    /// The graph this file alone gives, with the edits made to it.
    pub own: Toolkit,
    /// Edits made since the last save or load, in order, with their history ids.
    pending: Vec<(u64, Edit)>,
    /// An edit since the positions were read added or removed lines.
    shifted: bool,
    /// Not on disk (the bundled example): only `save_as` writes it.
    pub detached: bool,
}

impl WsFile {
    pub fn dirty(&self) -> bool {
        self.source.text != self.disk
    }

    /// The edits not yet saved, in order.
    pub fn pending(&self) -> impl Iterator<Item = &Edit> {
        self.pending.iter().map(|(_, e)| e)
    }
}

#[derive(Debug, Clone)]
struct Step {
    id: u64,
    file: usize,
    edit: Edit,
    inverse: Edit,
    /// Splices on the whole file text (BOM included) that redo and undo the step.
    forward: Vec<Splice>,
    backward: Vec<Splice>,
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
    pub reapplied: Vec<Edit>,
    /// Edits that no longer apply, with the reason.
    pub dropped: Vec<(Edit, String)>,
}

/// An editing session over one or more toolkit files.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The merged graph of all files, as the user sees it.
    pub toolkit: Toolkit,
    pub diagnostics: Vec<Diagnostic>,
    files: Vec<WsFile>,
    forced: Option<Format>,
    undo: Vec<Step>,
    redo: Vec<Step>,
    next_id: u64,
}

impl Workspace {
    /// Loads files or directories (merged in order).
    pub fn open(paths: &[PathBuf], forced: Option<Format>) -> Result<Workspace, LoadError> {
        let limits = Limits::default();
        let mut files = Vec::new();
        for path in source::expand_paths(paths)? {
            let text = source::read_file(&path, &limits)?;
            files.push(load_file(&path, text, forced, false)?);
        }
        Ok(Workspace::from_files(files, forced))
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
        Ok(Workspace::from_files(vec![file], Some(Format::Native)))
    }

    /// A session over one text that did not come from disk (tests, stdin).
    pub fn from_text(
        path: &Path,
        text: String,
        forced: Option<Format>,
    ) -> Result<Workspace, LoadError> {
        let file = load_file(path, text, forced, false)?;
        Ok(Workspace::from_files(vec![file], forced))
    }

    fn from_files(files: Vec<(WsFile, Vec<Diagnostic>)>, forced: Option<Format>) -> Workspace {
        let mut ws = Workspace {
            toolkit: Toolkit::new(),
            diagnostics: Vec::new(),
            files: Vec::new(),
            forced,
            undo: Vec::new(),
            redo: Vec::new(),
            next_id: 1,
        };
        for (f, d) in files {
            ws.files.push(f);
            ws.diagnostics.extend(d);
        }
        ws.rebuild();
        ws
    }

    pub fn files(&self) -> &[WsFile] {
        &self.files
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

    fn rebuild(&mut self) {
        let mut tk = Toolkit::new();
        for (i, f) in self.files.iter().enumerate() {
            if i == 0 {
                tk = f.own.clone();
            } else {
                tk.merge(&f.own);
            }
        }
        self.toolkit = tk;
    }

    /// The file an edit belongs to: the first whose own graph holds what it names.
    pub fn target_file(&self, edit: &Edit) -> Result<usize, EditError> {
        if self.files.len() == 1 {
            return Ok(0);
        }
        let mut probe_err = None;
        for (i, f) in self.files.iter().enumerate() {
            let mut tk = f.own.clone();
            match edit.apply_graph(&mut tk) {
                Ok(()) => return Ok(i),
                Err(e) => probe_err = probe_err.or(Some(e)),
            }
        }
        Err(probe_err.unwrap_or_else(|| EditError::NotFound("no file is loaded".into())))
    }

    /// Applies an edit to the graph and to the text of the file it belongs to.
    pub fn apply(&mut self, edit: Edit) -> Result<Applied, EditError> {
        let file = self.target_file(&edit)?;
        let (step, notes) = self.prepare(file, &edit)?;
        let text_changed = !step.forward.is_empty();
        let id = step.id;
        self.finish(step, true)?;
        self.files[file].pending.push((id, edit));
        self.redo.clear();
        Ok(Applied {
            file,
            path: self.files[file].source.path.clone(),
            notes,
            text_changed,
        })
    }

    /// Computes (and checks) a step without changing anything.
    fn prepare(&mut self, file: usize, edit: &Edit) -> Result<(Step, Vec<String>), EditError> {
        let f = &self.files[file];
        let inverse = edit.inverse(&f.own)?;
        // Large files with fresh positions: parse only the edited declaration.
        let fast = (f.source.text.len() > VERIFY_EACH_EDIT_BYTES && !f.shifted)
            .then(|| super::window::patch(edit, &f.source, &f.own))
            .flatten();
        let patch = match fast {
            Some(p) => p,
            None => edit.patch(&f.source, &f.own)?,
        };
        let offset = bom_len(&f.source.text);
        let (new_text, backward) =
            patch::apply(&f.source.text, &patch.splices, offset).map_err(EditError::Unsupported)?;
        if f.source.text.len() <= VERIFY_EACH_EDIT_BYTES {
            let mut own = f.own.clone();
            edit.apply_graph(&mut own)?;
            verify(&f.source, &new_text, &own).map_err(|e| EditError::Unsupported(e.message))?;
        }
        let forward = patch
            .splices
            .iter()
            .map(|s| Splice::new(s.at.start + offset..s.at.end + offset, s.with.clone()))
            .collect();
        let id = self.next_id;
        self.next_id += 1;
        let step = Step {
            id,
            file,
            edit: edit.clone(),
            inverse,
            forward,
            backward,
        };
        Ok((step, patch.notes))
    }

    /// Makes a prepared step, or redoes or undoes one: the file's graph first (an edit the
    /// graph refuses changes nothing), then its text and the merged graph.
    fn finish(&mut self, step: Step, forward: bool) -> Result<(), EditError> {
        let f = &mut self.files[step.file];
        let (splices, edit) = if forward {
            (&step.forward, &step.edit)
        } else {
            (&step.backward, &step.inverse)
        };
        let (text, _) = patch::apply(&f.source.text, splices, 0).map_err(EditError::Unsupported)?;
        edit.apply_graph(&mut f.own)?;
        f.shifted |= splices.iter().any(|s| {
            s.with.contains('\n')
                || f.source
                    .text
                    .get(s.at.clone())
                    .is_some_and(|o| o.contains('\n'))
        });
        f.source.text = text;
        if self.files.len() == 1 {
            if edit.apply_graph(&mut self.toolkit).is_err() {
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

    /// Undoes the last edit; returns it.
    pub fn undo(&mut self) -> Option<Edit> {
        let step = self.undo.pop()?;
        let (file, id) = (step.file, step.id);
        let (edit, inverse) = (step.edit.clone(), step.inverse.clone());
        self.finish(step, false).ok()?;
        let f = &mut self.files[file];
        if f.pending.last().is_some_and(|(p, _)| *p == id) {
            f.pending.pop();
        } else {
            f.pending.push((id, inverse));
        }
        Some(edit)
    }

    /// Redoes the last undone edit; returns it.
    pub fn redo(&mut self) -> Option<Edit> {
        let step = self.redo.pop()?;
        let (file, id, edit) = (step.file, step.id, step.edit.clone());
        self.finish(step, true).ok()?;
        self.files[file].pending.push((id, edit.clone()));
        Some(edit)
    }

    /// The expected graph of one file, for tools that adjust it (and for tests that need
    /// a verification failure).
    #[doc(hidden)]
    pub fn expected_mut(&mut self, file: usize) -> &mut Toolkit {
        &mut self.files[file].own
    }

    /// Checks that a file's current text loads back into its expected graph.
    pub fn verify(&self, file: usize) -> Result<Toolkit, SaveError> {
        let f = &self.files[file];
        verify(&f.source, &f.source.text, &f.own).map(|load| load.toolkit)
    }

    /// Files whose content on disk differs from what was loaded (or last saved).
    pub fn conflicts(&self) -> Vec<PathBuf> {
        self.files
            .iter()
            .filter(|f| !f.detached && check_unchanged(&f.source.path, &f.disk).is_err())
            .map(|f| f.source.path.clone())
            .collect()
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
            let f = &self.files[i];
            let checked = verify(&f.source, &f.source.text, &f.own)?;
            let f = &self.files[i];
            if !overwrite {
                check_unchanged(&f.source.path, &f.disk)?;
            }
            write_atomic(&f.source.path, &f.source.text)?;
            written.push(f.source.path.clone());
            let name = f.source.path.display().to_string();
            self.saved(i, checked, &name);
        }
        Ok(written)
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
        f.own = checked.toolkit;
        if self.files.len() == 1 {
            // Positions only changed; keep the edited graph, refresh origins.
            self.toolkit = self.files[0].own.clone();
        } else {
            self.rebuild();
        }
    }

    /// Writes file `file` to a new path (the bundled example, or "save as"); the file then
    /// lives there. Refuses an existing path unless `overwrite`.
    pub fn save_as(&mut self, file: usize, path: &Path, overwrite: bool) -> Result<(), SaveError> {
        if !overwrite && path.exists() {
            return Err(SaveError::new(
                path,
                SaveErrorKind::Exists,
                "the file exists; use overwrite",
            ));
        }
        let f = &self.files[file];
        let old_name = f.source.path.display().to_string();
        let mut checked = verify(&f.source, &f.source.text, &f.own)?;
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
        let limits = Limits::default();
        let mut fresh = Vec::new();
        for f in &self.files {
            if f.detached {
                fresh.push((f.clone(), Vec::new()));
                continue;
            }
            let text = source::read_file(&f.source.path, &limits)?;
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
        let pending: Vec<(usize, Edit)> = fresh
            .iter_mut()
            .enumerate()
            .flat_map(|(i, (f, _))| {
                std::mem::take(&mut f.pending)
                    .into_iter()
                    .map(move |(_, e)| (i, e))
            })
            .collect();
        *self = Workspace::from_files(fresh, self.forced);
        for (file, edit) in pending {
            let result = self.prepare(file, &edit).map(|(step, _)| step);
            let id = result.as_ref().map_or(0, |s| s.id);
            match result.and_then(|step| self.finish(step, true)) {
                Ok(()) => {
                    self.files[file].pending.push((id, edit.clone()));
                    report.reapplied.push(edit);
                }
                Err(e) => report.dropped.push((edit, e.to_string())),
            }
        }
        Ok(report)
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

fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    }
}

fn load_file(
    path: &Path,
    text: String,
    forced: Option<Format>,
    detached: bool,
) -> Result<(WsFile, Vec<Diagnostic>), LoadError> {
    let load = source::load_text(path, text, forced, &Limits::default())?;
    let file = WsFile {
        disk: load.source.text.clone(),
        source: load.source,
        own: load.toolkit,
        pending: Vec::new(),
        shifted: false,
        detached,
    };
    Ok((file, load.diagnostics))
}

/// Loads `new_text` as `file` and compares it with the expected graph.
fn verify(file: &SourceFile, new_text: &str, expected: &Toolkit) -> Result<FileLoad, SaveError> {
    let fail = |m: String| SaveError::new(&file.path, SaveErrorKind::Verify, m);
    let load = source::load_text(
        &file.path,
        new_text.to_string(),
        Some(file.format),
        &Limits::default(),
    )
    .map_err(|e| fail(format!("the new text does not parse: {e}")))?;
    if super::graph::same_graph(expected, &load.toolkit) {
        return Ok(load);
    }
    let d = expected
        .difference(&load.toolkit)
        .unwrap_or_else(|| "the graphs differ".into());
    Err(fail(format!(
        "the written file would not give the graph you see: {d}"
    )))
}
