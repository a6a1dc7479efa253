//! Watching toolkit files on disk for live reload (SPEC 4, "Live reload").
//!
//! Pure core: no terminal crate. The TUI wraps [`WatchEvent`] into its own message type.
//!
//! # How it works
//!
//! Like gitui's watcher, this forwards only "something changed" — here, *which* of the
//! caller's files may have changed — never raw notify events.
//!
//! - The **parent directory** of every opened file is watched (non-recursively), not the
//!   file itself, so every save style is followed: rename-over (vim, most IDEs),
//!   truncate-and-write, delete-and-recreate, a file moved away and back, a file created
//!   where none was. An opened **directory** is watched recursively and any
//!   `.yml`/`.yaml` file under it that is not hidden (the rule of
//!   [`crate::source::expand_paths`]) is reported, new ones included.
//! - A **symlinked** file is watched both at the link and at its resolved target; the
//!   target is resolved again whenever the link itself changes. Events name the path as
//!   the caller gave it.
//! - Events are **debounced** by `notify-debouncer-full` (50 ms by default) and coalesced:
//!   one [`WatchEvent::Changed`] per debouncer tick carries the set of changed files.
//!   That debouncer holds a file's events back until it has been quiet for the debounce
//!   (each write drops the pending one), so a file written steadily (a recorder appending
//!   a line every 20 ms) would never be reported while it is written. Beside it, a
//!   **maximum wait** ([`MAX_WAIT`]): a thread looks at each watched file's length, time
//!   and inode every [`POLL`], and a file found different from what was last reported for
//!   longer than [`MAX_WAIT`] is reported then (after the own-write check, as any event).
//!   A quiet write is still reported by the debouncer alone, within the debounce.
//! - **Own saves** are suppressed by content, not by timing: the saver calls
//!   [`Watcher::expect_own_write`] with the bytes it is about to write; an event for that
//!   file whose current content is exactly those bytes is swallowed.
//!
//! # Wiring it into the TUI
//!
//! The sink runs on notify's debouncer thread; make it a channel send into the TUI's
//! one message channel, and keep the [`Watcher`] alive in the app state (dropping it
//! stops watching):
//!
//! ```no_run
//! # use std::{path::PathBuf, sync::mpsc};
//! # use toolscope_edit::watch::{WatchEvent, Watcher};
//! enum Msg { Watch(WatchEvent) /* , Key(..), Tick, .. */ }
//! let (tx, rx) = mpsc::channel::<Msg>();
//! let files: Vec<PathBuf> = vec!["toolkit.yml".into()];
//! let watch_tx = tx.clone();
//! let watcher = Watcher::new(&files, move |ev| {
//!     let _ = watch_tx.send(Msg::Watch(ev));
//! })?;
//! // saving: announce the bytes, then write them (atomically)
//! let bytes = b"actions: []\n";
//! watcher.expect_own_write(&files[0], bytes);
//! // ... write; on failure: watcher.forget_own_write(&files[0]);
//! # Ok::<(), toolscope_edit::watch::WatchError>(())
//! ```
//!
//! # Contract for the consumer
//!
//! - Re-read every file named in every `Changed` event, and keep the last good graph
//!   when the read or parse fails: a file can be caught half-written, or missing
//!   between a delete and a recreate. Every write that lands after an event was
//!   emitted produces a later event, so the final content is always read eventually.
//! - Reading a file never produces an event, so reloading cannot loop.
//! - Under a burst of writes (a file rewritten 100 times a second) events keep coming,
//!   at least one per [`MAX_WAIT`] plus [`POLL`] (through the maximum wait) and at most
//!   one per debouncer tick (a quarter of the debounce, so up to 80 a second).
//!   Do not reload per message: handle every message already queued, collecting the
//!   changed paths, then reload each of them once and draw, so a slow reload never
//!   falls behind.
//! - `Rescan`: reload everything. `Error`: show it; watching continues.
//! - Paths are reported exactly as given to [`Watcher::new`]/[`Watcher::watch`] (files
//!   under an opened directory as `dir.join(relative)`, as
//!   [`crate::source::expand_paths`] lists them); pass the same paths to
//!   [`Watcher::expect_own_write`].
//!
//! # Limits
//!
//! - If a watched *directory* is removed or renamed, its files are reported once (the
//!   consumer then sees them missing) but the directory is not watched again when it
//!   comes back; call [`Watcher::watch`] again to resume.
//! - Symlinks *inside* an opened directory are not resolved: a change to their target
//!   is seen only if the target also lies under a watched directory.

