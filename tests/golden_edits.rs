//! Golden tests: each edit kind on both example files, checked as the exact diff of the file
//! (insta snapshots under tests/snapshots, reviewed by hand).

use std::path::Path;

use toolscope_core::edit::Edit;
use toolscope_core::model::NodeKind;
use toolscope_core::workspace::Workspace;

fn ws(path: &str) -> Workspace {
    let text = std::fs::read_to_string(path).expect("example exists");
    Workspace::from_text(Path::new(path), text, None).expect("example loads")
}

/// Applies the edits and returns the diff with the notes of each edit.
fn run(path: &str, edits: Vec<Edit>) -> String {
    let mut w = ws(path);
    let mut notes = String::new();
    for e in edits {
        let applied = w
            .apply(e.clone())
            .unwrap_or_else(|err| panic!("{}: {err}", e.describe()));
        for n in applied.notes {
            notes.push_str(&format!("note: {n}\n"));
        }
    }
    w.loads_back(0).expect("verifies");
    format!("{notes}{}", body(&w.diff(0)))
}

/// A diff without its `---`/`+++` header (which names the path).
fn body(diff: &str) -> String {
    diff.lines().skip(2).map(|l| format!("{l}\n")).collect()
}

/// Frozen copies of the examples, so that golden diffs do not move when the examples do.
const NATIVE: &str = "tests/golden/graph-db.yaml";
const C2G: &str = "tests/golden/chat2graph-mini.yml";

fn score(from: &str, to: &str, kind: NodeKind, s: f64) -> Edit {
    Edit::SetScore {
        from: from.into(),
        to: to.into(),
        to_kind: kind,
        score: s,
    }
}

#[test]
fn native_scores() {
    insta::assert_snapshot!(run(
        NATIVE,
        vec![
            score(
                "content_understanding",
                "concept_identification",
                NodeKind::Action,
                0.75
            ),
            score(
                "content_understanding",
                "DocumentReader",
                NodeKind::Tool,
                0.5
            ),
            score("schema_design", "EdgeLabelGenerator", NodeKind::Tool, 1.0),
            score(
                "schema_design",
                "VertexLabelGenerator",
                NodeKind::Tool,
                0.25
            ),
            score("query_execution", "CypherExecutor", NodeKind::Tool, 0.3),
        ]
    ));
}

#[test]
fn native_operator_tuning() {
    insta::assert_snapshot!(run(
        NATIVE,
        vec![
            Edit::SetThreshold {
                operator: "query".into(),
                value: 1.0
            },
            Edit::SetHops {
                operator: "qa".into(),
                value: 4
            },
        ]
    ));
}

#[test]
fn native_descriptions() {
    insta::assert_snapshot!(run(
        NATIVE,
        vec![
            Edit::SetDesc {
                kind: NodeKind::Action,
                name: "answer_synthesis".into(),
                text: "Merge the passages.\nCite sources.\nKeep it short.\n".into()
            },
            Edit::SetDesc {
                kind: NodeKind::Action,
                name: "data_import".into(),
                text: "yes".into()
            },
            Edit::SetDesc {
                kind: NodeKind::Tool,
                name: "LouvainExecutor".into(),
                text: "Runs Louvain.\nReturns communities.".into()
            },
        ]
    ));
}

#[test]
fn native_structure() {
    insta::assert_snapshot!(run(
        NATIVE,
        vec![
            Edit::AddEdge {
                from: "data_import".into(),
                to: "query_intention".into(),
                to_kind: NodeKind::Action,
                score: 0.5
            },
            Edit::AddEdge {
                from: "query_design".into(),
                to: "SchemaGetter".into(),
                to_kind: NodeKind::Tool,
                score: 1.0
            },
            Edit::RemoveEdge {
                from: "schema_design".into(),
                to: "EdgeLabelGenerator".into(),
                to_kind: NodeKind::Tool
            },
            Edit::RemoveEdge {
                from: "graph_validation".into(),
                to: "SchemaGetter".into(),
                to_kind: NodeKind::Tool
            },
            Edit::AddAction {
                name: "report".into(),
                desc: "Write a report.".into()
            },
            Edit::AddTool {
                name: "on".into(),
                desc: "A tool with a YAML 1.1 name.".into(),
                callers: vec![("report".into(), 0.6), ("data_import".into(), 1.0)],
                module_path: String::new(),
            },
        ]
    ));
}

#[test]
fn native_remove_with_cascade() {
    insta::assert_snapshot!(run(
        NATIVE,
        vec![Edit::RemoveNode {
            kind: NodeKind::Action,
            name: "algorithm_execution".into()
        },]
    ));
}

#[test]
fn c2g_first_and_second_score_create_then_extend_scores() {
    let text = std::fs::read_to_string(C2G).unwrap();
    let cut = text.find("\nscores:").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("c2g.yml");
    std::fs::write(&p, &text[..cut + 1]).unwrap();
    let mut w = Workspace::open(&[p], None).unwrap();
    w.apply(score(
        "content_understanding",
        "deep_recognition",
        NodeKind::Action,
        0.8,
    ))
    .unwrap();
    let first = body(&w.diff(0));
    w.save_all().unwrap();
    w.apply(score(
        "query_execution",
        "CypherExecutor",
        NodeKind::Tool,
        0.6,
    ))
    .unwrap();
    insta::assert_snapshot!(format!("{first}---- then ----\n{}", body(&w.diff(0))));
}

#[test]
fn c2g_edits() {
    insta::assert_snapshot!(run(
        C2G,
        vec![
            score(
                "content_understanding",
                "deep_recognition",
                NodeKind::Action,
                0.85
            ),
            score("query_execution", "CypherExecutor", NodeKind::Tool, 0.5),
            Edit::SetThreshold {
                operator: "Modelling Expert/1".into(),
                value: 0.65
            },
            Edit::SetThreshold {
                operator: "Query Expert/1".into(),
                value: 0.7
            },
            Edit::SetHops {
                operator: "leader".into(),
                value: 2
            },
            Edit::SetDesc {
                kind: NodeKind::Action,
                name: "deep_recognition".into(),
                text: "Identify key concepts.\nClassify them.\nBuild the hierarchy.\n".into()
            },
            Edit::SetDesc {
                kind: NodeKind::Action,
                name: "query_intention".into(),
                text: "What is asked: \"x\"?".into()
            },
            Edit::AddEdge {
                from: "query_intention".into(),
                to: "SchemaGetter".into(),
                to_kind: NodeKind::Tool,
                score: 0.9
            },
            Edit::RemoveEdge {
                from: "schema_design".into(),
                to: "SchemaGetter".into(),
                to_kind: NodeKind::Tool
            },
        ]
    ));
}

#[test]
fn c2g_add_tool_with_callers() {
    insta::assert_snapshot!(run(
        C2G,
        vec![Edit::AddTool {
            name: "GraphPainter".into(),
            desc: "Draws the graph.".into(),
            callers: vec![
                ("schema_design".into(), 0.7),
                ("deep_recognition".into(), 1.0)
            ],
            module_path: "app.plugin.mine.painting".into(),
        }]
    ));
}

#[test]
fn c2g_remove_tools() {
    insta::assert_snapshot!(run(
        C2G,
        vec![
            Edit::RemoveNode {
                kind: NodeKind::Tool,
                name: "SchemaGetter".into()
            },
            Edit::RemoveNode {
                kind: NodeKind::Group,
                name: "BrowserTool".into()
            },
        ]
    ));
}
