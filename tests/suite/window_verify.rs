//! Differential: the windowed edit and verify (the large-file path, forced here on small
//! files) against the full path (every edit parsed and checked on the whole document, every
//! save loading the whole file). On generated files with anchors, aliases, keep block
//! scalars, multi-line plain scalars, flow lists across lines, comments, CRLF, a BOM, a
//! duplicate declaration and implicit tools near the windows' edges, random edits must give
//! the same bytes on disk and the same accept/refuse decisions; after each windowed save the
//! session's graph and diagnostics equal a fresh load's.

use std::path::Path;

use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::generate::{GenOptions, generate};
use toolscope_core::model::NodeKind;
use toolscope_core::workspace::Workspace;

use crate::common::rng;
use rng::Rng;

const TEXTS: [&str; 8] = [
    "New text.",
    "Two\nlines.\n",
    "has *star and &amp",
    "quote \" and: colon",
    "  leading blanks",
    "",
    "trailing\n\n",
    "<< merge-like",
];

fn base() -> String {
    generate(GenOptions {
        actions: 30,
        tools: Some(12),
        seed: 5,
    })
}

/// The hostile variants, each a whole file.
fn variants() -> Vec<(&'static str, String)> {
    let b = base();
    let mut v = vec![("plain", b.clone())];
    v.push((
        "anchor-alias",
        b.replacen(
            "desc: Synthetic action 1.",
            "desc: &d1 Synthetic action 1.",
            1,
        )
        .replacen("desc: Synthetic action 2.", "desc: *d1", 1),
    ));
    v.push((
        "keep-block",
        b.replacen(
            "    desc: Synthetic action 3.\n",
            "    desc: |+\n      Kept text.\n\n\n",
            1,
        ),
    ));
    v.push((
        "multiline-plain",
        b.replacen(
            "    desc: Synthetic action 4.\n",
            "    desc: Synthetic\n      action four\n      continued.\n",
            1,
        ),
    ));
    let flow = match b.find("  - name: a5\n") {
        Some(at) => {
            let next = b[at..].find("next: [").map(|i| at + i);
            match next.and_then(|n| b[n..].find(", ").map(|i| n + i)) {
                Some(comma) => format!("{},\n      {}", &b[..comma], &b[comma + 2..]),
                None => b.clone(),
            }
        }
        None => b.clone(),
    };
    v.push(("flow-across-lines", flow));
    v.push((
        "comments",
        b.replacen("  - name: a6\n", "# a top comment\n\n  - name: a6\n", 1)
            .replacen("  - name: a7\n", "  - name: a7 # trailing\n", 1),
    ));
    v.push(("crlf", b.replace('\n', "\r\n")));
    v.push(("bom", format!("\u{feff}{b}")));
    v.push((
        "implicit-tool",
        b.replacen(
            "    desc: Synthetic action 8.\n",
            "    desc: Synthetic action 8.\n    tools: [ghost]\n",
            1,
        )
        .replacen("    tools: [ghost]\n    tools:", "    tools:", 1),
    ));
    let dup = match b.find("operators:") {
        Some(at) => format!(
            "{}  - name: a9\n    desc: Second declaration.\n{}",
            &b[..at],
            &b[at..]
        ),
        None => format!("{b}  - name: a9\n    desc: Second declaration.\n"),
    };
    v.push(("duplicate", dup));
    // Operators that write neither key (a threshold edit adds a line), write them in flow
    // style, or name an action the file does not declare.
    v.push((
        "operator-shapes",
        b.replacen("    threshold: 0.5\n    hops: 3\n", "", 1)
            .replacen(
                "  - name: op1\n",
                "  - {name: op1x, actions: [a1], hops: 2}\n  - name: op1\n",
                1,
            )
            .replacen("    actions: [a1, ", "    actions: [nowhere, a1, ", 1),
    ));
    v
}

