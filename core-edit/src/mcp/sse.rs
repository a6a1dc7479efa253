//! The older MCP HTTP+SSE transport (protocol 2024-11-05), which rmcp 3 no longer ships and
//! Chat2Graph's published config uses (`transport_type: SSE`, `http://localhost:8931/sse`),
//! as an rmcp [`Transport`]: GET the event stream, wait for the `endpoint` event naming
//! where to POST, POST each request there, and read every answer from the stream.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
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

/// Why the event stream was cut off, if it was (see [`bounded`]): the caller keeps a
/// handle, since the transport moves into the session and a timeout may drop it.
pub type Refused = Arc<Mutex<Option<String>>>;

/// The most one event may hold (its lines with their field names and breaks): what the
/// stdio transport reads in one line, so a `tools/list` answer too big for one is too big
/// for the other. Without a bound a server could grow one event until memory runs out.
pub const MAX_EVENT: usize = super::process::MAX_LINE;

/// The size of the event being read, from the bytes as they arrive: an empty line (after
/// `\n`, `\r\n` or `\r`) ends an event.
#[derive(Default)]
struct EventSize {
    event: usize,
    line: usize,
    after_cr: bool,
}

impl EventSize {
    fn feed(&mut self, bytes: &[u8]) -> Result<(), String> {
        for &b in bytes {
            match b {
                // The second half of `\r\n`.
                b'\n' if self.after_cr => self.after_cr = false,
                b'\r' | b'\n' => {
                    self.after_cr = b == b'\r';
                    if self.line == 0 {
                        self.event = 0;
                    }
                    self.line = 0;
                }
                _ => {
                    self.after_cr = false;
                    self.line += 1;
                }
            }
            self.event += 1;
            if self.event > MAX_EVENT {
                return Err(format!(
                    "the server sent an event of more than {} MiB on its event stream, more than toolscope reads; a server with that many tools should list them in pages (`nextCursor`)",
                    MAX_EVENT >> 20
                ));
            }
        }
        Ok(())
    }
}

/// The response body with every event bounded by [`MAX_EVENT`]: past it the stream ends
/// with an error and the reason is kept in `refused`, so discovery says what happened
/// instead of holding ever more bytes until its timeout.
fn bounded<B: AsRef<[u8]>>(
    bytes: impl Stream<Item = reqwest::Result<B>>,
    refused: Refused,
) -> impl Stream<Item = Result<B, SseError>> {
    let mut size = EventSize::default();
    bytes.map(move |chunk| {
        let chunk = chunk.map_err(|e| SseError(chain(&e)))?;
        if let Err(why) = size.feed(chunk.as_ref()) {
            if let Ok(mut r) = refused.lock() {
                r.get_or_insert_with(|| why.clone());
            }
            return Err(SseError(why));
        }
        Ok(chunk)
    })
}

impl SseTransport {
    /// Opens the event stream at `url` and waits (at most `wait`) for its `endpoint` event.
    /// `client` carries the configured headers; `refused` gets the reason when the stream
    /// is cut off.
    pub async fn connect(
        client: reqwest::Client,
        url: &str,
        wait: Duration,
        refused: Refused,
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
        let mut events = SseStream::from_bytes_stream(bounded(response.bytes_stream(), refused));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty line ends an event, whichever line break the server writes.
    #[test]
    fn empty_lines_end_events_and_only_whole_events_are_bounded() {
        for sep in ["\n", "\r\n", "\r"] {
            let line = format!("data: {}{sep}", "x".repeat(1 << 20));
            let mut size = EventSize::default();
            // Forty 1 MiB events, each ended by an empty line: never too big.
            for _ in 0..40 {
                size.feed(line.as_bytes()).expect("one event is 1 MiB");
                size.feed(sep.as_bytes()).expect("the empty line");
            }
            // Seventeen 1 MiB lines of one event: too big, though each line is small.
            let mut size = EventSize::default();
            let fed: Result<Vec<()>, String> =
                (0..17).map(|_| size.feed(line.as_bytes())).collect();
            let why = fed.expect_err("17 MiB in one event");
            assert!(why.contains("16 MiB"), "{why}");
        }
        // `\r\n` split across chunks is one line break, not an empty line.
        let mut size = EventSize::default();
        size.feed(b"data: a\r").unwrap();
        size.feed(b"\ndata: b").unwrap();
        assert!(size.event > 8, "the event goes on");
    }
}
