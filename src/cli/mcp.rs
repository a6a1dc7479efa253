//! `toolscope mcp discover`: start (or connect to) the MCP servers a toolkit declares, list
//! their tools and record them in the sidecar cache next to the file.
//!
//! Starting a program named in a YAML file is a security decision, so this is the only
//! command that does it, and only when run.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Subcommand, ValueEnum};
use serde_json::json;

use super::common::{InputFormat, print_json};
use toolscope_core::diag::Diagnostic;
use toolscope_core::load::declared;
use toolscope_core::mcp::cache;
use toolscope_core::mcp::client::{self, Failure, Found};
use toolscope_core::mcp::decl::ServerDecl;
use toolscope_core::mcp::discovery::{diagnostics, identity_text, record};
use toolscope_core::mcp::folder;
use toolscope_core::source::{self, Format};
use toolscope_core::text::for_terminal;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: McpCommand,
}

#[derive(Debug, Subcommand)]
enum McpCommand {
    /// Start each declared MCP server, list its tools and record them next to the file.
    ///
    /// This RUNS THE PROGRAMS the file names (`command:` of `transport_type: STDIO`) and
    /// connects to the URLs it names (SSE, STREAMABLE_HTTP): run it only on files you
    /// trust. toolscope never starts a server unless asked like this. Each server runs in
    /// the file's folder with the configured `args` and `env`; it and every process it
    /// started are stopped when its tools are listed, on a timeout, on an error and on
    /// Ctrl-C. Tools are listed, never called. What was found goes to FILE.mcp.json
    /// (for example `chat2graph.yml.mcp.json`, without env or header values), which every
    /// command then loads (`--no-mcp-cache` ignores it).
    Discover(DiscoverArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OutFormat {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
struct DiscoverArgs {
    /// Toolkit files or directories.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Only this server (the MCP group's name); repeatable. Default: every declared server.
    #[arg(long = "server", value_name = "NAME")]
    servers: Vec<String>,
    /// Seconds allowed for one server's whole discovery, from start to stop (the default
    /// leaves room for a first `npx` download). The config's own `timeout` bounds each
    /// request after the handshake.
    #[arg(long, value_name = "SECS", value_parser = parse_secs,
          default_value_t = client::DEFAULT_TIMEOUT.as_secs_f64())]
    timeout: f64,
    /// Force the input format instead of detecting it.
    #[arg(long, value_enum)]
    input_format: Option<InputFormat>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutFormat,
}

fn parse_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 86_400.0 => Ok(t),
        _ => Err(format!("`{s}` is not a number of seconds in (0, 86400]")),
    }
}

pub fn run(args: &Args) -> ExitCode {
    match &args.command {
        McpCommand::Discover(d) => discover(d),
    }
}

/// One server's outcome, for the report.
struct Outcome {
    file: PathBuf,
    name: String,
    result: Result<Found, Failure>,
}