fn random_edit(r: &mut Rng, ws: &Workspace) -> Option<Edit> {
    let tk = &ws.toolkit;
    let actions: Vec<_> = tk
        .graph
        .node_indices()
        .filter(|ix| tk.kind(*ix) == NodeKind::Action)
        .collect();
    let nodes: Vec<_> = tk.graph.node_indices().collect();
    let a = *actions.get(r.below(actions.len()))?;
    let score = [0.0, 0.3, 0.5, 1.0][r.below(4)];
    if r.below(5) == 0 && !tk.operators.is_empty() {
        let operator = tk.operators[r.below(tk.operators.len())].name.clone();
        return Some(match r.below(2) {
            0 => Edit::SetThreshold {
                operator,
                value: score,
            },
            _ => Edit::SetHops {
                operator,
                value: r.below(4) as u32,
            },
        });
    }
    Some(match r.below(4) {
        0 | 1 => {
            let out: Vec<_> = tk.out_edges(a).collect();
            let (_, t) = *out.get(r.below(out.len()))?;
            let (from, to, to_kind) = (tk.name(a).into(), tk.name(t).into(), tk.kind(t));
            if r.below(3) == 0 {
                Edit::RemoveEdge { from, to, to_kind }
            } else {
                Edit::SetScore {
                    from,
                    to,
                    to_kind,
                    score,
                }
            }
        }
        2 => {
            let t = nodes[r.below(nodes.len())];
            Edit::AddEdge {
                from: tk.name(a).into(),
                to: tk.name(t).into(),
                to_kind: tk.kind(t),
                score,
            }
        }
        _ => {
            let t = nodes[r.below(nodes.len())];
            Edit::SetDesc {
                kind: tk.kind(t),
                name: tk.name(t).into(),
                text: TEXTS[r.below(TEXTS.len())].into(),
            }
        }
    })
}

/// Applies the edits in order, saving after each; returns per edit whether it was written,
/// and the final text on disk.
fn run(path: &Path, text: &str, edits: &[Edit], windowed: bool) -> (Vec<bool>, String, usize) {
    std::fs::write(path, text).unwrap();
    let mut ws = Workspace::open(&[path.to_path_buf()], None).unwrap();
    if windowed {
        ws.set_verify_each_edit_bytes(0);
    }
    let mut written = Vec::new();
    for e in edits {
        let ok = ws.apply(e.clone()).is_ok_and(|a| a.text_changed);
        let saved = ok && ws.save_all().is_ok();
        if ok && !saved {
            // A refusal at save: drop the edit as the full path refused it at apply.
            ws.reload().unwrap();
        }
        written.push(saved);
        if saved {
            check_fresh(&ws, path);
        }
    }
    let disk = std::fs::read_to_string(path).unwrap();
    (written, disk, ws.windowed_saves())
}

/// The session after a save says what a fresh load of the file says.
fn check_fresh(ws: &Workspace, path: &Path) {
    let fresh = Workspace::open(&[path.to_path_buf()], None).unwrap();
    assert_eq!(
        ws.toolkit.difference(&fresh.toolkit),
        None,
        "graph after save differs from a fresh load"
    );
    let key = |w: &Workspace| {
        let mut d: Vec<_> = w
            .diagnostics
            .iter()
            .map(|d| (d.line, d.column, d.code, d.message.clone()))
            .collect();
        d.sort_by(|a, b| (a.0, a.1, &a.3).cmp(&(b.0, b.1, &b.3)));
        d
    };
    assert_eq!(key(ws), key(&fresh), "diagnostics after save");
}

