//! MCP servers (Chat2Graph's `type: MCP` tool groups): what a file declares ([`decl`]), the
//! sidecar cache of discovered tools every load reads ([`cache`]), and, with the cargo
//! feature `mcp`, the client that starts a server on request and lists its tools
//! ([`client`], [`discovery`]).

pub mod cache;
pub mod decl;

#[cfg(feature = "mcp")]
pub mod client;
#[cfg(feature = "mcp")]
pub mod discovery;
#[cfg(feature = "mcp")]
mod process;
#[cfg(feature = "mcp")]
pub mod sse;
#[cfg(feature = "mcp")]
pub mod tools;

use std::path::{Path, PathBuf};

use crate::source::{self, Format, Limits};

/// The servers a file declares.
pub fn declared(file: &Path, forced: Option<Format>) -> Result<Vec<decl::ServerDecl>, String> {
    let limits = Limits::default();
    let text = source::read_file(file, &limits).map_err(|e| e.to_string())?;
    let body = crate::source::strip_bom(&text);
    let doc = source::yaml::parse(body, &limits).map_err(|e| format!("{}:{e}", file.display()))?;
    let format = forced.unwrap_or_else(|| source::detect(&doc));
    Ok(decl::servers(&doc, format))
}

/// The config file's folder (where a stdio server runs).
pub fn folder(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