use std::collections::{BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache, new_debouncer,
};

/// Default debounce: short enough that file change to redraw stays well under the
/// 150 ms budget of SPEC 7, long enough to merge the several raw events of one save.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(50);

/// The longest a watched file's change waits for the debouncer before it is reported
/// anyway (a file written faster than the debounce, without pause). With [`POLL`] it keeps
/// a followed trace file's new records under 200 ms from their write (docs/reliability.md).
pub const MAX_WAIT: Duration = Duration::from_millis(150);

/// How often the maximum wait looks at the watched files (a `stat` per file).
pub const POLL: Duration = Duration::from_millis(25);

/// What the watcher reports. Delivered on notify's debouncer thread through the sink
/// given to [`Watcher::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// These files (named as the caller named them, or as `dir.join(relative)` for files
    /// found under an opened directory) may have changed, appeared or disappeared:
    /// re-read each one.
    Changed(BTreeSet<PathBuf>),
    /// The operating system dropped events (queue overflow): anything may have changed;
    /// reload every opened path, re-listing opened directories.
    Rescan,
    /// notify reported an error (show it in the status line). Watching goes on.
    Error(String),
}

/// Why a path could not be watched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchError {
    /// The path as given by the caller.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot watch {}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for WatchError {}

type Inner = Debouncer<RecommendedWatcher, RecommendedCache>;

/// Watches files and directories; stops when dropped.
pub struct Watcher {
    debouncer: Arc<Mutex<Option<Inner>>>,
    state: Arc<Mutex<State>>,
}

/// Length and hash of a file's content, to recognise our own writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    len: usize,
    hash: u64,
}

impl Fingerprint {
    fn of(bytes: &[u8]) -> Fingerprint {
        let mut h = std::hash::DefaultHasher::new();
        bytes.hash(&mut h);
        Fingerprint {
            len: bytes.len(),
            hash: h.finish(),
        }
    }
}

/// A watched file: where events for it show up, and what we last wrote to it.
#[derive(Debug)]
struct FileTarget {
    /// The path as the caller gave it; this is what events name.
    user: PathBuf,
    /// Canonical parent directory joined with the file name (the link itself if the
    /// file is a symlink).
    key: PathBuf,
    /// The resolved target when `key` is a symlink.
    target: Option<PathBuf>,
}

/// Everything the event handler needs, shared with the [`Watcher`] handle.
#[derive(Debug, Default)]
struct State {
    files: Vec<FileTarget>,
    /// Opened directories: (canonical root, caller's path).
    dirs: Vec<(PathBuf, PathBuf)>,
    /// Directories under watch and how.
    watched: HashMap<PathBuf, RecursiveMode>,
    /// Own writes, by caller's path.
    own: HashMap<PathBuf, OwnWrites>,
    /// Per watched file (caller's path): what it looked like when last reported (or first
    /// looked at), and since when it has looked different without a report.
    polled: HashMap<PathBuf, Polled>,
}

/// A file as the maximum wait sees it: length, modification time, inode.
type Look = Option<(u64, Option<std::time::SystemTime>, u64)>;

fn look(path: &Path) -> Look {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((m.len(), m.modified().ok(), ino))
}