#[test]
fn windowed_and_full_paths_agree_on_random_edits() {
    let dir = tempfile::tempdir().unwrap();
    let mut windowed_total = 0;
    for (vi, (name, text)) in variants().into_iter().enumerate() {
        let probe = dir.path().join(format!("probe-{name}.yaml"));
        std::fs::write(&probe, &text).unwrap();
        let ws = Workspace::open(&[probe], None).unwrap();
        let mut r = Rng(0x9e37_79b9 + vi as u64 * 7919);
        for case in 0..10 {
            let edits: Vec<Edit> = (0..2).filter_map(|_| random_edit(&mut r, &ws)).collect();
            let (pa, pb) = (
                dir.path().join(format!("{name}-{case}-full.yaml")),
                dir.path().join(format!("{name}-{case}-win.yaml")),
            );
            let (wa, da, _) = run(&pa, &text, &edits, false);
            let (wb, db, n) = run(&pb, &text, &edits, true);
            windowed_total += n;
            assert_eq!(wa, wb, "{name} case {case}: decisions differ for {edits:?}");
            assert!(da == db, "{name} case {case}: texts differ for {edits:?}");
        }
    }
    // The windowed proof must carry a good share of the saves, or this tests nothing.
    eprintln!("windowed saves: {windowed_total}");
    assert!(windowed_total > 20, "only {windowed_total} windowed saves");
}

#[test]
fn an_alias_into_the_window_falls_back_to_the_full_verify() {
    let text = base()
        .replacen(
            "desc: Synthetic action 1.",
            "desc: &d1 Synthetic action 1.",
            1,
        )
        .replacen("desc: Synthetic action 2.", "desc: *d1", 1);
    let (_dir, _path, mut ws) = windowed(&text);
    let edit = Edit::SetDesc {
        kind: NodeKind::Action,
        name: "a1".into(),
        text: "Changed.".into(),
    };
    // Refused (the alias would change too) or written through the full verify: never
    // through the window.
    if ws.apply(edit).is_ok() {
        let _ = ws.save_all();
    }
    assert_eq!(ws.windowed_saves(), 0);
}

#[test]
fn a_plain_score_edit_is_proven_in_its_window() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.yaml");
    std::fs::write(&path, base()).unwrap();
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).unwrap();
    ws.set_verify_each_edit_bytes(0);
    let tk = &ws.toolkit;
    let a = tk.action("a0").unwrap();
    let (_, t) = tk.out_edges(a).next().unwrap();
    let edit = Edit::SetScore {
        from: "a0".into(),
        to: tk.name(t).into(),
        to_kind: tk.kind(t),
        score: 0.123,
    };
    ws.apply(edit).unwrap();
    ws.save_all().unwrap();
    assert_eq!(ws.windowed_saves(), 1);
    check_fresh(&ws, &path);
}

/// Everything a reload must give: the graph, every origin, the diagnostics.
fn same_as_fresh(ws: &Workspace, path: &Path) -> Result<(), String> {
    let fresh = Workspace::open(&[path.to_path_buf()], None).map_err(|e| e.to_string())?;
    if let Some(d) = ws.toolkit.difference(&fresh.toolkit) {
        return Err(d);
    }
    let origins = |w: &Workspace| {
        let tk = &w.toolkit;
        let mut v: Vec<String> = tk
            .graph
            .node_indices()
            .map(|ix| format!("{} {:?}", tk.name(ix), tk.node(ix).origin))
            .chain(tk.graph.edge_indices().map(|e| {
                let (u, v) = tk.graph.edge_endpoints(e).unwrap();
                format!("{}>{} {:?}", tk.name(u), tk.name(v), tk.graph[e].origin)
            }))
            .collect();
        v.sort();
        v
    };
    if origins(ws) != origins(&fresh) {
        return Err("origins differ".into());
    }
    let diags = |w: &Workspace| {
        let mut d: Vec<_> = w
            .diagnostics
            .iter()
            .map(|d| format!("{}:{} {:?} {}", d.line, d.column, d.code, d.message))
            .collect();
        d.sort();
        d
    };
    if diags(ws) != diags(&fresh) {
        return Err(format!(
            "diagnostics differ: {:?} vs {:?}",
            diags(ws),
            diags(&fresh)
        ));
    }
    if ws.files()[0].source.text != fresh.files()[0].source.text {
        return Err("text differs".into());
    }
    Ok(())
}

