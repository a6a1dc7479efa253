//! Editing driven by key sequences through `update`, asserting on the written YAML: the
//! edit is there and every other line is unchanged.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::tui::app::{ActivePane, App};
use crate::tui::msg::Msg;
use crate::tui::theme::Theme;
use crate::tui::update::update;
use toolscope_core::workspace::Workspace;

pub const TINY: &str = "\
# a tiny toolkit
name: tiny
tools:
  - name: Search
    desc: Finds things.
  - name: Fetch
    desc: Gets a page.
actions:
  - name: plan
    desc: Plans the work.
    tools: [Search]
    next:
      - {name: act, score: 0.8}
  - name: act
    desc: Acts on the plan.
    tools:
      - {name: Fetch, score: 0.6}
operators:
  - name: op
    actions: [plan]
    threshold: 0.5
    hops: 1
";

pub struct Fixture {
    /// Kept alive for the test (dropping it deletes the files).
    pub _dir: tempfile::TempDir,
    pub path: PathBuf,
}

pub fn fixture(text: &str) -> Fixture {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("tk.yaml");
    std::fs::write(&path, text).expect("write fixture");
    Fixture { _dir: dir, path }
}

pub fn open(path: &Path) -> App {
    let ws = Workspace::open(&[path.to_path_buf()], None).expect("open");
    App::with_workspace(ws, path.display().to_string(), Theme::default(), (160, 48))
}

/// Types a key string (see [`crate::tui::update::keystr`]): `<Esc>`, `<Enter>`, `<C-s>` or characters.
pub fn keys(app: &mut App, s: &str) {
    crate::tui::update::keystr::send(app, s);
    app.prepare_draw();
}

/// Lines of `after` that differ from `before` as (removed, added), by a line diff.
pub fn changed_lines(before: &str, after: &str) -> (Vec<String>, Vec<String>) {
    let diff = similar::TextDiff::from_lines(before, after);
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for c in diff.iter_all_changes() {
        let line = c.value().trim_end_matches('\n').to_string();
        match c.tag() {
            similar::ChangeTag::Delete => removed.push(line),
            similar::ChangeTag::Insert => added.push(line),
            similar::ChangeTag::Equal => {}
        }
    }
    (removed, added)
}

pub(crate) fn select(app: &mut App, name: &str) {
    let ix = [
        toolscope_core::model::NodeKind::Action,
        toolscope_core::model::NodeKind::Tool,
    ]
    .into_iter()
    .find_map(|k| app.tk.find(k, name))
    .expect("node");
    app.select(ix);
}

/// Puts the inspector cursor on the edge to `other`.
pub(crate) fn edge_to(app: &mut App, other: &str) {
    app.active_pane = ActivePane::Inspector;
    let i = app
        .node_edges()
        .iter()
        .position(|&(_, v, _)| app.tk.name(v) == other)
        .expect("edge");
    app.inspector.point_at_edge(i);
}

pub(crate) fn saved(f: &Fixture) -> String {
    std::fs::read_to_string(&f.path).expect("read")
}

#[test]
fn score_edit_then_save_changes_one_line() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e<BS><BS><BS>0.25<Enter>");
    assert!(app.is_modified());
    keys(&mut app, "w");
    assert!(!app.is_modified(), "{:?}", app.status);
    let (removed, added) = changed_lines(TINY, &saved(&f));
    assert_eq!(removed, vec!["      - {name: act, score: 0.8}"]);
    assert_eq!(added, vec!["      - {name: act, score: 0.25}"]);
}

#[test]
fn invalid_score_says_why_and_changes_nothing() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e<BS><BS><BS>1.5<Enter>");
    match &app.dialog() {
        Some(crate::tui::update::editing::dialog::Dialog::Score { error: Some(e), .. }) => {
            assert!(e.contains("outside [0, 1]"), "{e}")
        }
        _ => panic!("the editor stays open with the reason"),
    }
    keys(&mut app, "<BS><BS><BS>abc<Enter><Esc>");
    assert!(!app.is_modified());
    keys(&mut app, "w");
    assert_eq!(saved(&f), TINY);
}

#[test]
fn undo_and_redo_across_edits() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e<BS><BS><BS>0.3<Enter>");
    edge_to(&mut app, "Search");
    keys(&mut app, "d");
    keys(&mut app, "uu");
    assert!(!app.is_modified());
    keys(&mut app, "<C-r>");
    keys(&mut app, "w");
    let (removed, added) = changed_lines(TINY, &saved(&f));
    assert_eq!(removed, vec!["      - {name: act, score: 0.8}"]);
    assert_eq!(added, vec!["      - {name: act, score: 0.3}"]);
}

