//! Write-back beyond the examples: CRLF, BOM, tabs in comments, a missing final newline,
//! aliases in flow lists, undo/redo, refused saves and reapplying edits after a reload.

use std::fs;
use std::path::{Path, PathBuf};

use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::model::NodeKind;
use toolscope_core::workspace::{SaveErrorKind, Workspace};

const ANCHORED: &str = "\u{feff}# toolkit\t\twith tabs in a comment\r
tools:\r
  - &sg {name: SchemaGetter, desc: Reads the schema}\r
  - name: Cypher\r
    desc: |\r
      Runs Cypher.\r
      Returns rows.\r
\r
actions:\r
  - name: plan   # the planner\r
    desc: Plans.\r
    tools: [*sg, Cypher]\r
    next:\r
      - run  # bare name\r
  - name: run\r
    desc: Runs.\r
    tools: [*sg]\r
operators:\r
  - name: main\r
    actions: [plan]\r
    hops: 1";

fn temp_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn score(from: &str, to: &str, kind: NodeKind, s: f64) -> Edit {
    Edit::SetScore {
        from: from.into(),
        to: to.into(),
        to_kind: kind,
        score: s,
    }
}

#[test]
fn crlf_bom_alias_in_flow_list_and_no_final_newline() {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "t.yaml", ANCHORED);
    let mut ws = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    let applied = ws
        .apply(score("plan", "SchemaGetter", NodeKind::Tool, 0.75))
        .unwrap();
    assert!(
        applied.notes.iter().any(|n| n.contains("alias")),
        "{:?}",
        applied.notes
    );
    ws.apply(score("plan", "run", NodeKind::Action, 0.5))
        .unwrap();
    ws.apply(Edit::SetDesc {
        kind: NodeKind::Tool,
        name: "Cypher".into(),
        text: "Runs a statement.\nReturns the rows.\nOr an error.\n".into(),
    })
    .unwrap();
    ws.apply(Edit::SetThreshold {
        operator: "main".into(),
        value: 0.25,
    })
    .unwrap();
    ws.apply(Edit::SetDesc {
        kind: NodeKind::Tool,
        name: "SchemaGetter".into(),
        text: "null".into(),
    })
    .unwrap();
    ws.save_all().unwrap();
    let expected = "\u{feff}# toolkit\t\twith tabs in a comment\r
tools:\r
  - &sg {name: SchemaGetter, desc: \"null\"}\r
  - name: Cypher\r
    desc: |\r
      Runs a statement.\r
      Returns the rows.\r
      Or an error.\r
\r
actions:\r
  - name: plan   # the planner\r
    desc: Plans.\r
    tools: [{name: SchemaGetter, score: 0.75}, Cypher]\r
    next:\r
      - {name: run, score: 0.5}  # bare name\r
  - name: run\r
    desc: Runs.\r
    tools: [*sg]\r
operators:\r
  - name: main\r
    actions: [plan]\r
    hops: 1\r
    threshold: 0.25";
    assert_eq!(fs::read_to_string(&p).unwrap(), expected);
    let reloaded = Workspace::open(&[p], None).unwrap();
    assert_eq!(ws.toolkit.difference(&reloaded.toolkit), None);
}

#[test]
fn undo_and_redo_restore_the_exact_bytes() {
    let mut ws = Workspace::from_text(Path::new("t.yaml"), ANCHORED.to_string(), None).unwrap();
    let edits = vec![
        score("plan", "Cypher", NodeKind::Tool, 0.4),
        Edit::AddEdge {
            from: "run".into(),
            to: "plan".into(),
            to_kind: NodeKind::Action,
            score: 0.3,
        },
        Edit::AddAction {
            name: "review".into(),
            desc: "Looks again.".into(),
        },
        Edit::RemoveNode {
            kind: NodeKind::Action,
            name: "plan".into(),
        },
    ];
    let mut texts = vec![ws.files()[0].source.text.clone()];
    let mut graphs = vec![ws.toolkit.clone()];
    for e in edits {
        ws.apply(e).unwrap();
        texts.push(ws.files()[0].source.text.clone());
        graphs.push(ws.toolkit.clone());
    }
    for i in (0..texts.len() - 1).rev() {
        ws.undo().unwrap();
        assert_eq!(ws.files()[0].source.text, texts[i], "undo to step {i}");
        assert_eq!(
            graphs[i].difference(&ws.toolkit),
            None,
            "graph after undo to {i}"
        );
    }
    assert!(!ws.is_dirty());
    for (i, text) in texts.iter().enumerate().skip(1) {
        ws.redo().unwrap();
        assert_eq!(&ws.files()[0].source.text, text, "redo to step {i}");
        assert_eq!(graphs[i].difference(&ws.toolkit), None);
    }
}

