//! MCP servers as a toolkit file declares them: Chat2Graph `type: MCP` tool entries and
//! native `groups:` entries, each with an optional `mcp_transport_config` block.
//!
//! This module only reads the declaration; it never starts or contacts anything (that is
//! `mcp discover`, behind the `mcp` cargo feature). The [`Identity`] of a server (transport,
//! command and arguments, or URL; never `env` or header values, which may hold secrets) is
//! what the sidecar cache records, so that a cache made for another server is noticed.

use serde::{Deserialize, Serialize};

use crate::source::yaml::{Doc, NodeId, Scalar};

/// How to reach a server, as written in `mcp_transport_config`.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// `transport_type: STDIO`: a program to start, talking JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
    },
    /// `transport_type: SSE`: the older HTTP+SSE protocol (GET an event stream, POST to the
    /// endpoint it announces).
    Sse {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// `transport_type: STREAMABLE_HTTP`: the current HTTP protocol.
    StreamableHttp {
        url: String,
        headers: Vec<(String, String)>,
    },
    /// `transport_type: WEBSOCKET`: declared by Chat2Graph, not supported by toolscope.
    WebSocket { url: String },
    /// A `transport_type` toolscope does not know, or none at all.
    Unknown(String),
}

/// One declared MCP server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerDecl {
    /// The group's name (the Chat2Graph tool entry's or the native group's `name`).
    pub name: String,
    /// `None` when the entry has no `mcp_transport_config` block.
    pub transport: Option<Transport>,
    /// `timeout` of the block: seconds allowed for each request.
    pub timeout: Option<f64>,
    /// Position of the entry, for diagnostics.
    pub line: u32,
    pub col: u32,
}

/// What identifies a server in the cache: never `env` or header values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// `stdio`, `sse`, `streamable_http`, `websocket` or the unknown type as written.
    pub transport: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

impl Transport {
    pub fn identity(&self) -> Identity {
        let base = |transport: &str| Identity {
            transport: transport.to_string(),
            command: None,
            args: Vec::new(),
            url: None,
        };
        match self {
            Transport::Stdio { command, args, .. } => Identity {
                command: Some(command.clone()),
                args: args.clone(),
                ..base("stdio")
            },
            Transport::Sse { url, .. } => Identity {
                url: Some(url.clone()),
                ..base("sse")
            },
            Transport::StreamableHttp { url, .. } => Identity {
                url: Some(url.clone()),
                ..base("streamable_http")
            },
            Transport::WebSocket { url } => Identity {
                url: Some(url.clone()),
                ..base("websocket")
            },
            Transport::Unknown(t) => base(t),
        }
    }
}

