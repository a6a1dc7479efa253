//! Two threads make the graph one thread makes: the same nodes, edges in the same order
//! with the same scores and origins, the same diagnostics and unresolved references.

use std::path::Path;

use super::{Chunk, Planned, SERIAL};
use crate::source::{Limits, load_text};
use crate::synth::{GenOptions, generate};

/// What a load gives, as text: the graph (nodes and edges in order, with weights), the
/// operators, the diagnostics and the unresolved references; or the error.
fn outcome(text: &str, two_threads_from: usize, max_memory: usize) -> String {
    let limits = Limits {
        two_threads_from,
        max_memory,
        ..Limits::default()
    };
    match load_text(Path::new("k.yaml"), text.to_string(), None, &limits) {
        Ok(f) => format!(
            "{:?}\n{:?}\n{:?}\n{:?}",
            f.toolkit.graph, f.toolkit.operators, f.diagnostics, f.unresolved
        ),
        Err(e) => format!("error {e:?}"),
    }
}

fn assert_same_both_ways(text: &str, max_memory: usize) {
    let one = outcome(text, usize::MAX, max_memory);
    let two = outcome(text, 1, max_memory);
    assert!(one == two, "one thread:\n{one}\n\ntwo threads:\n{two}");
}

/// Every way an action's items can go off the plan, spread over the actions so that each
/// lands in the first part on one length and in the rest on another.
const ODD_ACTIONS: [&str; 12] = [
    "  - name: implicit\n    tools: [undeclared_tool, t1]\n    next: [a0]\n",
    "  - name: elsewhere\n    next: [no_such_action, a1]\n",
    "  - name: dup\n    tools: [t1, t1, {name: t1, score: 0.2}]\n    next: [a0, a0]\n",
    "  - name: out of range\n    tools: [{name: t2, score: 1.5}]\n",
    "  - name: word score\n    tools: [{name: t2, score: high}]\n    next: [{name: a1, score: ~}]\n",
    "  - name: no name\n    tools: [{score: 0.5}, t0]\n",
    "  - name: not a list\n    tools: t1\n    next: {a: 1}\n",
    "  - name: nulls\n    tools:\n    next: null\n",
    "  - name: group and own\n    tools: [g0, {name: t0, score: 0.3}]\n",
    "  - name: empty group\n    tools: [{name: g_empty, score: 0.4}, same]\n",
    "  - name: aliased\n    tools: [*ref, *ref]\n    next: [{name: 'a0', score: 0.9}]\n",
    "  - name: a0\n    desc: declared twice\n",
];

fn odd_kit(actions: usize, rotate: usize) -> String {
    let mut text = String::from(
        "name: odd\ntools:\n  - name: t0\n  - name: t1\n  - name: t2\n  - name: same\n\
         groups:\n  - name: g0\n    tools: [t0, t1, newly_implicit]\n  - name: g_empty\n  \
         - name: same\n    tools: [t2]\nactions:\n",
    );
    for i in 0..actions {
        let next = (i * 7 + 3) % actions.max(1);
        text += &format!(
            "  - name: a{i}\n    tools: [{{name: t{}, score: 0.{}}}, g0]\n    next: [{{name: a{next}, score: 0.5}}]\n",
            i % 3,
            i % 10
        );
        if i == 1 {
            text += "  - name: anchor\n    tools: [&ref {name: t2, score: 0.6}]\n";
        }
        if i % 2 == 1 {
            let odd = ODD_ACTIONS[(i / 2 + rotate) % ODD_ACTIONS.len()];
            text += &odd.replace("name: ", &format!("name: x{i} ")).replacen(
                &format!("name: x{i} a0\n"),
                "name: a0\n",
                1,
            );
        }
    }
    text += "operators:\n  - name: op\n    actions: [a0]\n";
    text
}

#[test]
fn odd_items_anywhere_give_the_same_graph_and_diagnostics() {
    for actions in [0, 1, 2, 3, 5, 8, 13, 24, 40] {
        for rotate in 0..ODD_ACTIONS.len() {
            assert_same_both_ways(&odd_kit(actions, rotate), 2 << 30);
        }
    }
}

#[test]
fn generated_kits_over_several_chunks_give_the_same_graph() {
    for (actions, seed) in [(3000, 1), (5000, 7)] {
        let text = generate(GenOptions {
            actions,
            tools: None,
            seed,
        });
        assert_same_both_ways(&text, 2 << 30);
        // An undeclared tool and an unknown `next` deep in the second thread's part.
        let late = format!("a{}", actions * 9 / 10);
        let odd = text.replacen(
            &format!("  - name: {late}\n"),
            &format!("  - name: {late}\n    next: [nowhere]\n  - name: b{late}\n    tools: [fresh_tool]\n"),
            1,
        );
        assert!(odd != text, "the marker action exists");
        assert_same_both_ways(&odd, 2 << 30);
    }
}

#[test]
fn a_load_over_its_memory_budget_fails_the_same_way() {
    // Every action names the largest group: the plans would outgrow what the budget lets
    // the load make, so the second thread stops and the rest goes the serial way.
    let mut text = String::from("tools:\n");
    for t in 0..1000 {
        text += &format!("  - name: t{t}\n");
    }
    text += "groups:\n  - name: big\n    tools: [";
    text += &(0..1000)
        .map(|t| format!("t{t}"))
        .collect::<Vec<_>>()
        .join(", ");
    text += "]\nactions:\n";
    for a in 0..300 {
        text += &format!("  - name: a{a}\n    tools: [big]\n");
    }
    for budget in [8 << 20, 12 << 20, 2 << 30] {
        assert_same_both_ways(&text, budget);
    }
    assert!(outcome(&text, 1, 8 << 20).starts_with("error"));
}

#[test]
fn a_chunk_gives_each_action_its_own_edges() {
    let edge = |item| Planned {
        target: petgraph::stable_graph::NodeIndex::new(0),
        item,
        score: 1.0,
    };
    let chunk = Chunk {
        edges: vec![edge(1), edge(2), edge(3)],
        ends: vec![SERIAL, 2, 2, 2 | SERIAL, 3],
    };
    let items = |k| {
        chunk
            .edges(k)
            .map(|e| e.iter().map(|p| p.item).collect::<Vec<_>>())
    };
    assert_eq!(items(0), None);
    assert_eq!(items(1), Some(vec![1, 2]));
    assert_eq!(items(2), Some(vec![]));
    assert_eq!(items(3), None);
    assert_eq!(items(4), Some(vec![3]));
    assert_eq!(items(5), None);
}
