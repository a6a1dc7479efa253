//! Test support: a toolkit read from its text by its format, as toolscope-core's `load`
//! reads one but for what only loading adds (the MCP sidecar cache, the memory budget, the
//! notes of a file that holds no toolkit or more than one document). Loading sits above
//! this crate; the tests here need the formats' reading alone.

use std::path::{Path, PathBuf};

use crate::diag::Code;
use crate::formats::{self, ctx::Ctx};
use crate::mcp::decl::{self, ServerDecl};
use crate::source::yaml::{self, Doc};
use crate::source::{
    EXAMPLE, EXAMPLE_NAME, FileLoad, Format, Limits, LoadError, Loaded, SourceFile, join_files,
    strip_bom,
};

/// One file's text in the given or detected format.
pub fn load_text(
    path: &Path,
    text: String,
    forced: Option<Format>,
    limits: &Limits,
) -> Result<FileLoad, LoadError> {
    let name = path.display().to_string();
    let doc = yaml::parse(strip_bom(&text), limits).map_err(|e| LoadError {
        file: name.clone(),
        line: e.line,
        col: e.col,
        code: Code::Parse,
        message: e.message,
    })?;
    let format = forced.unwrap_or_else(|| formats::detect(&doc));
    let mut ctx = Ctx::new(&doc, name);
    ctx.toolkit.files.push(path.to_path_buf());
    formats::of(format).load(&mut ctx);
    let (toolkit, diagnostics, unresolved) = ctx.finish();
    drop(doc);
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

/// Files (not folders), each in the given or detected format, joined in order.
pub fn load_paths(paths: &[PathBuf], forced: Option<Format>) -> Result<Loaded, LoadError> {
    let limits = Limits::default();
    let mut loads = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| LoadError::io(path, format!("cannot read: {e}")))?;
        loads.push(load_text(path, text, forced, &limits)?);
    }
    Ok(join_files(paths, loads))
}

/// The compiled-in example.
pub fn load_example() -> Loaded {
    let file = load_text(
        Path::new(EXAMPLE_NAME),
        EXAMPLE.to_string(),
        Some(Format::Native),
        &Limits::default(),
    )
    .expect("the example loads");
    join_files(&[], vec![file])
}

/// The MCP servers a parsed file in `format` declares, in file order.
pub fn mcp_servers(doc: &Doc, format: Format) -> Vec<ServerDecl> {
    let format = formats::of(format);
    decl::servers(doc, format.mcp_list(), |doc, item| {
        format.is_mcp_server(doc, item)
    })
}
