use std::collections::BTreeSet;

use proptest::prelude::*;

use super::*;
use crate::model::{Node, NodeKind, Toolkit};

/// Chat2Graph's own unit-test fixture (test_toolkit.py).
fn fixture() -> Toolkit {
    let mut tk = Toolkit::new();
    for a in ["a1", "a2", "a3", "a4"] {
        tk.add_action(Node::new(NodeKind::Action, a), &[], &[]);
    }
    for (u, v, s) in [
        ("a1", "a2", 0.8),
        ("a1", "a3", 0.6),
        ("a2", "a3", 0.7),
        ("a2", "a4", 0.9),
        ("a3", "a4", 0.7),
    ] {
        tk.add_action(Node::new(NodeKind::Action, u), &[(v, s)], &[]);
    }
    for (a, t, s) in [
        ("a1", "t1", 0.9),
        ("a2", "t2", 0.8),
        ("a3", "t3", 0.9),
        ("a4", "t4", 0.8),
    ] {
        tk.add_tool(Node::new(NodeKind::Tool, t), &[(a, s)]);
    }
    tk
}

fn names(tk: &Toolkit, rec: &Recommendation) -> BTreeSet<String> {
    rec.actions
        .iter()
        .chain(rec.tools.iter())
        .map(|ix| tk.name(*ix).to_string())
        .collect()
}

