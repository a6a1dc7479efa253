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
        Err(Failure::Timeout { after, stderr }) => with_hint(
            decl,
            at(
                Severity::Error,
                Code::McpTimeout,
                format!(
                    "MCP server `{name}`: no tool list within {} s (the server was stopped; raise --timeout for a slow first start)",
                    after.as_secs_f64()
                ),
            ),
            stderr,
        ),
        Err(Failure::Failed { message, stderr }) => with_hint(
            decl,
            at(
                Severity::Error,
                Code::McpServerFailed,
                format!("MCP server `{name}`: {message}"),
            ),
            stderr,
        ),
    }
}

/// What npm prints when `npx` would have to install a package and its configuration says
/// not to without asking (`yes=false` in an npmrc): the server never starts.
const NPX_NO_YES: &str = "npx canceled due to missing packages and no YES option";

/// A one-line hint for a server's failure when its stderr says something the user can fix
/// in one step: what to run or set. Shown by `mcp discover` and the TUI's `:mcp discover`.
pub fn hint(decl: &ServerDecl, stderr: &str) -> Option<String> {
    if !stderr.contains(NPX_NO_YES) {
        return None;
    }
    let package = npx_package(decl).or_else(|| missing_package(stderr));
    let run = match package {
        Some(p) => format!("`npx -y {p}`"),
        None => "the server's `npx` command with `-y`".to_string(),
    };
    Some(format!(
        "hint: npm is set not to install packages without asking (`yes=false` in an npmrc); run {run} once, or set npm_config_yes=true in the environment"
    ))
}

/// The package a declared `npx` command runs: its first argument that is not an option.
fn npx_package(decl: &ServerDecl) -> Option<String> {
    let Some(super::decl::Transport::Stdio { command, args, .. }) = &decl.transport else {
        return None;
    };
    let program = Path::new(command).file_name()?.to_str()?;
    if program != "npx" {
        return None;
    }
    args.iter().find(|a| !a.starts_with('-')).cloned()
}

/// The first package npm names in its message (`...no YES option: ["pkg@1.2.3"]`).
fn missing_package(stderr: &str) -> Option<String> {
    let line = stderr.lines().find(|l| l.contains(NPX_NO_YES))?;
    let list = &line[line.find('[')? + 1..];
    let first = list.split([',', ']']).next()?.trim().trim_matches('"');
    (!first.is_empty() && !first.chars().any(char::is_control)).then(|| first.to_string())
}

/// A server's failure, followed (as an info at the same place) by the hint its stderr
/// calls for, if any.
fn with_hint(decl: &ServerDecl, failure: Diagnostic, stderr: &str) -> Vec<Diagnostic> {
    let hint = hint(decl, stderr).map(|message| Diagnostic {
        severity: Severity::Info,
        message,
        ..failure.clone()
    });
    std::iter::once(failure).chain(hint).collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::decl::Transport;

    fn stdio(command: &str, args: &[&str]) -> ServerDecl {
        ServerDecl {
            name: "FileTool".into(),
            transport: Some(Transport::Stdio {
                command: command.into(),
                args: args.iter().map(|a| a.to_string()).collect(),
                env: Vec::new(),
            }),
            timeout: None,
            line: 3,
            col: 5,
        }
    }

    const NPM: &str = "npm error npx canceled due to missing packages and no YES option: [\"@modelcontextprotocol/server-filesystem@2025.8.21\"]\nnpm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n";

    #[test]
    fn npx_refusing_to_install_gets_a_hint_naming_the_package() {
        let decl = stdio("npx", &["@modelcontextprotocol/server-filesystem", "."]);
        let text = hint(&decl, NPM).expect("a hint");
        assert!(
            text.contains("`npx -y @modelcontextprotocol/server-filesystem`"),
            "{text}"
        );
        assert!(text.contains("npm_config_yes=true"), "{text}");
        assert_eq!(text.lines().count(), 1);
        // Another wrapper: the package npm names.
        let wrapped = hint(&stdio("/usr/bin/env", &["npx"]), NPM).expect("a hint");
        assert!(
            wrapped.contains("`npx -y @modelcontextprotocol/server-filesystem@2025.8.21`"),
            "{wrapped}"
        );
        assert_eq!(hint_or_none("something else failed"), None);
    }

    fn hint_or_none(stderr: &str) -> Option<String> {
        hint(&stdio("npx", &["pkg"]), stderr)
    }

    #[test]
    fn the_hint_follows_the_failure_at_its_place() {
        let decl = stdio("npx", &["-q", "pkg"]);
        let failed: Result<Found, Failure> = Err(Failure::Failed {
            message: "the server exited (status 1) before answering".into(),
            stderr: NPM.into(),
        });
        let diags = diagnostics(Path::new("c.yml"), &decl, &failed);
        assert_eq!(diags.len(), 2, "{diags:?}");
        assert_eq!(diags[0].code, Code::McpServerFailed);
        assert_eq!(
            (diags[1].severity, diags[1].line, diags[1].code),
            (Severity::Info, 3, Code::McpServerFailed)
        );
        assert!(diags[1].message.contains("`npx -y pkg`"));
        let plain: Result<Found, Failure> = Err(Failure::Failed {
            message: "exited".into(),
            stderr: "fatal: no database\n".into(),
        });
        assert_eq!(diagnostics(Path::new("c.yml"), &decl, &plain).len(), 1);
    }
}
