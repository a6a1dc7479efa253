//! Loads arbitrary text, applies edits chosen by the input's last bytes, and checks the
//! write-back contract: every accepted edit re-parses to exactly the edited graph, and
//! undoing all of them gives back the original bytes. Any panic or mismatch is a finding.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use toolscope_core::edit::Edit;
use toolscope_core::workspace::Workspace;
use toolscope_core::model::NodeKind;

/// Picks an edit from a selector byte and the current graph.
fn choose(ws: &Workspace, sel: u8, value: u8) -> Option<Edit> {
    let tk = &ws.toolkit;
    let edges: Vec<_> = tk.graph.edge_indices().collect();
    let nodes: Vec<_> = tk.graph.node_indices().collect();
    let score = f64::from(value % 21) / 20.0;
    match sel % 5 {
        0 | 1 => {
            let e = *edges.get(usize::from(value) % edges.len().max(1))?;
            let (u, v) = tk.graph.edge_endpoints(e)?;
            Some(Edit::SetScore {
                from: tk.name(u).to_string(),
                to: tk.name(v).to_string(),
                to_kind: tk.kind(v),
                score,
            })
        }
        2 => {
            let op = tk.operators.get(usize::from(value) % tk.operators.len().max(1))?;
            Some(Edit::SetThreshold {
                operator: op.name.clone(),
                value: score,
            })
        }
        3 => {
            let n = *nodes.get(usize::from(value) % nodes.len().max(1))?;
            Some(Edit::SetDesc {
                kind: tk.kind(n),
                name: tk.name(n).to_string(),
                text: if value % 2 == 0 { "one line".into() } else { "two\nlines\n".into() },
            })
        }
        _ => {
            let a = tk.nodes_of(NodeKind::Action).nth(usize::from(value) % 7)?;
            Some(Edit::AddAction {
                name: format!("fuzz_{}_{}", tk.name(a).len(), value),
                desc: String::new(),
            })
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (text, picks) = data.split_at(data.len() - 4);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let Ok(mut ws) = Workspace::from_text(Path::new("f.yaml"), text.to_string(), None) else {
        return;
    };
    let original = ws.files()[0].source.text.clone();
    let mut applied = 0;
    for pair in picks.chunks(2) {
        let Some(edit) = choose(&ws, pair[0], pair[1]) else {
            continue;
        };
        if ws.apply(edit).is_ok() {
            applied += 1;
            // The re-parsed text must equal the graph the user sees.
            match ws.loads_back(0) {
                Ok(reparsed) => assert_eq!(reparsed.difference(&ws.toolkit), None),
                Err(e) => panic!("accepted edit does not verify: {e}"),
            }
        }
    }
    for _ in 0..applied {
        ws.undo();
    }
    assert_eq!(ws.files()[0].source.text, original, "undo restores the bytes");
});
