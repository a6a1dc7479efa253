//! The MCP client behind `toolscope mcp discover` (cargo feature `mcp`): start or connect to
//! a declared server, run the handshake and `tools/list` (all pages), and stop it. Tools
//! are listed, never called.
//!
//! Transports: stdio (a child process in its own process group, see [`process`]) and
//! streamable HTTP through rmcp; the older HTTP+SSE protocol through our own rmcp transport
//! ([`super::sse`]). HTTP is plain (reqwest without TLS, to keep the build small): an `https://`
//! URL is reported as unsupported.

use super::{process, sse, tools};

use std::path::Path;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::model::{ClientRequest, PaginatedRequestParams, ServerResult};
use rmcp::service::{PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{IntoTransport, StreamableHttpClientTransport};
use serde_json::Value;

use crate::mcp::cache::{CachedTool, ServerInfo};
use crate::mcp::decl::{ServerDecl, Transport};

/// The default bound on one server's whole discovery: enough for a first `npx` run to
/// download the server package.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(180);

/// Most pages followed, against a server whose cursors never end.
const MAX_PAGES: usize = 1000;

/// What a server listed.
#[derive(Debug, Default)]
pub struct Found {
    pub server_info: Option<ServerInfo>,
    pub tools: Vec<CachedTool>,
    /// Why some listed tools were skipped.
    pub problems: Vec<String>,
    /// How many `tools/list` pages were read.
    pub pages: usize,
}

/// Why a discovery failed. `stderr` is the tail of a stdio server's stderr.
#[derive(Debug)]
pub enum Failure {
    /// The transport is not one toolscope can use (WEBSOCKET, unknown, https, none).
    Unsupported(String),
    /// The whole discovery took longer than the timeout.
    Timeout { after: Duration, stderr: String },
    /// The server could not be started or reached, or answered wrongly.
    Failed { message: String, stderr: String },
}

/// Discovers one server. `dir` is the config file's folder (a stdio server runs there);
/// `timeout` bounds everything, from starting the program to stopping it; the config's own
/// `timeout` bounds each request after the handshake (the handshake may include a package
/// download, so only the whole bound applies to it).
pub async fn discover(decl: &ServerDecl, dir: &Path, timeout: Duration) -> Result<Found, Failure> {
    let request = decl
        .timeout
        .filter(|t| *t > 0.0 && t.is_finite())
        .map(|t| Duration::from_secs_f64(t.min(86_400.0)))
        .unwrap_or(timeout);
    let failed = |message: String| Failure::Failed {
        message,
        stderr: String::new(),
    };
    match &decl.transport {
        None => Err(Failure::Unsupported(
            "no `mcp_transport_config` block: toolscope does not know how to reach it".into(),
        )),
        Some(Transport::WebSocket { .. }) => Err(Failure::Unsupported(
            "the WEBSOCKET transport is not supported (use STDIO, SSE or STREAMABLE_HTTP)".into(),
        )),
        Some(Transport::Unknown(t)) => Err(Failure::Unsupported(format!(
            "unknown transport_type `{t}` (STDIO, SSE, STREAMABLE_HTTP are supported)"
        ))),
        Some(Transport::Stdio { command, args, env }) => {
            if command.trim().is_empty() {
                return Err(failed("`transport_type: STDIO` without a `command`".into()));
            }
            stdio(command, args, env, dir, timeout, request).await
        }
        Some(Transport::StreamableHttp { url, headers }) => {
            let client = http_client(url, headers)?;
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let transport = StreamableHttpClientTransport::with_client(client, config);
            bounded(timeout, session(transport, request)).await
        }
        Some(Transport::Sse { url, headers }) => {
            let client = http_client(url, headers)?;
            let refused = sse::Refused::default();
            let result = bounded(timeout, async {
                let transport = sse::SseTransport::connect(client, url, request, refused.clone())
                    .await
                    .map_err(|e| failed(e.0))?;
                session(transport, request).await
            })
            .await;
            // An event too big to read ended the stream: that is the cause.
            match (result, refused.lock().ok().and_then(|mut r| r.take())) {
                (Err(_), Some(message)) => Err(failed(message)),
                (other, _) => other,
            }
        }
    }
}

async fn bounded(
    timeout: Duration,
    work: impl Future<Output = Result<Found, Failure>>,
) -> Result<Found, Failure> {
    tokio::time::timeout(timeout, work)
        .await
        .unwrap_or(Err(Failure::Timeout {
            after: timeout,
            stderr: String::new(),
        }))
}

async fn stdio(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    dir: &Path,
    timeout: Duration,
    request: Duration,
) -> Result<Found, Failure> {
    let (mut server, stdout, stdin) =
        process::spawn(command, args, env, dir).map_err(|e| Failure::Failed {
            message: format!("cannot start `{command}` in {}: {e}", dir.display()),
            stderr: String::new(),
        })?;
    let result = bounded(timeout, session((stdout, stdin), request)).await;
    server.stop().await;
    // A line the transport would have dropped ended the stream: that is the cause.
    let result = match (result, server.refused()) {
        (Err(_), Some(message)) => Err(Failure::Failed {
            message,
            stderr: String::new(),
        }),
        (other, _) => other,
    };
    match result {
        Ok(found) => Ok(found),
        Err(Failure::Timeout { after, .. }) => Err(Failure::Timeout {
            after,
            stderr: server.stderr().await,
        }),
        Err(Failure::Failed { message, .. }) => Err(Failure::Failed {
            message,
            stderr: server.stderr().await,
        }),
        Err(other) => Err(other),
    }
}

/// A reqwest client sending the configured headers; plain HTTP only.
fn http_client(url: &str, headers: &[(String, String)]) -> Result<reqwest::Client, Failure> {
    if url.trim().is_empty() {
        return Err(Failure::Failed {
            message: "no `url` configured".into(),
            stderr: String::new(),
        });
    }
    if url.trim_start().to_ascii_lowercase().starts_with("https:") {
        return Err(Failure::Unsupported(format!(
            "`{url}`: this toolscope is built without TLS (plain http:// only)"
        )));
    }
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes());
        let value = HeaderValue::from_str(v);
        match (name, value) {
            (Ok(n), Ok(v)) => {
                map.insert(n, v);
            }
            // The value is not shown: headers may hold secrets.
            _ => {
                return Err(Failure::Failed {
                    message: format!("header `{k}` is not a valid HTTP header"),
                    stderr: String::new(),
                });
            }
        }
    }
    reqwest::Client::builder()
        .default_headers(map)
        .build()
        .map_err(|e| Failure::Failed {
            message: e.to_string(),
            stderr: String::new(),
        })
}