#[derive(Debug, Default)]
struct Polled {
    reported: Look,
    /// When the file was first seen different from `reported`.
    since: Option<std::time::Instant>,
}

/// How many recent own writes to one file are remembered (quick successive saves).
const OWN_WRITES_KEPT: usize = 4;

/// toolscope's recent writes to one file.
///
/// Content equal to any of them is swallowed. Other content is reported; it ends the
/// expectation only once the latest write has been seen on disk, so an external change
/// that is processed just before our save lands does not un-suppress the save's echo.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct OwnWrites {
    /// Oldest first; the last one is the latest write.
    recent: Vec<Fingerprint>,
    /// The latest write has been seen on disk.
    seen: bool,
}

/// What to do with an event for a file we wrote to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OwnVerdict {
    /// The file holds what we wrote: swallow the event.
    Ours,
    /// Foreign content: report the event, keep expecting our write.
    Foreign,
    /// Foreign content after our write was seen: report, forget our writes.
    ForeignAfterOurs,
}

impl OwnWrites {
    /// Remembers one more write (the latest).
    fn push(&mut self, fp: Fingerprint) {
        if self.recent.len() == OWN_WRITES_KEPT {
            self.recent.remove(0);
        }
        self.recent.push(fp);
        self.seen = false;
    }

    /// Judges the content found on disk (`None`: unreadable or gone). Once the latest
    /// write is seen, the older ones are dropped: seeing them again would mean someone
    /// else wrote them (an editor's undo, say), and that must be reported.
    fn judge(&mut self, found: Option<Fingerprint>) -> OwnVerdict {
        match found {
            Some(fp) if self.recent.contains(&fp) => {
                if self.recent.last() == Some(&fp) {
                    self.seen = true;
                    self.recent = vec![fp];
                }
                OwnVerdict::Ours
            }
            _ if self.seen => OwnVerdict::ForeignAfterOurs,
            _ => OwnVerdict::Foreign,
        }
    }
}

impl Watcher {
    /// Starts watching `paths` (files or directories) with [`DEFAULT_DEBOUNCE`].
    ///
    /// `sink` is called on notify's debouncer thread; keep it short, typically
    /// `move |ev| { let _ = tx.send(Msg::Watch(ev)); }`.
    pub fn new<F>(paths: &[PathBuf], sink: F) -> Result<Watcher, WatchError>
    where
        F: FnMut(WatchEvent) + Send + 'static,
    {
        Watcher::with_debounce(paths, DEFAULT_DEBOUNCE, sink)
    }

    /// Like [`Watcher::new`] with a chosen debounce time.
    pub fn with_debounce<F>(
        paths: &[PathBuf],
        debounce: Duration,
        sink: F,
    ) -> Result<Watcher, WatchError>
    where
        F: FnMut(WatchEvent) + Send + 'static,
    {
        let state = Arc::new(Mutex::new(State::default()));
        let debouncer: Arc<Mutex<Option<Inner>>> = Arc::new(Mutex::new(None));
        let handler_state = Arc::clone(&state);
        let handler_debouncer = Arc::downgrade(&debouncer);
        // Both the debouncer's thread and the maximum wait's report through the sink.
        let sink: Arc<Mutex<dyn FnMut(WatchEvent) + Send>> = Arc::new(Mutex::new(sink));
        let poll_sink = Arc::clone(&sink);
        let inner = new_debouncer(debounce, None, move |result: DebounceEventResult| {
            let mut sink = lock(&sink);
            handle(&handler_state, &handler_debouncer, result, &mut *sink);
        })
        .map_err(|e| WatchError {
            path: PathBuf::new(),
            message: e.to_string(),
        })?;
        *lock(&debouncer) = Some(inner);
        spawn_max_wait(Arc::downgrade(&state), poll_sink);
        let watcher = Watcher { debouncer, state };
        // Directories first, so that files inside them need no watch of their own.
        let (dirs, files): (Vec<&PathBuf>, Vec<&PathBuf>) = paths.iter().partition(|p| p.is_dir());
        for path in dirs.into_iter().chain(files) {
            watcher.watch(path)?;
        }
        Ok(watcher)
    }

