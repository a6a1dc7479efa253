//! Loading: a file's text read into the graph in its format ([`crate::formats`]), with the
//! MCP members an earlier discovery cached beside it ([`crate::mcp`]). It sits above both,
//! so the text layer (`source`: the YAML tree, splices, saving) and `mcp` never name a
//! format.

use std::path::{Path, PathBuf};

use crate::diag::{Code, Diagnostic, Severity};
use crate::formats::ctx;
use crate::mcp::decl::ServerDecl;
use crate::model::Toolkit;
use crate::source::yaml::{self, Doc};
use crate::source::{
    EXAMPLE, EXAMPLE_NAME, FileLoad, Format, Limits, LoadError, Loaded, SourceFile, bom_len,
    expand_paths, join_files, read_file, strip_bom,
};

/// Loads one or more files or directories, merged in order.
pub fn load_paths(paths: &[PathBuf], forced: Option<Format>) -> Result<Loaded, LoadError> {
    let limits = Limits::default();
    let files = expand_paths(paths)?;
    if files.is_empty() {
        return Err(no_files(paths));
    }
    let mut loads = Vec::with_capacity(files.len());
    for path in files {
        let text = read_file(&path, &limits)?;
        loads.push((path.clone(), load_text(&path, text, forced, &limits)?));
    }
    let (loads, notes) = skip_non_toolkits(paths, loads, |l| &l.diagnostics)?;
    let mut loaded = join_files(paths, loads);
    loaded.diagnostics.extend(notes);
    Ok(loaded)
}

/// The error of a folder with no YAML file at all: what a toolkit is, so an empty folder
/// is never a silent empty screen.
pub fn no_files(paths: &[PathBuf]) -> LoadError {
    let at = paths.first().map_or(Path::new("."), |p| p.as_path());
    LoadError {
        code: Code::NoToolkit,
        ..LoadError::io(
            at,
            format!(
                "no .yml or .yaml files found, so no toolkit: {}",
                NO_TOOLKIT.trim_start_matches("holds no toolkit: ")
            ),
        )
    }
}

/// The TS004 error of a file that holds no toolkit.
fn no_toolkit(file: &str) -> Diagnostic {
    Diagnostic {
        file: file.to_string(),
        line: 1,
        column: 1,
        severity: Severity::Error,
        code: Code::NoToolkit,
        message: NO_TOOLKIT.to_string(),
    }
}

/// What a toolkit needs, said wherever one is missing.
const NO_TOOLKIT: &str = "holds no toolkit: toolscope's format lists `actions:`, `tools:`, `groups:` or `operators:`; a Chat2Graph config has `toolkit:` (a list of action chains)";

/// Files a folder scan found that hold no toolkit are left out with a TS004 note (a
/// `docker-compose.yml` beside the toolkits is not an error); a file named in `paths` stays,
/// with its TS004 error. When a scan leaves nothing, that is the error: what was found,
/// and what a toolkit needs.
pub(crate) fn skip_non_toolkits<T>(
    paths: &[PathBuf],
    loads: Vec<(PathBuf, T)>,
    diags: impl Fn(&T) -> &Vec<Diagnostic>,
) -> Result<(Vec<T>, Vec<Diagnostic>), LoadError> {
    let found = loads.len();
    let mut kept = Vec::with_capacity(found);
    let mut notes = Vec::new();
    for (path, load) in loads {
        let empty = diags(&load).iter().any(|d| d.code == Code::NoToolkit);
        if empty && !paths.contains(&path) {
            let mut note = no_toolkit(&path.display().to_string());
            note.severity = Severity::Info;
            note.message = format!("skipped: {}", note.message);
            notes.push(note);
        } else {
            kept.push(load);
        }
    }
    if kept.is_empty() && found > 0 {
        let at = paths.first().map_or(Path::new("."), |p| p.as_path());
        return Err(LoadError {
            file: at.display().to_string(),
            line: 1,
            col: 1,
            code: Code::NoToolkit,
            message: format!(
                "no toolkit found: {found} YAML file{} here, {}; {}",
                if found == 1 { "" } else { "s" },
                if found == 1 {
                    "it holds none"
                } else {
                    "none holds one"
                },
                NO_TOOLKIT.trim_start_matches("holds no toolkit: ")
            ),
        });
    }
    Ok((kept, notes))
}

/// Loads the compiled-in example.
pub fn load_example() -> Loaded {
    let file = load_text(
        Path::new(EXAMPLE_NAME),
        EXAMPLE.to_string(),
        Some(Format::Native),
        &Limits::default(),
    );
    // The example is checked by the test suite; an error here is a build defect.
    match file {
        Ok(file) => join_files(&[], vec![file]),
        Err(_) => Loaded {
            toolkit: Toolkit::new(),
            files: Vec::new(),
            diagnostics: Vec::new(),
        },
    }
}