#[test]
fn a_file_changed_on_disk_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "t.yaml", ANCHORED);
    let mut ws = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    ws.apply(score("plan", "Cypher", NodeKind::Tool, 0.4))
        .unwrap();
    let theirs = ANCHORED.replace("desc: Runs.", "desc: Runs it.");
    fs::write(&p, &theirs).unwrap();
    let err = ws.save_all().unwrap_err();
    assert_eq!(err.kind, SaveErrorKind::Conflict, "{err}");
    assert_eq!(fs::read_to_string(&p).unwrap(), theirs);
    // Reapply the pending edit onto their content, then save both changes.
    let report = ws.reapply().unwrap();
    assert_eq!(report.reapplied.len(), 1);
    assert!(report.dropped.is_empty());
    ws.save_all().unwrap();
    let text = fs::read_to_string(&p).unwrap();
    assert!(text.contains("desc: Runs it."));
    assert!(text.contains("tools: [*sg, {name: Cypher, score: 0.4}]"));
}

#[test]
fn reapply_reports_edits_that_no_longer_apply() {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "t.yaml", ANCHORED);
    let mut ws = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    ws.apply(score("plan", "Cypher", NodeKind::Tool, 0.4))
        .unwrap();
    ws.apply(Edit::SetHops {
        operator: "main".into(),
        value: 3,
    })
    .unwrap();
    fs::write(&p, ANCHORED.replace("tools: [*sg, Cypher]", "tools: [*sg]")).unwrap();
    let report = ws.reapply().unwrap();
    assert_eq!(
        report.reapplied,
        vec![Transaction::from(Edit::SetHops {
            operator: "main".into(),
            value: 3
        })]
    );
    assert_eq!(report.dropped.len(), 1, "{:?}", report.dropped);
    // Overwrite is the third choice: it writes ours over theirs.
    fs::write(&p, "tools: []\n").unwrap();
    assert_eq!(ws.save_all().unwrap_err().kind, SaveErrorKind::Conflict);
    ws.save_all_overwrite().unwrap();
    assert!(fs::read_to_string(&p).unwrap().contains("hops: 3"));
}

#[test]
fn a_read_only_file_is_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "t.yaml", ANCHORED);
    let mut perms = fs::metadata(&p).unwrap().permissions();
    perms.set_readonly(true);
    fs::set_permissions(&p, perms).unwrap();
    let mut ws = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    ws.apply(score("plan", "Cypher", NodeKind::Tool, 0.4))
        .unwrap();
    assert_eq!(ws.save_all().unwrap_err().kind, SaveErrorKind::ReadOnly);
    assert_eq!(fs::read_to_string(&p).unwrap(), ANCHORED);
    assert!(ws.is_dirty());
}

#[test]
fn a_verification_failure_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "t.yaml", ANCHORED);
    let mut ws = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    ws.apply(score("plan", "Cypher", NodeKind::Tool, 0.4))
        .unwrap();
    // The graph the user sees no longer matches what the text gives.
    let tk = ws.expected_mut(0);
    let a = tk.action("plan").unwrap();
    let t = tk.find(NodeKind::Tool, "Cypher").unwrap();
    tk.set_score(a, t, 0.9);
    let err = ws.save_all().unwrap_err();
    assert_eq!(err.kind, SaveErrorKind::Verify);
    assert!(err.message.contains("plan -> Cypher"), "{err}");
    assert_eq!(fs::read_to_string(&p).unwrap(), ANCHORED);
}

