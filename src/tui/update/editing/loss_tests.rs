//! Ways to lose work, each tried as a user would: key strings on the app, real files in a
//! temp dir, and the real watcher where the issue involves one.

use std::path::PathBuf;
use std::sync::mpsc;

use crate::tui::app::{App, Level};
use crate::tui::live_tests::start;
use crate::tui::msg::Msg;
use crate::tui::update::editing::dialog::Dialog;
use crate::tui::update::editing::tests::{TINY, fixture, keys, open};
use crate::tui::update::update;

fn select(app: &mut App, name: &str) {
    let ix = app.tk.action(name).expect("action");
    app.select(ix);
}

fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).expect("read")
}

#[test]
fn ctrl_c_asks_when_edits_are_unsaved_and_a_second_ctrl_c_quits() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "act");
    keys(&mut app, "Dy");
    assert!(app.is_modified());
    keys(&mut app, "<C-c>");
    assert!(!app.quit, "one Ctrl-C never drops unsaved edits");
    assert_eq!(app.dialog(), Some(&Dialog::Quit));
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("C-c quit"), "{screen}");
    // Esc stays; the edit is still there.
    keys(&mut app, "<Esc>");
    assert!(!app.quit && app.is_modified());
    keys(&mut app, "<C-c><C-c>");
    assert!(app.quit);
    assert_eq!(read(&f.path), TINY, "quitting never writes");
}

#[test]
fn ctrl_c_quits_at_once_without_unsaved_edits() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    keys(&mut app, "<C-c>");
    assert!(app.quit);
}

#[test]
fn keep_mine_then_a_second_outside_change_is_not_overwritten() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "act");
    keys(&mut app, "Dy");
    let theirs = TINY.replace("Plans the work.", "Plans it all.");
    std::fs::write(&f.path, &theirs).expect("write");
    keys(&mut app, "w");
    assert!(matches!(app.dialog(), Some(Dialog::Conflict { .. })));
    keys(&mut app, "k");
    // Another program writes again after the user chose to keep theirs over the first.
    let again = TINY.replace("Plans the work.", "Plans twice.");
    std::fs::write(&f.path, &again).expect("write");
    keys(&mut app, "<Esc>w");
    assert_eq!(read(&f.path), again, "the second change is not overwritten");
    assert!(matches!(app.dialog(), Some(Dialog::Conflict { .. })));
    assert_eq!(app.status.as_ref().map(|s| s.level), Some(Level::Error));
    // Choosing keep mine again overwrites exactly this content.
    keys(&mut app, "kw");
    let text = read(&f.path);
    assert!(
        !text.contains("name: act") && text.contains("Plans the work."),
        "{text}"
    );
    assert!(!app.is_modified());
}

#[test]
fn keep_mine_then_a_second_change_seen_by_the_watcher_asks_again() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    select(&mut live.app, "act");
    keys(&mut live.app, "Dy");
    std::fs::write(&f.path, TINY.replace("Plans the work.", "Plans it all.")).expect("write");
    live.until("the conflict question", |a| {
        matches!(a.dialog(), Some(Dialog::Conflict { .. }))
    });
    keys(&mut live.app, "k");
    assert!(live.app.dialog().is_none());
    let again = TINY.replace("Plans the work.", "Plans twice.");
    std::fs::write(&f.path, &again).expect("write");
    live.until("the question again", |a| {
        matches!(a.dialog(), Some(Dialog::Conflict { .. }))
    });
    keys(&mut live.app, "<Esc>w");
    assert_eq!(read(&f.path), again);
}

#[test]
fn a_partial_write_keeps_operator_seeds_and_selection_by_name() {
    let f = fixture(TINY);
    let mut live = start(std::slice::from_ref(&f.path));
    select(&mut live.app, "act");
    assert_eq!(
        live.app.tk.operators[live.app.operator.expect("op")].name,
        "op"
    );
    // An editor writes the file in two steps: first without the operators and `act`.
    let cut = TINY.find("operators:").expect("operators");
    let first = TINY[..cut]
        .replace("    next:\n      - {name: act, score: 0.8}\n", "")
        .replace(
            "  - name: act\n    desc: Acts on the plan.\n    tools:\n      - {name: Fetch, score: 0.6}\n",
            "",
        );
    std::fs::write(&f.path, &first).expect("write");
    live.until("the partial file", |a| a.tk.action("act").is_none());
    assert!(live.app.operator.is_none());
    std::fs::write(&f.path, TINY).expect("write");
    live.until("the whole file", |a| a.tk.action("act").is_some());
    let app = &live.app;
    assert_eq!(
        app.operator.map(|i| app.tk.operators[i].name.as_str()),
        Some("op")
    );
    let seeds: Vec<&str> = app.seeds.iter().map(|&s| app.tk.name(s)).collect();
    assert_eq!(seeds, vec!["plan"]);
    assert_eq!(app.selected.map(|s| app.tk.name(s)), Some("act"));
    assert!(!app.kept.waiting());
}