    /// Adds a file or directory to the watch (for example a file just written with
    /// `:w FILE`). A file need not exist yet, but its directory must.
    pub fn watch(&self, path: &Path) -> Result<(), WatchError> {
        let err = |message: String| WatchError {
            path: path.to_path_buf(),
            message,
        };
        if path.is_dir() {
            let root = std::fs::canonicalize(path).map_err(|e| err(e.to_string()))?;
            self.watch_dir(&root, RecursiveMode::Recursive)
                .map_err(err)?;
            lock(&self.state).dirs.push((root, path.to_path_buf()));
            return Ok(());
        }
        let key = file_key(path).map_err(err)?;
        let target = resolve_link(&key);
        self.watch_dir(parent_of(&key), RecursiveMode::NonRecursive)
            .map_err(err)?;
        if let Some(t) = &target {
            self.watch_dir(parent_of(t), RecursiveMode::NonRecursive)
                .map_err(err)?;
        }
        lock(&self.state).files.push(FileTarget {
            user: path.to_path_buf(),
            key,
            target,
        });
        Ok(())
    }

    /// Declares that toolscope is about to write `bytes` to `path` (the path exactly as
    /// the watcher reports it). Call it *before* writing.
    ///
    /// Events for `path` are swallowed while its content on disk is exactly `bytes`
    /// (or one of the few writes before it). Once that content has been seen, the first
    /// event finding other content is reported and ends the expectation, so a later
    /// external write is never mistaken for ours. Content is compared, not timestamps.
    pub fn expect_own_write(&self, path: &Path, bytes: &[u8]) {
        lock(&self.state)
            .own
            .entry(path.to_path_buf())
            .or_default()
            .push(Fingerprint::of(bytes));
    }

    /// Forgets the writes announced for `path`: call it when a save failed, so that
    /// an external write of the same bytes is not swallowed.
    pub fn forget_own_write(&self, path: &Path) {
        lock(&self.state).own.remove(path);
    }

    /// Watches a directory unless it is already covered.
    fn watch_dir(&self, dir: &Path, mode: RecursiveMode) -> Result<(), String> {
        watch_dir_with(&self.debouncer, &self.state, dir, mode)
    }
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("state", &*lock(&self.state))
            .finish_non_exhaustive()
    }
}

/// True when the file at `path` no longer holds `last_known` (or cannot be read).
/// For the saver's "changed by someone else since we loaded it?" check.
pub fn content_changed(path: &Path, last_known: &[u8]) -> bool {
    match read_bounded(path) {
        Ok(now) => now != last_known,
        Err(_) => true,
    }
}

/// A watched file's bytes, if it is a regular file within the toolkit size limit (a FIFO
/// put in its place must not block the caller; see `crate::bounded`).
fn read_bounded(path: &Path) -> Result<Vec<u8>, crate::bounded::Refused> {
    let max = crate::source::Limits::default().max_bytes as u64;
    crate::bounded::read(path, max, crate::bounded::Links::Follow)
}

/// Locks a mutex, recovering from poisoning (a panicking sink must not stop watching).
fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Adds a notify watch on `dir` unless an existing watch already covers it.
fn watch_dir_with(
    debouncer: &Mutex<Option<Inner>>,
    state: &Mutex<State>,
    dir: &Path,
    mode: RecursiveMode,
) -> Result<(), String> {
    {
        let st = lock(state);
        let covered = st.watched.iter().any(|(w, m)| {
            (w == dir && (*m == mode || *m == RecursiveMode::Recursive))
                || (*m == RecursiveMode::Recursive && dir.starts_with(w))
        });
        if covered {
            return Ok(());
        }
    }
    let mut guard = lock(debouncer);
    let Some(inner) = guard.as_mut() else {
        return Err("watcher stopped".to_string());
    };
    inner.watch(dir, mode).map_err(|e| e.to_string())?;
    drop(guard);
    lock(state).watched.insert(dir.to_path_buf(), mode);
    Ok(())
}