#[test]
fn unsupported_edits_change_nothing() {
    let c2g = fs::read_to_string("toolkits/chat2graph-mini.yml").unwrap();
    let mut ws = Workspace::from_text(Path::new("c.yml"), c2g.clone(), None).unwrap();
    let before = ws.toolkit.clone();
    // The nearest change, a chain `[query_intention, web_research]` at the end, adds more:
    // the refusal names it.
    let err = ws
        .apply(Edit::AddEdge {
            from: "query_intention".into(),
            to: "web_research".into(),
            to_kind: NodeKind::Action,
            score: 0.5,
        })
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("would also add `web_research -> query_intention`"),
        "{err}"
    );
    assert!(ws.apply(score("nope", "x", NodeKind::Tool, 0.5)).is_err());
    assert!(
        ws.apply(score(
            "query_execution",
            "CypherExecutor",
            NodeKind::Tool,
            1.5
        ))
        .is_err()
    );
    assert_eq!(ws.files()[0].source.text, c2g);
    assert_eq!(before.difference(&ws.toolkit), None);
    assert!(!ws.can_undo());
}

#[test]
fn the_bundled_example_is_saved_as_a_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut ws = Workspace::example().unwrap();
    ws.apply(Edit::SetHops {
        operator: "qa".into(),
        value: 2,
    })
    .unwrap();
    assert!(
        ws.save_all().unwrap().is_empty(),
        "the example has no file to save to"
    );
    let p = dir.path().join("mine.yaml");
    ws.save_as(0, &p, false).unwrap();
    assert!(fs::read_to_string(&p).unwrap().ends_with("    hops: 2\n"));
    assert_eq!(
        ws.save_as(0, &p, false).unwrap_err().kind,
        SaveErrorKind::Exists
    );
    assert!(!ws.is_dirty());
}

#[test]
fn lists_emptied_by_removals_take_new_items_again() {
    let text = "tools:\n  # only tool\n  - name: t\n\nactions:\n  - name: a\n    tools: [t]\noperators: []\n";
    let mut ws = Workspace::from_text(Path::new("t.yaml"), text.to_string(), None).unwrap();
    ws.apply(Edit::RemoveNode {
        kind: NodeKind::Action,
        name: "a".into(),
    })
    .unwrap();
    assert_eq!(
        ws.files()[0].source.text,
        "tools: []\n  # only tool\n\nactions: []\noperators: []\n"
    );
    ws.apply(Edit::AddAction {
        name: "b".into(),
        desc: "B.".into(),
    })
    .unwrap();
    ws.apply(Edit::AddTool {
        name: "u".into(),
        desc: "U.".into(),
        callers: vec![("b".into(), 0.5)],
        module_path: String::new(),
    })
    .unwrap();
    assert_eq!(
        ws.files()[0].source.text,
        "tools:\n  - name: u\n    desc: U.\n  # only tool\n\nactions:\n  - name: b\n    desc: B.\n    tools:\n      - {name: u, score: 0.5}\noperators: []\n"
    );
}

#[test]
fn group_references_and_operator_leftovers_are_explained() {
    let text = fs::read_to_string("tests/golden/graph-db.yaml").unwrap();
    let mut ws = Workspace::from_text(Path::new("g.yaml"), text.clone(), None).unwrap();
    let err = ws
        .apply(Edit::AddEdge {
            from: "query_design".into(),
            to: "web".into(),
            to_kind: NodeKind::Group,
            score: 0.5,
        })
        .unwrap_err();
    assert!(err.to_string().contains("member tools"), "{err}");
    // A member's own score: an item of its own next to the group reference (issue 15).
    let applied = ws
        .apply(score(
            "knowledge_retrieval",
            "browser_read",
            NodeKind::Tool,
            0.5,
        ))
        .unwrap();
    assert!(
        applied.notes.iter().any(|n| n.contains("group `web`")),
        "{:?}",
        applied.notes
    );
    ws.undo().unwrap();
    assert_eq!(ws.files()[0].source.text, text);
    let applied = ws
        .apply(Edit::RemoveNode {
            kind: NodeKind::Action,
            name: "query_intention".into(),
        })
        .unwrap();
    assert!(
        applied
            .notes
            .iter()
            .any(|n| n.contains("operator `query` still names query_intention")),
        "{:?}",
        applied.notes
    );
}

