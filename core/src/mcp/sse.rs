//! The older MCP HTTP+SSE transport (protocol 2024-11-05), which rmcp 3 no longer ships and
//! Chat2Graph's published config uses (`transport_type: SSE`, `http://localhost:8931/sse`),
//! as an rmcp [`Transport`]: GET the event stream, wait for the `endpoint` event naming
//! where to POST, POST each request there, and read every answer from the stream.

use std::borrow::Cow;
use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use rmcp::transport::Transport;
use sse_stream::SseStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// A failure of the SSE transport, as text.
#[derive(Debug)]
pub struct SseError(pub String);

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SseError {}

pub struct SseTransport {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    incoming: mpsc::Receiver<ServerJsonRpcMessage>,
    reader: JoinHandle<()>,
}

impl SseTransport {
    /// Opens the event stream at `url` and waits (at most `wait`) for its `endpoint` event.
    /// `client` carries the configured headers.
    pub async fn connect(
        client: reqwest::Client,
        url: &str,
        wait: Duration,
    ) -> Result<SseTransport, SseError> {
        let base =
            reqwest::Url::parse(url).map_err(|e| SseError(format!("bad url `{url}`: {e}")))?;
        let response = client
            .get(base.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| SseError(format!("GET {url}: {}", chain(&e))))?;
        let status = response.status();
        if !status.is_success() {
            return Err(SseError(format!("GET {url}: HTTP {status}")));
        }
        let mut events = SseStream::from_bytes_stream(response.bytes_stream());
        let endpoint = tokio::time::timeout(wait, async {
            while let Some(event) = events.next().await {
                let event = event.map_err(|e| SseError(format!("event stream: {e}")))?;
                if event.event.as_deref() == Some("endpoint") {
                    let data = event.data.unwrap_or_default();
                    return base
                        .join(data.trim())
                        .map_err(|e| SseError(format!("bad endpoint `{data}`: {e}")));
                }
            }
            Err(SseError(
                "the event stream ended before an `endpoint` event".into(),
            ))
        })
        .await
        .map_err(|_| SseError("no `endpoint` event on the stream in time".into()))??;
        let (tx, incoming) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            while let Some(Ok(event)) = events.next().await {
                // Messages are the default event type; others (pings, endpoint repeats)
                // carry nothing for us.
                if !matches!(event.event.as_deref(), None | Some("message")) {
                    continue;
                }
                let Some(data) = event.data else { continue };
                match serde_json::from_str::<ServerJsonRpcMessage>(&data) {
                    Ok(msg) => {
                        if tx.send(msg).await.is_err() {
                            break;
                        }
                    }
                    // A message that is no JSON-RPC is dropped; the request it answered
                    // then times out with a clear message.
                    Err(_) => continue,
                }
            }
        });
        Ok(SseTransport {
            client,
            endpoint,
            incoming,
            reader,
        })
    }
}

/// An error with its causes, for messages (reqwest's own text leaves them out).
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn name() -> Cow<'static, str> {
        "sse".into()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), SseError>> + Send + 'static {
        let client = self.client.clone();
        let endpoint = self.endpoint.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(|e| SseError(e.to_string()))?;
            let response = client
                .post(endpoint.clone())
                .header(CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(|e| SseError(format!("POST {endpoint}: {}", chain(&e))))?;
            let status = response.status();
            if status.is_success() {
                Ok(())
            } else {
                Err(SseError(format!("POST {endpoint}: HTTP {status}")))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), SseError> {
        self.reader.abort();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}
