//! Chat2Graph's removal of a tool's last call (toolscope-edit's `formats::chat2graph::remove`)
//! as a workspace step: undo, redo, the unsaved log and recovery.

use std::path::Path;

use crate::edit::Edit;
use crate::model::NodeKind;
use crate::workspace::Workspace;

const MINI: &str = include_str!("../../../tests/golden/chat2graph-mini.yml");

fn unlink(from: &str, to: &str) -> Edit {
    Edit::RemoveEdge {
        from: from.into(),
        to: to.into(),
        to_kind: NodeKind::Tool,
    }
}

/// The removal joins the unlink in the step itself: undo, redo, the unsaved log and a
/// recovery (which applies that log again) all see the same change, written once.
#[test]
fn the_last_call_removal_is_part_of_the_step() {
    let path = Path::new("c.yml");
    let mut ws = Workspace::from_text(path, MINI.to_string(), None).unwrap();
    let applied = ws
        .apply(unlink("content_understanding", "DocumentReader"))
        .unwrap();
    assert!(
        applied.notes[0].contains("had no other caller"),
        "{:?}",
        applied.notes
    );
    let written = ws.files()[0].source.text.clone();
    assert!(!written.contains("DocumentReader"));
    let log = ws.unsaved();
    assert_eq!(log.len(), 1);
    assert_eq!(
        log[0].edits,
        vec![
            unlink("content_understanding", "DocumentReader"),
            Edit::RemoveNode {
                kind: NodeKind::Tool,
                name: "DocumentReader".into()
            }
        ]
    );
    ws.undo().unwrap();
    assert_eq!(ws.files()[0].source.text, MINI);
    assert!(ws.toolkit.find(NodeKind::Tool, "DocumentReader").is_some());
    ws.redo().unwrap();
    assert_eq!(ws.files()[0].source.text, written);
    let mut again = Workspace::from_text(path, MINI.to_string(), None).unwrap();
    again.apply(log[0].clone()).unwrap();
    assert_eq!(again.files()[0].source.text, written);
    assert_eq!(again.unsaved(), log);
}

/// A call that is not the last leaves the tool (and its entry) alone.
#[test]
fn a_tool_with_another_caller_stays() {
    let mut ws = Workspace::from_text(Path::new("c.yml"), MINI.to_string(), None).unwrap();
    let applied = ws.apply(unlink("schema_design", "SchemaGetter")).unwrap();
    assert!(applied.notes.is_empty(), "{:?}", applied.notes);
    assert_eq!(ws.unsaved()[0].edits.len(), 1);
    assert!(ws.files()[0].source.text.contains("name: \"SchemaGetter\""));
}