#[test]
fn non_ascii_text_at_the_end_of_constructs() {
    let text = "actions:\n  - name: größe\n    desc: Maß é\n    next: [ziel]\n  - name: ziel\n    desc: Ende ü\noperators:\n  - name: ö\n    actions: [größe]\n    hops: 1 # ü";
    let mut ws = Workspace::from_text(Path::new("u.yaml"), text.to_string(), None).unwrap();
    ws.apply(Edit::SetThreshold {
        operator: "ö".into(),
        value: 0.75,
    })
    .unwrap();
    ws.apply(Edit::AddTool {
        name: "wérk".into(),
        desc: "Ünïcode".into(),
        callers: vec![("ziel".into(), 0.5)],
        module_path: String::new(),
    })
    .unwrap();
    ws.apply(Edit::RemoveEdge {
        from: "größe".into(),
        to: "ziel".into(),
        to_kind: NodeKind::Action,
    })
    .unwrap();
    ws.apply(Edit::SetDesc {
        kind: NodeKind::Action,
        name: "größe".into(),
        text: "Zwei\nZeilen é\n".into(),
    })
    .unwrap();
    assert_eq!(
        ws.files()[0].source.text,
        "actions:\n  - name: größe\n    desc: |\n      Zwei\n      Zeilen é\n    next: []\n  - name: ziel\n    desc: Ende ü\n    tools:\n      - {name: wérk, score: 0.5}\noperators:\n  - name: ö\n    actions: [größe]\n    hops: 1 # ü\n    threshold: 0.75\ntools:\n  - name: wérk\n    desc: Ünïcode"
    );
}

#[test]
fn folded_keep_and_indicator_blocks_are_replaced_as_blocks() {
    let text = "actions:\n  - name: a\n    desc: >\n      folded\n      text\n  - name: b\n    desc: |+\n      kept\n\n  - name: c\n    desc: |2\n        indented\n      less\n";
    let mut ws = Workspace::from_text(Path::new("b.yaml"), text.to_string(), None).unwrap();
    for name in ["a", "b", "c"] {
        ws.apply(Edit::SetDesc {
            kind: NodeKind::Action,
            name: name.into(),
            text: format!("New {name}.\nSecond.\n"),
        })
        .unwrap();
    }
    assert_eq!(
        ws.files()[0].source.text,
        "actions:\n  - name: a\n    desc: |\n      New a.\n      Second.\n  - name: b\n    desc: |\n      New b.\n      Second.\n\n  - name: c\n    desc: |\n      New c.\n      Second.\n"
    );
}

#[test]
fn edits_go_to_the_file_that_defines_the_construct() {
    let dir = tempfile::tempdir().unwrap();
    let one = "actions:\n  - name: a\n    next: [b]\n  - name: b\n";
    let two = "actions:\n  - name: c\n    next: [{name: d, score: 0.5}]\n  - name: d\noperators:\n  - name: op\n    actions: [c]\n";
    temp_file(dir.path(), "1.yaml", one);
    let p2 = temp_file(dir.path(), "2.yaml", two);
    let mut ws = Workspace::open(&[dir.path().to_path_buf()], None).unwrap();
    let applied = ws.apply(score("c", "d", NodeKind::Action, 0.25)).unwrap();
    assert_eq!(applied.path, p2);
    ws.apply(Edit::SetHops {
        operator: "op".into(),
        value: 2,
    })
    .unwrap();
    assert_eq!(ws.dirty_files(), vec![p2.clone()]);
    ws.save_all().unwrap();
    assert_eq!(fs::read_to_string(dir.path().join("1.yaml")).unwrap(), one);
    assert_eq!(
        fs::read_to_string(&p2).unwrap(),
        "actions:\n  - name: c\n    next: [{name: d, score: 0.25}]\n  - name: d\noperators:\n  - name: op\n    actions: [c]\n    hops: 2\n"
    );
    let a = ws.toolkit.action("c").unwrap();
    let d = ws.toolkit.action("d").unwrap();
    assert_eq!(ws.toolkit.get_score(a, d), 0.25);
}

