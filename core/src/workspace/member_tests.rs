//! A member's own score in a native file: written as an item next to the group reference,
//! read back as exactly that edge, removed again by undo and by setting the group's score.

use std::path::{Path, PathBuf};

use crate::diag::Code;
use crate::edit::{Edit, EditError};
use crate::model::{NodeKind, Toolkit};
use crate::source::{self, Limits};
use crate::workspace::Workspace;

/// `files` lists its members; `look` calls it at 0.6 in a block list (with a comment),
/// `act` at 1.0 in a flow list.
const KIT: &str = "\
tools:
  - name: read
  - name: write
  - name: list
  - name: solo
groups:
  - name: files
    tools: [read, write, list]
actions:
  - name: look
    tools:
      - {name: files, score: 0.6}   # the file server
      - solo
  - name: act
    tools: [files]
";

fn file(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("kit.yaml");
    std::fs::write(&path, text).expect("write");
    path
}

fn score(from: &str, to: &str, score: f64) -> Edit {
    Edit::SetScore {
        from: from.into(),
        to: to.into(),
        to_kind: NodeKind::Tool,
        score,
    }
}

fn text(ws: &Workspace) -> &str {
    &ws.files()[0].source.text
}

/// The toolkit and lint codes a fresh load of `text` gives.
fn reload(path: &Path, text: &str) -> (Toolkit, Vec<Code>) {
    let load =
        crate::load::load_text(path, text.to_string(), None, &Limits::default()).expect("load");
    let loaded = source::Loaded {
        toolkit: load.toolkit,
        files: vec![load.source],
        diagnostics: load.diagnostics,
    };
    // The fixtures have no operators: "action never reached" is not about members.
    let codes = crate::lint::lint(&loaded)
        .iter()
        .map(|d| d.code)
        .filter(|c| *c != Code::ActionNeverReached)
        .collect();
    (loaded.toolkit, codes)
}

fn edge(tk: &Toolkit, from: &str, to: &str) -> Option<f64> {
    let (a, b) = (tk.action(from)?, tk.find(NodeKind::Tool, to)?);
    tk.edge(a, b).map(|e| tk.graph[e].score)
}

#[test]
fn a_member_score_is_an_item_after_the_group_reference_and_loads_as_that_edge() {
    let dir = tempfile::tempdir().expect("dir");
    let path = file(dir.path(), KIT);
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("open");
    let applied = ws.apply(score("look", "write", 0.9)).expect("member score");
    assert!(
        applied.notes.iter().any(|n| n.contains("group `files`")),
        "{:?}",
        applied.notes
    );
    let expected = KIT.replace(
        "# the file server\n",
        "# the file server\n      - {name: write, score: 0.9}\n",
    );
    assert_eq!(text(&ws), expected);
    let (tk, codes) = reload(&path, text(&ws));
    assert_eq!(edge(&tk, "look", "write"), Some(0.9));
    assert_eq!(edge(&tk, "look", "read"), Some(0.6), "others keep 0.6");
    assert_eq!(edge(&tk, "look", "list"), Some(0.6));
    assert_eq!(edge(&tk, "act", "write"), Some(1.0), "another caller");
    assert!(codes.is_empty(), "lint flags nothing: {codes:?}");
    assert_eq!(edge(&ws.toolkit, "look", "write"), Some(0.9));
    // Undo takes the item out again, byte for byte.
    ws.undo().expect("undo");
    assert_eq!(text(&ws), KIT);
    assert_eq!(edge(&ws.toolkit, "look", "write"), Some(0.6));
}

#[test]
fn a_flow_list_gets_the_item_after_the_reference() {
    let dir = tempfile::tempdir().expect("dir");
    let path = file(dir.path(), KIT);
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("open");
    ws.apply(score("act", "read", 0.25)).expect("member score");
    assert_eq!(
        text(&ws),
        KIT.replace("[files]\n", "[files, {name: read, score: 0.25}]\n")
    );
    let (tk, codes) = reload(&path, text(&ws));
    assert_eq!(edge(&tk, "act", "read"), Some(0.25));
    assert_eq!(edge(&tk, "act", "list"), Some(1.0));
    assert!(codes.is_empty(), "{codes:?}");
    // Editing it again changes that item only.
    ws.apply(score("act", "read", 0.5)).expect("again");
    assert_eq!(
        text(&ws),
        KIT.replace("[files]\n", "[files, {name: read, score: 0.5}]\n")
    );
}