fn run(tk: &Toolkit, seeds: &[&str], t: f64, h: u32) -> Recommendation {
    let (seeds, _) = resolve_seeds(tk, seeds);
    recommend(
        tk,
        &seeds,
        Params {
            threshold: t,
            hops: h,
        },
    )
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn chat2graph_fixture_hops_0() {
    let tk = fixture();
    let rec = run(&tk, &["a1"], 0.5, 0);
    assert_eq!(names(&tk, &rec), set(&["a1", "t1"]));
    assert_eq!(rec.edges.len(), 1);
}

#[test]
fn chat2graph_fixture_hops_1() {
    let tk = fixture();
    let rec = run(&tk, &["a1"], 0.5, 1);
    assert_eq!(names(&tk, &rec), set(&["a1", "a2", "a3", "t1", "t2", "t3"]));
    assert_eq!(rec.edges.len(), 6);
}

#[test]
fn chat2graph_fixture_high_threshold() {
    let tk = fixture();
    let rec = run(&tk, &["a1"], 0.8, 2);
    assert!(!rec.edges.is_empty());
    for e in &rec.edges {
        assert!(tk.graph[*e].score >= 0.8);
    }
    assert_eq!(names(&tk, &rec), set(&["a1", "a2", "a4", "t1", "t2", "t4"]));
}

#[test]
fn chat2graph_fixture_two_seeds() {
    let tk = fixture();
    let rec = run(&tk, &["a1", "a3"], 0.6, 1);
    assert_eq!(rec.len(), 8);
    assert_eq!(rec.edges.len(), 9);
}

#[test]
fn threshold_comparison_is_inclusive() {
    let tk = fixture();
    let rec = run(&tk, &["a1"], 0.6, 1);
    assert!(names(&tk, &rec).contains("a3"), "a1->a3 scores exactly 0.6");
    let rec = run(&tk, &["a1"], 0.6000001, 1);
    assert!(!names(&tk, &rec).contains("a3"));
}

#[test]
fn unknown_seeds_and_tool_seeds_are_ignored() {
    let tk = fixture();
    let rec = run(&tk, &["nope", "t1"], 0.5, 3);
    assert!(rec.is_empty());
    let (_, unknown) = resolve_seeds(&tk, &["a1", "nope"]);
    assert_eq!(unknown, vec!["nope"]);
}

#[test]
fn induced_edges_count_even_when_not_walked() {
    let mut tk = fixture();
    // a back edge a3 -> a1 is never walked from seed a1, but both ends are recommended.
    tk.add_action(Node::new(NodeKind::Action, "a3"), &[("a1", 0.95)], &[]);
    let rec = run(&tk, &["a1"], 0.5, 1);
    let a3 = tk.action("a3").unwrap();
    let a1 = tk.action("a1").unwrap();
    assert!(rec.edges.contains(&tk.edge(a3, a1).unwrap()));
}

#[test]
fn self_loops_and_member_less_groups() {
    let mut tk = fixture();
    tk.add_action(Node::new(NodeKind::Action, "a1"), &[("a1", 0.9)], &[]);
    tk.add_tool_group(Node::new(NodeKind::Group, "mcp"), vec![], &[("a1", 0.7)]);
    let rec = run(&tk, &["a1"], 0.5, 0);
    assert!(names(&tk, &rec).contains("mcp"));
    let a1 = tk.action("a1").unwrap();
    assert!(rec.edges.contains(&tk.edge(a1, a1).unwrap()));
}

#[test]
fn groups_reached_only_through_has_are_left_out() {
    let mut tk = fixture();
    tk.add_tool_group(
        Node::new(NodeKind::Group, "browser"),
        vec![Node::new(NodeKind::Tool, "nav")],
        &[("a1", 0.9)],
    );
    let rec = run(&tk, &["a1"], 0.5, 0);
    let got = names(&tk, &rec);
    assert!(got.contains("nav"));
    assert!(!got.contains("browser"));
}

#[test]
fn filters_drop_disabled_and_exclusive_and_honour_choices() {
    let mut tk = fixture();
    let t2 = tk.find(NodeKind::Tool, "t2").unwrap();
    let t3 = tk.find(NodeKind::Tool, "t3").unwrap();
    tk.node_mut(t2).meta.as_mut().unwrap().enabled = false;
    tk.node_mut(t3).meta.as_mut().unwrap().exclusive = true;
    let rec = run(&tk, &["a1"], 0.5, 1);
    let offered = |f: &ToolFilters| -> Vec<String> {
        offered_tools(&tk, &rec, f)
            .into_iter()
            .map(|ix| tk.name(ix).to_string())
            .collect()
    };
    assert_eq!(offered(&ToolFilters::default()), vec!["t1"]);
    let chosen = ToolFilters {
        chosen: vec!["t1".into(), "t3".into()],
    };
    assert_eq!(
        offered(&chosen),
        vec!["t3"],
        "a chosen exclusive tool stands alone"
    );
    let chosen = ToolFilters {
        chosen: vec!["t1".into()],
    };
    assert_eq!(offered(&chosen), vec!["t1"]);
}

/// The algorithm exactly as Chat2Graph writes it, over names: frontier sets of walks,
/// re-visits included, early stop on an empty frontier.
fn reference(
    tk: &Toolkit,
    seeds: &[String],
    t: f64,
    h: u32,
) -> (BTreeSet<String>, BTreeSet<(String, String)>) {
    let is_action = |n: &str| tk.action(n).is_some();
    let succ = |n: &str| -> Vec<(String, f64, bool)> {
        let mut v = Vec::new();
        for ix in tk.named(n) {
            for (e, w) in tk.out_edges(ix) {
                v.push((
                    tk.name(w).to_string(),
                    tk.graph[e].score,
                    tk.kind(w) == NodeKind::Action,
                ));
            }
        }
        v
    };
    let mut keep: BTreeSet<String> = seeds.iter().filter(|s| is_action(s)).cloned().collect();
    let mut current = keep.clone();
    for _ in 0..h {
        let mut next = BTreeSet::new();
        for v in &current {
            for (w, s, w_action) in succ(v) {
                if w_action && s >= t {
                    next.insert(w.clone());
                    keep.insert(w);
                }
            }
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    let actions = keep.clone();
    for a in &actions {
        for (w, s, w_action) in succ(a) {
            if !w_action && s >= t {
                keep.insert(w);
            }
        }
    }
    let mut edges = BTreeSet::new();
    for e in tk.graph.edge_indices() {
        let (u, w) = tk.graph.edge_endpoints(e).unwrap();
        if keep.contains(tk.name(u)) && keep.contains(tk.name(w)) && tk.graph[e].score >= t {
            edges.insert((tk.name(u).to_string(), tk.name(w).to_string()));
        }
    }
    (keep, edges)
}

/// Random graphs with distinct names across kinds (as Chat2Graph's ids are distinct).
fn random_toolkit() -> impl Strategy<Value = Toolkit> {
    (2usize..12, 0usize..8).prop_flat_map(|(na, nt)| {
        let next = prop::collection::vec((0..na, 0..na, 0u8..=10), 0..na * 3);
        let call = prop::collection::vec((0..na, 0..nt.max(1), 0u8..=10), 0..nt * 2 + 1);
        (Just(na), Just(nt), next, call).prop_map(|(na, nt, next, call)| {
            let mut tk = Toolkit::new();
            for i in 0..na {
                tk.add_action(Node::new(NodeKind::Action, format!("a{i}")), &[], &[]);
            }
            for (u, v, s) in next {
                let (u, v) = (
                    tk.action(&format!("a{u}")).unwrap(),
                    tk.action(&format!("a{v}")).unwrap(),
                );
                tk.add_edge(u, v, f64::from(s) / 10.0, None);
            }
            if nt > 0 {
                for (a, t, s) in call {
                    let name = format!("t{t}");
                    tk.add_tool(
                        Node::new(NodeKind::Tool, name),
                        &[(&format!("a{a}"), f64::from(s) / 10.0)],
                    );
                }
            }
            tk
        })
    })
}

proptest! {
    #[test]
    fn matches_the_reference(tk in random_toolkit(), seeds in prop::collection::vec(0usize..14, 0..4), t in 0u8..=11, h in 0u32..5) {
        let seeds: Vec<String> = seeds.iter().map(|i| format!("a{i}")).collect();
        let t = f64::from(t) / 10.0;
        let (want_nodes, want_edges) = reference(&tk, &seeds, t, h);
        let (ix, _) = resolve_seeds(&tk, &seeds);
        let rec = recommend(&tk, &ix, Params { threshold: t, hops: h });
        let got_nodes: BTreeSet<String> = rec.actions.iter().chain(rec.tools.iter()).map(|i| tk.name(*i).to_string()).collect();
        let got_edges: BTreeSet<(String, String)> = rec.edges.iter().map(|e| {
            let (u, w) = tk.graph.edge_endpoints(*e).unwrap();
            (tk.name(u).to_string(), tk.name(w).to_string())
        }).collect();
        prop_assert_eq!(got_nodes, want_nodes);
        prop_assert_eq!(got_edges, want_edges);
    }
}
