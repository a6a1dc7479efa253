//! Reading toolkit files: both YAML formats, format detection, directories and merging.
//!
//! Every file is read whole and kept as it was read ([`SourceFile::text`]) so that edits can
//! be spliced into the exact bytes and so that a save can tell whether the file changed on
//! disk since it was loaded.

pub mod emit;
pub mod join;
pub mod patch;
pub mod save;
pub mod schema;
pub mod yaml;

use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostic};
use crate::model::Toolkit;

pub use yaml::Limits;

/// The two toolkit formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Native,
    Chat2Graph,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Chat2Graph => "chat2graph",
        }
    }
}

/// The native example toolkit, compiled in: `toolscope` with no path opens it.
pub const EXAMPLE: &str = include_str!("../../../toolkits/graph-db.yaml");
/// Display name of the compiled-in example.
/// Said wherever tuning is saved into a Chat2Graph config (see TS071).
pub const CHAT2GRAPH_TUNING_NOTE: &str = "Chat2Graph's own loader ignores operator threshold/hops and `scores:`; toolscope_chat2graph.install() applies them (docs/chat2graph.md)";

pub const EXAMPLE_NAME: &str = "<bundled example: toolkits/graph-db.yaml>";

/// One file as read from disk.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    /// The exact content read (BOM and line endings included).
    pub text: String,
    pub format: Format,
}

/// A loaded toolkit with its files and the problems found while reading it.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub toolkit: Toolkit,
    pub files: Vec<SourceFile>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A file that could not be loaded at all.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub code: Code,
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file, self.line, self.col, self.message
            )
        } else {
            write!(f, "{}: {}", self.file, self.message)
        }
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    /// A loading error at `path` that no line or column places (the file could not be read).
    pub fn io(path: &Path, message: impl Into<String>) -> LoadError {
        LoadError {
            file: path.display().to_string(),
            line: 0,
            col: 0,
            code: Code::Io,
            message: message.into(),
        }
    }

    /// The error as a lint diagnostic.
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic {
            file: self.file.clone(),
            line: self.line.max(1),
            column: self.col.max(1),
            severity: crate::diag::Severity::Error,
            code: self.code,
            message: self.message.clone(),
        }
    }
}

/// Files named by `paths`: files as given, directories expanded to their `.yml`/`.yaml`
/// files (recursively, sorted, hidden entries skipped).
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, LoadError> {
    let mut out = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| LoadError::io(p, e.to_string()))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            collect_yaml(p, &mut found, 0)?;
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn collect_yaml(dir: &Path, out: &mut Vec<PathBuf>, depth: u32) -> Result<(), LoadError> {
    if depth > 16 {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| LoadError::io(dir, e.to_string()))?;
    for entry in entries.flatten() {
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        if hidden {
            continue;
        }
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            collect_yaml(&path, out, depth + 1)?;
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yml" | "yaml")
        ) {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads a file as text, refusing what is not a regular readable UTF-8 file within limits.
pub fn read_file(path: &Path, limits: &Limits) -> Result<String, LoadError> {
    use crate::bounded::Refused;
    let max = limits.max_bytes as u64;
    let bytes = crate::bounded::read(path, max, crate::bounded::Links::Follow).map_err(|e| {
        let message = match &e {
            Refused::Missing => "No such file or directory (os error 2)".to_string(),
            Refused::TooLarge { size, max } => {
                format!("file is {size} bytes, over the limit of {max} bytes")
            }
            other => other.to_string(),
        };
        let code = match e {
            Refused::TooLarge { .. } => Code::Limit,
            _ => Code::Io,
        };
        LoadError {
            code,
            ..LoadError::io(path, message)
        }
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let before = &e.as_bytes()[..valid];
        let line = before.iter().filter(|b| **b == b'\n').count() as u32 + 1;
        let col = before.iter().rev().take_while(|b| **b != b'\n').count() as u32 + 1;
        LoadError {
            file: path.display().to_string(),
            line,
            col,
            code: Code::Parse,
            message: format!("invalid UTF-8 at byte {valid}"),
        }
    })
}

/// The files of one opening as one toolkit (see [`join`]): references across files
/// linked, operators of one name renamed `NAME @ FILE`, graphs merged in order.
pub fn join_files(roots: &[PathBuf], mut loads: Vec<FileLoad>) -> Loaded {
    let mut parts: Vec<join::Part> = loads.iter_mut().map(join::Part::from).collect();
    join::link_across_files(&mut parts);
    let renames = {
        let ops: Vec<(&Path, &[crate::model::Operator])> = loads
            .iter()
            .map(|f| (f.source.path.as_path(), f.toolkit.operators.as_slice()))
            .collect();
        join::operator_names(roots, &ops)
    };
    for r in renames {
        let f = &mut loads[r.file];
        f.toolkit.operators[r.index].name = r.shown;
        f.diagnostics.push(r.diagnostic);
    }
    let mut files = Vec::with_capacity(loads.len());
    let mut diagnostics = Vec::new();
    let mut graphs = Vec::with_capacity(loads.len());
    for f in loads {
        files.push(f.source);
        diagnostics.extend(f.diagnostics);
        graphs.push(f.toolkit);
    }
    Loaded {
        toolkit: join::merge_all(graphs),
        files,
        diagnostics,
    }
}

/// One file's result: its toolkit (with `files` = that one path) and diagnostics.
pub struct FileLoad {
    pub source: SourceFile,
    pub toolkit: Toolkit,
    pub diagnostics: Vec<Diagnostic>,
    /// `next` references this file alone cannot resolve (each also a TS030 diagnostic).
    pub unresolved: Vec<Unresolved>,
}

/// A `next` reference naming no action of its own file.
#[derive(Debug, Clone)]
pub struct Unresolved {
    pub from: String,
    pub to: String,
    pub score: f64,
    /// Where the reference is, in its file (file index 0).
    pub origin: crate::model::Origin,
    /// Its TS030 diagnostic, as an index into the file's diagnostics.
    pub diag: usize,
}

/// The text without its byte order mark: positions in the YAML tree are counted from
/// here, and writes put the mark back (see `bom_len`).
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// How many bytes the byte order mark takes at the start of `text` (0 without one).
pub fn bom_len(text: &str) -> usize {
    text.len() - strip_bom(text).len()
}

/// Whether a file read again looks like a write in progress: an editor that truncates
/// before writing leaves it empty (or blank) for a moment, and reading it then would swap
/// a whole toolkit for an empty one. The next change event brings the written file.
pub fn mid_write(now: &str, loaded: &str) -> bool {
    now.trim().is_empty() && !loaded.trim().is_empty()
}