#[test]
fn remove_edge_writes_only_that_reference() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "act");
    edge_to(&mut app, "Fetch");
    keys(&mut app, "dw");
    let (removed, added) = changed_lines(TINY, &saved(&f));
    // The emptied `tools:` key becomes an empty list, not null (issue 12, item 2).
    assert_eq!(
        removed,
        vec!["    tools:", "      - {name: Fetch, score: 0.6}"]
    );
    assert_eq!(added, vec!["    tools: []"]);
}

#[test]
fn description_editor_applies_multi_line_text() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "act");
    keys(&mut app, "E");
    // Go to the end of the text, add a second line, apply.
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE)),
    );
    keys(&mut app, "<Enter>Then reports.<C-s>w");
    let text = saved(&f);
    let (removed, added) = changed_lines(TINY, &text);
    assert_eq!(removed, vec!["    desc: Acts on the plan."]);
    assert!(added.join("\n").contains("Then reports."), "{added:?}");
    let ws = Workspace::open(std::slice::from_ref(&f.path), None).expect("reload");
    let act = ws.toolkit.action("act").expect("act");
    assert_eq!(
        ws.toolkit.node(act).desc,
        "Acts on the plan.\nThen reports."
    );
}

#[test]
fn add_edge_action_and_tool_through_the_command_line() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "act");
    keys(&mut app, ":link Sear<Tab><Enter>");
    keys(&mut app, ":add-action review<Enter>");
    keys(&mut app, ":add-tool Notify<Enter>");
    keys(&mut app, "w");
    let ws = Workspace::open(std::slice::from_ref(&f.path), None).expect("reload");
    let tk = &ws.toolkit;
    let act = tk.action("act").expect("act");
    let review = tk.action("review").expect("review added");
    let search = tk
        .find(toolscope_core::model::NodeKind::Tool, "Search")
        .expect("tool");
    assert!(tk.out_edges(act).any(|(_, v)| v == search), "edge added");
    let notify = tk
        .find(toolscope_core::model::NodeKind::Tool, "Notify")
        .expect("tool added");
    assert!(
        tk.out_edges(review).any(|(_, v)| v == notify),
        "called by the selection"
    );
    let (removed, _) = changed_lines(TINY, &saved(&f));
    assert!(
        removed.len() <= 2,
        "only the edited constructs: {removed:?}"
    );
}

#[test]
fn remove_node_asks_with_the_cascade() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "act");
    keys(&mut app, "D");
    match &app.dialog() {
        Some(crate::tui::update::editing::dialog::Dialog::Remove { cascade, .. }) => {
            assert!(cascade.iter().any(|c| c.contains("act")), "{cascade:?}")
        }
        _ => panic!("asks first"),
    }
    keys(&mut app, "n");
    assert!(!app.is_modified());
    keys(&mut app, "Dyw");
    let ws = Workspace::open(std::slice::from_ref(&f.path), None).expect("reload");
    assert!(ws.toolkit.action("act").is_none());
    assert!(!saved(&f).contains("name: act"));
    assert!(saved(&f).starts_with("# a tiny toolkit\n"));
}

#[test]
fn removing_a_seeded_action_removes_the_seed_too() {
    let f = fixture(&TINY.replace("actions: [plan]", "actions: [plan, act]"));
    let mut app = open(&f.path);
    select(&mut app, "act");
    keys(&mut app, "D");
    match &app.dialog() {
        Some(crate::tui::update::editing::dialog::Dialog::Remove { cascade, .. }) => assert!(
            cascade.iter().any(|c| c == "seed act of operator op"),
            "the seed is shown before confirming: {cascade:?}"
        ),
        _ => panic!("asks first"),
    }
    keys(&mut app, "yw");
    let text = saved(&f);
    assert!(text.contains("actions: [plan]\n"), "{text}");
    let loaded =
        toolscope_core::load::load_paths(std::slice::from_ref(&f.path), None).expect("loads");
    let found = toolscope_core::lint::lint(&loaded);
    assert!(
        !found
            .iter()
            .any(|d| d.code == toolscope_core::diag::Code::OperatorUnknownAction),
        "{found:?}"
    );
    // One undo brings back the action and its seed.
    keys(&mut app, "u");
    assert_eq!(app.tk.operator("op").map(|o| o.actions.len()), Some(2));
}

#[test]
fn threshold_and_hops_of_the_operator_are_saved() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    assert!(app.operator.is_some());
    keys(&mut app, "+]");
    assert!(app.is_modified(), "changed parameters count as unsaved");
    keys(&mut app, "w");
    let (removed, added) = changed_lines(TINY, &saved(&f));
    assert_eq!(removed, vec!["    threshold: 0.5", "    hops: 1"]);
    assert_eq!(added, vec!["    threshold: 0.55", "    hops: 2"]);
    assert!(!app.is_modified());
}

