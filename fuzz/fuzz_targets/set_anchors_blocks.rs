//! `set`-style edits on generated files full of anchors, aliases and block scalars (keep,
//! strip and clip chomping, literal and folded). The input's bytes pick the document's
//! shape and then the edits. Checks: an accepted edit verifies (the file gives the edited
//! graph), never changes an anchored value that aliases use elsewhere, never changes a
//! block scalar it did not target, and undoing everything restores the bytes.
#![no_main]

use std::collections::BTreeMap;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolscope_core::edit::Edit;
use toolscope_core::workspace::Workspace;
use toolscope_core::model::NodeKind;
use toolscope_core::source::yaml::{self, Limits, Style, Value};

/// Reads bytes one at a time, 0 when exhausted.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
}

const BLOCKS: [&str; 6] = ["|+", "|-", "|", ">+", ">-", ">"];

/// A native toolkit whose descriptions and scores are anchored, aliased and block scalars.
fn document(b: &mut Bytes<'_>) -> String {
    let actions = 2 + usize::from(b.next() % 4);
    let mut out = String::from(
        "tools:\n  - name: t0\n    desc: &tdesc Tool zero.\n  - name: t1\n    desc: *tdesc\n",
    );
    out.push_str("actions:\n");
    let mut desc_anchors = vec!["tdesc".to_string()];
    let mut score_anchors: Vec<String> = Vec::new();
    for i in 0..actions {
        out.push_str(&format!("  - name: a{i}\n"));
        match b.next() % 5 {
            0 => out.push_str(&format!("    desc: Plain {i}.\n")),
            1 => {
                out.push_str(&format!("    desc: &d{i} Anchored {i}.\n"));
                desc_anchors.push(format!("d{i}"));
            }
            2 => {
                let a = &desc_anchors[usize::from(b.next()) % desc_anchors.len()];
                out.push_str(&format!("    desc: *{a}\n"));
            }
            _ => {
                let header = BLOCKS[usize::from(b.next()) % BLOCKS.len()];
                let blanks = "\n".repeat(usize::from(b.next() % 3));
                out.push_str(&format!(
                    "    desc: {header}\n      Block {i}\n      second line\n{blanks}"
                ));
            }
        }
        let tool = b.next() % 2;
        match b.next() % 3 {
            0 => out.push_str(&format!("    tools:\n      - t{tool}\n")),
            1 => {
                out.push_str(&format!(
                    "    tools: [{{name: t{tool}, score: &s{i} 0.5}}]\n"
                ));
                score_anchors.push(format!("s{i}"));
            }
            _ if !score_anchors.is_empty() => {
                let a = &score_anchors[usize::from(b.next()) % score_anchors.len()];
                out.push_str(&format!(
                    "    tools:\n      - {{name: t{tool}, score: *{a}}}\n"
                ));
            }
            _ => {}
        }
        if i + 1 < actions && b.next() % 2 == 0 {
            out.push_str(&format!("    next: [a{}]\n", i + 1));
        }
    }
    out.push_str("operators:\n  - name: op\n    actions: [a0]\n");
    if b.next() % 2 == 0 {
        out.push_str("    instruction: |+\n      Keep me.\n\n");
    }
    if b.next() % 2 == 0 {
        let a = &desc_anchors[usize::from(b.next()) % desc_anchors.len()];
        out.push_str(&format!("meta:\n  about: *{a}\n"));
    }
    out
}

