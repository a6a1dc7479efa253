//! A stdio MCP server as a child process in a process group of its own, so that the whole
//! tree it starts (`npx` runs `node` as a grandchild) is ended together: on success, on a
//! timeout, on an error, on Ctrl-C (the discovery future is dropped) and on a panic (the
//! guard's `Drop`). Its stderr is kept (the last [`STDERR_KEEP`] bytes) to be shown when
//! discovery fails.

use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::task::JoinHandle;

/// How much of the server's stderr is kept.
pub const STDERR_KEEP: usize = 16 * 1024;

/// The running server. Dropping it kills its process group.
pub struct Server {
    child: Child,
    pgid: Option<i32>,
    stderr: Arc<Mutex<Vec<u8>>>,
    stderr_task: Option<JoinHandle<()>>,
    /// Why its stdout was cut off, if it was (see [`Lines`]).
    refused: Arc<Mutex<Option<String>>>,
}

/// The longest line read from a server: the stdio transport's own limit (rmcp drops a
/// longer line, and the request it answered would wait out the whole timeout).
pub const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
/// The deepest nesting of a line: what the JSON reader accepts (serde_json stops at its
/// 128th level; rmcp drops such a line).
pub const MAX_DEPTH: usize = 127;

/// The server's stdout, watched line by line: a line the transport would drop unanswered
/// (longer than [`MAX_LINE`], or nested deeper than [`MAX_DEPTH`]) ends the stream at once
/// with an error, and the reason is kept for the report, so discovery says what happened
/// instead of waiting out its timeout. Scanning is one pass over the bytes as they arrive.
pub struct Lines<R> {
    inner: R,
    line: usize,
    depth: usize,
    in_string: bool,
    escaped: bool,
    refused: Arc<Mutex<Option<String>>>,
}

impl<R> Lines<R> {
    /// Scans `bytes`; the reason to stop, if any.
    fn scan(&mut self, bytes: &[u8]) -> Option<String> {
        for &b in bytes {
            if b == b'\n' {
                (self.line, self.depth, self.in_string, self.escaped) = (0, 0, false, false);
                continue;
            }
            self.line += 1;
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'[' | b'{' => self.depth += 1,
                    b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                }
            }
            if self.line >= MAX_LINE {
                return Some(format!(
                    "the server answered with a line of more than {} MiB, more than toolscope reads from a stdio server; a server with that many tools should list them in pages (`nextCursor`)",
                    MAX_LINE >> 20
                ));
            }
            if self.depth > MAX_DEPTH {
                return Some(format!(
                    "the server answered with JSON nested more than {MAX_DEPTH} levels deep, more than the JSON reader accepts"
                ));
            }
        }
        None
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Lines<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        let before = buf.filled().len();
        match std::pin::Pin::new(&mut self.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let fresh = buf.filled()[before..].to_vec();
                if let Some(why) = self.scan(&fresh) {
                    if let Ok(mut r) = self.refused.lock() {
                        *r = Some(why.clone());
                    }
                    buf.set_filled(before);
                    return Poll::Ready(Err(std::io::Error::other(why)));
                }
                Poll::Ready(Ok(()))
            }
            other => other,
        }
    }
}

/// Starts `command args` in `dir` with `env` added, stdin and stdout piped for JSON-RPC.
pub fn spawn(
    command: &str,
    args: &[String],
    env: &[(String, String)],
    dir: &Path,
) -> std::io::Result<(Server, Lines<ChildStdout>, ChildStdin)> {
    // A relative path with a slash means a program next to the config, like the folder
    // the server runs in; a bare name is looked up on PATH.
    let program = if command.contains('/') && Path::new(command).is_relative() {
        dir.join(command)
    } else {
        command.into()
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let pgid = child.id().and_then(|id| i32::try_from(id).ok());
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(std::io::Error::other(
            "the server's stdio could not be piped",
        ));
    };
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let stderr_task = child.stderr.take().map(|mut pipe| {
        let keep = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut kept) = keep.lock() {
                    kept.extend_from_slice(&buf[..n]);
                    let over = kept.len().saturating_sub(STDERR_KEEP);
                    kept.drain(..over);
                }
            }
        })
    });
    let refused = Arc::new(Mutex::new(None));
    let server = Server {
        child,
        pgid,
        stderr,
        stderr_task,
        refused: Arc::clone(&refused),
    };
    let stdout = Lines {
        inner: stdout,
        line: 0,
        depth: 0,
        in_string: false,
        escaped: false,
        refused,
    };
    Ok((server, stdout, stdin))
}

impl Server {
    /// Ends the server's whole process group: SIGTERM, a short grace for the leader to
    /// exit, then SIGKILL to whatever of the group is left.
    pub async fn stop(&mut self) {
        self.signal(libc::SIGTERM);
        let _ = tokio::time::timeout(Duration::from_millis(500), self.child.wait()).await;
        self.signal(libc::SIGKILL);
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        // The group is gone (SIGKILL cannot be caught); forget its id so that `Drop` can
        // never signal a later group that reuses the number.
        self.pgid = None;
    }

    /// What the server wrote to stderr (its tail), after giving the reader a moment to
    /// drain what is still in the pipe.
    pub async fn stderr(&mut self) -> String {
        if let Some(task) = self.stderr_task.take() {
            let _ = tokio::time::timeout(Duration::from_millis(500), task).await;
        }
        let kept = self.stderr.lock().map(|b| b.clone()).unwrap_or_default();
        String::from_utf8_lossy(&kept).into_owned()
    }

    /// Why its stdout was cut off (a line the transport would have dropped), if it was.
    pub fn refused(&self) -> Option<String> {
        self.refused.lock().ok().and_then(|r| r.clone())
    }

    fn signal(&self, sig: i32) {
        if let Some(pgid) = self.pgid.filter(|p| *p > 1) {
            // SAFETY: kill(2) with a negative pid signals that process group; it touches
            // no memory of ours. The group is the one `spawn` created for this child.
            unsafe {
                libc::kill(-pgid, sig);
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.signal(libc::SIGKILL);
    }
}