#[test]
fn quit_with_unsaved_edits_asks() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e0.5<Enter>q");
    assert!(!app.quit, "asks");
    keys(&mut app, "n");
    assert!(!app.quit);
    keys(&mut app, ":q!<Enter>");
    assert!(app.quit);
    assert_eq!(saved(&f), TINY, "nothing written");
}

#[test]
fn write_the_bundled_example_to_a_new_file() {
    let dir = tempfile::tempdir().expect("dir");
    let out = dir.path().join("mine.yaml");
    let ws = Workspace::example().expect("example");
    let mut app = App::with_workspace(ws, "example".into(), Theme::default(), (160, 48));
    keys(&mut app, "w");
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains(":w FILE"))
            || !app.is_modified()
    );
    keys(&mut app, &format!(":w {}<Enter>", out.display()));
    assert_eq!(
        std::fs::read_to_string(&out).expect("written"),
        toolscope_core::source::EXAMPLE
    );
    // Edits now go to the new file.
    keys(&mut app, "+w");
    let after = std::fs::read_to_string(&out).expect("read");
    let (removed, added) = changed_lines(toolscope_core::source::EXAMPLE, &after);
    assert_eq!(removed.len(), 1, "{removed:?} {added:?}");
    assert!(added[0].contains("threshold"), "{added:?}");
    // An existing file is not overwritten without `!`.
    keys(&mut app, &format!(":w {}<Enter>", out.display()));
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("exists"))
    );
}

#[test]
fn conflict_at_save_offers_reload_reapply_or_overwrite() {
    for choice in ['r', 'a', 'k'] {
        let f = fixture(TINY);
        let mut app = open(&f.path);
        select(&mut app, "plan");
        edge_to(&mut app, "act");
        keys(&mut app, "e<BS><BS><BS>0.25<Enter>");
        let theirs = TINY.replace("desc: Finds things.", "desc: Finds more things.");
        std::fs::write(&f.path, &theirs).expect("external write");
        keys(&mut app, "w");
        assert!(
            matches!(
                app.dialog(),
                Some(crate::tui::update::editing::dialog::Dialog::Conflict { .. })
            ),
            "asks at save"
        );
        assert_eq!(saved(&f), theirs, "nothing written yet");
        keys(&mut app, &choice.to_string());
        keys(&mut app, "w");
        let now = saved(&f);
        match choice {
            'r' => assert_eq!(now, theirs, "my edit dropped, theirs kept"),
            'a' => {
                assert!(
                    now.contains("Finds more things") && now.contains("score: 0.25"),
                    "{now}"
                )
            }
            _ => {
                assert!(
                    !now.contains("Finds more things") && now.contains("score: 0.25"),
                    "{now}"
                )
            }
        }
    }
}

fn screen(app: &App) -> String {
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(160, 48))
        .unwrap_or_else(|e| match e {});
    let _ = term.draw(|f| crate::tui::view::draw(f, app));
    let buf = term.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn dialogs_and_the_unsaved_marker_are_drawn() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    edge_to(&mut app, "act");
    keys(&mut app, "e<BS><BS><BS>2<Enter>");
    let s = screen(&app);
    assert!(
        s.contains("Edit score") && s.contains("outside [0, 1]"),
        "{s}"
    );
    keys(&mut app, "<Esc>E");
    assert!(screen(&app).contains("Plans the work."));
    keys(&mut app, "!<C-s>");
    assert!(screen(&app).contains("[+]"));
    keys(&mut app, "D");
    let s = screen(&app);
    assert!(
        s.contains("Remove node") && s.contains("action plan"),
        "{s}"
    );
    keys(&mut app, "<Esc>q");
    assert!(screen(&app).contains("Unsaved edits"));
}

#[test]
fn refused_edits_show_the_reason() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "plan");
    keys(&mut app, ":link act<Enter>");
    let s = app.status.clone().expect("status");
    assert_eq!(s.level, crate::tui::app::Level::Error, "{}", s.text);
    assert!(!app.is_modified());
    keys(&mut app, ":link nowhere<Enter>");
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("nowhere"))
    );
}

#[test]
fn saving_chat2graph_tuning_says_chat2graph_ignores_it() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("toolkits/chat2graph-mini.yml"),
    )
    .expect("fixture");
    let f = fixture(&text);
    let mut app = open(&f.path);
    select(&mut app, "query_execution");
    edge_to(&mut app, "CypherExecutor");
    keys(&mut app, "e<BS><BS><BS>0.3<Enter>");
    keys(&mut app, "w");
    let s = app.status.clone().expect("status");
    assert!(s.text.starts_with("saved"), "{}", s.text);
    assert!(
        s.text.contains("toolscope_chat2graph.install()"),
        "{}",
        s.text
    );
}

