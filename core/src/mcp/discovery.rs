//! One discovery's outcome turned into what toolscope keeps: diagnostics at the server's
//! declaration, and the sidecar cache entry of each server that answered. Both front ends
//! (`toolscope mcp discover`, the TUI's `:mcp discover`) use these.

use std::path::Path;

use super::cache::{self, Cache, ServerEntry};
use super::client::{Failure, Found};
use super::decl::ServerDecl;
use crate::diag::{Code, Diagnostic, Severity};

/// How the declaration says to reach the server, for progress lines.
pub fn identity_text(decl: &ServerDecl) -> String {
    match &decl.transport {
        Some(t) => cache::describe_identity(&t.identity()),
        None => "no transport configured".into(),
    }
}

/// The diagnostics of one server's discovery, at its declaration.
pub fn diagnostics(
    file: &Path,
    decl: &ServerDecl,
    result: &Result<Found, Failure>,
) -> Vec<Diagnostic> {
    let at = |severity, code, message: String| Diagnostic {
        file: file.display().to_string(),
        line: decl.line,
        column: decl.col,
        severity,
        code,
        message,
    };
    let name = &decl.name;
    match result {
        Ok(found) => found
            .problems
            .iter()
            .map(|p| {
                at(
                    Severity::Warning,
                    Code::McpMalformedTool,
                    format!("MCP server `{name}`: {p}"),
                )
            })
            .collect(),
        Err(Failure::Unsupported(why)) => vec![at(
            Severity::Error,
            Code::McpUnsupportedTransport,
            format!("MCP server `{name}`: {why}"),
        )],
        Err(Failure::Timeout { after, .. }) => vec![at(
            Severity::Error,
            Code::McpTimeout,
            format!(
                "MCP server `{name}`: no tool list within {} s (the server was stopped; raise --timeout for a slow first start)",
                after.as_secs_f64()
            ),
        )],
        Err(Failure::Failed { message, .. }) => vec![at(
            Severity::Error,
            Code::McpServerFailed,
            format!("MCP server `{name}`: {message}"),
        )],
    }
}

/// Writes what was found into the file's cache (atomically), keeping other servers' entries.
pub fn record(
    file: &Path,
    found: &[(&ServerDecl, &Found)],
    diags: &mut Vec<Diagnostic>,
) -> Result<(), String> {
    let path = cache::sidecar_path(file);
    let mut cache = match cache::read(&path) {
        Ok(Some((c, skipped))) => {
            for why in skipped {
                diags.push(Diagnostic {
                    file: path.display().to_string(),
                    line: 1,
                    column: 1,
                    severity: Severity::Warning,
                    code: Code::McpCacheUnreadable,
                    message: format!("MCP cache entry dropped on rewriting it: {why}"),
                });
            }
            c
        }
        Ok(None) => Cache::default(),
        Err(why) => {
            diags.push(Diagnostic {
                file: path.display().to_string(),
                line: 1,
                column: 1,
                severity: Severity::Warning,
                code: Code::McpCacheUnreadable,
                message: format!("MCP cache was unreadable ({why}); it is replaced"),
            });
            Cache::default()
        }
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for (decl, f) in found {
        let Some(t) = &decl.transport else { continue };
        cache.upsert(ServerEntry {
            name: decl.name.clone(),
            identity: t.identity(),
            discovered_at: cache::rfc3339(now),
            server_info: f.server_info.clone(),
            tools: f.tools.clone(),
        });
    }
    crate::source::save::write_atomic(&path, &cache.to_text()).map_err(|e| e.to_string())
}
