//! The step view's reasons and knots on a learned kit loaded through `load`.

use crate::layout::step::*;
use crate::model::NodeKind;
use crate::model::Toolkit;
use crate::recommend::{Params, Reason};
use crate::recommend::{explain, recommend};
use petgraph::stable_graph::NodeIndex;

/// A kit `init` + `fit --write` learned from 200 `gen` runs (30 tools, one action per
/// tool), thresholds set to `fit`'s suggestion: the shape of a learned kit.
fn kit() -> Toolkit {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/replay/learned-kit.yaml");
    crate::load::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit
}

fn tool(tk: &Toolkit, name: &str) -> NodeIndex {
    tk.find(NodeKind::Tool, name).expect(name)
}

fn action(tk: &Toolkit, name: &str) -> NodeIndex {
    tk.action(name).expect(name)
}

const P: Params = Params {
    threshold: 0.2,
    hops: 1,
};

#[test]
fn the_step_is_knotted_and_its_reasons_are_a_tree_of_explains_paths() {
    let tk = kit();
    // Held-out run 4 step 2: after t28 the run called t8, a miss.
    let seeds = vec![action(&tk, "call t28")];
    let rec = recommend(&tk, &seeds, P);
    assert!(
        is_knotted(&tk, &rec),
        "the learned step's members are dense"
    );
    let called = tool(&tk, "t8");
    assert!(!rec.contains(called));
    let r = Reasons::of(&tk, &seeds, P, &rec, Some(called));
    let d = r.drawn(&tk, &rec, usize::MAX);
    // Every member is drawn, with the last edge of the path explain gives it.
    for &m in rec.actions.iter().chain(&rec.tools) {
        assert!(d.nodes.contains(&m), "{} drawn", tk.name(m));
        let Some(ex) = explain(&tk, &seeds, P, m) else {
            panic!("explained")
        };
        match ex.reason {
            Reason::Seed => assert_eq!(r.via(m), None),
            Reason::Recommended { path } => {
                assert_eq!(r.via(m), path.last().map(|s| s.edge), "{}", tk.name(m))
            }
            other => panic!("{} is a member but {other:?}", tk.name(m)),
        }
    }
    // A tree: each drawn node has at most one tree edge in, whose source is drawn.
    for &n in &d.nodes {
        if let Some(e) = r.via(n) {
            let (u, v) = tk.graph.edge_endpoints(e).expect("edge");
            assert_eq!(v, n);
            assert!(d.nodes.contains(&u), "{} -> {}", tk.name(u), tk.name(v));
        }
    }
    // The called tool's path is explain's, and the edge that keeps it out is on it.
    let c = r.called.as_ref().expect("called");
    let ex = explain(&tk, &seeds, P, called).expect("explained");
    let want = match &ex.reason {
        Reason::Blocked { path, .. } | Reason::NeedsHops { path, .. } => path.clone(),
        other => panic!("t8 is a miss but {other:?}"),
    };
    assert_eq!(c.path, want);
    let k = c.keeping.expect("something keeps it out");
    assert!(c.path.contains(&k.step));
    assert_eq!(k.by_hops, k.step.score >= P.threshold);
    // About one edge per drawn node: the tree, the called path, the capped frontier.
    assert!(d.frontier.len() <= MOST_FRONTIER);
    let tree = d.nodes.len() - r.seeds.len();
    assert!(
        d.edges.len() <= tree + c.path.len() + d.frontier.len(),
        "{} edges for {} nodes",
        d.edges.len(),
        d.nodes.len()
    );
    for b in &d.frontier {
        assert!(!d.nodes.contains(&b.node));
        assert!(d.edges.contains(&b.edge));
    }
}

#[test]
fn a_step_that_does_not_fit_keeps_seeds_the_called_path_and_tools_by_rank() {
    let tk = kit();
    let seeds = vec![action(&tk, "call t3")];
    let rec = recommend(&tk, &seeds, P);
    let called = tool(&tk, "t19");
    let r = Reasons::of(&tk, &seeds, P, &rec, Some(called));
    assert_eq!(r.ranked.len(), rec.tools.len());
    for w in r.ranked.windows(2) {
        assert!(w[0].1 >= w[1].1, "ranked by the score that offers each");
    }
    let d = r.drawn(&tk, &rec, 3);
    assert_eq!(d.untold, rec.tools.len() - 3);
    assert_eq!(d.nodes[0], seeds[0]);
    let c = r.called.as_ref().expect("called");
    let at = |n: NodeIndex| d.nodes.iter().position(|&x| x == n).expect("drawn");
    // The called tool and its path come before any offered tool that is not on it.
    let called_at = at(called);
    for s in &c.path {
        assert!(at(s.to) <= called_at);
    }
    let top: Vec<NodeIndex> = r.ranked.iter().take(3).map(|p| p.0).collect();
    for t in &top {
        assert!(d.nodes.contains(t), "{} of the top 3", tk.name(*t));
    }
    for (t, _) in r.ranked.iter().skip(3) {
        if !c.path.iter().any(|s| s.to == *t) {
            assert!(!d.nodes.contains(t), "{} is past the cut", tk.name(*t));
        }
    }
}

#[test]
fn a_hit_has_its_path_and_nothing_keeping_it_out() {
    let tk = kit();
    let seeds = vec![action(&tk, "call t28")];
    let rec = recommend(&tk, &seeds, P);
    let hit = rec.tools[0];
    let r = Reasons::of(&tk, &seeds, P, &rec, Some(hit));
    let c = r.called.as_ref().expect("called");
    assert_eq!(c.keeping, None);
    assert_eq!(c.path.last().map(|s| s.to), Some(hit));
    assert_eq!(c.path.last().map(|s| s.edge), r.via(hit));
}
