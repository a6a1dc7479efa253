//! Packing a focus into columns on a Chat2Graph fixture loaded through `load`.

use crate::layout::focus::frontier;
use crate::layout::pack::*;
use crate::model::Toolkit;
use crate::recommend::{Params, recommend, resolve_seeds};
use petgraph::stable_graph::NodeIndex;
use std::collections::HashSet;

fn fixture() -> Toolkit {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/chat2graph-flat.yml");
    crate::load::load_paths(&[path], None)
        .expect("fixture loads")
        .toolkit
}

fn focus_of(tk: &Toolkit, seeds: &[&str], t: f64, hops: u32) -> (Vec<bool>, Vec<bool>) {
    let (seeds, _) = resolve_seeds(tk, seeds);
    let rec = recommend(tk, &seeds, Params { threshold: t, hops });
    let members: Vec<NodeIndex> = rec.actions.iter().chain(&rec.tools).copied().collect();
    let mut keep = vec![false; tk.graph.node_bound()];
    let mut member = vec![false; tk.graph.node_bound()];
    for &m in &members {
        keep[m.index()] = true;
        member[m.index()] = true;
    }
    for b in frontier(tk, &members, &|ix| rec.contains(ix)) {
        keep[b.node.index()] = true;
    }
    (keep, member)
}

use petgraph::visit::NodeIndexable;

#[test]
fn an_action_is_followed_by_the_tools_it_calls_first() {
    let tk = fixture();
    let (keep, member) = focus_of(&tk, &["content_understanding"], 0.0, 1);
    let seq = sequence(&tk, &keep, &|ix| member[ix.index()], &[], false);
    let names: Vec<&str> = seq.iter().map(|&ix| tk.name(ix)).collect();
    let at = |n: &str| names.iter().position(|x| *x == n).expect(n);
    assert_eq!(
        at("DocumentReader"),
        at("content_understanding") + 1,
        "{names:?}"
    );
    assert_eq!(seq.len(), keep.iter().filter(|&&k| k).count());
}

#[test]
fn columns_fill_top_to_bottom_and_fit_the_pane() {
    let tk = fixture();
    let keep = vec![true; tk.graph.node_bound()];
    let seq = sequence(&tk, &keep, &|_| true, &[], false);
    let look = Look {
        box_h: 1,
        cap: 20,
        gap: 5,
        margin: 0,
        row_gap: 1,
    };
    let m = measure(&tk, &seq);
    let rows = fit_rows(&m, seq.len(), (200, 40), look).expect("fits");
    let l = pack(&tk, &seq, rows, 0);
    let widths = m.column_widths(rows, look);
    let (w, h) = extent(&widths, rows, look);
    assert!(w <= 200 && h <= 40, "{w}x{h}");
    for (i, &ix) in seq.iter().enumerate() {
        let s = l.slot(ix).expect("placed");
        assert_eq!((s.layer as usize, s.order as usize), (i / rows, i % rows));
    }
    assert!(fit_rows(&m, seq.len(), (30, 5), look).is_none());
}

#[test]
fn keep_within_moves_nothing_that_stays_and_fills_free_slots() {
    let tk = fixture();
    let (a, ma) = focus_of(&tk, &["knowledge_base_retrieving"], 0.5, 0);
    let (b, mb) = focus_of(&tk, &["knowledge_base_retrieving"], 0.5, 3);
    let sa = sequence(&tk, &a, &|ix| ma[ix.index()], &[], false);
    let sb = sequence(&tk, &b, &|ix| mb[ix.index()], &[], false);
    let first = pack(&tk, &sa, 6, 0);
    let next = keep_within(&tk, &first, &sb, 4, 6, 0);
    let mut seen = HashSet::new();
    for &ix in &sb {
        let s = next.slot(ix).expect("placed");
        assert!(
            seen.insert((s.layer, s.order)),
            "{} shares a slot",
            tk.name(ix)
        );
        if let Some(old) = first.slot(ix) {
            assert_eq!(old, s, "{} moved", tk.name(ix));
        }
    }
    assert_eq!(next.placed().count(), sb.len());
}