#[test]
fn back_to_the_group_score_removes_the_item_also_after_a_save() {
    let dir = tempfile::tempdir().expect("dir");
    let path = file(dir.path(), KIT);
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("open");
    ws.apply(score("look", "list", 0.1)).expect("member score");
    ws.save_all().expect("save");
    assert_ne!(std::fs::read_to_string(&path).expect("read"), KIT);
    // Undoing a saved step writes its inverse, the group's score: the item goes.
    ws.undo().expect("undo");
    ws.save_all().expect("save the undo");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), KIT);
    // The same by hand.
    ws.apply(score("look", "list", 0.1)).expect("member score");
    let applied = ws.apply(score("look", "list", 0.6)).expect("group score");
    assert!(
        applied.notes.iter().any(|n| n.contains("was removed")),
        "{:?}",
        applied.notes
    );
    assert_eq!(text(&ws), KIT);
}

#[test]
fn the_loader_reads_a_member_item_wherever_it_stands() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("kit.yaml");
    let before = KIT.replace(
        "      - {name: files, score: 0.6}   # the file server\n",
        "      - {name: write, score: 0.2}\n      - {name: files, score: 0.6}\n",
    );
    let (tk, codes) = reload(&path, &before);
    assert_eq!(edge(&tk, "look", "write"), Some(0.2));
    assert_eq!(edge(&tk, "look", "read"), Some(0.6));
    assert!(codes.is_empty(), "{codes:?}");
    // Two items of its own for one member are still a duplicate (the first counts).
    let twice = before.replace("      - solo\n", "      - {name: write, score: 0.7}\n");
    let (tk, codes) = reload(&path, &twice);
    assert_eq!(edge(&tk, "look", "write"), Some(0.2));
    let mut codes = codes;
    codes.sort();
    assert_eq!(codes, vec![Code::DuplicateEdge, Code::ToolNeverCalled]);
    // Two references to the group: also a duplicate, as before.
    let (_, codes) = reload(&path, &KIT.replace("[files]", "[files, files]"));
    assert_eq!(codes, vec![Code::DuplicateEdge; 3]);
}

#[test]
fn removing_a_member_edge_with_an_item_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().expect("dir");
    let path = file(dir.path(), KIT);
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("open");
    ws.apply(score("look", "write", 0.9)).expect("member score");
    let after = text(&ws).to_string();
    let err = ws
        .apply(Edit::RemoveEdge {
            from: "look".into(),
            to: "write".into(),
            to_kind: NodeKind::Tool,
        })
        .expect_err("refused");
    assert!(
        matches!(&err, EditError::Unsupported(m) if m.contains("group `files`")),
        "{err:?}"
    );
    assert_eq!(text(&ws), after);
}

#[test]
fn a_list_shared_through_an_alias_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let shared = KIT.replace("    tools: [files]\n", "    tools: &common [files]\n")
        + "  - name: again\n    tools: *common\n";
    let path = file(dir.path(), &shared);
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("open");
    let err = ws.apply(score("act", "read", 0.3)).expect_err("refused");
    assert!(format!("{err}").contains("used elsewhere"), "{err}");
    assert_eq!(text(&ws), shared);
}

#[test]
fn members_from_the_mcp_cache_get_items_too() {
    use crate::mcp::cache::{Cache, CachedTool, ServerEntry, sidecar_path};
    use crate::mcp::decl::Identity;
    let dir = tempfile::tempdir().expect("dir");
    let kit = "groups:\n  - name: srv\n    mcp_transport_config: {transport_type: STDIO, command: srv}\nactions:\n  - name: look\n    tools:\n      - srv\n";
    let path = file(dir.path(), kit);
    let mut cache = Cache::default();
    cache.upsert(ServerEntry {
        name: "srv".into(),
        identity: Identity {
            transport: "stdio".into(),
            command: Some("srv".into()),
            args: vec![],
            url: None,
        },
        discovered_at: "2026-11-23T08:00:00Z".into(),
        server_info: None,
        tools: ["ping", "pong"]
            .iter()
            .map(|n| CachedTool {
                name: (*n).into(),
                description: format!("{n}."),
                input_schema: serde_json::json!({"type": "object"}),
            })
            .collect(),
    });
    crate::source::save::write_atomic(&sidecar_path(&path), &cache.to_text()).expect("cache");
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).expect("open");
    ws.apply(score("look", "pong", 0.4)).expect("member score");
    let written = kit.replace(
        "      - srv\n",
        "      - srv\n      - {name: pong, score: 0.4}\n",
    );
    assert_eq!(text(&ws), written);
    let (tk, codes) = reload(&path, &written);
    assert_eq!(edge(&tk, "look", "pong"), Some(0.4));
    assert_eq!(edge(&tk, "look", "ping"), Some(1.0));
    assert!(codes.is_empty(), "{codes:?}");
}
