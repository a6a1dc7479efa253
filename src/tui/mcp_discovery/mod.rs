//! `:mcp discover [SERVER]`: the CLI's `toolscope mcp discover` for the open files, run on a
//! background thread so the UI keeps drawing. The thread writes each file's sidecar cache
//! through the CLI's own writer and sends a [`Report`] back as [`Msg::McpDone`]; the cache
//! watcher (see `live::watch_mcp_caches`) then reloads the toolkit with the members.
//!
//! Starting a program named in a YAML file is a security decision: this command is the only
//! place the TUI does it, and only when typed.
//!
//! Esc or Ctrl-C while a discovery runs cancels it: the server being asked is dropped,
//! which ends its whole process group (see `mcp::process`), and nothing is recorded.

#[cfg(test)]
mod live_tests;
pub mod state;
#[cfg(test)]
mod tests;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::tui::action::Action;
use crate::tui::ctx::Ctx;
use crate::tui::msg::Msg;
use crate::tui::status::{Level, Status};
use crate::tui::update::row::{Command, cmd};

#[cfg(feature = "mcp")]
use state::{Cancel, ServerOutcome};
pub use state::{Discovery, Report};

/// Esc or Ctrl-C while a discovery runs (and no overlay is open: `overlay_open`) cancels
/// it; `None` when the key is not taken. A second Ctrl-C while cancelling goes on to
/// quitting.
pub fn cancel_key(d: &Discovery, k: &KeyEvent, overlay_open: bool) -> Option<Vec<Action>> {
    let ctrl_c = k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c');
    let esc = k.code == KeyCode::Esc && k.modifiers.is_empty();
    if !d.is_running() || overlay_open || !(ctrl_c || esc) {
        return None;
    }
    if !d.cancel() {
        return esc.then(Vec::new);
    }
    Some(vec![Action::Status(
        Level::Info,
        "cancelling the MCP discovery…".into(),
    )])
}

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("mcp", [], None, "discover [SERVER]", General, "start the MCP servers (all or SERVER), list their tools; runs the programs the files name, only on this command", @Mcp command),
];

/// The `:mcp` command: `discover [SERVER]`.
fn command(d: &mut Discovery, ctx: &Ctx, arg: &str) -> Result<Vec<Action>, String> {
    let (sub, server) = match arg.split_once(char::is_whitespace) {
        Some((s, rest)) => (s, rest.trim()),
        None => (arg, ""),
    };
    if sub != "discover" {
        return Err(format!("usage: :mcp discover [SERVER] (not `{arg}`)"));
    }
    start(d, ctx, server)
}

#[cfg(not(feature = "mcp"))]
fn start(_: &mut Discovery, _: &Ctx, _: &str) -> Result<Vec<Action>, String> {
    Err("`:mcp discover` is not built in (toolscope was built without the `mcp` feature)".into())
}

#[cfg(feature = "mcp")]
fn start(d: &mut Discovery, ctx: &Ctx, server: &str) -> Result<Vec<Action>, String> {
    if d.is_running() {
        return Err("an MCP discovery is already running".into());
    }
    let tx = ctx
        .tx
        .cloned()
        .ok_or("no message channel: `:mcp discover` needs the interactive TUI")?;
    let plan = plan(ctx.files, server)?;
    let n: usize = plan.iter().map(|(_, d)| d.len()).sum();
    let cancel = d.start();
    std::thread::spawn(move || {
        let report = run(&plan, &cancel);
        let _ = tx.send(Msg::McpDone(report));
    });
    Ok(vec![Action::Status(
        Level::Info,
        format!(
            "discovering {n} server{}… (Esc cancels)",
            if n == 1 { "" } else { "s" }
        ),
    )])
}

#[cfg(feature = "mcp")]
type Plan = Vec<(
    std::path::PathBuf,
    Vec<toolscope_core::mcp::decl::ServerDecl>,
)>;