fn discover(args: &DiscoverArgs) -> ExitCode {
    let files = match source::expand_paths(&args.paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}", for_terminal(&e.to_string()));
            return ExitCode::from(1);
        }
    };
    let mut plan: Vec<(PathBuf, Vec<ServerDecl>)> = Vec::new();
    for file in files {
        match declared(&file, args.input_format.map(Format::from)) {
            Ok(decls) => plan.push((file, decls)),
            Err(e) => {
                eprintln!("error: {}", for_terminal(&e));
                return ExitCode::from(1);
            }
        }
    }
    for wanted in &args.servers {
        if !plan
            .iter()
            .any(|(_, d)| d.iter().any(|s| &s.name == wanted))
        {
            eprintln!(
                "error: no MCP server named `{}` in the given files",
                for_terminal(wanted)
            );
            return ExitCode::from(1);
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let timeout = Duration::from_secs_f64(args.timeout);
    let mut outcomes = Vec::new();
    let mut diags = Vec::new();
    for (file, decls) in &plan {
        let chosen: Vec<&ServerDecl> = decls
            .iter()
            .filter(|d| args.servers.is_empty() || args.servers.contains(&d.name))
            .collect();
        if chosen.is_empty() {
            continue;
        }
        let dir = folder(file);
        let start = outcomes.len();
        for decl in &chosen {
            eprintln!(
                "{}: discovering `{}` ({})...",
                for_terminal(&file.display().to_string()),
                for_terminal(&decl.name),
                for_terminal(&identity_text(decl))
            );
            let Some(result) =
                runtime.block_on(interruptible(client::discover(decl, &dir, timeout)))
            else {
                eprintln!("interrupted: the server was stopped; nothing was written");
                return ExitCode::from(130);
            };
            diags.extend(diagnostics(file, decl, &result));
            outcomes.push(Outcome {
                file: file.clone(),
                name: decl.name.clone(),
                result,
            });
        }
        let found_here: Vec<(&ServerDecl, &Found)> = chosen
            .iter()
            .zip(&outcomes[start..])
            .filter_map(|(d, o)| o.result.as_ref().ok().map(|f| (*d, f)))
            .collect();
        if !found_here.is_empty()
            && let Err(e) = record(file, &found_here, &mut diags)
        {
            eprintln!("error: {}", for_terminal(&e));
            return ExitCode::from(1);
        }
    }
    if plan.iter().all(|(_, d)| d.is_empty()) {
        eprintln!(
            "no MCP servers declared (Chat2Graph `type: MCP` entries or native groups with `mcp_transport_config`)"
        );
    }
    report(args.format, &outcomes, &diags);
    if outcomes.iter().any(|o| o.result.is_err()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs `work` unless Ctrl-C or SIGTERM comes first; dropping `work` stops its server.
async fn interruptible<T>(work: impl Future<Output = T>) -> Option<T> {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        r = work => Some(r),
        _ = tokio::signal::ctrl_c() => None,
        _ = term => None,
    }
}

fn report(format: OutFormat, outcomes: &[Outcome], diags: &[Diagnostic]) {
    match format {
        OutFormat::Json => {
            let servers: Vec<_> = outcomes
                .iter()
                .map(|o| {
                    let mut v = json!({
                        "file": o.file.display().to_string(),
                        "cache": cache::sidecar_path(&o.file).display().to_string(),
                        "name": o.name,
                        "ok": o.result.is_ok(),
                    });
                    match &o.result {
                        Ok(f) => {
                            v["tools"] = json!(f.tools.iter().map(|t| &t.name).collect::<Vec<_>>());
                            v["pages"] = json!(f.pages);
                        }
                        Err(e) => v["stderr"] = json!(stderr_of(e)),
                    }
                    v
                })
                .collect();
            print_json(&json!({"servers": servers, "diagnostics": diags}));
        }
        OutFormat::Text => {
            for o in outcomes {
                match &o.result {
                    Ok(f) => {
                        println!(
                            "{} ({} tools) -> {}",
                            for_terminal(&o.name),
                            f.tools.len(),
                            for_terminal(&cache::sidecar_path(&o.file).display().to_string())
                        );
                        for t in &f.tools {
                            let first = t.description.lines().next().unwrap_or_default();
                            println!("  {}: {}", for_terminal(&t.name), for_terminal(first));
                        }
                    }
                    Err(e) => {
                        let stderr = stderr_of(e);
                        if !stderr.trim().is_empty() {
                            eprintln!("--- stderr of `{}` ---", for_terminal(&o.name));
                            eprint!("{}", for_terminal(stderr));
                            if !stderr.ends_with('\n') {
                                eprintln!();
                            }
                            eprintln!("---");
                        }
                    }
                }
            }
            for d in diags {
                eprintln!("{}", for_terminal(&d.to_string()));
            }
        }
    }
}

fn stderr_of(f: &Failure) -> &str {
    match f {
        Failure::Timeout { stderr, .. } | Failure::Failed { stderr, .. } => stderr,
        Failure::Unsupported(_) => "",
    }
}
