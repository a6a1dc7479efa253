//! The layered layout of the bundled example and of a Chat2Graph fixture, both loaded
//! through `load` (this crate's), so these tests live here rather than in toolscope-base.

use crate::layout::*;
use crate::load::load_example;
use crate::model::Toolkit;
use crate::model::{EdgeKind, NodeKind};
use petgraph::visit::NodeIndexable;

mod focus;
mod pack;
mod step;

fn example() -> Toolkit {
    load_example().toolkit
}

#[test]
fn every_node_is_placed_once() {
    let tk = example();
    let l = Layout::compute(&tk);
    let placed: usize = l.layers.iter().map(Vec::len).sum();
    assert_eq!(placed, tk.graph.node_count());
    for ix in tk.graph.node_indices() {
        let s = l.slot(ix).expect("placed");
        assert_eq!(l.layers[s.layer as usize][s.order as usize], ix);
    }
}

#[test]
fn tools_sit_after_their_home_and_next_edges_mostly_point_forward() {
    let tk = example();
    let l = Layout::compute(&tk);
    let mut backward = 0;
    for e in tk.graph.edge_indices() {
        let Some((u, v)) = tk.graph.edge_endpoints(e) else {
            continue;
        };
        let (lu, lv) = (l.slot(u).unwrap().layer, l.slot(v).unwrap().layer);
        match tk.graph[e].kind {
            EdgeKind::Call | EdgeKind::Has => {
                // Right after its home: its group if it has one, else its shallowest caller.
                let callers: Vec<_> = tk.in_edges(v).map(|(_, c)| c).collect();
                let group = callers.iter().find(|&&c| tk.kind(c) == NodeKind::Group);
                let home = match group {
                    Some(&g) => l.slot(g).unwrap().layer + 1,
                    None => callers
                        .iter()
                        .map(|&c| l.slot(c).unwrap().layer + 1)
                        .min()
                        .unwrap(),
                };
                // Other callers may sit deeper: the drawing names the tool beside them.
                assert_eq!(lv, home, "{}", tk.edge_label(e));
                let _ = lu;
            }
            EdgeKind::Next if lu >= lv => backward += 1,
            EdgeKind::Next => {}
        }
    }
    // The example has two cycles: concept_identification <-> content_understanding and
    // schema_design <-> graph_validation; one edge of each goes back.
    assert_eq!(backward, 2);
}

#[test]
fn chain_is_layered_in_order() {
    let tk = example();
    let l = Layout::compute(&tk);
    let layer = |n: &str| l.slot(tk.action(n).unwrap()).unwrap().layer;
    assert!(layer("query_intention") < layer("condition_validation"));
    assert!(layer("condition_validation") < layer("query_design"));
    assert!(layer("query_design") < layer("query_execution"));
    let tool = tk.find(NodeKind::Tool, "browser_read").unwrap();
    let group = tk.find(NodeKind::Group, "web").unwrap();
    assert!(l.slot(group).unwrap().layer < l.slot(tool).unwrap().layer);
}

#[test]
fn score_changes_keep_the_key_and_structure_changes_change_it() {
    let mut tk = example();
    let key = structure_key(&tk);
    let (u, v) = (
        tk.action("query_design").unwrap(),
        tk.action("query_execution").unwrap(),
    );
    tk.set_score(u, v, 0.1);
    assert_eq!(structure_key(&tk), key);
    let mut cache = LayoutCache::default();
    let first = cache.get(&tk).clone();
    tk.set_score(u, v, 0.2);
    assert_eq!(cache.get(&tk), &first);
    let w = tk.action("data_import").unwrap();
    tk.add_edge(u, w, 0.5, None);
    assert_ne!(structure_key(&tk), key);
    assert_ne!(cache.get(&tk).key, first.key);
}

#[test]
fn subset_lays_out_only_kept_nodes() {
    let tk = example();
    let mut keep = vec![false; tk.graph.node_bound()];
    for n in ["query_design", "query_execution"] {
        keep[tk.action(n).unwrap().index()] = true;
    }
    let l = Layout::compute_subset(&tk, Some(&keep));
    assert_eq!(l.layers.len(), 2);
    assert!(l.slot(tk.action("query_intention").unwrap()).is_none());
}

#[test]
fn self_loops_and_pure_cycles_terminate() {
    let mut tk = Toolkit::new();
    let a = tk.add_node(crate::model::Node::new(NodeKind::Action, "a"));
    let b = tk.add_node(crate::model::Node::new(NodeKind::Action, "b"));
    tk.add_edge(a, a, 1.0, None);
    tk.add_edge(a, b, 1.0, None);
    tk.add_edge(b, a, 1.0, None);
    let l = Layout::compute(&tk);
    assert_eq!(l.layers.iter().map(Vec::len).sum::<usize>(), 2);
}

/// Issue 11: a tool shared along a long flattened chain sits after its first caller, not
/// twenty layers away after its last one.
#[test]
fn a_shared_tool_sits_beside_its_first_caller() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/chat2graph-flat.yml");
    let tk = crate::load::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit;
    let l = Layout::compute(&tk);
    let layer = |n: &str| {
        let ix = tk.graph.node_indices().find(|&i| tk.name(i) == n).expect(n);
        l.slot(ix).expect("placed").layer
    };
    assert_eq!(layer("DocumentReader"), layer("content_understanding") + 1);
    assert_eq!(layer("SchemaGetter"), layer("schema_design_and_import") + 1);
    assert!(layer("content_understanding_3") > layer("DocumentReader") + 10);
}
