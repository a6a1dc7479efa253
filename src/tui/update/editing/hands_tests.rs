//! Issue 45, tried as hands do: the score field replaces its value, threshold and hops
//! undo, and no key sequence drops unsaved edits without an explicit yes.

use std::sync::mpsc;

use crate::tui::update::editing::dialog::Dialog;
use crate::tui::update::editing::tests::{TINY, edge_to, fixture, keys, open, saved, select};

fn status(app: &crate::tui::app::App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

#[test]
fn plus_then_u_restores_the_threshold_and_says_the_value_it_leaves() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    keys(&mut app, "+");
    assert_eq!(app.session.params.threshold, 0.55);
    assert!(app.is_modified());
    keys(&mut app, "u");
    assert_eq!(app.session.params.threshold, 0.5, "{}", status(&app));
    assert!(
        status(&app).contains("threshold 0.50 now"),
        "{}",
        status(&app)
    );
    assert!(!app.is_modified(), "back to the file's value");
    keys(&mut app, "<C-r>");
    assert_eq!(app.session.params.threshold, 0.55);
    assert!(
        status(&app).contains("threshold 0.55 now"),
        "{}",
        status(&app)
    );
}

#[test]
fn repeats_of_one_key_are_one_step_and_other_keys_their_own() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    keys(&mut app, "+++]");
    assert_eq!(app.session.params.threshold, 0.65);
    assert_eq!(app.session.params.hops, 2);
    keys(&mut app, "u");
    assert_eq!(app.session.params.hops, 1, "{}", status(&app));
    assert!(
        status(&app).contains("hops 1 now (was hops 2)"),
        "{}",
        status(&app)
    );
    assert_eq!(app.session.params.threshold, 0.65);
    keys(&mut app, "u");
    assert_eq!(
        app.session.params.threshold, 0.5,
        "three `+` within a second: one step"
    );
}

#[test]
fn seeds_undo_and_interleave_with_file_edits() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    let plan = app.tk.action("plan").expect("plan");
    select(&mut app, "act");
    keys(&mut app, "<Space>");
    assert_eq!(app.seeds.len(), 2);
    // A file edit after the seed: undone first, then the seed.
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e0.25<Enter>");
    keys(&mut app, "u");
    assert_eq!(app.seeds.len(), 2, "the score goes first: {}", status(&app));
    assert!(
        status(&app).ends_with("; score plan -> act = 0.8 now"),
        "says the value it leaves: {}",
        status(&app)
    );
    keys(&mut app, "u");
    assert_eq!(app.seeds, vec![plan], "{}", status(&app));
    assert!(!app.seeds_edited, "back to the operator's own seeds");
}

#[test]
fn q_q_with_an_unsaved_edit_keeps_it() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    keys(&mut app, "]");
    keys(&mut app, "q");
    assert_eq!(app.dialog(), Some(&Dialog::Quit));
    keys(&mut app, "q");
    assert!(!app.quit, "a second q does nothing");
    assert_eq!(app.dialog(), Some(&Dialog::Quit), "the question stays");
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("y quit, dropping the edits"), "{screen}");
    keys(&mut app, "y");
    assert!(app.quit, "y is the explicit yes");
    assert_eq!(saved(&f), TINY);
}

#[test]
fn ctrl_c_twice_leaves_the_edits_in_the_recovery_file() {
    let f = fixture(TINY);
    let state = tempfile::tempdir().expect("state dir");
    let opened = vec![f.path.clone()];
    let mut app = open(&f.path);
    app.session.recovery_dir = Some(state.path().join("state"));
    let (tx, _rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut app, tx, &opened, None);
    keys(&mut app, "]<C-c><C-c>");
    assert!(app.quit);
    assert!(app.farewell.is_some(), "says where the edits went");
    let mut next = open(&f.path);
    next.session.recovery_dir = Some(state.path().join("state"));
    let (tx, _rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut next, tx, &opened, None);
    crate::tui::update::editing::offer_recovery(&mut next);
    assert!(
        matches!(next.dialog(), Some(Dialog::Recover { .. })),
        "the next start offers them"
    );
}

#[test]
fn typing_a_score_replaces_the_shown_value_and_the_file_gets_it() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e");
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("> 0.8"), "{screen}");
    keys(&mut app, "0.55<Enter>w");
    let text = saved(&f);
    assert!(text.contains("{name: act, score: 0.55}"), "{text}");
}

#[test]
fn ctrl_u_clears_and_a_refused_enter_selects_the_text_for_retyping() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e<End>5<C-u>");
    match app.dialog() {
        Some(Dialog::Score { text, .. }) => assert_eq!(text.text(), ""),
        other => panic!("the editor is open: {other:?}"),
    }
    keys(&mut app, "1.5<Enter>");
    match app.dialog() {
        Some(Dialog::Score { text, error, .. }) => {
            assert!(error.as_deref().is_some_and(|e| e.contains("[0, 1]")));
            assert!(text.is_selected(), "the refused text is selected");
        }
        other => panic!("the editor stays open: {other:?}"),
    }
    // Keys after the refusal replace the text, not extend it.
    keys(&mut app, "0.3<Enter>");
    assert!(app.dialog().is_none(), "{:?}", app.status);
    assert!(app.is_modified());
}

#[test]
fn paste_goes_into_the_open_field_and_never_runs_keys() {
    use crate::tui::msg::Msg;
    use crate::tui::update::update;
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e");
    update(&mut app, Msg::Paste("0.4\n".into()));
    keys(&mut app, "<Enter>");
    assert!(app.is_modified());
    // With no field open a paste is dropped, not read as keys (`q` would ask to quit).
    update(&mut app, Msg::Paste("qqq".into()));
    assert!(app.overlay.is_none() && !app.quit);
    keys(&mut app, ":");
    update(&mut app, Msg::Paste("hops 3".into()));
    keys(&mut app, "<Enter>");
    assert_eq!(app.session.params.hops, 3, "{:?}", app.status);
}

/// Issue 45: `:export` runs on a thread of its own: the line returns at once saying it
/// is exporting, and the done line comes back as a message.
#[test]
fn export_runs_off_the_ui_thread_and_says_when_done() {
    use crate::tui::msg::Msg;
    use crate::tui::update::update;
    let f = fixture(TINY);
    let mut app = open(&f.path);
    let (tx, rx) = mpsc::channel();
    app.tx = Some(tx);
    let out = f.path.with_file_name("g.svg");
    keys(&mut app, &format!(":export svg {}<Enter>", out.display()));
    assert!(
        status(&app).starts_with("exporting svg"),
        "{}",
        status(&app)
    );
    let done = loop {
        match rx.recv_timeout(std::time::Duration::from_secs(20)) {
            Ok(Msg::ExportDone(d)) => break d,
            Ok(_) => continue,
            Err(e) => panic!("no export line: {e}"),
        }
    };
    update(&mut app, Msg::ExportDone(done));
    assert!(
        status(&app).starts_with("exported svg to"),
        "{}",
        status(&app)
    );
    assert!(
        std::fs::read_to_string(&out)
            .expect("written")
            .contains("<svg")
    );
    // A refusal found on the thread (the file exists, no `!`) comes back as an error.
    keys(&mut app, &format!(":export svg {}<Enter>", out.display()));
    let Ok(Msg::ExportDone(done)) = rx.recv_timeout(std::time::Duration::from_secs(20)) else {
        panic!("no export line");
    };
    update(&mut app, Msg::ExportDone(done));
    let s = app.status.clone().expect("a line");
    assert_eq!(s.level, crate::tui::app::Level::Error, "{}", s.text);
}
