//! Live reload: watcher events are collected as they arrive ([`Live::queue`]) and handled
//! once per batch (`Session::flush`, which a front end calls before it draws), so a write
//! storm reloads once per batch rather than once per event.
//!
//! - A changed file with unsaved edits whose content differs from what was loaded asks
//!   the conflict question (reload / reapply / keep mine); nothing is reloaded behind the
//!   user.
//! - Otherwise the workspace reloads (reapplying edits still pending in other files); a
//!   file that fails to parse leaves the last good graph and says file:line:column; the
//!   next change event retries, so fixing the file recovers by itself.
//! - A file appearing in an opened directory (or a `Rescan`) re-opens the opened paths.
//!
//! The watcher's events go to the front end's [`EventSink`] (the TUI sends them on its
//! message channel), which hands them back through `Session::queue` on its own thread.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::source::Format;
use crate::watch::{WatchEvent, Watcher};

use super::status::Status;

/// Where the watcher's events go: called on the watcher's thread.
pub type EventSink = Arc<dyn Fn(WatchEvent) + Send + Sync>;

/// Watch state of the session.
#[derive(Default)]
pub struct Live {
    watcher: Option<Watcher>,
    sink: Option<EventSink>,
    /// The paths the user opened (re-listed when a new file appears in a directory).
    opened: Vec<PathBuf>,
    forced: Option<Format>,
    changed: BTreeSet<PathBuf>,
    rescan: bool,
    /// Reloads done from watcher events (tests count them to see own saves ignored).
    pub reloads: u64,
}

impl Live {
    /// Announces bytes about to be written, so the save does not come back as a reload.
    pub fn expect_own_write(&self, path: &Path, bytes: &[u8]) {
        if let Some(w) = &self.watcher {
            w.expect_own_write(path, bytes);
        }
    }

    pub fn forget_own_write(&self, path: &Path) {
        if let Some(w) = &self.watcher {
            w.forget_own_write(path);
        }
    }

    /// Starts watching a newly written file (`:w FILE`), starting the watcher if needed.
    pub fn watch(&mut self, path: &Path) {
        self.opened = vec![path.to_path_buf()];
        if let Some(w) = &self.watcher {
            let _ = w.watch(path);
        } else if let Some(sink) = self.sink.clone() {
            self.watcher = start_watcher(&self.opened, sink).ok();
        }
    }

    pub fn is_watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// The paths the user opened.
    pub fn opened(&self) -> &[PathBuf] {
        &self.opened
    }

    /// Records a watcher event; `Session::flush` acts on it.
    pub fn queue(&mut self, ev: WatchEvent) -> Option<Status> {
        match ev {
            // A changed MCP cache reloads the toolkit file it belongs to.
            WatchEvent::Changed(paths) => self.changed.extend(
                paths
                    .into_iter()
                    .map(|p| crate::mcp::cache::config_of(&p).unwrap_or(p)),
            ),
            WatchEvent::Rescan => self.rescan = true,
            WatchEvent::Error(e) => return Some(Status::error(format!("watching: {e}"))),
        }
        None
    }

    /// Remembers the opened paths and, when `sink` is given and files are open, watches
    /// them. Returns why watching failed, if it did.
    pub fn start(
        &mut self,
        sink: Option<EventSink>,
        opened: &[PathBuf],
        forced: Option<Format>,
    ) -> Option<Status> {
        self.opened = opened.to_vec();
        self.forced = forced;
        self.sink = sink.clone();
        let sink = sink?;
        if opened.is_empty() {
            return None;
        }
        match start_watcher(opened, sink) {
            Ok(w) => {
                watch_mcp_caches(&w, opened);
                self.watcher = Some(w);
                None
            }
            Err(e) => Some(Status::error(e)),
        }
    }

    /// The changed paths and whether to rescan, queued since the last call.
    pub fn take_queued(&mut self) -> (BTreeSet<PathBuf>, bool) {
        (
            std::mem::take(&mut self.changed),
            std::mem::take(&mut self.rescan),
        )
    }

    /// The forced input format of the opened paths.
    pub fn forced(&self) -> Option<Format> {
        self.forced
    }
}

fn start_watcher(paths: &[PathBuf], sink: EventSink) -> Result<Watcher, String> {
    Watcher::new(paths, move |ev| sink(ev))
        .map_err(|e| format!("not watching {}: {}", e.path.display(), e.message))
}

/// Watches each toolkit file's MCP cache (`FILE.mcp.json`, which need not exist yet), so
/// that a discovery run elsewhere shows up like an edit of the file.
fn watch_mcp_caches(w: &Watcher, opened: &[PathBuf]) {
    for file in crate::source::expand_paths(opened).unwrap_or_default() {
        let _ = w.watch(&crate::mcp::cache::sidecar_path(&file));
    }
}
