//! Critical values, the sweep, fewest hops and explain checked against brute force:
//! `recommend` run at every relevant threshold and hop count on random graphs.

use proptest::prelude::*;

use super::*;
use crate::model::{Node, NodeKind, Toolkit};

/// Random toolkits with tools, member-less groups called directly, groups with members,
/// self loops, and a few scores outside [0, 1].
fn random_toolkit() -> impl Strategy<Value = Toolkit> {
    let score = prop_oneof![8 => (0u8..=10).prop_map(|s| f64::from(s) / 10.0), 1 => Just(1.5), 1 => Just(-0.2)];
    (1usize..9, 0usize..6, 0usize..3).prop_flat_map(move |(na, nt, ng)| {
        let next = prop::collection::vec((0..na, 0..na, score.clone()), 0..na * 3);
        let call = prop::collection::vec(
            (0..na, 0..(nt + ng).max(1), score.clone()),
            0..(nt + ng) * 2 + 1,
        );
        let has = prop::collection::vec((0..ng.max(1), 0..nt.max(1)), 0..nt + 1);
        (Just((na, nt, ng)), next, call, has).prop_map(build)
    })
}

type Spec = (
    (usize, usize, usize),
    Vec<(usize, usize, f64)>,
    Vec<(usize, usize, f64)>,
    Vec<(usize, usize)>,
);

fn build(((na, nt, ng), next, call, has): Spec) -> Toolkit {
    let mut tk = Toolkit::new();
    let actions: Vec<_> = (0..na)
        .map(|i| tk.add_node(Node::new(NodeKind::Action, format!("a{i}"))))
        .collect();
    let tools: Vec<_> = (0..nt)
        .map(|i| tk.add_node(Node::new(NodeKind::Tool, format!("t{i}"))))
        .collect();
    let groups: Vec<_> = (0..ng)
        .map(|i| tk.add_node(Node::new(NodeKind::Group, format!("g{i}"))))
        .collect();
    for (u, v, s) in next {
        tk.add_edge(actions[u], actions[v], s, None);
    }
    let targets: Vec<_> = tools.iter().chain(groups.iter()).copied().collect();
    for (a, t, s) in call {
        if let Some(&t) = targets.get(t) {
            tk.add_edge(actions[a], t, s, None);
        }
    }
    for (g, t) in has {
        if let (Some(&g), Some(&t)) = (groups.get(g), tools.get(t)) {
            tk.add_edge(g, t, 1.0, None);
        }
    }
    tk
}

/// Every distinct score, a little above and below each, and values outside all scores.
fn thresholds(tk: &Toolkit) -> Vec<f64> {
    let mut ts = vec![-1.0, 0.0, 1.0, 2.0];
    for e in tk.graph.edge_indices() {
        let s = tk.graph[e].score;
        ts.extend([s, s - 1e-9, s + 1e-9]);
    }
    ts.sort_by(f64::total_cmp);
    ts.dedup();
    ts
}

fn seeds_of(tk: &Toolkit, picks: &[usize]) -> Vec<NodeIndex> {
    let names: Vec<String> = picks.iter().map(|i| format!("a{i}")).collect();
    resolve_seeds(tk, &names).0
}

fn rec(tk: &Toolkit, seeds: &[NodeIndex], t: f64, h: u32) -> Recommendation {
    recommend(
        tk,
        seeds,
        Params {
            threshold: t,
            hops: h,
        },
    )
}

/// Enough hops to reach anything reachable.
fn all_hops(tk: &Toolkit) -> u32 {
    tk.graph.node_count() as u32 + 1
}