#[test]
fn the_tui_starts_on_a_file_that_does_not_parse_and_loads_it_once_fixed() {
    let f = fixture("actions: [unclosed\n");
    let opts = crate::tui::Options {
        paths: vec![f.path.clone()],
        ..Default::default()
    };
    let (ws, label, broken) = crate::tui::open_workspace(&opts).expect("starts anyway");
    let broken = broken.expect("the error is reported");
    let mut app = App::with_workspace(ws, label, crate::tui::Theme::default(), (160, 48));
    let (tx, rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut app, tx, &opts.paths, None);
    app.set_status(Level::Error, broken.clone());
    assert!(
        broken.contains("waiting for the file to be fixed"),
        "{broken}"
    );
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("waiting for the file"), "{screen}");
    std::fs::write(&f.path, TINY).expect("write");
    let mut live = crate::tui::live_tests::Live::from_parts(app, rx);
    live.until("the fixed file", |a| a.tk.action("plan").is_some());
    // A path that does not exist is still refused.
    let missing = crate::tui::Options {
        paths: vec![PathBuf::from("/nonexistent/toolscope.yaml")],
        ..Default::default()
    };
    assert!(crate::tui::open_workspace(&missing).is_err());
}

#[test]
fn sigterm_writes_unsaved_edits_that_the_next_start_offers() {
    let f = fixture(TINY);
    let state = tempfile::tempdir().expect("state dir");
    let opened = vec![f.path.clone()];
    let mut app = open(&f.path);
    app.session.recovery_dir = Some(state.path().join("state"));
    let (tx, _rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut app, tx, &opened, None);
    select(&mut app, "act");
    keys(&mut app, "Dy]");
    update(&mut app, Msg::Terminate);
    assert!(app.quit);
    assert_eq!(read(&f.path), TINY, "nothing written to the toolkit");
    let farewell = app.farewell.clone().expect("says where");
    assert!(farewell.contains("unsaved edits written"), "{farewell}");

    // The next start on the same file offers them; `a` reapplies, `w` saves.
    let mut next = open(&f.path);
    next.session.recovery_dir = Some(state.path().join("state"));
    let (tx, _rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut next, tx, &opened, None);
    crate::tui::update::editing::offer_recovery(&mut next);
    assert!(matches!(next.dialog(), Some(Dialog::Recover { edits }) if edits.len() == 2));
    keys(&mut next, "aw");
    let text = read(&f.path);
    assert!(!text.contains("name: act"), "{text}");
    assert!(text.contains("hops: 2"), "{text}");
    // Offered once: the file is gone after the choice.
    let mut third = open(&f.path);
    third.session.recovery_dir = Some(state.path().join("state"));
    let (tx, _rx) = mpsc::channel();
    crate::tui::update::editing::watch(&mut third, tx, &opened, None);
    crate::tui::update::editing::offer_recovery(&mut third);
    assert!(third.dialog().is_none());
}

#[test]
fn a_long_refusal_is_read_in_full_in_the_message_log() {
    let src = include_str!("../../../../toolkits/chat2graph-mini.yml");
    let f = fixture(src);
    let mut app = open(&f.path);
    app.size = (80, 24);
    select(&mut app, "schema_design");
    keys(&mut app, "Dy");
    let full = app.status.clone().expect("refused").text;
    assert!(full.len() > 80, "a long message: {full}");
    let tail: String = full
        .split_whitespace()
        .rev()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    keys(&mut app, "M");
    let screen = crate::tui::tests::screen(&app);
    let flat: String = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    let last_words: Vec<&str> = full.split_whitespace().rev().take(3).collect();
    for w in last_words {
        assert!(flat.contains(w), "`{w}` of `{tail}` on screen:\n{screen}");
    }
    keys(&mut app, "<Esc>:messages<Enter>");
    assert!(matches!(
        app.overlay,
        Some(crate::tui::app::Overlay::Messages { .. })
    ));
}

#[test]
fn the_help_wraps_long_descriptions_at_160x48() {
    let mut app = crate::tui::tests::app(160, 48);
    keys(&mut app, "?");
    // The longest help text ends on screen (wrapped, not cut), on the page that holds it.
    let longest = crate::tui::update::commands::all()
        .map(|c| c.doc)
        .max_by_key(|h| h.len())
        .expect("help");
    let last = longest.split_whitespace().last().expect("word");
    let first = longest.split_whitespace().next().expect("word");
    let mut pages = Vec::new();
    for _ in 0..12 {
        let screen = crate::tui::tests::screen(&app);
        let flat: String = screen
            .split_whitespace()
            .filter(|w| !w.contains('│'))
            .collect::<Vec<_>>()
            .join(" ");
        if flat.contains(first) && flat.contains(last) {
            return;
        }
        pages.push(screen);
        keys(&mut app, "<PgDn>");
    }
    panic!("`{last}` of `{longest}` on no page:\n{}", pages.join("\n"));
}

/// The recovery question wraps its first line at 100x30 and still shows which keys answer
/// it (the box is as tall as its wrapped lines).
#[test]
fn the_recovery_question_shows_its_keys_on_a_small_terminal() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    app.size = (100, 30);
    let edits = vec![toolscope_core::edit::Transaction::from(
        toolscope_core::edit::Edit::SetHops {
            operator: "modelling".into(),
            value: 2,
        },
    )];
    app.overlay = Some(crate::tui::app::Overlay::Dialog(Box::new(
        Dialog::Recover { edits },
    )));
    let screen = crate::tui::tests::screen(&app);
    assert!(screen.contains("Recovered edits"), "{screen}");
    assert!(screen.contains("a reapply them"), "{screen}");
}