/// Canonical parent directory joined with the file name: the path notify reports for
/// events on this file. The file itself is not resolved, so it need not exist.
fn file_key(path: &Path) -> Result<PathBuf, String> {
    let abs = std::path::absolute(path).map_err(|e| e.to_string())?;
    let name = abs
        .file_name()
        .ok_or_else(|| "not a file path".to_string())?;
    let parent = abs.parent().unwrap_or(Path::new("/"));
    let parent = std::fs::canonicalize(parent).map_err(|e| format!("its directory: {e}"))?;
    Ok(parent.join(name))
}

/// The resolved target of `key` when it is a symlink to something that exists.
fn resolve_link(key: &Path) -> Option<PathBuf> {
    let meta = std::fs::symlink_metadata(key).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    std::fs::canonicalize(key).ok()
}

fn parent_of(path: &Path) -> &Path {
    path.parent().unwrap_or(Path::new("/"))
}

/// True for raw event kinds that can mean new content. Opening, reading and closing
/// without writing are dropped, or every reload would trigger the next one.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other => false,
        EventKind::Any | EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
    }
}

/// True when an event on `path` itself can take a whole directory's files with it
/// (the directory removed or renamed).
fn is_dir_gone(kind: &EventKind) -> bool {
    matches!(
        kind,
        EventKind::Remove(_) | EventKind::Modify(ModifyKind::Name(_))
    )
}

/// A `.yml`/`.yaml` path with no hidden component, relative to an opened directory.
fn is_yaml_under(rel: &Path) -> bool {
    let visible = rel.components().all(|c| match c {
        Component::Normal(s) => !s.to_string_lossy().starts_with('.'),
        _ => false,
    });
    visible
        && matches!(
            rel.extension().and_then(|e| e.to_str()),
            Some("yml" | "yaml")
        )
}

impl State {
    /// Caller's paths affected by an event on `path`; also reports which symlinked
    /// files had their link touched (their target may have moved).
    fn affected(&self, path: &Path, kind: &EventKind, out: &mut BTreeSet<PathBuf>) -> Vec<usize> {
        let mut relinked = Vec::new();
        for (i, f) in self.files.iter().enumerate() {
            let on_link = f.key == path;
            let on_target = f.target.as_deref() == Some(path);
            let under_gone_dir = is_dir_gone(kind)
                && (f.key.starts_with(path)
                    || f.target.as_ref().is_some_and(|t| t.starts_with(path)));
            if on_link || on_target || under_gone_dir {
                out.insert(f.user.clone());
            }
            if on_link {
                relinked.push(i);
            }
        }
        for (root, user_root) in &self.dirs {
            if let Ok(rel) = path.strip_prefix(root)
                && is_yaml_under(rel)
            {
                out.insert(user_root.join(rel));
            }
        }
        relinked
    }
}

/// The debouncer callback: filter, map to caller's paths, drop own writes, send.
fn handle<F: FnMut(WatchEvent) + ?Sized>(
    state: &Mutex<State>,
    debouncer: &Weak<Mutex<Option<Inner>>>,
    result: DebounceEventResult,
    sink: &mut F,
) {
    let events = match result {
        Ok(events) => events,
        Err(errors) => {
            for e in errors {
                sink(WatchEvent::Error(e.to_string()));
            }
            return;
        }
    };
    if events.iter().any(|e| e.need_rescan()) {
        sink(WatchEvent::Rescan);
    }
    let (changed, relinked) = collect(state, &events);
    for i in relinked {
        if let Err(message) = relink(state, debouncer, i) {
            sink(WatchEvent::Error(message));
        }
    }
    report(state, changed, sink);
}

