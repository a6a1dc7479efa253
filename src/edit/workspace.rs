//! The editing session the TUI and `toolscope set` drive: loaded files with their own
//! graphs, the merged toolkit the user sees, undo/redo, verified atomic saves, conflict
//! detection, reload and reapplying pending edits onto new content.
//!
//! ```no_run
//! use toolscope::edit::{Edit, SaveErrorKind, Workspace};
//! use toolscope::model::NodeKind;
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
use crate::model::Toolkit;
use crate::source::patch::{self, Splice};
use crate::source::{self, Format, Limits, LoadError, SourceFile};

pub use crate::source::save::{SaveError, SaveErrorKind};

mod io;

use io::verify;

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