fn choose(ws: &Workspace, sel: u8, value: u8) -> Option<Edit> {
    let tk = &ws.toolkit;
    let edges: Vec<_> = tk.graph.edge_indices().collect();
    let nodes: Vec<_> = tk.graph.node_indices().collect();
    let score = f64::from(value % 21) / 20.0;
    let edge = || {
        let e = *edges.get(usize::from(value) % edges.len().max(1))?;
        let (u, v) = tk.graph.edge_endpoints(e)?;
        Some((tk.name(u).to_string(), tk.name(v).to_string(), tk.kind(v)))
    };
    let node = || {
        let n = *nodes.get(usize::from(value) % nodes.len().max(1))?;
        Some((tk.kind(n), tk.name(n).to_string()))
    };
    Some(match sel % 8 {
        0 | 1 => {
            let (from, to, to_kind) = edge()?;
            Edit::SetScore {
                from,
                to,
                to_kind,
                score,
            }
        }
        2 | 3 => {
            let (kind, name) = node()?;
            let text = match value % 3 {
                0 => "one line".to_string(),
                1 => "two\nlines\n".to_string(),
                _ => "kept\n".to_string(),
            };
            Edit::SetDesc { kind, name, text }
        }
        4 => {
            let (from, to, to_kind) = edge()?;
            Edit::RemoveEdge { from, to, to_kind }
        }
        5 => {
            let (kind, name) = node()?;
            Edit::RemoveNode { kind, name }
        }
        6 => Edit::AddEdge {
            from: tk
                .name(tk.nodes_of(NodeKind::Action).nth(usize::from(sel % 3))?)
                .to_string(),
            to: format!("t{}", value % 2),
            to_kind: NodeKind::Tool,
            score,
        },
        _ => Edit::SetHops {
            operator: "op".into(),
            value: u32::from(value % 4),
        },
    })
}

/// Values of anchored scalars that some alias uses, and of every block scalar, by position
/// in document order among their kind (stable unless the edit removed or added one).
fn protected(text: &str) -> (BTreeMap<String, String>, Vec<String>) {
    let Ok(doc) = yaml::parse(text, &Limits::default()) else {
        return Default::default();
    };
    let mut anchored = BTreeMap::new();
    for n in doc.nodes() {
        if let Value::Alias(t) = n.value
            && let (Some(a), Some(v)) = (doc.node(t).anchor.as_ref(), doc.str(t))
        {
            anchored.insert(a.0.clone(), v.to_string());
        }
    }
    let blocks = doc
        .nodes()
        .filter_map(|n| match &n.value {
            Value::Scalar {
                text,
                style: Style::Literal | Style::Folded,
            } => Some(text.to_string()),
            _ => None,
        })
        .collect();
    (anchored, blocks)
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes(data);
    let text = document(&mut b);
    let Ok(mut ws) = Workspace::from_text(Path::new("f.yaml"), text.clone(), None) else {
        panic!("the generated document loads:\n{text}");
    };
    let mut applied = 0;
    for _ in 0..4 {
        let (sel, value) = (b.next(), b.next());
        let Some(edit) = choose(&ws, sel, value) else {
            continue;
        };
        let before = ws.files()[0].source.text.clone();
        if ws.apply(edit.clone()).is_err() {
            assert_eq!(
                ws.files()[0].source.text,
                before,
                "a refused edit changes nothing"
            );
            continue;
        }
        applied += 1;
        let after = ws.files()[0].source.text.clone();
        match ws.loads_back(0) {
            Ok(reparsed) => assert_eq!(reparsed.difference(&ws.toolkit), None),
            Err(e) => panic!("accepted edit does not verify: {e}\n{after}"),
        }
        let (anchors_before, blocks_before) = protected(&before);
        let (anchors_after, blocks_after) = protected(&after);
        if !matches!(edit, Edit::RemoveNode { .. }) {
            for (a, v) in &anchors_before {
                if let Some(w) = anchors_after.get(a) {
                    assert_eq!(
                        v,
                        w,
                        "{}: &{a} changed\n{before}\n----\n{after}",
                        edit.describe()
                    );
                }
            }
        }
        if matches!(
            edit,
            Edit::SetScore { .. } | Edit::SetHops { .. } | Edit::AddEdge { .. }
        ) {
            assert_eq!(
                blocks_before,
                blocks_after,
                "{}: a block scalar changed\n{before}\n----\n{after}",
                edit.describe()
            );
        }
    }
    let original = text;
    for _ in 0..applied {
        ws.undo();
    }
    assert_eq!(
        ws.files()[0].source.text,
        original,
        "undo restores the bytes"
    );
});
