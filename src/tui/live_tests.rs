//! Live reload with real files in a temp dir and the real watcher: each save style, a
//! broken-then-fixed file, a new file in a watched directory and the own-save echo. Each
//! test polls the app state with a deadline (no fixed sleeps).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use crate::tui::app::{App, Level};
use crate::tui::msg::Msg;
use crate::tui::theme::Theme;
use crate::tui::update::editing::tests::{TINY, fixture, keys};
use crate::tui::update::update;
use toolscope_core::workspace::Workspace;

const DEADLINE: Duration = Duration::from_secs(10);

pub(super) struct Live {
    pub(super) app: App,
    rx: Receiver<Msg>,
}

pub(super) fn start(opened: &[PathBuf]) -> Live {
    let ws = Workspace::open(opened, None).expect("open");
    let mut app = App::with_workspace(ws, "test".into(), Theme::default(), (160, 48));
    let (tx, rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut app, tx, opened, None);
    assert!(app.session.live.is_watching());
    Live { app, rx }
}

impl Live {
    /// A loop over an app already connected to the channel `rx` listens on.
    pub(super) fn from_parts(app: App, rx: Receiver<Msg>) -> Live {
        Live { app, rx }
    }

    /// Runs the loop (messages, then a flush per batch) until `done` holds.
    /// One turn of the loop: the messages that arrive within 50 ms, then a flush.
    pub(super) fn pump(&mut self) {
        if let Ok(msg) = self.rx.recv_timeout(Duration::from_millis(50)) {
            update(&mut self.app, msg);
            while let Ok(more) = self.rx.try_recv() {
                update(&mut self.app, more);
            }
        }
        crate::tui::update::flush(&mut self.app);
    }

    pub(super) fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let end = Instant::now() + DEADLINE;
        while !done(&self.app) {
            let left = end.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "timed out waiting for {what}: {:?}",
                self.app.status
            );
            if let Ok(msg) = self.rx.recv_timeout(left.min(Duration::from_millis(50))) {
                update(&mut self.app, msg);
                while let Ok(more) = self.rx.try_recv() {
                    update(&mut self.app, more);
                }
            }
            crate::tui::update::flush(&mut self.app);
        }
    }
}

pub(super) fn desc_of(app: &App, action: &str) -> Option<String> {
    let ix = app.tk.action(action)?;
    Some(app.tk.node(ix).desc.clone())
}

fn changed_text() -> String {
    TINY.replace("desc: Acts on the plan.", "desc: Acts at once.")
}

fn follows(write: impl FnOnce(&Path, &str)) {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    let act = live.app.tk.action("plan").expect("plan");
    live.app.select(act);
    write(&f.path, &changed_text());
    live.until("the new description", |a| {
        desc_of(a, "act").as_deref() == Some("Acts at once.")
    });
    let sel = live.app.selected.expect("selection kept");
    assert_eq!(live.app.tk.name(sel), "plan");
    let act = live.app.tk.action("act").expect("act");
    assert!(live.app.marks.nodes.contains(&act), "changed node marked");
    assert!(live.app.session.live.reloads >= 1);
}

#[test]
fn follows_truncate_and_write() {
    follows(|p, t| std::fs::write(p, t).expect("write"));
}

#[test]
fn follows_rename_over() {
    follows(|p, t| {
        let tmp = p.with_extension("yaml.tmp~");
        std::fs::write(&tmp, t).expect("write tmp");
        std::fs::rename(&tmp, p).expect("rename");
    });
}

#[test]
fn follows_delete_and_recreate() {
    follows(|p, t| {
        std::fs::remove_file(p).expect("delete");
        std::fs::write(p, t).expect("recreate");
    });
}

#[test]
fn follows_a_new_file_in_a_watched_directory() {
    let f = fixture(TINY);
    let dir = f.path.parent().expect("dir").to_path_buf();
    let mut live = start(std::slice::from_ref(&dir));
    let extra = "actions:\n  - name: extra\n    desc: Came later.\n";
    std::fs::write(dir.join("more.yaml"), extra).expect("write");
    live.until("the new action", |a| a.tk.action("extra").is_some());
    assert!(live.app.tk.action("plan").is_some());
}

#[test]
fn broken_file_keeps_the_last_good_graph_and_recovers() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    std::fs::write(&f.path, "actions:\n  - name: [unclosed\n").expect("write");
    live.until("a parse error", |a| {
        a.status
            .as_ref()
            .is_some_and(|s| s.level == Level::Error && s.text.contains("tk.yaml:"))
    });
    let text = live
        .app
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(
        text.split(':')
            .filter(|p| p.trim().parse::<u32>().is_ok())
            .count()
            >= 2,
        "file:line:column in {text}"
    );
    assert_eq!(
        desc_of(&live.app, "act").as_deref(),
        Some("Acts on the plan.")
    );
    // The graph on screen is the last good one, and its title says so.
    assert!(crate::tui::tests::screen(&live.app).contains("[stale: file has errors]"));
    std::fs::write(&f.path, changed_text()).expect("fix");
    live.until("recovery", |a| {
        desc_of(a, "act").as_deref() == Some("Acts at once.")
    });
    assert_eq!(live.app.status.as_ref().map(|s| s.level), Some(Level::Info));
    assert!(!crate::tui::tests::screen(&live.app).contains("[stale"));
}

