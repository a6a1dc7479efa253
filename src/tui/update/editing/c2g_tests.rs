//! Editing a Chat2Graph config from the keyboard: removing a tool's last Call edge (`d`)
//! takes the tool out as `D` does, and `:add-tool` asks for the module Chat2Graph imports
//! the tool's class from.

use std::path::Path;

use toolscope_core::model::NodeKind;
use toolscope_core::workspace::Workspace;

use crate::tui::update::editing::dialog::Dialog;
use crate::tui::update::editing::tests::{edge_to, fixture, keys, open, saved, select};

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
    // The refused text is selected: typing replaces it.
    keys(&mut app, "app.tools.paint<Enter>w");
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

/// A GAIA-shaped config: a browser MCP server whose tools toolscope does not know (no
/// `mcp discover` cache), and `analyze` in two chains (Chat2Graph builds its tool twice).
const SERVERS: &str = r#"tools:
  - &browser_use_tool
    name: "BrowserTool"
    type: "MCP"
    mcp_transport_config:
      transport_type: "STDIO"
      command: "uvx"
      args: ["browser-use", "--mcp"]
  - &multi_modal_tool
    name: "GeminiMultiModalTool"
    type: "LOCAL_TOOL"
    module_path: "app.core.toolkit.system_tool.gemini_multi_modal_tool"
actions:
  - &browse_action
    name: "browser using action"
    desc: "Browses."
    tools:
      - *browser_use_tool
  - &analyze_action
    name: "analyze"
    desc: "Looks at media."
    tools:
      - *multi_modal_tool
  - &verify_action
    name: "verify"
    desc: "Checks."
toolkit:
  - [*browse_action, *analyze_action]
  - [*verify_action, *analyze_action]
operators:
  - &dev_operator
    instruction: "Work."
    output_schema: "result"
    actions: [*browse_action, *analyze_action]
experts:
  - profile:
      name: "Dev"
    workflow:
      - [*dev_operator]
leader:
  actions: [*verify_action]
"#;

/// Issue 32: `:score` to a tool of a server whose tools are unknown says so and names
/// both ways forward (list the server's tools, or score the server), as `set` does, and
/// changes nothing.
#[test]
fn score_to_an_unknown_member_of_a_server_names_both_ways_forward() {
    let f = fixture(SERVERS);
    let mut app = open(&f.path);
    keys(
        &mut app,
        ":score \"browser using action\" browser_open_tab 0.3<Enter>",
    );
    let s = app.status.clone().expect("status");
    assert!(s.text.contains("whose tools are unknown"), "{}", s.text);
    // The ways forward in the TUI's own commands (`:mcp discover` for the open files, the
    // registry's `:score`), not the CLI's `toolscope mcp discover FILE` or `set`.
    assert!(
        s.text.contains("list them with `:mcp discover`"),
        "{}",
        s.text
    );
    assert!(
        s.text
            .contains("`:score \"browser using action\" BrowserTool 0.3`"),
        "{}",
        s.text
    );
    assert!(
        !s.text.contains("toolscope mcp") && !s.text.contains("toolscope set"),
        "{}",
        s.text
    );
    assert!(!app.is_modified());
    // The command it names is one the TUI has, and runs: the server's score is set.
    assert!(
        crate::tui::update::commands::find("mcp").is_some(),
        "the TUI has no `:mcp` command"
    );
    keys(
        &mut app,
        ":score \"browser using action\" BrowserTool 0.3<Enter>",
    );
    assert!(app.is_modified(), "{:?}", app.status);
}

/// Issue 32: a tool Chat2Graph sends twice (its caller has two places in the chains)
/// says so in the inspector, with the reason.
#[test]
fn the_inspector_says_why_a_tool_is_sent_twice() {
    let f = fixture(SERVERS);
    let mut app = open(&f.path);
    crate::tui::update::update(&mut app, crate::tui::msg::Msg::Resize(160, 48));
    select(&mut app, "GeminiMultiModalTool");
    let s = crate::tui::tests::screen(&app);
    assert!(s.contains("sent 2 times"), "{s}");
    assert!(s.contains("2 places in the toolkit"), "{s}");
    // A tool sent once says nothing of the kind.
    select(&mut app, "analyze");
    let s = crate::tui::tests::screen(&app);
    assert!(!s.contains("sent 2 times"), "{s}");
}
