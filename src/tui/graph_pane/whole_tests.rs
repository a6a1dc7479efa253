//! The whole-graph layout off the key path, through the app: the first screen and `f`
//! while it is computed, its arrival, and a result made stale by a reload.

use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use crate::tui::app::App;
use crate::tui::graph_pane::whole::WholeLayout;
use crate::tui::msg::Msg;
use crate::tui::tests::{press, screen};
use crate::tui::theme::Theme;
use crate::tui::update::update;
use toolscope_core::layout::structure_key;
use toolscope_core::load::load_example;
use toolscope_core::source::EXAMPLE_NAME;

/// The example in background mode; the result is taken only when the test delivers the
/// wake-up, so "pending" is deterministic however fast the thread is.
fn pending_app(w: u16, h: u16) -> (App, Receiver<Msg>) {
    let (tx, rx) = mpsc::channel();
    let app = App::with_layout(
        load_example(),
        EXAMPLE_NAME.into(),
        Theme::default(),
        (w, h),
        WholeLayout::background(tx),
    );
    (app, rx)
}

fn wake(rx: &Receiver<Msg>) -> Msg {
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the layout thread reports")
}

#[test]
fn f_while_the_layout_is_pending_shows_progress_and_keeps_the_focus_view() {
    let (mut app, rx) = pending_app(120, 30);
    let n = app.tk.graph.node_count();
    assert_eq!(app.layout_pending(), Some(n));
    assert!(app.whole_layout().is_none());
    // The first screen is the focus view, drawn without the whole-graph layout.
    assert!(app.graph_pane.shows_focus());
    let first = screen(&app);
    assert!(first.contains("[focus]"), "{first}");
    assert!(first.contains(&format!("laying out {n} nodes…")), "{first}");
    press(&mut app, "f");
    assert!(
        app.graph_pane.shows_focus(),
        "f does not wait for the layout"
    );
    let s = screen(&app);
    assert!(
        s.contains("f shows the whole graph when it is ready"),
        "{s}"
    );
    insta::assert_snapshot!("f_while_layout_pending_120x30", s);
    // The layout arrives: the progress goes and `f` shows the whole graph.
    let msg = wake(&rx);
    update(&mut app, msg);
    assert_eq!(app.layout_pending(), None);
    let s = screen(&app);
    assert!(!s.contains("laying out"), "{s}");
    assert!(s.contains("the whole graph is laid out: f shows it"), "{s}");
    press(&mut app, "f");
    assert!(!app.graph_pane.shows_focus());
    assert_eq!(app.layout().placed().count(), n);
}

#[test]
fn ascii_progress_has_no_ellipsis_character() {
    let (tx, _rx) = mpsc::channel();
    let app = App::with_layout(
        load_example(),
        EXAMPLE_NAME.into(),
        Theme::from_env(true, true),
        (160, 30),
        WholeLayout::background(tx),
    );
    let s = screen(&app);
    assert!(s.contains("nodes..."), "{s}");
}

#[test]
fn a_reload_during_the_layout_discards_the_stale_result() {
    let (mut app, rx) = pending_app(120, 30);
    let mut next = load_example();
    let gone = next.toolkit.action("query_design").expect("action");
    next.toolkit.remove_node(gone);
    let new_key = structure_key(&next.toolkit);
    app.replace(std::sync::Arc::new(next.toolkit), Vec::new());
    assert_eq!(app.layout_pending(), Some(app.tk.graph.node_count()));
    // Deliver every wake-up until the second job's; the first job's result (if it was
    // sent at all) must never be installed.
    loop {
        let msg = wake(&rx);
        let last = matches!(msg, Msg::LayoutReady(2));
        update(&mut app, msg);
        if let Some(l) = app.whole_layout() {
            assert_eq!(l.key, new_key, "only the current graph's layout is shown");
        }
        if last {
            break;
        }
    }
    assert_eq!(app.whole_layout().map(|l| l.key), Some(new_key));
    assert_eq!(app.layout_pending(), None);
}
