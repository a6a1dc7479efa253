//! Property: random native toolkits, written as YAML text with comments, anchors, aliases,
//! flow and block styles, block scalars, CRLF and missing final newlines; random edit
//! sequences. After each save, reloading gives exactly the edited graph, comments survive,
//! and the lines that changed are only those of the edited construct.

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use toolscope_core::edit::{Edit, EditError};
use toolscope_core::model::{EdgeKind, NodeKind, Toolkit};
use toolscope_core::workspace::Workspace;

use crate::common::rng;
use rng::Rng;

const SCORES: [&str; 5] = ["0.1", "0.25", "0.5", "0.8", "1"];

fn desc(r: &mut Rng, owner: &str, indent: &str) -> String {
    match r.below(4) {
        0 => format!("Does {owner}."),
        1 => format!("\"Does {owner}: well\""),
        2 => format!("'Does {owner}'"),
        _ => format!("|\n{indent}  First line of {owner}.\n{indent}  Second line.\n"),
    }
}

/// Renders a random toolkit; returns the text with `\n` line ends.
fn toolkit_text(seed: u64) -> String {
    let mut r = Rng(seed | 1);
    let (n_tools, n_actions) = (1 + r.below(4), 2 + r.below(5));
    let mut out = String::from("# generated toolkit  # with a hash\nname: prop\n\ntools:\n");
    let mut anchored = Vec::new();
    for t in 0..n_tools {
        if r.below(3) == 0 {
            out.push_str(&format!("  # comment before tool{t}\n"));
        }
        let anchor = if r.coin() {
            anchored.push(t);
            format!("&t{t} ")
        } else {
            String::new()
        };
        if r.coin() {
            out.push_str(&format!(
                "  - {anchor}{{name: tool{t}, desc: \"Tool {t}\"}}\n"
            ));
        } else {
            let d = desc(&mut r, &format!("tool{t}"), "    ");
            let d = d.trim_end_matches('\n');
            out.push_str(&format!("  - {anchor}\n    name: tool{t}\n    desc: {d}\n"));
        }
    }
    out.push_str("\nactions:\n");
    for a in 0..n_actions {
        let d = desc(&mut r, &format!("act{a}"), "    ");
        out.push_str(&format!(
            "  - name: act{a}   # action {a}\n    desc: {}\n",
            d.trim_end_matches('\n')
        ));
        let refs = |r: &mut Rng, names: Vec<String>, anchors: &[usize]| -> Vec<String> {
            let mut out = Vec::new();
            for (i, n) in names.into_iter().enumerate() {
                if r.below(3) == 0 {
                    continue;
                }
                out.push(match r.below(4) {
                    0 if anchors.contains(&i) => format!("*t{i}"),
                    1 => format!("{{name: {n}, score: {}}}", SCORES[r.below(5)]),
                    _ => n,
                });
            }
            out
        };
        let tools = refs(
            &mut r,
            (0..n_tools).map(|t| format!("tool{t}")).collect(),
            &anchored,
        );
        let next = refs(
            &mut r,
            (0..n_actions)
                .filter(|b| *b != a)
                .map(|b| format!("act{b}"))
                .collect(),
            &[],
        );
        for (key, items) in [("tools", tools), ("next", next)] {
            if items.is_empty() {
                continue;
            }
            if r.coin() {
                out.push_str(&format!("    {key}: [{}]\n", items.join(", ")));
            } else {
                out.push_str(&format!("    {key}:\n"));
                for i in items {
                    let comment = if r.below(3) == 0 { "  # item" } else { "" };
                    out.push_str(&format!("      - {i}{comment}\n"));
                }
            }
        }
    }
    out.push_str("\noperators:\n  - name: op\n    actions: [act0]\n");
    if r.coin() {
        out.push_str("    threshold: 0.5\n");
    }
    if r.coin() {
        out.push_str("    hops: 1\n");
    }
    out
}

