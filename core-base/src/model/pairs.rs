//! An index of edges by their ends, for lookups between well-connected nodes.
//!
//! [`super::Toolkit::edge`] walks the two nodes' edge lists, which is cheap while either
//! node has few edges. `fit --add-edges` makes graphs where both have hundreds (most pairs
//! of actions joined): every lookup then cost the degree, and adding the fit's edges (each
//! looked up several times: to apply, to undo, to verify) grew with edges times degree
//! (36 s for 127k edges at 400 actions). This index answers those lookups in constant time.
//!
//! It is built on the first such lookup from the graph as it is then, so a toolkit that
//! never needs it (most loads: few edges per node) pays nothing, and a toolkit made from a
//! graph directly (a subgraph, a test's literal) starts without one. Once built, an edge
//! added through [`super::Toolkit::add_new_edge`] (the one place edges are added) enters it.
//! Removals do not touch it: an entry is trusted only when the edge it names still joins
//! those two nodes, and a removed edge's index reused by another edge names other ends.
//! Shared between clones until one of them adds an edge, as the name index is.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use petgraph::stable_graph::{EdgeIndex, NodeIndex, StableDiGraph};

type Index = HashMap<(u32, u32), EdgeIndex, foldhash::fast::RandomState>;

/// How many steps of the two edge lists a lookup walks before it asks the index: past this
/// both nodes are well connected, and the index's one-time build (linear in the edges) is
/// paid back by the lookups that follow.
pub(super) const WALK: usize = 16;

#[derive(Clone, Default)]
pub(super) struct Pairs(OnceLock<Arc<Index>>);

impl std::fmt::Debug for Pairs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.get() {
            Some(ix) => write!(f, "Pairs({} entries)", ix.len()),
            None => f.write_str("Pairs(not built)"),
        }
    }
}

impl Pairs {
    /// The edge `u -> v`, through the index (built now if it is not yet).
    pub(super) fn find<N, E>(
        &self,
        graph: &StableDiGraph<N, E>,
        u: NodeIndex,
        v: NodeIndex,
    ) -> Option<EdgeIndex> {
        let ix = self.0.get_or_init(|| Arc::new(build(graph)));
        let e = *ix.get(&(u.index() as u32, v.index() as u32))?;
        (graph.edge_endpoints(e) == Some((u, v))).then_some(e)
    }

    /// Records a new edge (when the index is built; otherwise its build will see the edge).
    pub(super) fn added(&mut self, u: NodeIndex, v: NodeIndex, e: EdgeIndex) {
        if let Some(ix) = self.0.get_mut() {
            Arc::make_mut(ix).insert((u.index() as u32, v.index() as u32), e);
        }
    }

    /// Forgets the index (after bulk changes to the graph); the next lookup that needs it
    /// builds it again.
    pub(super) fn clear(&mut self) {
        self.0 = OnceLock::new();
    }
}

fn build<N, E>(graph: &StableDiGraph<N, E>) -> Index {
    let mut ix = Index::with_capacity_and_hasher(graph.edge_count(), Default::default());
    for e in graph.edge_indices() {
        if let Some((u, v)) = graph.edge_endpoints(e) {
            // One edge per pair: `add_edge` gives back the pair's edge rather than add one.
            ix.insert((u.index() as u32, v.index() as u32), e);
        }
    }
    ix
}
