//! `:mcp discover [SERVER]`: the CLI's `toolscope mcp discover` for the open files, run on a
//! background thread so the UI keeps drawing. The thread writes each file's sidecar cache
//! through the CLI's own writer and sends a [`Report`] back as [`Msg::McpDone`]; the cache
//! watcher (see `live::watch_mcp_caches`) then reloads the toolkit with the members.
//!
//! Starting a program named in a YAML file is a security decision: this command is the only
//! place the TUI does it, and only when typed.

use super::app::{App, Level};
use super::status::Status;

/// One server's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOutcome {
    pub name: String,
    /// Tools found, or why it failed (whole message, whole stderr).
    pub result: Result<usize, (String, String)>,
}

/// What a background discovery found, server by server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    pub servers: Vec<ServerOutcome>,
    /// Writing a cache failed (the servers' tools were found but not kept).
    pub write_errors: Vec<String>,
}

/// The `:mcp` command: `discover [SERVER]`.
pub fn command(app: &mut App, arg: &str) -> Result<(), String> {
    let (sub, server) = match arg.split_once(char::is_whitespace) {
        Some((s, rest)) => (s, rest.trim()),
        None => (arg, ""),
    };
    if sub != "discover" {
        return Err(format!("usage: :mcp discover [SERVER] (not `{arg}`)"));
    }
    start(app, server)
}

#[cfg(not(feature = "mcp"))]
fn start(_: &mut App, _: &str) -> Result<(), String> {
    Err("`:mcp discover` is not built in (toolscope was built without the `mcp` feature)".into())
}

#[cfg(feature = "mcp")]
fn start(app: &mut App, server: &str) -> Result<(), String> {
    if app.mcp_running {
        return Err("an MCP discovery is already running".into());
    }
    let tx = app
        .session
        .live
        .sender()
        .ok_or("no message channel: `:mcp discover` needs the interactive TUI")?;
    let plan = plan(app, server)?;
    let n: usize = plan.iter().map(|(_, d)| d.len()).sum();
    app.mcp_running = true;
    app.set_status(
        Level::Info,
        format!("discovering {n} server{}…", if n == 1 { "" } else { "s" }),
    );
    std::thread::spawn(move || {
        let report = run(&plan);
        let _ = tx.send(super::msg::Msg::McpDone(report));
    });
    Ok(())
}

#[cfg(feature = "mcp")]
type Plan = Vec<(std::path::PathBuf, Vec<crate::source::mcp_decl::ServerDecl>)>;

/// The open files' declared servers (only `server` when given).
#[cfg(feature = "mcp")]
fn plan(app: &App, server: &str) -> Result<Plan, String> {
    let mut plan = Vec::new();
    for f in &app.files {
        let decls = crate::cli::mcp::declared(&f.path, Some(f.format))?;
        let chosen: Vec<_> = decls
            .into_iter()
            .filter(|d| server.is_empty() || d.name == server)
            .collect();
        if !chosen.is_empty() {
            plan.push((f.path.clone(), chosen));
        }
    }
    if plan.is_empty() {
        return Err(if server.is_empty() {
            "no MCP servers declared in the open files".into()
        } else {
            format!("no MCP server named `{server}` in the open files")
        });
    }
    Ok(plan)
}

/// Discovers every planned server, one after another, and records what was found.
#[cfg(feature = "mcp")]
fn run(plan: &Plan) -> Report {
    let mut report = Report::default();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            report
                .write_errors
                .push(format!("cannot start the async runtime: {e}"));
            return report;
        }
    };
    for (file, decls) in plan {
        let dir = crate::cli::mcp::folder(file);
        let mut found = Vec::new();
        for decl in decls {
            let result = runtime.block_on(crate::mcp::discover(
                decl,
                &dir,
                crate::mcp::DEFAULT_TIMEOUT,
            ));
            report.servers.push(ServerOutcome {
                name: decl.name.clone(),
                result: match &result {
                    Ok(f) => Ok(f.tools.len()),
                    Err(e) => Err(failure_text(e)),
                },
            });
            if let Ok(f) = result {
                found.push((decl, f));
            }
        }
        if found.is_empty() {
            continue;
        }
        let pairs: Vec<_> = found.iter().map(|(d, f)| (*d, f)).collect();
        let mut diags = Vec::new();
        if let Err(e) = crate::cli::mcp::record(file, &pairs, &mut diags) {
            report.write_errors.push(format!("{}: {e}", file.display()));
        }
        report
            .write_errors
            .extend(diags.iter().map(|d| d.to_string()));
    }
    report
}

#[cfg(feature = "mcp")]
fn failure_text(f: &crate::mcp::Failure) -> (String, String) {
    use crate::mcp::Failure;
    match f {
        Failure::Unsupported(why) => (why.clone(), String::new()),
        Failure::Timeout { after, stderr } => (
            format!("no tool list within {} s (stopped)", after.as_secs_f64()),
            stderr.clone(),
        ),
        Failure::Failed { message, stderr } => (message.clone(), stderr.clone()),
    }
}

/// Shows a finished discovery: one status line (tools per server, or the error with the
/// last stderr line), and each failure whole in the message log.
pub fn finished(app: &mut App, report: Report) {
    app.mcp_running = false;
    let mut parts = Vec::new();
    let mut failed = false;
    for s in &report.servers {
        match &s.result {
            Ok(n) => parts.push(format!(
                "{}: {n} tool{}",
                s.name,
                if *n == 1 { "" } else { "s" }
            )),
            Err((message, stderr)) => {
                failed = true;
                let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
                parts.push(match last {
                    Some(l) => format!("{}: failed: {message} ({})", s.name, l.trim()),
                    None => format!("{}: failed: {message}", s.name),
                });
                let mut whole = format!("MCP server `{}` failed: {message}", s.name);
                if !stderr.trim().is_empty() {
                    whole.push_str("\nits stderr:\n");
                    whole.push_str(stderr.trim_end());
                }
                app.log.push(&Status::error(whole));
            }
        }
    }
    for e in &report.write_errors {
        failed = true;
        app.log.push(&Status::error(format!("MCP cache: {e}")));
        parts.push(format!("cache: {e}"));
    }
    let level = if failed { Level::Error } else { Level::Info };
    let mut line = format!("MCP discovery: {}", parts.join(" · "));
    if failed {
        line.push_str(" (:messages has the whole text)");
    }
    app.set_status(level, line);
}