/// Picks a concrete edit for the current graph from four random numbers.
fn pick_edit(tk: &Toolkit, k: u8, a: usize, b: usize, c: usize) -> Option<Edit> {
    let actions: Vec<String> = tk
        .nodes_of(NodeKind::Action)
        .map(|i| tk.name(i).to_string())
        .collect();
    let tools: Vec<String> = tk
        .nodes_of(NodeKind::Tool)
        .map(|i| tk.name(i).to_string())
        .collect();
    let edges: Vec<(String, String, NodeKind)> = tk
        .graph
        .edge_indices()
        .filter(|e| tk.graph[*e].kind != EdgeKind::Has)
        .filter_map(|e| {
            let (u, v) = tk.graph.edge_endpoints(e)?;
            Some((tk.name(u).to_string(), tk.name(v).to_string(), tk.kind(v)))
        })
        .collect();
    let score = [0.0, 0.3, 0.55, 0.9, 1.0][c % 5];
    let pick = |v: &Vec<String>, i: usize| v.get(i % v.len().max(1)).cloned();
    Some(match k % 9 {
        0 | 1 => {
            let (from, to, to_kind) = edges.get(a % edges.len().max(1))?.clone();
            Edit::SetScore {
                from,
                to,
                to_kind,
                score,
            }
        }
        2 => Edit::SetThreshold {
            operator: "op".into(),
            value: score,
        },
        3 => Edit::SetHops {
            operator: "op".into(),
            value: (c % 4) as u32,
        },
        4 => {
            let (kind, name) = if b.is_multiple_of(2) {
                (NodeKind::Action, pick(&actions, a)?)
            } else {
                (NodeKind::Tool, pick(&tools, a)?)
            };
            let text = match c % 3 {
                0 => "New text.".to_string(),
                1 => "yes".to_string(),
                _ => format!("Line one of {name}.\nLine two: with a colon.\n"),
            };
            Edit::SetDesc { kind, name, text }
        }
        5 => {
            let from = pick(&actions, a)?;
            let (to, to_kind) = if b.is_multiple_of(2) {
                (pick(&actions, c)?, NodeKind::Action)
            } else {
                (pick(&tools, c)?, NodeKind::Tool)
            };
            Edit::AddEdge {
                from,
                to,
                to_kind,
                score,
            }
        }
        6 => {
            let (from, to, to_kind) = edges.get(a % edges.len().max(1))?.clone();
            Edit::RemoveEdge { from, to, to_kind }
        }
        7 => {
            if b.is_multiple_of(2) {
                Edit::AddAction {
                    name: format!("new_act{a}"),
                    desc: "Added.".into(),
                }
            } else {
                Edit::AddTool {
                    name: format!("new_tool{a}"),
                    desc: "Added tool.".into(),
                    callers: vec![(pick(&actions, c)?, score)],
                    // A Chat2Graph file refuses a tool without one.
                    module_path: if c.is_multiple_of(2) {
                        "app.tools.added".into()
                    } else {
                        String::new()
                    },
                }
            }
        }
        _ => {
            let (kind, name) = if b.is_multiple_of(2) {
                (NodeKind::Action, pick(&actions, a)?)
            } else {
                (NodeKind::Tool, pick(&tools, a)?)
            };
            Edit::RemoveNode { kind, name }
        }
    })
}

/// Lines removed and added between two texts.
fn changed(before: &str, after: &str) -> (Vec<String>, usize) {
    let diff = similar::TextDiff::from_lines(before, after);
    let mut removed = Vec::new();
    let mut added = 0;
    for c in diff.iter_all_changes() {
        match c.tag() {
            similar::ChangeTag::Delete => removed.push(c.value().to_string()),
            similar::ChangeTag::Insert => added += 1,
            similar::ChangeTag::Equal => {}
        }
    }
    (removed, added)
}

/// How many lines an edit may touch (removed, added), `None` for no bound.
fn bound(edit: &Edit) -> Option<(usize, usize)> {
    match edit {
        Edit::SetScore { .. } | Edit::SetThreshold { .. } | Edit::SetHops { .. } => Some((1, 1)),
        Edit::SetDesc { .. } => Some((3, 4)),
        Edit::AddEdge { .. } => Some((1, 2)),
        // Removing a block list's last item also turns its key line into `key: []`.
        Edit::RemoveEdge { .. } => Some((2, 1)),
        // An emptied `actions: []` turns back into a block list (its key line replaced).
        Edit::AddAction { .. } => Some((1, 3)),
        // The declaration and the caller's call: either list may be an emptied `key: []`
        // that turns back into a block list (its key line replaced).
        Edit::AddTool { .. } => Some((2, 6)),
        _ => None,
    }
}

fn comments(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            l.find(" # ")
                .or_else(|| l.trim_start().starts_with('#').then_some(0))
                .map(|i| l[i..].trim().to_string())
        })
        .collect()
}

