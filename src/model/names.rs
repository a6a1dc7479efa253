//! The toolkit's name index: name -> the node of each kind with that name.
//!
//! An entry holds only the three node indexes (12 bytes); the name is read from the graph's
//! node, so a 100k-action toolkit does not keep a second copy of every name and a 48-byte
//! bucket for it (about 12 MB at 125k nodes). Hashed with foldhash, randomly seeded: a
//! 100k-action load looks names up about two million times.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};

use super::{Edge, Node};

type Graph = StableDiGraph<Node, Edge>;

/// The nodes called by one name, one slot per kind (`NodeKind as usize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slots([u32; 3]);

const EMPTY: u32 = u32::MAX;

impl Slots {
    pub(super) fn get(&self, slot: usize) -> Option<NodeIndex> {
        let ix = *self.0.get(slot)?;
        (ix != EMPTY).then(|| NodeIndex::new(ix as usize))
    }

    /// Any node of the entry: they all carry its name.
    fn any(&self) -> NodeIndex {
        let ix = self.0.iter().copied().find(|&ix| ix != EMPTY);
        NodeIndex::new(ix.unwrap_or(EMPTY) as usize)
    }
}

#[derive(Debug, Clone, Default)]
pub(super) struct NameIndex {
    table: HashTable<Slots>,
    hasher: foldhash::fast::RandomState,
}

impl NameIndex {
    fn hash(&self, name: &str) -> u64 {
        self.hasher.hash_one(name)
    }

    /// The entry of `name`. Entries never hold a removed node, so each names a live one.
    pub(super) fn get(&self, graph: &Graph, name: &str) -> Option<&Slots> {
        self.table
            .find(self.hash(name), |s| name_of(graph, s.any()) == Some(name))
    }

    /// Records `ix` (already in `graph`) under its name and kind.
    pub(super) fn insert(&mut self, graph: &Graph, ix: NodeIndex) {
        let Some(node) = graph.node_weight(ix) else {
            return;
        };
        let hash = self.hash(&node.name);
        let hasher = &self.hasher;
        let entry = self.table.entry(
            hash,
            |s| name_of(graph, s.any()) == Some(node.name.as_str()),
            |s| rehash(hasher, graph, s),
        );
        let slots = entry.or_insert(Slots([EMPTY; 3])).into_mut();
        slots.0[node.kind.slot()] = ix.index() as u32;
    }

    /// Forgets `ix` (still in `graph`); an entry left with no node is removed.
    pub(super) fn remove(&mut self, graph: &Graph, ix: NodeIndex) {
        let Some(node) = graph.node_weight(ix) else {
            return;
        };
        let hash = self.hash(&node.name);
        let found = self.table.find_entry(hash, |s| {
            name_of(graph, s.any()) == Some(node.name.as_str())
        });
        let Ok(mut entry) = found else {
            return;
        };
        let slots = entry.get_mut();
        if slots.0[node.kind.slot()] == ix.index() as u32 {
            slots.0[node.kind.slot()] = EMPTY;
        }
        if slots.0 == [EMPTY; 3] {
            entry.remove();
        }
    }

    pub(super) fn reserve(&mut self, graph: &Graph, additional: usize) {
        let hasher = &self.hasher;
        self.table.reserve(additional, |s| rehash(hasher, graph, s));
    }

    pub(super) fn clear(&mut self) {
        self.table.clear();
    }
}

fn name_of(graph: &Graph, ix: NodeIndex) -> Option<&str> {
    graph.node_weight(ix).map(|n| n.name.as_str())
}

fn rehash(hasher: &foldhash::fast::RandomState, graph: &Graph, s: &Slots) -> u64 {
    hasher.hash_one(name_of(graph, s.any()).unwrap_or_default())
}
