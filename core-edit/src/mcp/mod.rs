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

/// The config file's folder (where a stdio server runs).
pub fn folder(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}
