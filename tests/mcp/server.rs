//! The MCP test server: this test binary re-run with `TOOLSCOPE_TEST_MCP_SERVER` set
//! serves instead of testing. Modes (first argument):
//! - `stdio [PER_PAGE]`: rmcp's server side on stdin/stdout, tools in pages of PER_PAGE;
//!   the `whoami` tool's description reports the working folder and `TS_GREETING`.
//! - `http`: streamable HTTP (rmcp's tower service) on a loopback port, printed on stdout.
//! - `sse`: the older HTTP+SSE protocol (written here: rmcp 3 has no server for it) on a
//!   loopback port printed on stdout; the GET must carry `X-Test-Token: letmein`.
//! - `hang PIDFILE`: starts a grandchild `sleep`, writes both pids, never answers.
//! - `fail`: writes an error to stderr and exits with status 3.
//! - `malformed`: raw JSON-RPC answering `tools/list` with some invalid tools.
//! - `deep`: the same with a tool whose schema nests 120 levels.
//! - `huge`: the same with an answer of about 17 MiB on one line.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use rmcp::ServiceExt;
use rmcp::model::{
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub const ENV: &str = "TOOLSCOPE_TEST_MCP_SERVER";

#[derive(Clone)]
struct TestServer {
    tools: Vec<Tool>,
    per_page: usize,
}

impl TestServer {
    fn new(per_page: usize) -> TestServer {
        let cwd = std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default();
        let greeting = std::env::var("TS_GREETING").unwrap_or_default();
        let schema = |props: serde_json::Value, required: serde_json::Value| {
            let v = json!({"type": "object", "properties": props, "required": required});
            Arc::new(v.as_object().cloned().unwrap_or_default())
        };
        let mut tools = vec![
            Tool::new(
                "read_file",
                "Read a file.",
                schema(
                    json!({"path": {"type": "string", "description": "Which file"}}),
                    json!(["path"]),
                ),
            ),
            Tool::new(
                "list_dir",
                "List a folder.",
                schema(
                    json!({"path": {"type": "string"}, "depth": {"type": "integer", "description": "How deep"}}),
                    json!(["path"]),
                ),
            ),
            Tool::new("ping", "Answer pong.", schema(json!({}), json!([]))),
            Tool::new(
                "search",
                "Search files.",
                schema(json!({"q": {"type": "string"}}), json!(["q"])),
            ),
            Tool::new(
                "whoami",
                format!("cwd={cwd} greeting={greeting}"),
                schema(json!({}), json!([])),
            ),
        ];
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        TestServer {
            tools,
            per_page: per_page.max(1),
        }
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start: usize = request
            .and_then(|r| r.cursor)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let end = (start + self.per_page).min(self.tools.len());
        let mut result = ListToolsResult::with_all_items(self.tools[start.min(end)..end].to_vec());
        if end < self.tools.len() {
            result.next_cursor = Some(end.to_string());
        }
        Ok(result)
    }
}

pub fn main(args: &[String]) {
    let mode = args.first().map(String::as_str).unwrap_or("stdio");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    match mode {
        "stdio" => {
            let per_page = args.get(1).and_then(|p| p.parse().ok()).unwrap_or(100);
            rt.block_on(async move {
                let (stdin, stdout) = (tokio::io::stdin(), tokio::io::stdout());
                if let Ok(running) = TestServer::new(per_page).serve((stdin, stdout)).await {
                    let _ = running.waiting().await;
                }
            });
        }
        "http" => rt.block_on(serve_http()),
        "sse" => rt.block_on(serve_sse()),
        "sse-flood" => rt.block_on(serve_sse_flood(args.get(1).map(String::as_str))),
        "hang" => hang(args.get(1).expect("pid file")),
        "fail" => {
            eprintln!("fatal: no database configured (set DB_URL)");
            std::process::exit(3);
        }
        "malformed" => rt.block_on(raw(malformed_tools())),
        "deep" => rt.block_on(raw(deep_tools())),
        "huge" => rt.block_on(raw(huge_tools())),
        other => panic!("unknown mode {other}"),
    }
}

fn hang(pidfile: &str) {
    let mut child = std::process::Command::new("sleep")
        .arg("300")
        .spawn()
        .expect("sleep");
    let _ = std::fs::write(pidfile, format!("{} {}\n", std::process::id(), child.id()));
    // Never answers; waits on the grandchild (which only toolscope's group kill ends).
    let _ = child.wait();
    loop {
        std::thread::sleep(std::time::Duration::from_secs(60));
    }
}

/// `malformed`: some tools invalid.
fn malformed_tools() -> serde_json::Value {
    json!({"tools": [
        {"name": "good", "description": "A fine tool.", "inputSchema": {"type": "object"}},
        {"name": 42, "inputSchema": {"type": "object"}},
        {"name": "no_schema", "description": "Forgot its schema."}
    ]})
}

/// `deep`: a tool whose schema nests as deep as a JSON-RPC answer can be read (`DEEP`
/// levels), and a plain one.
fn deep_tools() -> serde_json::Value {
    let levels: usize = std::env::var("DEEP")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(123);
    let mut schema = json!({"type": "string"});
    for _ in 1..levels {
        schema = json!({"type": "array", "items": schema});
    }
    json!({"tools": [
        {"name": "deep", "description": "Nested.", "inputSchema": schema},
        {"name": "plain", "description": "Flat.", "inputSchema": {"type": "object"}}
    ]})
}

/// `huge`: a `tools/list` answer of about 17 MiB on one line.
fn huge_tools() -> serde_json::Value {
    json!({"tools": [
        {"name": "big", "description": "x".repeat(17 << 20), "inputSchema": {"type": "object"}}
    ]})
}

/// A raw JSON-RPC server answering the handshake and `tools/list` with `tools`.
async fn raw(tools: serde_json::Value) {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut out = tokio::io::stdout();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let id = msg["id"].clone();
        let result = match msg["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "malformed", "version": "0.0.1"}
            }),
            Some("tools/list") => tools.clone(),
            _ => continue, // notifications
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        let _ = out.write_all(format!("{answer}\n").as_bytes()).await;
        let _ = out.flush().await;
    }
}