#[test]
fn own_saves_do_not_reload() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    let plan = live.app.tk.action("plan").expect("plan");
    live.app.select(plan);
    keys(&mut live.app, "E");
    keys(&mut live.app, "!<C-s>w");
    assert!(!live.app.is_modified(), "{:?}", live.app.status);
    // An outside write after ours: once it is seen, our own save must not have reloaded.
    let ours = std::fs::read_to_string(&f.path).expect("read");
    let theirs = ours.replace("desc: Acts on the plan.", "desc: Acts at once.");
    std::fs::write(&f.path, &theirs).expect("write");
    live.until("the outside write", |a| {
        desc_of(a, "act").as_deref() == Some("Acts at once.")
    });
    assert_eq!(
        live.app.session.live.reloads, 1,
        "only the outside write reloaded"
    );
}

#[test]
fn outside_change_with_unsaved_edits_asks() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    let plan = live.app.tk.action("plan").expect("plan");
    live.app.select(plan);
    keys(&mut live.app, "E!<C-s>");
    assert!(live.app.is_modified());
    std::fs::write(&f.path, changed_text()).expect("write");
    live.until("the conflict question", |a| {
        matches!(
            a.dialog(),
            Some(crate::tui::update::editing::dialog::Dialog::Conflict { .. })
        )
    });
    // Reapply: their change and my edit, both.
    keys(&mut live.app, "a");
    assert_eq!(desc_of(&live.app, "act").as_deref(), Some("Acts at once."));
    assert!(desc_of(&live.app, "plan").is_some_and(|d| d.contains('!')));
    assert!(live.app.is_modified());
    keys(&mut live.app, "w");
    let on_disk = std::fs::read_to_string(&f.path).expect("read");
    assert!(
        on_disk.contains("Acts at once.") && on_disk.contains("!"),
        "{on_disk}"
    );
}

#[test]
fn marks_expire_on_their_timer_message() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    std::fs::write(&f.path, changed_text()).expect("write");
    live.until("marks", |a| !a.marks.nodes.is_empty());
    // A rescored edge is marked too, and its score is shown.
    std::fs::write(&f.path, changed_text().replace("score: 0.6", "score: 0.35")).expect("write");
    live.until("a marked edge", |a| a.marks.edges.len() == 1);
    live.until("marks expired", |a| a.marks.nodes.is_empty());
}

#[test]
fn operator_parameters_follow_the_file_unless_changed_here() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    assert_eq!(live.app.session.params.threshold, 0.5);
    std::fs::write(&f.path, TINY.replace("threshold: 0.5", "threshold: 0.7")).expect("write");
    live.until("the new threshold", |a| a.session.params.threshold == 0.7);
    assert!(!live.app.is_modified(), "nothing of mine to save");
}

/// Issue 27, item 1: a threshold changed here (`+`, unsaved) is an edit like any other. When
/// another writer saves the same operator's threshold, the conflict question opens; the
/// pending value is never kept over a silent reload and then written over theirs by `w`.
#[test]
fn a_pending_threshold_under_a_change_on_disk_asks() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    keys(&mut live.app, "+");
    let mine = live.app.session.params.threshold;
    assert!(live.app.is_modified());
    let theirs = TINY.replace("threshold: 0.5", "threshold: 0.7");
    std::fs::write(&f.path, &theirs).expect("write");
    live.until("the conflict question", |a| {
        matches!(
            a.dialog(),
            Some(crate::tui::update::editing::dialog::Dialog::Conflict { .. })
        )
    });
    // Esc leaves it open; `w` then refuses to write over theirs and asks again.
    keys(&mut live.app, "<Esc>w");
    assert_eq!(std::fs::read_to_string(&f.path).expect("read"), theirs);
    assert!(live.app.dialog().is_some());
    // Reload: theirs is shown and followed, nothing is pending.
    keys(&mut live.app, "r");
    assert_eq!(live.app.session.params.threshold, 0.7);
    assert!(!live.app.is_modified(), "{:?}", live.app.status);
    assert_ne!(mine, 0.7);
}

#[test]
fn the_example_written_with_w_file_is_then_watched() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("mine.yaml");
    let ws = Workspace::example().expect("example");
    let mut app = App::with_workspace(ws, "example".into(), Theme::default(), (160, 48));
    let (tx, rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut app, tx, &[], None);
    assert!(!app.session.live.is_watching(), "nothing on disk to watch");
    keys(&mut app, &format!(":w {}<Enter>", out.display()));
    assert!(app.session.live.is_watching());
    let mut live = Live { app, rx };
    let text = std::fs::read_to_string(&out).expect("written");
    let changed = text.replacen("Reads a source document", "Reads any document", 1);
    std::fs::write(&out, changed).expect("write");
    live.until("the outside change", |a| {
        a.tk.graph
            .node_indices()
            .any(|ix| a.tk.node(ix).desc.starts_with("Reads any document"))
    });
    assert_eq!(
        live.app.session.live.reloads, 1,
        "our own write did not reload"
    );
}

/// A description changed on disk in a file with no unsaved edits is re-read in its item's
/// lines (the incremental reload), through the TUI's watcher path as through the core's.
#[test]
fn a_one_item_change_is_reread_in_place() {
    let text = toolscope_core::generate::generate(toolscope_core::generate::GenOptions {
        actions: 200,
        tools: None,
        seed: 7,
    });
    let f = fixture(&text);
    let mut live = start(std::slice::from_ref(&f.path));
    let changed = text.replacen("Synthetic action 7.", "Synthetic action 7. edited", 1);
    let tmp = f.path.with_extension("yaml.tmp~");
    std::fs::write(&tmp, &changed).expect("write tmp");
    std::fs::rename(&tmp, &f.path).expect("rename");
    live.until("the new description", |a| {
        desc_of(a, "a7").is_some_and(|d| d.ends_with("edited"))
    });
    let ws = live.app.session.ws.as_ref().expect("a workspace");
    assert_eq!(ws.rereads(), 1, "{:?}", live.app.status);
}