#[test]
fn saving_refreshes_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "t.yaml", ANCHORED);
    let mut ws = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    let before = ws.diagnostics.len();
    ws.apply(Edit::RemoveNode {
        kind: NodeKind::Action,
        name: "plan".into(),
    })
    .unwrap();
    ws.save_all().unwrap();
    assert!(ws.diagnostics.len() > before, "{:?}", ws.diagnostics);
    assert!(
        ws.diagnostics.iter().any(|d| d.message.contains("plan")),
        "{:?}",
        ws.diagnostics
    );
}

/// Every score, operator and description of both examples, each edited alone: each edit
/// verifies (the workspace re-loads the text) and changes at most the edited lines.
#[test]
fn every_construct_of_both_examples_can_be_edited() {
    let paths = [
        "tests/golden/graph-db.yaml",
        "tests/golden/chat2graph-mini.yml",
    ];
    for (path, crlf) in paths.iter().flat_map(|p| [(*p, false), (*p, true)]) {
        let mut text = fs::read_to_string(path).unwrap();
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let base = Workspace::from_text(Path::new(path), text.clone(), None).unwrap();
        let tk = &base.toolkit;
        let mut edits = Vec::new();
        for e in tk.graph.edge_indices() {
            let (u, v) = tk.graph.edge_endpoints(e).unwrap();
            if tk.kind(u) == NodeKind::Action {
                edits.push(score(tk.name(u), tk.name(v), tk.kind(v), 0.35));
            }
        }
        for op in &tk.operators {
            edits.push(Edit::SetThreshold {
                operator: op.name.clone(),
                value: 0.45,
            });
            edits.push(Edit::SetHops {
                operator: op.name.clone(),
                value: 5,
            });
        }
        for ix in tk.graph.node_indices() {
            let n = tk.node(ix);
            edits.push(Edit::SetDesc {
                kind: n.kind,
                name: n.name.clone(),
                text: "Two\nlines.\n".into(),
            });
        }
        let mut applied = 0;
        for edit in edits {
            let mut ws = base.clone();
            match ws.apply(edit.clone()) {
                Ok(_) => applied += 1,
                Err(e) => {
                    let group_edge = e.to_string().contains("group");
                    let implicit = e.to_string().contains("no declaration");
                    assert!(group_edge || implicit, "{path}: {}: {e}", edit.describe());
                    continue;
                }
            }
            let after = &ws.files()[0].source.text;
            let bare_lf = after.matches('\n').count() - after.matches("\r\n").count();
            assert_eq!(
                bare_lf == 0,
                crlf,
                "{path}: {} mixed line endings",
                edit.describe()
            );
            let diff = similar::TextDiff::from_lines(text.as_str(), after.as_str());
            let removed = diff
                .iter_all_changes()
                .filter(|c| c.tag() == similar::ChangeTag::Delete)
                .count();
            assert!(
                removed <= 3,
                "{path}: {} removed {removed} lines",
                edit.describe()
            );
        }
        assert!(applied > 30, "{path}: only {applied} edits applied");
    }
}