/// Checks a path: starts at a seed, contiguous, ends at `node`, every score `>= t`,
/// `Next` edges only except a final `Call` into a tool; returns its `Next` hop count.
fn check_path(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    path: &[PathStep],
    node: NodeIndex,
    t: Option<f64>,
) -> Result<u32, TestCaseError> {
    prop_assert!(!path.is_empty());
    prop_assert!(seeds.contains(&path[0].from), "path starts at a seed");
    for w in path.windows(2) {
        prop_assert_eq!(w[0].to, w[1].from);
    }
    prop_assert_eq!(path[path.len() - 1].to, node);
    for (i, s) in path.iter().enumerate() {
        prop_assert_eq!(tk.graph.edge_endpoints(s.edge), Some((s.from, s.to)));
        let last = i + 1 == path.len();
        prop_assert!(s.kind == EdgeKind::Next || (last && s.kind == EdgeKind::Call));
        if let Some(t) = t {
            prop_assert!(s.score >= t);
        }
    }
    Ok(path.iter().filter(|s| s.kind == EdgeKind::Next).count() as u32)
}

/// The highest candidate threshold at which `node` is recommended at `h` hops.
fn best_threshold(tk: &Toolkit, seeds: &[NodeIndex], node: NodeIndex, h: u32) -> Option<f64> {
    thresholds(tk)
        .into_iter()
        .rev()
        .find(|&t| rec(tk, seeds, t, h).contains(node))
}

/// Fewest hops at which `node` is recommended at threshold `t`.
fn fewest(tk: &Toolkit, seeds: &[NodeIndex], node: NodeIndex, t: f64) -> Option<u32> {
    (0..=all_hops(tk)).find(|&h| rec(tk, seeds, t, h).contains(node))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn critical_values_and_sweep_match_recommend(tk in random_toolkit(), picks in prop::collection::vec(0usize..10, 0..4)) {
        let seeds = seeds_of(&tk, &picks);
        for h in 0..=4 {
            let crit = Critical::compute(&tk, &seeds, h);
            let sweep = crit.sweep(&tk);
            let flat = Critical::compute_in(&tk, &Adjacency::new(&tk), &seeds, h);
            prop_assert_eq!(flat.sweep(&tk), sweep.clone(), "same sweep over flat rows");
            let mut others = vec![flat, Critical::compute_in(&tk, &tk, &seeds, h)];
            others.extend((0..4).map(|big| Critical::compute_switching(&tk, &seeds, h, big)));
            for other in &others {
                prop_assert_eq!(other.sweep(&tk), sweep.clone(), "same sweep on every path");
                for ix in tk.graph.node_indices() {
                    prop_assert_eq!(other.get(ix), crit.get(ix));
                }
            }
            for w in sweep.steps.windows(2) {
                prop_assert!(w[0].threshold > w[1].threshold, "steps descend strictly");
            }
            for step in &sweep.steps {
                let r = rec(&tk, &seeds, step.threshold, h);
                prop_assert_eq!((step.actions, step.tools), (r.actions.len(), r.tools.len()));
            }
            for t in thresholds(&tk) {
                let r = rec(&tk, &seeds, t, h);
                for ix in tk.graph.node_indices() {
                    prop_assert_eq!(crit.recommended_at(ix, t), r.contains(ix), "node {} t {} h {}", tk.name(ix), t, h);
                }
                prop_assert_eq!(sweep.counts_at(t), (r.actions.len(), r.tools.len()), "t {} h {}", t, h);
            }
            for (t, a, tools) in sweep.samples(-0.5, 1.5, 9) {
                let r = rec(&tk, &seeds, t, h);
                prop_assert_eq!((a, tools), (r.actions.len(), r.tools.len()), "sample at {}", t);
                prop_assert!(a + tools <= sweep.max_total());
            }
            let top = rec(&tk, &seeds, 1e9, h);
            prop_assert_eq!(sweep.always, (top.actions.len(), top.tools.len()));
        }
    }

    #[test]
    fn fewest_hops_match_recommend(tk in random_toolkit(), picks in prop::collection::vec(0usize..10, 0..4), ti in 0usize..64) {
        let seeds = seeds_of(&tk, &picks);
        let ts = thresholds(&tk);
        let t = ts[ti % ts.len()];
        let hc = HopCounts::compute(&tk, &seeds, t);
        let flat = HopCounts::compute_in(&tk, &Adjacency::new(&tk), &seeds, t);
        for ix in tk.graph.node_indices() {
            prop_assert_eq!(hc.get(ix), fewest(&tk, &seeds, ix, t), "node {}", tk.name(ix));
            prop_assert_eq!(flat.get(ix), hc.get(ix));
        }
    }

    #[test]
    fn explain_agrees_with_recommend(tk in random_toolkit(), picks in prop::collection::vec(0usize..10, 0..4), ti in 0usize..64, h in 0u32..5) {
        let seeds = seeds_of(&tk, &picks);
        let ts = thresholds(&tk);
        let t = ts[ti % ts.len()];
        let params = Params { threshold: t, hops: h };
        let r = recommend(&tk, &seeds, params);
        let before = r.clone();
        let adj = Adjacency::new(&tk);
        let insight = Insight::compute_in(&tk, &adj, &seeds, params);
        for ix in tk.graph.node_indices() {
            let ex = explain(&tk, &seeds, params, ix).expect("node exists");
            prop_assert_eq!(ex.is_recommended(), r.contains(ix), "node {}", tk.name(ix));
            check_reason(&tk, &seeds, params, ix, &ex)?;
            let flat = explain_with(&tk, &adj, &seeds, params, &insight, ix).expect("node exists");
            check_reason(&tk, &seeds, params, ix, &flat)?;
        }
        prop_assert_eq!(recommend(&tk, &seeds, params), before, "explain changes nothing");
    }
}