/// A random change on disk, local or not: a description, a score, a name, an indentation,
/// an anchor, an alias, a line added or removed.
fn disk_change(r: &mut Rng, text: &str) -> String {
    let i = r.below(30);
    let desc = format!("desc: Synthetic action {i}.");
    let at = text.find(&desc);
    let scores: Vec<usize> = text.match_indices("score: 0.").map(|(p, _)| p).collect();
    let score_at = scores.get(r.below(scores.len())).copied();
    let repl = |at: Option<usize>, len: usize, with: &str| match at {
        Some(p) => format!("{}{with}{}", &text[..p], &text[p + len..]),
        None => text.to_string(),
    };
    match r.below(9) {
        0 | 1 => repl(at, desc.len(), &format!("desc: Changed action {i} text.")),
        2 | 3 => repl(score_at.map(|p| p + 9), 1, &r.below(10).to_string()),
        4 => repl(at, desc.len(), "desc: \"quoted: yes\""),
        5 => repl(at, desc.len(), &format!("desc: &x{i} Anchored.")),
        6 => repl(at, desc.len(), "desc: Two\n      lines."),
        7 => repl(at.map(|p| p - 4), 4, "  "),
        _ => {
            let name = format!("- name: a{i}\n");
            repl(text.find(&name), name.len(), &format!("- name: b{i}\n"))
        }
    }
}

#[test]
fn an_incremental_reload_equals_a_fresh_load() {
    let dir = tempfile::tempdir().unwrap();
    let mut rereads = 0;
    for (vi, (name, text)) in variants().into_iter().enumerate() {
        let path = dir.path().join(format!("{name}.yaml"));
        std::fs::write(&path, &text).unwrap();
        let mut ws = Workspace::open(std::slice::from_ref(&path), None).unwrap();
        let mut r = Rng(0x51ed_2701 + vi as u64 * 104_729);
        let mut current = text.clone();
        for step in 0..12 {
            let changed = disk_change(&mut r, &current);
            std::fs::write(&path, &changed).unwrap();
            let before = ws.rereads();
            match ws.reload() {
                Ok(()) => {
                    if let Err(e) = same_as_fresh(&ws, &path) {
                        panic!(
                            "{name} step {step}: {e}\n(reread: {})",
                            ws.rereads() > before
                        );
                    }
                    current = changed;
                }
                // A change that does not load: the full path reports it; start again.
                Err(_) => {
                    std::fs::write(&path, &current).unwrap();
                    ws = Workspace::open(std::slice::from_ref(&path), None).unwrap();
                }
            }
        }
        rereads += ws.rereads();
    }
    eprintln!("rereads: {rereads}");
    assert!(rereads > 15, "only {rereads} incremental reloads");
}

/// `text` in a temp file, opened with the windowed path forced on (it is otherwise taken
/// only by files over 1 MB).
fn windowed(text: &str) -> (tempfile::TempDir, std::path::PathBuf, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.yaml");
    std::fs::write(&path, text).unwrap();
    let mut ws = Workspace::open(std::slice::from_ref(&path), None).unwrap();
    ws.set_verify_each_edit_bytes(0);
    (dir, path, ws)
}

/// A threshold the operator did not write: set and saved through the window, and its undo
/// (also through the window) removes the key again, leaving the file as it was.
#[test]
fn a_threshold_edit_and_its_undo_are_proven_in_the_operators_window() {
    let text = base().replacen("    threshold: 0.5\n", "", 1);
    let (_dir, path, mut ws) = windowed(&text);
    let set = Edit::SetThreshold {
        operator: "op0".into(),
        value: 0.8,
    };
    ws.apply(set).unwrap();
    ws.save_all().unwrap();
    assert_eq!(ws.windowed_saves(), 1);
    check_fresh(&ws, &path);
    let saved = std::fs::read_to_string(&path).unwrap();
    assert!(saved.contains("threshold: 0.8"), "{saved}");

    ws.undo().expect("one step to undo");
    ws.save_all().unwrap();
    check_fresh(&ws, &path);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        text,
        "the key is removed again"
    );
}