/// Handshake, every `tools/list` page, and a clean close.
async fn session<T, E, A>(transport: T, request: Duration) -> Result<Found, Failure>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let failed = |message: String| Failure::Failed {
        message,
        stderr: String::new(),
    };
    let client: RunningService<RoleClient, ()> = ()
        .serve(transport)
        .await
        .map_err(|e| failed(format!("MCP handshake failed: {e}")))?;
    let mut found = Found {
        server_info: client
            .peer_info()
            .and_then(|info| info.server_info.clone())
            .map(|i| ServerInfo {
                name: i.name,
                version: i.version,
            }),
        ..Found::default()
    };
    let mut cursor: Option<String> = None;
    let mut seen = std::collections::HashSet::new();
    loop {
        let params = PaginatedRequestParams::default().with_cursor(cursor.clone());
        let req =
            ClientRequest::ListToolsRequest(rmcp::model::ListToolsRequest::with_param(params));
        let answer = client
            .peer()
            .send_request_with_option(req, PeerRequestOptions::with_timeout(request))
            .await
            .map_err(|e| failed(format!("tools/list: {e}")))?
            .await_response()
            .await
            .map_err(|e| failed(format!("tools/list: {e}")))?;
        let value = result_value(answer)?;
        let page = tools::page(&value).map_err(failed)?;
        found.pages += 1;
        found.tools.extend(page.tools);
        found.problems.extend(page.problems);
        match page.next_cursor {
            Some(next) if found.pages >= MAX_PAGES || !seen.insert(next.clone()) => {
                found.problems.push(format!(
                    "pagination stopped after {} pages (cursor `{next}` repeats or never ends)",
                    found.pages
                ));
                break;
            }
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    let _ = client.cancel().await;
    Ok(found)
}

/// The `tools/list` result as JSON, whichever shape rmcp read it into; a result rmcp could
/// not read as a tool list arrives as its raw JSON and is checked tool by tool.
fn result_value(answer: ServerResult) -> Result<Value, Failure> {
    let value = match answer {
        ServerResult::ListToolsResult(r) => serde_json::to_value(r),
        ServerResult::CustomResult(c) => Ok(c.0),
        other => serde_json::to_value(other),
    };
    value.map_err(|e| Failure::Failed {
        message: format!("tools/list: {e}"),
        stderr: String::new(),
    })
}