async fn bind() -> TcpListener {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    println!("{port}");
    listener
}

async fn serve_http() {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    let service = StreamableHttpService::new(
        || Ok(TestServer::new(2)),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = bind().await;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let svc = hyper_util::service::TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

type Sessions = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<String>>>>;
type Body = BoxBody<Bytes, Infallible>;

async fn serve_sse() {
    let sessions: Sessions = Arc::default();
    let listener = bind().await;
    let mut next = 0u32;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let sessions = sessions.clone();
        next += 1;
        let id = next;
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| sse_route(req, sessions.clone(), id));
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

/// An SSE server whose event never ends: before its `endpoint` event, one endless line;
/// with `after-endpoint`, the endpoint and then endless short `data:` lines of one event
/// (each line short, so only a bound on the whole event stops it).
async fn serve_sse_flood(when: Option<&str>) {
    let endpoint_first = when == Some("after-endpoint");
    let listener = bind().await;
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req: Request<Incoming>| async move {
                if req.method() == "POST" {
                    return Ok::<_, Infallible>(text(StatusCode::ACCEPTED, "Accepted"));
                }
                let head = match endpoint_first {
                    true => "event: endpoint\ndata: /messages\n\ndata: ",
                    false => "data: ",
                };
                let chunk = match endpoint_first {
                    true => Bytes::from("x".repeat(1000) + "\ndata: "),
                    false => Bytes::from("x".repeat(64 << 10)),
                };
                let first =
                    futures::stream::iter([Ok::<_, Infallible>(Frame::data(Bytes::from(head)))]);
                let rest = futures::stream::repeat_with(move || Ok(Frame::data(chunk.clone())));
                let mut r = Response::new(BodyExt::boxed(StreamBody::new(
                    futures::StreamExt::chain(first, rest),
                )));
                r.headers_mut()
                    .insert("content-type", "text/event-stream".parse().unwrap());
                Ok(r)
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(body)).boxed());
    *r.status_mut() = status;
    r
}

async fn sse_route(
    req: Request<Incoming>,
    sessions: Sessions,
    conn: u32,
) -> Result<Response<Body>, Infallible> {
    match (req.method().as_str(), req.uri().path()) {
        ("GET", "/sse") => {
            if req
                .headers()
                .get("x-test-token")
                .and_then(|v| v.to_str().ok())
                != Some("letmein")
            {
                return Ok(text(StatusCode::UNAUTHORIZED, "missing X-Test-Token"));
            }
            let session = format!("s{conn}");
            // The rmcp server talks newline-delimited JSON over one end of a pipe; POSTed
            // requests are written into it and its answers become `message` events.
            let (ours, theirs) = tokio::io::duplex(1 << 16);
            tokio::spawn(async move {
                if let Ok(running) = TestServer::new(2).serve(theirs).await {
                    let _ = running.waiting().await;
                }
            });
            let (read, mut write) = tokio::io::split(ours);
            let (to_server, mut requests) = mpsc::unbounded_channel::<String>();
            sessions.lock().unwrap().insert(session.clone(), to_server);
            tokio::spawn(async move {
                while let Some(line) = requests.recv().await {
                    if write
                        .write_all(format!("{line}\n").as_bytes())
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
            });
            let (events, rx) = mpsc::unbounded_channel::<Bytes>();
            let _ = events.send(Bytes::from(format!(
                "event: endpoint\ndata: /messages?sessionId={session}\n\n"
            )));
            tokio::spawn(async move {
                let mut lines = BufReader::new(read).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    if events
                        .send(Bytes::from(format!("event: message\ndata: {line}\n\n")))
                        .is_err()
                    {
                        break;
                    }
                }
            });
            let stream = futures::stream::unfold(rx, |mut rx| async move {
                rx.recv()
                    .await
                    .map(|b| (Ok::<_, Infallible>(Frame::data(b)), rx))
            });
            let mut r = Response::new(BodyExt::boxed(StreamBody::new(stream)));
            r.headers_mut()
                .insert("content-type", "text/event-stream".parse().unwrap());
            Ok(r)
        }
        ("POST", "/messages") => {
            let session = req
                .uri()
                .query()
                .and_then(|q| q.strip_prefix("sessionId="))
                .unwrap_or_default()
                .to_string();
            let sender = sessions.lock().unwrap().get(&session).cloned();
            let Some(sender) = sender else {
                return Ok(text(StatusCode::NOT_FOUND, "no such session"));
            };
            let body = match req.into_body().collect().await {
                Ok(b) => b.to_bytes(),
                Err(_) => return Ok(text(StatusCode::BAD_REQUEST, "bad body")),
            };
            let _ = sender.send(String::from_utf8_lossy(&body).into_owned());
            Ok(text(StatusCode::ACCEPTED, "Accepted"))
        }
        _ => Ok(text(StatusCode::NOT_FOUND, "not found")),
    }
}
