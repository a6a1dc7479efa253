//! The discovery's state, owned by this folder: whether one runs and how to stop it, and
//! what it found (sent back on the loop's channel). Nothing here names the app.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Asks a running discovery to stop; shared between the UI and the discovery thread.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<CancelState>);

#[derive(Debug, Default)]
struct CancelState {
    asked: AtomicBool,
    #[cfg(feature = "mcp")]
    wake: tokio::sync::Notify,
}

impl Cancel {
    pub fn cancel(&self) {
        self.0.asked.store(true, Ordering::SeqCst);
        // A stored permit: a discovery that starts waiting later still sees it.
        #[cfg(feature = "mcp")]
        self.0.wake.notify_one();
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.asked.load(Ordering::SeqCst)
    }

    /// Resolves once [`Cancel::cancel`] was called.
    #[cfg(feature = "mcp")]
    pub(super) async fn cancelled(&self) {
        if !self.is_cancelled() {
            self.0.wake.notified().await;
        }
    }
}

/// Whether a discovery runs on its thread, and its stop switch.
#[derive(Debug, Default)]
pub struct Discovery {
    pub(super) running: bool,
    cancel: Cancel,
}

impl Discovery {
    pub fn is_running(&self) -> bool {
        self.running
    }

    /// A new discovery starts: its stop switch, for the thread.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(super) fn start(&mut self) -> Cancel {
        self.running = true;
        self.cancel = Cancel::default();
        self.cancel.clone()
    }

    /// Asks the running discovery to stop; false when it was asked already.
    pub(super) fn cancel(&self) -> bool {
        if self.cancel.is_cancelled() {
            return false;
        }
        self.cancel.cancel();
        true
    }

    /// Its report arrived.
    pub(super) fn finished(&mut self) {
        self.running = false;
    }
}

/// One server's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOutcome {
    pub name: String,
    /// Tools found, or why it failed (whole message, whole stderr).
    pub result: Result<usize, (String, String)>,
    /// What to do about the failure, when its stderr says (`mcp::discovery::hint`).
    pub hint: Option<String>,
}

/// What a background discovery found, server by server.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    pub servers: Vec<ServerOutcome>,
    /// Writing a cache failed (the servers' tools were found but not kept).
    pub write_errors: Vec<String>,
    /// Stopped by Esc or Ctrl-C: nothing was recorded.
    pub cancelled: bool,
}
