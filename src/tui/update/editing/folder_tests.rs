//! A folder of toolkit files in the TUI (issue 12 items 13 and 16 in the editing path):
//! the editing session shows what `lint` and `recommend` read from the same folder.
//! Operators two files define are listed as `NAME @ FILE` and each edits its own file; a
//! `next` into another file is an edge whose score is written into the file holding it.

use std::path::{Path, PathBuf};

use crate::tui::app::{ActivePane, App};
use crate::tui::theme::Theme;
use toolscope_core::diag::Code;
use toolscope_core::workspace::Workspace;

use crate::tui::update::editing::tests::{changed_lines, keys};

/// The two files of a folder whose operators share a name (`tests/fixtures/query-experts`).
pub const A: &str = include_str!("../../../../tests/fixtures/query-experts/a.yml");

pub const B: &str = include_str!("../../../../tests/fixtures/query-experts/b.yml");

struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    fn new() -> Folder {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("a.yml"), A).expect("write a");
        std::fs::write(dir.path().join("b.yml"), B).expect("write b");
        Folder { dir }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().to_path_buf()
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).expect("read")
    }
}

fn open(dir: &Path) -> App {
    let ws = Workspace::open(&[dir.to_path_buf()], None).expect("open");
    App::with_workspace(ws, dir.display().to_string(), Theme::default(), (160, 48))
}

fn operator_names(app: &App) -> Vec<&str> {
    app.tk.operators.iter().map(|o| o.name.as_str()).collect()
}

#[test]
fn both_operators_of_one_name_are_listed_and_each_edits_its_own_file() {
    let f = Folder::new();
    let mut app = open(&f.path());
    assert_eq!(
        operator_names(&app),
        vec!["Query Expert/1 @ a.yml", "Query Expert/1 @ b.yml"]
    );
    let ws = app.session.ws.as_ref().expect("session");
    let clashes = ws
        .diagnostics
        .iter()
        .filter(|d| d.code == Code::SharedOperatorName)
        .count();
    assert_eq!(clashes, 2, "{:?}", ws.diagnostics);
    keys(&mut app, ":operator Query Expert/1 @ b.yml<Enter>");
    let op = &app.tk.operators[app.operator.expect("active")];
    assert_eq!(op.name, "Query Expert/1 @ b.yml");
    assert_eq!(app.session.params.threshold, 0.7);
    keys(&mut app, "+w");
    assert!(!app.is_modified(), "{:?}", app.status);
    assert_eq!(f.read("a.yml"), A);
    let (removed, added) = changed_lines(B, &f.read("b.yml"));
    assert_eq!(removed, vec!["    threshold: 0.7"]);
    assert_eq!(added, vec!["    threshold: 0.75"]);
    // The other one works as well, and undo goes back to the file's own name.
    keys(&mut app, ":operator Query Expert/1 @ a.yml<Enter>-w");
    let (_, added) = changed_lines(A, &f.read("a.yml"));
    assert_eq!(added, vec!["    threshold: 0.45"]);
    keys(&mut app, "uw");
    assert_eq!(f.read("a.yml"), A);
    assert_eq!(
        operator_names(&app),
        vec!["Query Expert/1 @ a.yml", "Query Expert/1 @ b.yml"]
    );
}

#[test]
fn a_shared_operator_name_alone_is_ambiguous() {
    let f = Folder::new();
    let mut app = open(&f.path());
    keys(&mut app, ":operator Query Expert/1<Enter>");
    let status = app.status.clone().expect("a refusal");
    assert!(
        status.text.contains("names 2 operators")
            && status.text.contains("Query Expert/1 @ a.yml")
            && status.text.contains("Query Expert/1 @ b.yml"),
        "{}",
        status.text
    );
    let ws = app.session.ws.as_mut().expect("session");
    let refused = ws.apply(toolscope_core::edit::Edit::SetThreshold {
        operator: "Query Expert/1".into(),
        value: 0.1,
    });
    assert!(
        matches!(&refused, Err(e) if e.to_string().contains("names 2 operators")),
        "{refused:?}"
    );
}

#[test]
fn a_next_into_another_file_is_an_edge_scored_in_the_file_that_holds_it() {
    let f = Folder::new();
    let mut app = open(&f.path());
    let ws = app.session.ws.as_ref().expect("session");
    assert!(
        !ws.diagnostics.iter().any(|d| d.code == Code::UnknownAction),
        "{:?}",
        ws.diagnostics
    );
    let plan = app.tk.action("plan").expect("plan");
    app.select(plan);
    app.active_pane = ActivePane::Inspector;
    let i = app
        .node_edges()
        .iter()
        .position(|&(_, v, _)| app.tk.name(v) == "lookup")
        .expect("the edge into b.yml");
    app.inspector.point_at_edge(i);
    keys(&mut app, "e<BS><BS><BS>0.4<Enter>w");
    assert!(!app.is_modified(), "{:?}", app.status);
    let (removed, added) = changed_lines(A, &f.read("a.yml"));
    assert_eq!(removed, vec!["      - {name: lookup, score: 0.9}"]);
    assert_eq!(added, vec!["      - {name: lookup, score: 0.4}"]);
    assert_eq!(f.read("b.yml"), B);
    // The declared action is shown, with its description, not a stand-in.
    let lookup = app.tk.action("lookup").expect("lookup");
    assert_eq!(app.tk.node(lookup).desc, "Looks up.");
    keys(&mut app, "uw");
    assert_eq!(f.read("a.yml"), A);
    // Removing the edge and undoing it keep working too.
    app.select(plan);
    app.active_pane = ActivePane::Inspector;
    app.inspector.point_at_edge(0);
    keys(&mut app, "d");
    assert!(app.tk.edge(plan, lookup).is_none(), "{:?}", app.status);
    keys(&mut app, "u");
    let (plan, lookup) = (
        app.tk.action("plan").unwrap(),
        app.tk.action("lookup").unwrap(),
    );
    assert!(app.tk.edge(plan, lookup).is_some(), "{:?}", app.status);
    assert!(!app.is_modified());
}

#[test]
fn removing_the_declared_action_goes_to_its_own_file() {
    let f = Folder::new();
    let mut app = open(&f.path());
    let lookup = app.tk.action("lookup").expect("lookup");
    app.select(lookup);
    keys(&mut app, "D");
    assert!(app.dialog().is_some(), "{:?}", app.status);
    keys(&mut app, "y");
    assert!(app.tk.action("lookup").is_none(), "{:?}", app.status);
    let ws = app.session.ws.as_ref().expect("session");
    assert_eq!(ws.dirty_files(), vec![f.path().join("b.yml")]);
    keys(&mut app, "u");
    assert!(app.tk.action("lookup").is_some());
    assert!(!app.is_modified());
}
