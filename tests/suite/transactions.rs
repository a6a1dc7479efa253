//! Transactions: several edits as one step of undo, and the undo of a saved step written
//! like any other edit when the file changed on disk in between (reapply).

use std::fs;
use std::path::{Path, PathBuf};

use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::model::NodeKind;
use toolscope_core::workspace::Workspace;

const NATIVE: &str = r#"# tools first
tools:
  - name: Search
    desc: Finds pages.
    type: MCP
    inputs:
      - {name: q, type: string, required: true, desc: the query}
  - name: Fetch
    desc: Reads a page.
actions:
  - name: plan
    desc: Plans.
    tools: [Search, {name: Fetch, score: 0.4}]
    next: [write]
  - name: write
    desc: Writes.
    tools:
      - Fetch
operators:
  - name: main
    actions: [plan, write]
    threshold: 0.5
"#;

fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, text).unwrap();
    p
}

fn open(p: &Path) -> Workspace {
    Workspace::open(&[p.to_path_buf()], None).unwrap()
}

#[test]
fn the_undo_of_a_saved_removal_survives_an_outside_change() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", NATIVE);
    let mut ws = open(&p);
    let txn = ws.removal(NodeKind::Tool, "Search").unwrap();
    ws.apply(txn).unwrap();
    ws.save_all().unwrap();
    assert!(!fs::read_to_string(&p).unwrap().contains("Search"));
    ws.undo().unwrap();
    // Someone edits the file meanwhile; the save finds the conflict, the user reapplies.
    let theirs = fs::read_to_string(&p)
        .unwrap()
        .replace("desc: Writes.", "desc: Writes it all.");
    fs::write(&p, &theirs).unwrap();
    assert!(ws.save_all().is_err());
    let report = ws.reapply().unwrap();
    assert!(report.dropped.is_empty(), "{:?}", report.dropped);
    assert_eq!(report.reapplied.len(), 1);
    ws.save_all().unwrap();
    let text = fs::read_to_string(&p).unwrap();
    assert!(text.contains("desc: Writes it all."), "{text}");
    // The tool is back with every property, and its caller calls it again.
    let back = open(&p);
    let original = open(&file(dir.path(), "o.yaml", NATIVE));
    let (a, b) = (
        back.toolkit
            .find(NodeKind::Tool, "Search")
            .expect("restored"),
        original.toolkit.find(NodeKind::Tool, "Search").unwrap(),
    );
    assert_eq!(back.toolkit.node(a).meta, original.toolkit.node(b).meta);
    let plan = back.toolkit.action("plan").unwrap();
    assert!(back.toolkit.edge(plan, a).is_some(), "{text}");
}

#[test]
fn removing_an_action_takes_it_out_of_the_seeds_and_undo_puts_it_back() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", NATIVE);
    let mut ws = open(&p);
    let txn = ws.removal(NodeKind::Action, "plan").unwrap();
    assert!(txn.edits.contains(&Edit::RemoveSeed {
        operator: "main".into(),
        action: "plan".into()
    }));
    let applied = ws.apply(txn).unwrap();
    // The seed goes with the action, so no note may say an operator still names it.
    assert!(
        !applied.notes.iter().any(|n| n.contains("still names")),
        "{:?}",
        applied.notes
    );
    ws.save_all().unwrap();
    let text = fs::read_to_string(&p).unwrap();
    assert!(text.contains("actions: [write]"), "{text}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .arg("lint")
        .arg(&p)
        .output()
        .unwrap();
    let lint = String::from_utf8_lossy(&out.stdout);
    assert!(
        !lint.contains("TS032"),
        "no seed names a removed action: {lint}"
    );
    // One undo puts back the action, its edges, the tool only it called and the seed.
    ws.undo().unwrap();
    assert_eq!(ws.files()[0].source.text, NATIVE);
    assert_eq!(
        ws.toolkit.operator("main").unwrap().actions,
        vec!["plan", "write"]
    );
    ws.save_all().unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), NATIVE);
}

#[test]
fn a_saved_removal_undone_after_an_outside_change_restores_seed_order() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", NATIVE);
    let mut ws = open(&p);
    ws.apply(ws.removal(NodeKind::Action, "plan").unwrap())
        .unwrap();
    ws.save_all().unwrap();
    ws.undo().unwrap();
    let theirs = fs::read_to_string(&p)
        .unwrap()
        .replace("# tools first", "# edited");
    fs::write(&p, &theirs).unwrap();
    let report = ws.reapply().unwrap();
    assert!(report.dropped.is_empty(), "{:?}", report.dropped);
    ws.save_all().unwrap();
    let back = open(&p);
    assert_eq!(
        back.toolkit.operator("main").unwrap().actions,
        vec!["plan", "write"]
    );
    let (plan, write) = (
        back.toolkit.action("plan").unwrap(),
        back.toolkit.action("write").unwrap(),
    );
    assert!(back.toolkit.edge(plan, write).is_some());
    assert!(fs::read_to_string(&p).unwrap().starts_with("# edited"));
}