/// The MCP servers a parsed file declares, in file order: the items of top-level list
/// `key` that `is_server` accepts (each format says which; see `load::mcp_servers`).
pub fn servers(doc: &Doc, key: &str, is_server: impl Fn(&Doc, NodeId) -> bool) -> Vec<ServerDecl> {
    let Some(root) = doc.root else {
        return Vec::new();
    };
    let Some(items) = doc.get(root, key).and_then(|l| doc.seq(l)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &item in items {
        if doc.map(item).is_none() {
            continue;
        }
        let is_mcp = is_server(doc, item);
        let Some(name) = text(doc, item, "name").filter(|_| is_mcp) else {
            continue;
        };
        let block = doc
            .get(item, "mcp_transport_config")
            .filter(|b| doc.map(*b).is_some());
        let node = doc.node(doc.resolve(item));
        out.push(ServerDecl {
            name,
            transport: block.map(|b| transport(doc, b)),
            timeout: block.and_then(|b| number(doc, b, "timeout")),
            line: node.line,
            col: node.col,
        });
    }
    out
}

fn transport(doc: &Doc, block: NodeId) -> Transport {
    let ty = text(doc, block, "transport_type").unwrap_or_else(|| "STDIO".into());
    let url = || text(doc, block, "url").unwrap_or_default();
    let headers = || pairs(doc, block, "headers");
    match ty.to_ascii_uppercase().replace('-', "_").as_str() {
        "STDIO" => Transport::Stdio {
            command: text(doc, block, "command").unwrap_or_default(),
            args: strings(doc, block, "args"),
            env: pairs(doc, block, "env"),
        },
        "SSE" => Transport::Sse {
            url: url(),
            headers: headers(),
        },
        "STREAMABLE_HTTP" | "HTTP" => Transport::StreamableHttp {
            url: url(),
            headers: headers(),
        },
        "WEBSOCKET" => Transport::WebSocket { url: url() },
        _ => Transport::Unknown(ty),
    }
}

/// A scalar as text (numbers and booleans as written); `None` for null or non-scalars.
fn scalar_text(doc: &Doc, v: NodeId) -> Option<String> {
    match doc.scalar(v)? {
        Scalar::Null => None,
        _ => doc.str(v).map(str::to_string),
    }
}

pub(crate) fn text(doc: &Doc, map: NodeId, key: &str) -> Option<String> {
    scalar_text(doc, doc.get(map, key)?)
}

fn number(doc: &Doc, map: NodeId, key: &str) -> Option<f64> {
    match doc.scalar(doc.get(map, key)?)? {
        Scalar::Int(i) => Some(i as f64),
        Scalar::Float(f) if f.is_finite() => Some(f),
        _ => None,
    }
}

fn strings(doc: &Doc, map: NodeId, key: &str) -> Vec<String> {
    let Some(items) = doc.get(map, key).and_then(|l| doc.seq(l)) else {
        return Vec::new();
    };
    items.iter().filter_map(|i| scalar_text(doc, *i)).collect()
}

/// A mapping of names to scalar values (`env:`, `headers:`), in file order.
fn pairs(doc: &Doc, map: NodeId, key: &str) -> Vec<(String, String)> {
    let Some(entries) = doc.get(map, key).and_then(|m| doc.map(m)) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(k, v)| Some((doc.str(*k)?.to_string(), scalar_text(doc, *v)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Format;
    use crate::source::yaml::{Limits, parse};

    #[test]
    fn reads_chat2graph_servers_of_every_transport() {
        let text = r#"
tools:
  - &file_tool
    name: "FileTool"
    type: MCP
    mcp_transport_config:
      transport_type: "STDIO"
      command: "npx"
      args: ["@modelcontextprotocol/server-filesystem", "."]
      env: {TOKEN: secret}
  - name: Browser
    type: MCP
    mcp_transport_config:
      transport_type: SSE
      url: http://localhost:8931/sse
      headers: {Authorization: Bearer x}
      timeout: 7
  - name: Web
    type: MCP
    mcp_transport_config: {transport_type: WEBSOCKET, url: "ws://x"}
  - name: Local
    module_path: x
  - name: Bare
    type: MCP
toolkit: [[]]
"#;
        let doc = parse(text, &Limits::default()).unwrap();
        let s = crate::testing::mcp_servers(&doc, Format::Chat2Graph);
        assert_eq!(s.len(), 4);
        assert_eq!(
            s[0].transport,
            Some(Transport::Stdio {
                command: "npx".into(),
                args: vec!["@modelcontextprotocol/server-filesystem".into(), ".".into()],
                env: vec![("TOKEN".into(), "secret".into())],
            })
        );
        let id = s[0].transport.as_ref().unwrap().identity();
        assert_eq!(id.command.as_deref(), Some("npx"));
        assert!(!format!("{id:?}").contains("secret"));
        assert_eq!(s[1].timeout, Some(7.0));
        assert!(
            matches!(&s[1].transport, Some(Transport::Sse { headers, .. }) if headers.len() == 1)
        );
        assert_eq!(
            s[2].transport,
            Some(Transport::WebSocket {
                url: "ws://x".into()
            })
        );
        assert_eq!(s[3].transport, None);
        assert_eq!((s[0].line, s[3].name.as_str()), (4, "Bare"));
    }

    #[test]
    fn native_groups_need_a_transport_block() {
        let text = "groups:\n  - name: fs\n    mcp_transport_config: {transport_type: STREAMABLE_HTTP, url: 'http://127.0.0.1:1/mcp'}\n  - name: plain\n    tools: [a]\n";
        let doc = parse(text, &Limits::default()).unwrap();
        let s = crate::testing::mcp_servers(&doc, Format::Native);
        assert_eq!(s.len(), 1);
        assert_eq!(
            s[0].transport.as_ref().unwrap().identity().transport,
            "streamable_http"
        );
    }
}