/// Parses one file's text in the given or detected format.
pub fn load_text(
    path: &Path,
    text: String,
    forced: Option<Format>,
    limits: &Limits,
) -> Result<FileLoad, LoadError> {
    let name = path.display().to_string();
    // The tree holds the one shared copy of the text while it lives; the caller's string is
    // rebuilt from it afterwards, so the text is not held twice at the peak.
    let bom = bom_len(&text) > 0;
    let shared: std::sync::Arc<str> = std::sync::Arc::from(strip_bom(&text));
    drop(text);
    // The MCP sidecar cache is input of the load too: counted in the budget, and what it
    // may cost once parsed is reserved from it before it is parsed (`mcp::cache`).
    let side = crate::mcp::cache::sidecar_bytes(path);
    let budget = limits.memory_budget(shared.len().saturating_add(side));
    let doc =
        yaml::parse_shared(std::sync::Arc::clone(&shared), limits).map_err(|e| LoadError {
            file: name.clone(),
            line: e.line,
            col: e.col,
            code: if e.message.contains("limit")
                || e.message.contains("deeper")
                || e.message.contains("recursion")
            {
                Code::Limit
            } else {
                Code::Parse
            },
            message: e.message,
        })?;
    let format = forced.unwrap_or_else(|| detect(&doc));
    let mut ctx = ctx::Ctx::new(&doc, name.clone());
    ctx.toolkit_room = budget.saturating_sub(doc.memory_bytes());
    if format == Format::Native && !crate::formats::native::holds_toolkit(&doc) {
        ctx.diags.push(no_toolkit(&name));
    }
    if let Some((count, line, col)) = doc.more_documents {
        ctx.diags.push(Diagnostic {
            file: name.clone(),
            line,
            column: col,
            severity: crate::diag::Severity::Warning,
            code: Code::MoreDocuments,
            message: format!(
                "the file holds {count} more document{} after the first; only the first is read (PyYAML's safe_load, which Chat2Graph uses, refuses such a file)",
                if count == 1 { "" } else { "s" }
            ),
        });
    }
    ctx.toolkit.files.push(path.to_path_buf());
    // MCP members discovered earlier (`toolscope mcp discover`), from the sidecar cache.
    let decls = mcp_servers(&doc, format);
    let known = crate::mcp::cache::known_members(path, &ctx.file, &decls, ctx.toolkit_room);
    ctx.toolkit_room = ctx.toolkit_room.saturating_sub(known.cost);
    ctx.mcp_members = known.members;
    ctx.toolkit.mcp_cached = known.servers;
    ctx.diags.extend(known.diagnostics);
    crate::formats::of(format).load(&mut ctx);
    if let Some(at) = ctx.over_budget {
        let n = doc.node(at);
        return Err(LoadError {
            file: name,
            line: n.line,
            col: n.col,
            code: Code::Limit,
            message: format!(
                "loading this file would use more than its memory budget of {} MB (12 times its size and its MCP cache's plus 100 MB, at most 2 GB) once its toolkit is built; the resource limit was reached",
                budget >> 20
            ),
        });
    }
    let (toolkit, diagnostics, unresolved) = ctx.finish();
    drop(doc);
    let mut text = String::with_capacity(shared.len() + 3);
    if bom {
        text.push('\u{feff}');
    }
    text.push_str(&shared);
    drop(shared);
    Ok(FileLoad {
        source: SourceFile {
            path: path.to_path_buf(),
            text,
            format,
        },
        toolkit,
        diagnostics,
        unresolved,
    })
}

/// Chat2Graph format when the top level has `toolkit:` holding a list of lists.
pub fn detect(doc: &Doc) -> Format {
    crate::formats::detect(doc)
}

/// The MCP servers a parsed file in `format` declares, in file order.
pub fn mcp_servers(doc: &Doc, format: Format) -> Vec<ServerDecl> {
    let format = crate::formats::of(format);
    crate::mcp::decl::servers(doc, format.mcp_list(), |doc, item| {
        format.is_mcp_server(doc, item)
    })
}

/// The servers a file declares.
pub fn declared(file: &Path, forced: Option<Format>) -> Result<Vec<ServerDecl>, String> {
    let limits = Limits::default();
    let text = read_file(file, &limits).map_err(|e| e.to_string())?;
    let body = strip_bom(&text);
    let doc = yaml::parse(body, &limits).map_err(|e| format!("{}:{e}", file.display()))?;
    let format = forced.unwrap_or_else(|| detect(&doc));
    Ok(mcp_servers(&doc, format))
}