/// Reports `changed` (what is not our own write), noting how each file looks now so the
/// maximum wait does not report it again.
fn report<F: FnMut(WatchEvent) + ?Sized>(
    state: &Mutex<State>,
    mut changed: BTreeSet<PathBuf>,
    sink: &mut F,
) {
    {
        let mut st = lock(state);
        for p in &changed {
            let now = look(p);
            let e = st.polled.entry(p.clone()).or_default();
            e.reported = now;
            e.since = None;
        }
    }
    drop_own_writes(state, &mut changed);
    if !changed.is_empty() {
        sink(WatchEvent::Changed(changed));
    }
}

/// The maximum wait: every [`POLL`], each watched file that has looked different from its
/// last report for [`MAX_WAIT`] is reported. Ends when the watcher is dropped.
fn spawn_max_wait(state: Weak<Mutex<State>>, sink: Arc<Mutex<dyn FnMut(WatchEvent) + Send>>) {
    let spawned = std::thread::Builder::new()
        .name("toolscope watch max wait".into())
        .spawn(move || {
            loop {
                std::thread::sleep(POLL);
                let Some(state) = state.upgrade() else { return };
                let due = overdue(&state, std::time::Instant::now());
                if !due.is_empty() {
                    let mut sink = lock(&sink);
                    report(&state, due, &mut *sink);
                }
            }
        });
    // Without the thread, the debouncer alone reports (as before the maximum wait).
    drop(spawned);
}

/// The watched files changed without a report for [`MAX_WAIT`] by `now`.
fn overdue(state: &Mutex<State>, now: std::time::Instant) -> BTreeSet<PathBuf> {
    let mut st = lock(state);
    let paths: Vec<PathBuf> = st.files.iter().map(|f| f.user.clone()).collect();
    let mut due = BTreeSet::new();
    for p in paths {
        let seen = look(&p);
        match st.polled.entry(p.clone()) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(Polled {
                    reported: seen,
                    since: None,
                });
            }
            std::collections::hash_map::Entry::Occupied(mut o) => {
                let e = o.get_mut();
                if e.reported == seen {
                    e.since = None;
                } else {
                    let since = *e.since.get_or_insert(now);
                    if now.duration_since(since) >= MAX_WAIT {
                        due.insert(p);
                    }
                }
            }
        }
    }
    due
}

/// The caller's paths named by a batch, and the symlinked files whose link changed.
fn collect(state: &Mutex<State>, events: &[DebouncedEvent]) -> (BTreeSet<PathBuf>, Vec<usize>) {
    let st = lock(state);
    let mut changed = BTreeSet::new();
    let mut relinked = Vec::new();
    for event in events.iter().filter(|e| is_change(&e.kind)) {
        for path in &event.paths {
            relinked.extend(st.affected(path, &event.kind, &mut changed));
        }
    }
    relinked.sort_unstable();
    relinked.dedup();
    (changed, relinked)
}

/// Resolves file `i`'s link again and watches its new target's directory.
fn relink(
    state: &Mutex<State>,
    debouncer: &Weak<Mutex<Option<Inner>>>,
    i: usize,
) -> Result<(), String> {
    let (key, old) = {
        let st = lock(state);
        let Some(f) = st.files.get(i) else {
            return Ok(());
        };
        (f.key.clone(), f.target.clone())
    };
    let new = resolve_link(&key);
    if new == old {
        return Ok(());
    }
    if let Some(t) = &new
        && let Some(deb) = debouncer.upgrade()
    {
        watch_dir_with(&deb, state, parent_of(t), RecursiveMode::NonRecursive)?;
    }
    if let Some(f) = lock(state).files.get_mut(i) {
        f.target = new;
    }
    Ok(())
}