#[test]
fn chat2graph_refusals_are_explained_and_change_nothing() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("toolkits/chat2graph-mini.yml"),
    )
    .expect("fixture");
    let f = fixture(&text);
    let mut app = open(&f.path);
    keys(&mut app, ":add-action brand_new<Enter>");
    let s = app.status.clone().expect("status");
    assert_eq!(s.level, crate::tui::app::Level::Error, "{}", s.text);
    assert!(
        s.text.contains("cannot") || s.text.contains("chain"),
        "{}",
        s.text
    );
    assert!(!app.is_modified());
    keys(&mut app, "w");
    assert_eq!(saved(&f), text);
}

#[test]
fn export_writes_the_graph() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    let out = f.path.with_file_name("g.dot");
    keys(&mut app, &format!(":export dot {}<Enter>", out.display()));
    let dot = std::fs::read_to_string(&out).expect("exported");
    assert!(dot.contains("digraph") && dot.contains("plan"), "{dot}");
    keys(&mut app, ":export pdf x<Enter>");
    assert!(app.status.as_ref().is_some_and(|s| s.text.contains("pdf")));
    // Never over the opened toolkit, not even with `!`; another file only with `!`.
    let before = std::fs::read_to_string(&f.path).expect("read");
    for cmd in ["export", "export!"] {
        keys(&mut app, &format!(":{cmd} dot {}<Enter>", f.path.display()));
        assert!(
            app.status
                .as_ref()
                .is_some_and(|s| s.text.contains("opened toolkit"))
        );
        assert_eq!(std::fs::read_to_string(&f.path).expect("read"), before);
    }
    keys(
        &mut app,
        &format!(":export mermaid {}<Enter>", out.display()),
    );
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("export!"))
    );
    keys(
        &mut app,
        &format!(":export! mermaid {}<Enter>", out.display()),
    );
    let text = std::fs::read_to_string(&out).expect("exported");
    assert!(!text.contains("digraph"), "{text}");
}

/// Issue 27, item 12: `:export!` and `:w!` replace regular files only: a FIFO named as the
/// file is refused with what it is, and stays a FIFO.
#[test]
fn export_and_write_as_replace_regular_files_only() {
    use std::os::unix::fs::FileTypeExt;
    let f = fixture(TINY);
    let mut app = open(&f.path);
    let fifo = f.path.with_file_name("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo")
            .success()
    );
    for cmd in [":export! dot", ":w!"] {
        keys(&mut app, &format!("{cmd} {}<Enter>", fifo.display()));
        let status = app.status.clone().expect("a message");
        assert!(
            status.text.contains("not a regular file"),
            "{cmd}: {status:?}"
        );
        let t = std::fs::metadata(&fifo).expect("there").file_type();
        assert!(t.is_fifo(), "{cmd} replaced the FIFO");
    }
}

mod random_edits {
    use super::*;
    use proptest::prelude::*;

    fn key() -> impl Strategy<Value = &'static str> {
        proptest::sample::select(vec![
            "e", "E", "a", "A", "d", "D", "u", "w", "y", "n", "q", "+", "]", "o", "j", "k",
            "<Tab>", "<Enter>", "<Esc>", "<BS>", "<C-r>", "<C-s>", "0", ".", "5", "x", "r",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        /// Any key sequence keeps the app's graph equal to the workspace's, the selection
        /// valid and the saved file loadable.
        #[test]
        fn any_editing_keys_keep_app_and_workspace_in_step(seq in proptest::collection::vec(key(), 1..40)) {
            let f = fixture(TINY);
            let mut app = open(&f.path);
            for k in seq {
                keys(&mut app, k);
                if app.quit {
                    break;
                }
                let ws = app.session.ws.as_ref().expect("workspace");
                prop_assert_eq!(app.tk.graph.node_count(), ws.toolkit.graph.node_count());
                prop_assert_eq!(app.tk.graph.edge_count(), ws.toolkit.graph.edge_count());
                if let Some(ix) = app.selected {
                    prop_assert!(app.tk.graph.contains_node(ix));
                }
                let _ = screen(&app);
            }
            prop_assert!(Workspace::open(std::slice::from_ref(&f.path), None).is_ok());
        }
    }
}

#[test]
fn add_edge_by_picking_source_and_target() {
    let f = fixture(TINY);
    let mut app = open(&f.path);
    select(&mut app, "act");
    keys(&mut app, "a");
    select(&mut app, "plan");
    keys(&mut app, "a");
    // Esc cancels a pick.
    keys(&mut app, "a<Esc>a");
    keys(&mut app, "<Esc>w");
    let (removed, added) = changed_lines(TINY, &saved(&f));
    assert!(removed.is_empty(), "{removed:?}");
    assert_eq!(added, vec!["    next:", "      - plan"], "{added:?}");
}