/// The open files' declared servers (only `server` when given).
#[cfg(feature = "mcp")]
fn plan(files: &[toolscope_core::session::Opened], server: &str) -> Result<Plan, String> {
    let mut plan = Vec::new();
    for f in files {
        let decls = toolscope_core::load::declared(&f.path, Some(f.format))?;
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

/// Discovers every planned server, one after another, and records what was found, unless
/// the discovery is cancelled first (then nothing is recorded).
#[cfg(feature = "mcp")]
fn run(plan: &Plan, cancel: &Cancel) -> Report {
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
    let mut found_per_file = Vec::new();
    for (file, decls) in plan {
        let dir = toolscope_core::mcp::folder(file);
        let mut found = Vec::new();
        for decl in decls {
            let work = toolscope_core::mcp::client::discover(
                decl,
                &dir,
                toolscope_core::mcp::client::DEFAULT_TIMEOUT,
            );
            // Dropping `work` on cancel ends the server's process group.
            let result = runtime.block_on(async {
                tokio::select! {
                    r = work => Some(r),
                    _ = cancel.cancelled() => None,
                }
            });
            let Some(result) = result else {
                // A moment for the runtime to reap the killed server.
                runtime.block_on(async {
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await
                });
                report.cancelled = true;
                return report;
            };
            let result_text = match &result {
                Ok(f) => Ok(f.tools.len()),
                Err(e) => Err(failure_text(e)),
            };
            let hint = match &result_text {
                Err((_, stderr)) => toolscope_core::mcp::discovery::hint(decl, stderr),
                Ok(_) => None,
            };
            report.servers.push(ServerOutcome {
                name: decl.name.clone(),
                result: result_text,
                hint,
            });
            if let Ok(f) = result {
                found.push((decl, f));
            }
        }
        found_per_file.push((file, found));
    }
    if cancel.is_cancelled() {
        report.cancelled = true;
        return report;
    }
    for (file, found) in found_per_file {
        if found.is_empty() {
            continue;
        }
        let pairs: Vec<_> = found.iter().map(|(d, f)| (*d, f)).collect();
        let mut diags = Vec::new();
        if let Err(e) = toolscope_core::mcp::discovery::record(file, &pairs, &mut diags) {
            report.write_errors.push(format!("{}: {e}", file.display()));
        }
        report
            .write_errors
            .extend(diags.iter().map(|d| d.to_string()));
    }
    report
}

#[cfg(feature = "mcp")]
fn failure_text(f: &toolscope_core::mcp::client::Failure) -> (String, String) {
    use toolscope_core::mcp::client::Failure;
    match f {
        Failure::Unsupported(why) => (why.clone(), String::new()),
        Failure::Timeout { after, stderr } => (
            format!("no tool list within {} s (stopped)", after.as_secs_f64()),
            stderr.clone(),
        ),
        Failure::Failed { message, stderr } => (message.clone(), stderr.clone()),
    }
}

/// Quitting while a discovery runs: cancels it and waits (at most 3 s) for the discovery
/// thread to end the server's process group, which the process exit alone would leave
/// running (the server is in a group of its own).
pub fn stop_before_exit(d: &Discovery, rx: &std::sync::mpsc::Receiver<Msg>) {
    if !d.is_running() {
        return;
    }
    d.cancel();
    let end = std::time::Instant::now() + std::time::Duration::from_secs(3);
    while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(Msg::McpDone(_)) | Err(_) => return,
            Ok(_) => {}
        }
    }
}

/// Shows a finished discovery: one status line (tools per server, or the error with the
/// last stderr line), and each failure whole in the message log.
pub fn finished(d: &mut Discovery, report: Report) -> Vec<Action> {
    d.finished();
    if report.cancelled {
        return vec![Action::Status(
            Level::Info,
            "discovery cancelled: the server was stopped, nothing was recorded".into(),
        )];
    }
    let mut out = Vec::new();
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
                // The hint says more than the last stderr line it was read from.
                let last = stderr.lines().rev().find(|l| !l.trim().is_empty());
                parts.push(match (&s.hint, last) {
                    (Some(h), _) => format!("{}: failed: {message} ({h})", s.name),
                    (None, Some(l)) => format!("{}: failed: {message} ({})", s.name, l.trim()),
                    (None, None) => format!("{}: failed: {message}", s.name),
                });
                let mut whole = format!("MCP server `{}` failed: {message}", s.name);
                if !stderr.trim().is_empty() {
                    whole.push_str("\nits stderr:\n");
                    whole.push_str(stderr.trim_end());
                }
                if let Some(h) = &s.hint {
                    whole.push('\n');
                    whole.push_str(h);
                }
                out.push(Action::Log(Status::error(whole)));
            }
        }
    }
    for e in &report.write_errors {
        failed = true;
        out.push(Action::Log(Status::error(format!("MCP cache: {e}"))));
        parts.push(format!("cache: {e}"));
    }
    let level = if failed { Level::Error } else { Level::Info };
    let mut line = format!("MCP discovery: {}", parts.join(" · "));
    if failed {
        line.push_str(" (:messages has the whole text)");
    }
    out.push(Action::Status(level, line));
    out
}