/// Sets hops on `operator` (which writes none) in a file holding `original`, saves, undoes,
/// changes the file on disk with `theirs`, reapplies and saves: the file must be `original`
/// with only the outside change, the key gone rather than written as `hops: 0`.
fn undone_hops_reapplied(original: &str, operator: &str, theirs: impl Fn(&str) -> String) {
    assert!(!original.contains("hops"));
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", original);
    let mut ws = open(&p);
    ws.apply(Edit::SetHops {
        operator: operator.into(),
        value: 2,
    })
    .unwrap();
    ws.save_all().unwrap();
    assert!(fs::read_to_string(&p).unwrap().contains("hops: 2"));
    ws.undo().unwrap();
    fs::write(&p, theirs(&fs::read_to_string(&p).unwrap())).unwrap();
    let report = ws.reapply().unwrap();
    assert!(report.dropped.is_empty(), "{:?}", report.dropped);
    ws.save_all().unwrap();
    let text = fs::read_to_string(&p).unwrap();
    assert!(!text.contains("hops"), "the key goes, not `hops: 0`");
    assert_eq!(text, theirs(original));
}

#[test]
fn an_undone_hops_edit_reapplied_removes_the_key() {
    undone_hops_reapplied(NATIVE, "main", |t| t.replace("Plans.", "Plans well."));
}

#[test]
fn a_batch_of_scores_undoes_as_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", NATIVE);
    let mut ws = open(&p);
    let batch = Transaction::from(vec![
        Edit::SetScore {
            from: "plan".into(),
            to: "Search".into(),
            to_kind: NodeKind::Tool,
            score: 0.9,
        },
        Edit::SetScore {
            from: "write".into(),
            to: "Fetch".into(),
            to_kind: NodeKind::Tool,
            score: 0.3,
        },
    ]);
    ws.apply(batch).unwrap();
    assert_eq!(ws.files()[0].pending().count(), 1);
    ws.undo().unwrap();
    assert!(!ws.can_undo());
    assert_eq!(ws.files()[0].source.text, NATIVE);
    ws.redo().unwrap();
    assert!(
        ws.files()[0]
            .source
            .text
            .contains("{name: Search, score: 0.9}")
    );
    assert!(
        ws.files()[0]
            .source
            .text
            .contains("{name: Fetch, score: 0.3}")
    );
}

#[test]
fn a_transaction_with_a_refused_edit_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", NATIVE);
    let mut ws = open(&p);
    let bad = Transaction::from(vec![
        Edit::SetHops {
            operator: "main".into(),
            value: 2,
        },
        Edit::SetHops {
            operator: "nobody".into(),
            value: 2,
        },
    ]);
    assert!(ws.apply(bad).is_err());
    assert!(!ws.is_dirty());
    assert_eq!(ws.toolkit.operator("main").unwrap().hops, 0);
}

#[test]
fn a_chat2graph_tool_removal_undone_after_an_outside_change_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let src = include_str!("../../toolkits/chat2graph-mini.yml");
    let p = file(dir.path(), "c.yml", src);
    let mut ws = open(&p);
    let callers = |ws: &Workspace| {
        let t = ws.toolkit.find(NodeKind::Tool, "SchemaGetter").unwrap();
        ws.toolkit.in_edges(t).count()
    };
    let before = callers(&ws);
    ws.apply(ws.removal(NodeKind::Tool, "SchemaGetter").unwrap())
        .unwrap();
    ws.save_all().unwrap();
    ws.undo().unwrap();
    let theirs = fs::read_to_string(&p)
        .unwrap()
        .replace("version: \"0.0.1\"", "version: \"0.0.2\"");
    fs::write(&p, &theirs).unwrap();
    let report = ws.reapply().unwrap();
    assert!(report.dropped.is_empty(), "{:?}", report.dropped);
    ws.save_all().unwrap();
    let back = open(&p);
    assert_eq!(callers(&back), before);
    assert!(fs::read_to_string(&p).unwrap().contains("0.0.2"));
}

#[test]
fn a_reapply_undoes_as_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", NATIVE);
    let mut ws = open(&p);
    ws.apply(Edit::SetHops {
        operator: "main".into(),
        value: 2,
    })
    .unwrap();
    ws.apply(Edit::SetDesc {
        kind: NodeKind::Action,
        name: "write".into(),
        text: "Writes it down.".into(),
    })
    .unwrap();
    let theirs = NATIVE.replace("Plans.", "Plans well.");
    fs::write(&p, &theirs).unwrap();
    let report = ws.reapply().unwrap();
    assert_eq!(report.reapplied.len(), 2);
    assert_eq!(ws.files()[0].pending().count(), 1);
    ws.undo().unwrap();
    assert!(!ws.can_undo(), "one step");
    assert_eq!(ws.files()[0].source.text, theirs);
    assert!(!ws.is_dirty());
    ws.redo().unwrap();
    ws.save_all().unwrap();
    let text = fs::read_to_string(&p).unwrap();
    assert!(
        text.contains("hops: 2")
            && text.contains("Writes it down.")
            && text.contains("Plans well.")
    );
}