/// A file over the per-edit verification size: edits take the one-declaration fast path
/// while positions are fresh, the full parse after lines moved; the save verifies all.
#[test]
fn large_files_edit_fast_and_still_verify() {
    let text = toolscope_core::generate::generate(toolscope_core::generate::GenOptions {
        actions: 6000,
        tools: None,
        seed: 3,
    });
    assert!(text.len() > 1 << 20);
    let dir = tempfile::tempdir().unwrap();
    let p = temp_file(dir.path(), "big.yaml", &text);
    let mut ws = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    let edges: Vec<(String, String, NodeKind)> = {
        let tk = &ws.toolkit;
        tk.graph
            .edge_indices()
            .step_by(997)
            .filter_map(|e| {
                let (u, v) = tk.graph.edge_endpoints(e)?;
                let member = tk
                    .in_edges(v)
                    .any(|(f, _)| tk.graph[f].kind == toolscope_core::model::EdgeKind::Has);
                (tk.kind(u) == NodeKind::Action && !member)
                    .then(|| (tk.name(u).to_string(), tk.name(v).to_string(), tk.kind(v)))
            })
            .collect()
    };
    for (i, (from, to, kind)) in edges.iter().enumerate() {
        let edit = match i % 4 {
            // Moves the lines after it: later edits take the full parse.
            _ if i + 2 == edges.len() => Edit::SetDesc {
                kind: NodeKind::Action,
                name: from.clone(),
                text: "Two\nlines\n".into(),
            },
            3 => Edit::RemoveEdge {
                from: from.clone(),
                to: to.clone(),
                to_kind: *kind,
            },
            _ => score(from, to, *kind, 0.125 + i as f64 / 100.0),
        };
        ws.apply(edit).unwrap();
    }
    ws.save_all().unwrap();
    let back = Workspace::open(std::slice::from_ref(&p), None).unwrap();
    assert_eq!(ws.toolkit.difference(&back.toolkit), None);
    let changed =
        similar::TextDiff::from_lines(text.as_str(), fs::read_to_string(&p).unwrap().as_str())
            .iter_all_changes()
            .filter(|c| c.tag() == similar::ChangeTag::Delete)
            .count();
    assert!(
        changed <= edges.len() + 1,
        "{changed} lines changed for {} edits",
        edges.len()
    );
}

/// The tool filters stage's toggle is an edit like any other: written as an `enabled` key
/// in the declaration (the anchored one in flow style here), undone to the exact bytes.
#[test]
fn enabled_toggle_is_a_lossless_edit_in_both_formats() {
    let dir = tempfile::tempdir().unwrap();
    let native = temp_file(dir.path(), "a.yaml", ANCHORED);
    let mut ws = Workspace::open(std::slice::from_ref(&native), None).unwrap();
    let disable = |name: &str| Edit::SetEnabled {
        kind: NodeKind::Tool,
        name: name.into(),
        enabled: false,
    };
    ws.apply(disable("Cypher")).unwrap();
    ws.save_all().unwrap();
    let text = fs::read_to_string(&native).unwrap();
    let before: Vec<&str> = ANCHORED.split("\r\n").collect();
    let after: Vec<&str> = text.split("\r\n").collect();
    assert_eq!(after.len(), before.len() + 1, "one line added:\n{text}");
    assert!(after.contains(&"    enabled: false"), "{text}");
    let back = Workspace::open(std::slice::from_ref(&native), None).unwrap();
    let t = back.toolkit.find(NodeKind::Tool, "Cypher").unwrap();
    assert!(!back.toolkit.node(t).enabled());
    ws.undo();
    ws.save_all().unwrap();
    assert_eq!(fs::read_to_string(&native).unwrap(), ANCHORED);

    let c2g_src = include_str!("../../toolkits/chat2graph-mini.yml");
    let c2g = temp_file(dir.path(), "c.yml", c2g_src);
    let mut ws = Workspace::open(std::slice::from_ref(&c2g), None).unwrap();
    ws.apply(disable("CypherExecutor")).unwrap();
    ws.save_all().unwrap();
    let text = fs::read_to_string(&c2g).unwrap();
    let diff: Vec<&str> = text
        .lines()
        .filter(|l| !c2g_src.lines().any(|o| o == *l))
        .collect();
    assert_eq!(diff, vec!["    enabled: false"], "{text}");
    let back = Workspace::open(std::slice::from_ref(&c2g), None).unwrap();
    let t = back.toolkit.find(NodeKind::Tool, "CypherExecutor").unwrap();
    assert!(!back.toolkit.node(t).enabled());
}