/// Removes from `changed` the files that hold what we wrote (see [`OwnWrites`]).
fn drop_own_writes(state: &Mutex<State>, changed: &mut BTreeSet<PathBuf>) {
    let ours: Vec<PathBuf> = {
        let st = lock(state);
        changed
            .iter()
            .filter(|p| st.own.contains_key(*p))
            .cloned()
            .collect()
    };
    for path in ours {
        // Read outside the lock: the file may be large.
        let found = read_bounded(&path).ok().map(|b| Fingerprint::of(&b));
        let mut st = lock(state);
        let Some(own) = st.own.get_mut(&path) else {
            continue;
        };
        match own.judge(found) {
            OwnVerdict::Ours => {
                changed.remove(&path);
            }
            OwnVerdict::Foreign => {}
            OwnVerdict::ForeignAfterOurs => {
                st.own.remove(&path);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_under_skips_hidden_and_other_extensions() {
        assert!(is_yaml_under(Path::new("a.yml")));
        assert!(is_yaml_under(Path::new("sub/a.yaml")));
        assert!(!is_yaml_under(Path::new(".a.yml")));
        assert!(!is_yaml_under(Path::new(".git/a.yml")));
        assert!(!is_yaml_under(Path::new("a.yml.swp")));
        assert!(!is_yaml_under(Path::new("a.txt")));
        assert!(!is_yaml_under(Path::new("")));
    }

    #[test]
    fn reads_and_closes_are_not_changes() {
        use notify::event::{CreateKind, DataChange};
        assert!(!is_change(&EventKind::Access(AccessKind::Open(
            notify::event::AccessMode::Any
        ))));
        assert!(!is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(is_change(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(is_change(&EventKind::Create(CreateKind::File)));
        assert!(is_change(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
    }

    #[test]
    fn own_writes_end_only_after_being_seen() {
        let (a, b, x) = (
            Fingerprint::of(b"a"),
            Fingerprint::of(b"b"),
            Fingerprint::of(b"x"),
        );
        let mut own = OwnWrites::default();
        own.push(a);
        // an external change processed before our save landed
        assert_eq!(own.judge(Some(x)), OwnVerdict::Foreign);
        assert_eq!(own.judge(Some(a)), OwnVerdict::Ours);
        assert_eq!(own.judge(Some(x)), OwnVerdict::ForeignAfterOurs);
        // two quick saves: the first one's echo is still ours
        let mut own = OwnWrites::default();
        own.push(a);
        own.push(b);
        assert_eq!(own.judge(Some(a)), OwnVerdict::Ours);
        assert!(!own.seen);
        assert_eq!(own.judge(Some(b)), OwnVerdict::Ours);
        // once the latest is on disk, an older one coming back is someone else's
        assert_eq!(own.judge(Some(a)), OwnVerdict::ForeignAfterOurs);
        let mut own = OwnWrites::default();
        own.push(a);
        assert_eq!(own.judge(Some(a)), OwnVerdict::Ours);
        assert_eq!(own.judge(None), OwnVerdict::ForeignAfterOurs);
        // only the last few are kept
        let mut own = OwnWrites::default();
        for i in 0..10u8 {
            own.push(Fingerprint::of(&[i]));
        }
        assert_eq!(own.recent.len(), OWN_WRITES_KEPT);
        assert_eq!(own.judge(Some(Fingerprint::of(&[0]))), OwnVerdict::Foreign);
    }

    /// Runs the handler on one debouncer result over a state watching `/w/a.yml`.
    fn run(result: DebounceEventResult) -> Vec<WatchEvent> {
        let state = Mutex::new(State {
            files: vec![FileTarget {
                user: PathBuf::from("a.yml"),
                key: PathBuf::from("/w/a.yml"),
                target: None,
            }],
            ..State::default()
        });
        let mut out = Vec::new();
        handle(&state, &Weak::new(), result, &mut |ev| out.push(ev));
        out
    }

    fn event(kind: EventKind, path: &str) -> DebouncedEvent {
        DebouncedEvent::new(
            notify::Event::new(kind).add_path(PathBuf::from(path)),
            std::time::Instant::now(),
        )
    }

    #[test]
    fn handler_forwards_errors_rescans_and_only_relevant_changes() {
        use notify::event::{DataChange, RemoveKind};
        let out = run(Err(vec![notify::Error::generic("inotify limit reached")]));
        assert_eq!(
            out,
            vec![WatchEvent::Error("inotify limit reached".to_string())]
        );

        let rescan = DebouncedEvent::new(
            notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan),
            std::time::Instant::now(),
        );
        assert_eq!(run(Ok(vec![rescan])), vec![WatchEvent::Rescan]);

        let noise = vec![
            event(
                EventKind::Access(AccessKind::Open(AccessMode::Any)),
                "/w/a.yml",
            ),
            event(
                EventKind::Modify(ModifyKind::Data(DataChange::Any)),
                "/w/b.yml",
            ),
        ];
        assert_eq!(run(Ok(noise)), vec![]);

        let batch = vec![
            event(
                EventKind::Modify(ModifyKind::Data(DataChange::Any)),
                "/w/a.yml",
            ),
            event(EventKind::Remove(RemoveKind::Any), "/w/a.yml"),
        ];
        let one = BTreeSet::from([PathBuf::from("a.yml")]);
        assert_eq!(run(Ok(batch)), vec![WatchEvent::Changed(one.clone())]);

        // the directory itself renamed away
        let gone = vec![event(
            EventKind::Modify(ModifyKind::Name(notify::event::RenameMode::From)),
            "/w",
        )];
        assert_eq!(run(Ok(gone)), vec![WatchEvent::Changed(one)]);
    }

    #[test]
    fn fingerprint_tells_contents_apart() {
        assert_eq!(Fingerprint::of(b"abc"), Fingerprint::of(b"abc"));
        assert_ne!(Fingerprint::of(b"abc"), Fingerprint::of(b"abd"));
        assert_ne!(Fingerprint::of(b""), Fingerprint::of(b"\0"));
    }
}

#[cfg(test)]
mod steady_tests {
    use super::*;
    use std::io::Write;
    use std::time::Instant;

    /// A file appended to steadily (a recorder writing a line every 10 ms, faster than
    /// the debounce) is reported while it is written: by design every [`MAX_WAIT`] plus
    /// [`POLL`] (175 ms); asserted with room for a loaded machine (no gap over 600 ms, at
    /// least 4 reports in 1.5 s). Before the maximum wait: no report until the writing
    /// stopped.
    #[test]
    fn a_file_written_steadily_is_reported_while_it_is_written() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("runs.jsonl");
        std::fs::write(&path, "").expect("file");
        let (tx, rx) = std::sync::mpsc::channel();
        let _w = Watcher::new(std::slice::from_ref(&path), move |ev| {
            if matches!(ev, WatchEvent::Changed(_)) {
                let _ = tx.send(Instant::now());
            }
        })
        .expect("watching");
        std::thread::sleep(Duration::from_millis(100));
        let start = Instant::now();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .expect("open");
        while start.elapsed() < Duration::from_millis(1500) {
            writeln!(f, "{{\"calls\": [\"a\"]}}").expect("write");
            std::thread::sleep(Duration::from_millis(10));
        }
        let end = Instant::now();
        let seen: Vec<Instant> = rx.try_iter().filter(|&t| t <= end).collect();
        let mut last = start;
        for &t in &seen {
            let gap = t.duration_since(last);
            assert!(
                gap <= Duration::from_millis(600),
                "a gap of {gap:?} while writing"
            );
            last = t;
        }
        let tail = end.duration_since(last);
        assert!(
            seen.len() >= 4,
            "{} reports in 1.5 s of writing",
            seen.len()
        );
        assert!(
            tail <= Duration::from_millis(600),
            "nothing for the last {tail:?} of writing ({} reports)",
            seen.len()
        );
    }
}