fn check(
    seed: u64,
    crlf: bool,
    final_nl: bool,
    edits: &[(u8, usize, usize, usize)],
) -> Result<(), TestCaseError> {
    let mut text = toolkit_text(seed);
    if crlf {
        text = text.replace('\n', "\r\n");
    }
    if !final_nl {
        text = text.trim_end().to_string();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.yaml");
    fs::write(&path, &text).unwrap();
    let mut ws = Workspace::open(std::slice::from_ref(&path), None)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
    for &(k, a, b, c) in edits {
        let Some(edit) = pick_edit(&ws.toolkit, k, a, b, c) else {
            continue;
        };
        let before = fs::read_to_string(&path).unwrap();
        let graph_before = ws.toolkit.clone();
        match ws.apply(edit.clone()) {
            Ok(_) => {
                if std::env::var("PROP_VERBOSE").is_ok() {
                    eprintln!("applied: {}", edit.describe());
                }
            }
            Err(
                e @ (EditError::Invalid(_) | EditError::NotFound(_) | EditError::Unsupported(_)),
            ) => {
                if std::env::var("PROP_VERBOSE").is_ok() {
                    eprintln!("refused: {}: {e}", edit.describe());
                }
                prop_assert_eq!(
                    &ws.files()[0].source.text,
                    &before,
                    "a refused edit changed the text"
                );
                prop_assert_eq!(graph_before.difference(&ws.toolkit), None);
                continue;
            }
            Err(e) => return Err(TestCaseError::fail(format!("{}: {e}", edit.describe()))),
        }
        ws.save_all()
            .map_err(|e| TestCaseError::fail(format!("{}: {e}\n{before}", edit.describe())))?;
        let after = fs::read_to_string(&path).unwrap();
        let reloaded = Workspace::open(std::slice::from_ref(&path), None).unwrap();
        prop_assert_eq!(
            ws.toolkit.difference(&reloaded.toolkit),
            None,
            "{}\n{}",
            edit.describe(),
            after
        );
        prop_assert_eq!(after.contains("\r\n"), crlf, "line endings changed");
        prop_assert_eq!(
            after.ends_with('\n'),
            before.ends_with('\n'),
            "final newline changed"
        );
        if let Some((max_removed, max_added)) = bound(&edit) {
            let (removed, added) = changed(&before, &after);
            // Appending after a last line without a line break re-terminates that line.
            let slack = usize::from(!before.ends_with('\n'));
            let (max_removed, max_added) = (max_removed + slack, max_added + slack);
            prop_assert!(
                removed.len() <= max_removed && added <= max_added,
                "{} touched {} lines, added {}:\n{}\n----\n{}",
                edit.describe(),
                removed.len(),
                added,
                before,
                after
            );
            // Every comment survives, except one on a line the edit removed with its item.
            let mut kept = comments(&before);
            for c in comments(&removed.concat()) {
                if let Some(i) = kept.iter().position(|k| *k == c) {
                    kept.remove(i);
                }
            }
            let mut now = comments(&after);
            for c in kept {
                let i = now.iter().position(|n| *n == c);
                prop_assert!(i.is_some(), "comment {:?} lost by {}", c, edit.describe());
                now.remove(i.unwrap_or_default());
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(64),
        ..ProptestConfig::default()
    })]
    #[test]
    fn edits_round_trip_losslessly(
        seed in any::<u64>(),
        crlf in any::<bool>(),
        final_nl in any::<bool>(),
        edits in proptest::collection::vec((any::<u8>(), 0usize..50, 0usize..50, 0usize..50), 1..8),
    ) {
        check(seed, crlf, final_nl, &edits)?;
    }
}

#[test]
fn generated_texts_load_cleanly() {
    for seed in 1..200 {
        let text = toolkit_text(seed);
        let ws = Workspace::from_text(Path::new("t.yaml"), text.clone(), None).unwrap();
        assert!(ws.toolkit.counts().0 >= 2, "{text}");
    }
}

/// Mutates an example by deleting, duplicating or re-indenting random lines.
fn mutate(text: &str, ops: &[(u8, usize)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for &(op, at) in ops {
        if lines.is_empty() {
            break;
        }
        let i = at % lines.len();
        match op % 4 {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => lines[i] = format!("  {}", lines[i]),
            _ => lines[i] = lines[i].trim_start().to_string(),
        }
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        ..ProptestConfig::default()
    })]
    /// Odd but loadable files: edits either apply (and then verify, files being small) or
    /// are refused leaving everything as it was; never a panic.
    #[test]
    fn edits_on_mutated_examples_never_panic(
        which in any::<bool>(),
        ops in proptest::collection::vec((any::<u8>(), any::<usize>()), 1..6),
        edits in proptest::collection::vec((any::<u8>(), 0usize..50, 0usize..50, 0usize..50), 1..6),
    ) {
        let path = if which { "tests/golden/graph-db.yaml" } else { "tests/golden/chat2graph-mini.yml" };
        let text = mutate(&fs::read_to_string(path).unwrap(), &ops);
        let Ok(mut ws) = Workspace::from_text(Path::new(path), text, None) else {
            return Ok(());
        };
        for &(k, a, b, c) in &edits {
            let Some(edit) = pick_edit(&ws.toolkit, k, a, b, c) else { continue };
            let before = ws.files()[0].source.text.clone();
            let result = ws.apply(edit);
            if std::env::var("PROP_VERBOSE").is_ok() {
                eprintln!("mutated: {}", if result.is_ok() { "applied" } else { "refused" });
            }
            if result.is_err() {
                prop_assert_eq!(&ws.files()[0].source.text, &before);
            } else {
                prop_assert!(ws.loads_back(0).is_ok());
            }
        }
    }
}