fn check_reason(
    tk: &Toolkit,
    seeds: &[NodeIndex],
    p: Params,
    ix: NodeIndex,
    ex: &Explanation,
) -> Result<(), TestCaseError> {
    let (t, h) = (p.threshold, p.hops);
    let deep = all_hops(tk);
    let in_at = |t: f64, h: u32| rec(tk, seeds, t, h).contains(ix);
    match ex.critical {
        Some(c) if c == f64::INFINITY => prop_assert!(seeds.contains(&ix)),
        c => prop_assert_eq!(c, best_threshold(tk, seeds, ix, h), "critical value"),
    }
    match &ex.reason {
        Reason::Seed => prop_assert!(seeds.contains(&ix)),
        Reason::Recommended { path } => {
            let k = check_path(tk, seeds, path, ix, Some(t))?;
            prop_assert!(k <= h);
            prop_assert_eq!(Some(k), fewest(tk, seeds, ix, t), "shortest");
        }
        Reason::GroupNotCalled => {
            prop_assert_eq!(tk.kind(ix), NodeKind::Group);
            prop_assert!(!in_at(-1.0, deep));
        }
        Reason::Unreachable => prop_assert!(thresholds(tk).iter().all(|&t| !in_at(t, deep))),
        Reason::NeedsHops {
            hops,
            path,
            enter_at,
        } => {
            prop_assert!(*hops > h);
            prop_assert_eq!(check_path(tk, seeds, path, ix, Some(t))?, *hops);
            prop_assert!(in_at(t, *hops) && !in_at(t, *hops - 1));
            prop_assert_eq!(*enter_at, best_threshold(tk, seeds, ix, h));
        }
        Reason::Blocked {
            path,
            blocking,
            enter_at,
            with_more_hops,
        } => {
            prop_assert!(!in_at(t, deep), "no hop count helps at this threshold");
            prop_assert!(!blocking.is_empty());
            prop_assert!(blocking.iter().all(|b| b.score < t && path.contains(b)));
            check_path(tk, seeds, path, ix, None)?;
            let low = path.iter().map(|s| s.score).fold(f64::INFINITY, f64::min);
            match (enter_at, with_more_hops) {
                (Some(c), None) => {
                    prop_assert!(*c < t);
                    prop_assert_eq!(Some(*c), best_threshold(tk, seeds, ix, h));
                    prop_assert_eq!(low, *c);
                }
                (None, Some((c, k))) => {
                    prop_assert_eq!(best_threshold(tk, seeds, ix, h), None);
                    prop_assert_eq!(Some(*c), best_threshold(tk, seeds, ix, deep));
                    prop_assert!(*k > h && in_at(*c, *k) && !in_at(*c, *k - 1));
                    prop_assert_eq!(low, *c);
                }
                _ => prop_assert!(false, "exactly one of enter_at and with_more_hops"),
            }
        }
    }
    Ok(())
}