#[test]
fn an_operator_naming_an_unknown_action_takes_the_full_verify() {
    let text = base().replacen("    actions: [a4, ", "    actions: [nowhere, a4, ", 1);
    let (_dir, path, mut ws) = windowed(&text);
    let set = Edit::SetHops {
        operator: "op0".into(),
        value: 1,
    };
    ws.apply(set).unwrap();
    ws.save_all().unwrap();
    assert_eq!(
        ws.windowed_saves(),
        0,
        "the lone window cannot know `nowhere`"
    );
    check_fresh(&ws, &path);
}

/// Threshold and hops of one operator as one transaction (what the TUI writes on save):
/// both patched in the operator's lines, the save proven there, one undo takes both back.
#[test]
fn threshold_and_hops_as_one_step_are_proven_in_the_operators_window() {
    let text = base().replacen("    threshold: 0.5\n", "", 1);
    let (_dir, path, mut ws) = windowed(&text);
    let both = Transaction::from(vec![
        Edit::SetThreshold {
            operator: "op0".into(),
            value: 0.8,
        },
        Edit::SetHops {
            operator: "op0".into(),
            value: 1,
        },
    ]);
    ws.apply(both).unwrap();
    ws.save_all().unwrap();
    assert_eq!(ws.windowed_saves(), 1);
    check_fresh(&ws, &path);
    ws.undo().expect("one step to undo");
    ws.save_all().unwrap();
    check_fresh(&ws, &path);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text, "both undone");
}

/// Random pairs of edits applied as one transaction: the windowed path (same item) and the
/// full path give the same bytes and decisions.
#[test]
fn paired_edits_agree_on_both_paths() {
    let dir = tempfile::tempdir().unwrap();
    let mut windowed_total = 0;
    for (vi, (name, text)) in variants().into_iter().enumerate() {
        let probe = dir.path().join(format!("pair-probe-{name}.yaml"));
        std::fs::write(&probe, &text).unwrap();
        let ws = Workspace::open(&[probe], None).unwrap();
        let mut r = Rng(0x51ed_270b + vi as u64 * 104_729);
        for case in 0..8 {
            // Two edits on the same operator or action, so that many pairs share an item.
            let Some(first) = random_edit(&mut r, &ws) else {
                continue;
            };
            let second = match &first {
                Edit::SetThreshold { operator, .. } => Edit::SetHops {
                    operator: operator.clone(),
                    value: r.below(4) as u32,
                },
                Edit::SetHops { operator, .. } => Edit::SetThreshold {
                    operator: operator.clone(),
                    value: 0.25,
                },
                _ => match random_edit(&mut r, &ws) {
                    Some(e) => e,
                    None => continue,
                },
            };
            let pair = vec![first, second];
            let mut results = Vec::new();
            for windowed in [false, true] {
                let p = dir
                    .path()
                    .join(format!("pair-{name}-{case}-{windowed}.yaml"));
                std::fs::write(&p, &text).unwrap();
                let mut w = Workspace::open(std::slice::from_ref(&p), None).unwrap();
                if windowed {
                    w.set_verify_each_edit_bytes(0);
                }
                let ok = w
                    .apply(Transaction::from(pair.clone()))
                    .is_ok_and(|a| a.text_changed);
                let saved = ok && w.save_all().is_ok();
                if saved {
                    check_fresh(&w, &p);
                }
                windowed_total += w.windowed_saves();
                results.push((saved, std::fs::read_to_string(&p).unwrap()));
            }
            assert!(
                results[0] == results[1],
                "{name} case {case}: paths differ for {pair:?}"
            );
        }
    }
    assert!(windowed_total > 5, "only {windowed_total} windowed saves");
}
