//! The focus view's fold and frontier on a Chat2Graph fixture loaded through `load`.

use crate::layout::focus::*;
use crate::model::Toolkit;
use crate::recommend::{Params, recommend, resolve_seeds};
use petgraph::stable_graph::NodeIndex;
use petgraph::visit::NodeIndexable;
use std::collections::HashSet;

fn fixture() -> Toolkit {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/chat2graph-flat.yml");
    crate::load::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit
}

const CELLS: Cells = Cells { cap: 28, gap: 12 };

#[test]
fn frontier_is_one_edge_beyond_with_the_best_blocking_edge() {
    let tk = fixture();
    let (seeds, _) = resolve_seeds(&tk, &["knowledge_base_retrieving"]);
    let rec = recommend(
        &tk,
        &seeds,
        Params {
            threshold: 0.75,
            hops: 1,
        },
    );
    let members: Vec<NodeIndex> = rec.actions.iter().chain(&rec.tools).copied().collect();
    let f = frontier(&tk, &members, &|ix| rec.contains(ix));
    let names: Vec<&str> = f.iter().map(|b| tk.name(b.node)).collect();
    assert_eq!(names, vec!["internet_retrieving"]);
    assert_eq!(f[0].score, 0.7);
}

#[test]
fn a_long_chain_folds_to_the_width_and_every_slot_is_unique() {
    let tk = fixture();
    let keep = vec![true; tk.graph.node_bound()];
    for width in [60, 120, 200] {
        let f = fit(&tk, &keep, &|_| true, width, CELLS);
        let widths: Vec<usize> = f
            .layout
            .label_width
            .iter()
            .map(|&w| usize::from(w))
            .collect();
        assert!(f.cols == 1 || CELLS.width(&widths) <= width, "{width}");
        let mut seen = HashSet::new();
        for (ix, s) in f.layout.placed() {
            assert!(s.layer < f.cols);
            assert!(
                seen.insert((s.layer, s.order)),
                "{} shares a slot",
                tk.name(ix)
            );
        }
        assert_eq!(seen.len(), tk.graph.node_count());
    }
}

#[test]
fn a_tool_sits_after_its_home_caller() {
    let tk = fixture();
    let keep = vec![true; tk.graph.node_bound()];
    let f = fit(&tk, &keep, &|_| true, 100_000, CELLS);
    let slot = |n: &str| {
        let ix = tk.graph.node_indices().find(|&i| tk.name(i) == n).expect(n);
        f.layout.slot(ix).expect("placed")
    };
    assert_eq!(
        slot("DocumentReader").layer,
        slot("content_understanding").layer + 1
    );
}