/// Chat2Graph's own fixture with a hand-checked explanation of each kind of reason.
#[test]
fn explains_the_fixture() {
    let mut tk = Toolkit::new();
    for a in ["a1", "a2", "a3", "a4", "a5"] {
        tk.add_action(Node::new(NodeKind::Action, a), &[], &[]);
    }
    for (u, v, s) in [
        ("a1", "a2", 0.8),
        ("a1", "a3", 0.6),
        ("a2", "a4", 0.9),
        ("a3", "a4", 0.7),
    ] {
        tk.add_action(Node::new(NodeKind::Action, u), &[(v, s)], &[]);
    }
    tk.add_tool(Node::new(NodeKind::Tool, "t4"), &[("a4", 0.8)]);
    let seeds = resolve_seeds(&tk, &["a1"]).0;
    let p = Params {
        threshold: 0.7,
        hops: 1,
    };
    let ex = |n: &str, kind| explain(&tk, &seeds, p, tk.find(kind, n).unwrap()).unwrap();
    assert_eq!(ex("a1", NodeKind::Action).reason, Reason::Seed);
    assert!(
        matches!(ex("a2", NodeKind::Action).reason, Reason::Recommended { ref path } if path.len() == 1)
    );
    match ex("a3", NodeKind::Action).reason {
        Reason::Blocked {
            blocking, enter_at, ..
        } => {
            assert_eq!(enter_at, Some(0.6));
            assert_eq!(blocking.len(), 1);
            assert_eq!(blocking[0].score, 0.6);
        }
        other => panic!("a3: {other:?}"),
    }
    assert!(matches!(
        ex("a4", NodeKind::Action).reason,
        Reason::NeedsHops {
            hops: 2,
            enter_at: None,
            ..
        }
    ));
    assert!(matches!(
        ex("t4", NodeKind::Tool).reason,
        Reason::NeedsHops { hops: 2, .. }
    ));
    assert_eq!(ex("a5", NodeKind::Action).reason, Reason::Unreachable);
    let lines = ex("a3", NodeKind::Action).lines(&tk);
    assert!(lines[0].contains("a1 -> a3 (0.6)"), "{lines:?}");
    let crit = Critical::compute(&tk, &seeds, 2);
    assert_eq!(crit.get(tk.find(NodeKind::Tool, "t4").unwrap()), Some(0.8));
    let sweep = crit.sweep(&tk);
    let got: Vec<(f64, usize, usize)> = sweep
        .steps
        .iter()
        .map(|s| (s.threshold, s.actions, s.tools))
        .collect();
    assert_eq!(got, vec![(0.8, 3, 1), (0.6, 4, 1)]);
}

/// A value must travel at most one edge per round: `z` is two hops away only through the
/// narrow `s -> x`, while the wide route to `x` takes two hops itself.
#[test]
fn critical_values_respect_the_hop_bound() {
    for flip in [false, true] {
        let mut tk = Toolkit::new();
        for a in ["s", "x", "y", "z"] {
            tk.add_action(Node::new(NodeKind::Action, a), &[], &[]);
        }
        let mut edges = vec![
            ("s", "x", 0.5),
            ("s", "y", 0.9),
            ("y", "x", 0.9),
            ("x", "z", 0.9),
        ];
        if flip {
            edges.reverse();
        }
        for (u, v, s) in edges {
            tk.add_action(Node::new(NodeKind::Action, u), &[(v, s)], &[]);
        }
        let seeds = resolve_seeds(&tk, &["s"]).0;
        let z = tk.action("z").unwrap();
        assert_eq!(
            Critical::compute(&tk, &seeds, 2).get(z),
            Some(0.5),
            "flip {flip}"
        );
        assert_eq!(
            Critical::compute(&tk, &seeds, 3).get(z),
            Some(0.9),
            "flip {flip}"
        );
    }
}
