//! Editing a Chat2Graph config from the keyboard: removing a tool's last Call edge (`d`)
//! takes the tool out as `D` does, and `:add-tool` asks for the module Chat2Graph imports
//! the tool's class from.

use std::path::Path;

use toolscope_core::model::NodeKind;
use toolscope_core::workspace::Workspace;

use crate::tui::editing::dialog::Dialog;
use crate::tui::editing::tests::{edge_to, fixture, keys, open, saved, select};

fn mini() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/chat2graph-mini.yml"),
    )
    .expect("fixture")
}

#[test]
fn removing_a_last_call_edge_takes_the_tool_out_as_removing_the_tool_does() {
    let text = mini();
    let by_edge = fixture(&text);
    let mut app = open(&by_edge.path);
    select(&mut app, "content_understanding");
    edge_to(&mut app, "DocumentReader");
    keys(&mut app, "d");
    let s = app.status.clone().expect("status");
    assert!(
        s.text.contains("`DocumentReader` had no other caller"),
        "{}",
        s.text
    );
    assert!(app.tk.find(NodeKind::Tool, "DocumentReader").is_none());
    keys(&mut app, "w");
    let by_node = fixture(&text);
    let mut app2 = open(&by_node.path);
    select(&mut app2, "DocumentReader");
    keys(&mut app2, "D");
    assert!(matches!(app2.dialog(), Some(Dialog::Remove { .. })));
    keys(&mut app2, "yw");
    assert_eq!(saved(&by_edge), saved(&by_node));
    assert!(!saved(&by_edge).contains("DocumentReader"));
    // One undo puts the edge, the tool and its entry back.
    keys(&mut app, "uw");
    assert_eq!(saved(&by_edge), text);
}

#[test]
fn add_tool_asks_for_the_module_path_on_a_chat2graph_file() {
    let f = fixture(&mini());
    let mut app = open(&f.path);
    select(&mut app, "deep_recognition");
    keys(&mut app, ":add-tool Painter<Enter>");
    assert!(
        matches!(app.dialog(), Some(Dialog::ModulePath { name, .. }) if name == "Painter"),
        "{:?}",
        app.dialog()
    );
    let shown = crate::tui::tests::screen(&app);
    assert!(
        shown.contains("Add tool Painter: module path")
            && shown.contains("Chat2Graph imports the class Painter from this module:"),
        "{shown}"
    );
    keys(&mut app, "app..paint<Enter>");
    match app.dialog() {
        Some(Dialog::ModulePath { error: Some(e), .. }) => {
            assert!(e.contains("not a Python module path"), "{e}")
        }
        other => panic!("the dialog stays open with the reason: {other:?}"),
    }
    keys(&mut app, "<BS><BS><BS><BS><BS><BS>tools.paint<Enter>w");
    assert!(app.dialog().is_none());
    let text = saved(&f);
    assert!(
        text.contains("    name: \"Painter\"\n    type: \"LOCAL_TOOL\"\n    module_path: \"app.tools.paint\"\n"),
        "{text}"
    );
    let ws = Workspace::open(std::slice::from_ref(&f.path), None).expect("reload");
    let (a, t) = (
        ws.toolkit.action("deep_recognition").expect("action"),
        ws.toolkit.find(NodeKind::Tool, "Painter").expect("tool"),
    );
    assert!(ws.toolkit.edge(a, t).is_some());
    // The dialog runs the same row as `:add-tool` with the path given: the new tool is
    // selected, so the next tool's caller is named by selecting the action again.
    let painter = app.tk.find(NodeKind::Tool, "Painter").expect("painter");
    assert_eq!(app.selected, Some(painter));
    select(&mut app, "deep_recognition");
    // Given on the command line, nothing is asked; Esc in the dialog adds nothing.
    keys(
        &mut app,
        ":add-tool Brush --module-path app.tools.brush<Enter>",
    );
    assert!(app.dialog().is_none());
    assert!(app.tk.find(NodeKind::Tool, "Brush").is_some());
    keys(&mut app, ":add-tool Pen<Enter><Esc>");
    assert!(app.tk.find(NodeKind::Tool, "Pen").is_none());
}
