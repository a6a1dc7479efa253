//! The toolkit's name index: name -> the node of each kind with that name.
//!
//! An entry holds the three node indexes and where its name is in one shared arena (20
//! bytes), not a `String` of its own: at 125k nodes that is 9 MB less than a map from
//! `String`. Hashed with foldhash, randomly seeded: a 100k-action load looks names up about
//! two million times.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;
use petgraph::stable_graph::NodeIndex;

/// The nodes called by one name, one slot per kind (`NodeKind as usize`), and where the
/// name sits in the index's own arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slots {
    nodes: [u32; 3],
    at: u32,
    len: u32,
}

const EMPTY: u32 = u32::MAX;

/// The toolkit's name index, shared: a load lends it to a second thread that resolves
/// references while this one adds edges (`source::action_edges`). A change while it is
/// lent copies it first, so a holder never sees the index change under it.
#[derive(Debug, Clone, Default)]
pub struct Names(Arc<NameIndex>);

impl Names {
    /// The node of `kind` called `name`.
    pub fn find(&self, kind: super::NodeKind, name: &str) -> Option<NodeIndex> {
        self.0.get(name)?.get(kind.slot())
    }

    pub(super) fn get(&self, name: &str) -> Option<&Slots> {
        self.0.get(name)
    }

    /// Whether `other` is this very index (not a copy).
    #[cfg(test)]
    pub(crate) fn is(&self, other: &Names) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The index to change (copied first if it is lent).
    pub(super) fn index_mut(&mut self) -> &mut NameIndex {
        Arc::make_mut(&mut self.0)
    }
}

impl Slots {
    pub(super) fn get(&self, slot: usize) -> Option<NodeIndex> {
        let ix = *self.nodes.get(slot)?;
        (ix != EMPTY).then(|| NodeIndex::new(ix as usize))
    }
}

/// Name -> [`Slots`]. The names are copied once into one arena: a lookup then compares
/// against bytes that sit together (and mostly in cache) instead of following each node
/// to its own heap string, which was a tenth of a 100k-action load. A removed name stays
/// in the arena until the index is cleared.
#[derive(Debug, Clone, Default)]
pub(super) struct NameIndex {
    table: HashTable<Slots>,
    arena: String,
    hasher: foldhash::fast::RandomState,
}

impl NameIndex {
    fn hash(&self, name: &str) -> u64 {
        self.hasher.hash_one(name)
    }

    pub(super) fn get(&self, name: &str) -> Option<&Slots> {
        let arena = &self.arena;
        self.table
            .find(self.hash(name), |s| name_at(arena, s) == name)
    }

    /// Records the node `ix` called `name`, of the kind in `slot`.
    pub(super) fn insert(&mut self, name: &str, slot: usize, ix: NodeIndex) {
        let hash = self.hash(name);
        let (arena, hasher) = (&mut self.arena, &self.hasher);
        let entry = self.table.entry(
            hash,
            |s| name_at(arena, s) == name,
            |s| hasher.hash_one(name_at(arena, s)),
        );
        let slots = match entry {
            hashbrown::hash_table::Entry::Occupied(e) => e.into_mut(),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let at = arena.len() as u32;
                arena.push_str(name);
                e.insert(Slots {
                    nodes: [EMPTY; 3],
                    at,
                    len: name.len() as u32,
                })
                .into_mut()
            }
        };
        if let Some(s) = slots.nodes.get_mut(slot) {
            *s = ix.index() as u32;
        }
    }

    /// Forgets the node `ix` called `name`; an entry left with no node is removed.
    pub(super) fn remove(&mut self, name: &str, slot: usize, ix: NodeIndex) {
        let hash = self.hash(name);
        let arena = &self.arena;
        let Ok(mut entry) = self.table.find_entry(hash, |s| name_at(arena, s) == name) else {
            return;
        };
        let slots = entry.get_mut();
        if slots.nodes.get(slot) == Some(&(ix.index() as u32)) {
            slots.nodes[slot] = EMPTY;
        }
        if slots.nodes == [EMPTY; 3] {
            entry.remove();
        }
    }

    pub(super) fn reserve(&mut self, additional: usize) {
        let (arena, hasher) = (&self.arena, &self.hasher);
        self.table
            .reserve(additional, |s| hasher.hash_one(name_at(arena, s)));
    }

    pub(super) fn clear(&mut self) {
        self.table.clear();
        self.arena.clear();
    }
}

fn name_at<'a>(arena: &'a str, s: &Slots) -> &'a str {
    arena
        .get(s.at as usize..s.at as usize + s.len as usize)
        .unwrap_or_default()
}