/// The same on a file over 1 MB, where edits are not verified one by one (the large-file
/// path): the undo of a hops the operator did not write still removes the key.
#[test]
fn an_undone_hops_edit_reapplied_removes_the_key_on_a_large_file() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolscope"))
        .args(["gen", "--actions", "5000"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    let original = generated.replace("    hops: 3\n", "");
    assert!(original.len() > 1 << 20, "{} bytes", original.len());
    undone_hops_reapplied(&original, "op0", |t| {
        t.replacen("name: op1", "name: op1b", 1)
    });
}

/// A transaction of threshold and hops edits works on the file's own graph, lent, and puts
/// its operators back: refused or accepted, the graph is whole afterwards and the next edit
/// (one that reads the graph) works.
#[test]
fn threshold_and_hops_together_leave_the_graph_whole() {
    let dir = tempfile::tempdir().unwrap();
    let p = file(dir.path(), "t.yaml", NATIVE);
    let mut ws = open(&p);
    let nodes = ws.files()[0].own.graph.node_count();
    let edges = ws.files()[0].own.graph.edge_count();
    let both = |threshold: f64, hops: u32| {
        Transaction::from(vec![
            Edit::SetThreshold {
                operator: "main".into(),
                value: threshold,
            },
            Edit::SetHops {
                operator: "main".into(),
                value: hops,
            },
        ])
    };
    // Refused by its second edit: nothing changes, the first edit's threshold included.
    assert!(ws.apply(both(0.7, 5000)).is_err());
    let own = &ws.files()[0].own;
    assert_eq!(
        (own.graph.node_count(), own.graph.edge_count()),
        (nodes, edges)
    );
    assert_eq!(own.operator("main").unwrap().threshold, 0.5);
    assert!(!ws.is_dirty());
    // Accepted: both values in the graph and the text, the graph whole.
    ws.apply(both(0.7, 2)).unwrap();
    let own = &ws.files()[0].own;
    assert_eq!(
        (own.graph.node_count(), own.graph.edge_count()),
        (nodes, edges)
    );
    let op = own.operator("main").unwrap();
    assert_eq!((op.threshold, op.hops), (0.7, 2));
    assert!(ws.files()[0].source.text.contains("threshold: 0.7"));
    // An edit that reads the graph still finds its nodes; undo goes back step by step.
    ws.apply(Edit::SetScore {
        from: "plan".into(),
        to: "Fetch".into(),
        to_kind: NodeKind::Tool,
        score: 0.9,
    })
    .unwrap();
    ws.undo().unwrap();
    ws.undo().unwrap();
    let op = ws.files()[0].own.operator("main").unwrap();
    assert_eq!((op.threshold, op.hops), (0.5, 0));
    ws.save_all().unwrap();
    assert_eq!(fs::read_to_string(&p).unwrap(), NATIVE);
}

/// Found by the `load_edit_reload` fuzz target: a score the loader reported as out of
/// range (5.9), set to a valid one, could not be undone. The inverse puts 5.9 back, which
/// the graph refused as a new value; the undo returned nothing and dropped the step. Now an
/// undo puts back what the file held, for scores, thresholds and removed edges alike, on
/// the small and the large-file path, before and after a save.
#[test]
fn an_out_of_range_value_the_file_held_is_undone_back_to_its_bytes() {
    let text = "\
actions:
  - name: a
    tools: [{name: T, score: 7.5}]
    next:
      - {name: b, score: 5.9}
  - name: b
tools:
  - name: T
operators:
  - name: op
    actions: [a]
    threshold: 3.5
";
    let edits = [
        Edit::SetScore {
            from: "a".into(),
            to: "b".into(),
            to_kind: NodeKind::Action,
            score: 0.5,
        },
        Edit::SetThreshold {
            operator: "op".into(),
            value: 0.25,
        },
        Edit::RemoveEdge {
            from: "a".into(),
            to: "T".into(),
            to_kind: NodeKind::Tool,
        },
    ];
    for large in [false, true] {
        for edit in &edits {
            let dir = tempfile::tempdir().unwrap();
            let p = file(dir.path(), "kit.yaml", text);
            let mut ws = open(&p);
            if large {
                ws.set_verify_each_edit_bytes(0);
            }
            ws.apply(edit.clone())
                .unwrap_or_else(|e| panic!("{edit:?}: {e}"));
            assert_ne!(ws.files()[0].source.text, text);
            ws.save_all().unwrap();
            assert!(
                ws.undo().is_some(),
                "{edit:?} (large {large}): undo refused"
            );
            assert_eq!(ws.files()[0].source.text, text, "{edit:?} (large {large})");
            ws.save_all().unwrap();
            assert_eq!(
                fs::read_to_string(&p).unwrap(),
                text,
                "{edit:?} (large {large})"
            );
            // And redo makes the edit again.
            assert!(
                ws.redo().is_some(),
                "{edit:?} (large {large}): redo refused"
            );
            assert_ne!(ws.files()[0].source.text, text);
        }
    }
}
