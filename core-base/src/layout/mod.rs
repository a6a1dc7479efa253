//! Layered layout of the toolkit graph: a pure function of its structure.
//!
//! Actions are layered along `Next` edges (cycles are broken by reversing DFS back edges,
//! then each action gets its longest-path depth). A tool or group goes one layer after its
//! home, its shallowest caller (a group member after its group), so a tool shared along a
//! long chain sits beside the first action that uses it instead of after the last one;
//! the drawing names it with a short stub beside its other callers. Within a layer, nodes are ordered by a few bounded
//! barycenter sweeps (linear per sweep, no crossing minimisation), so 10k nodes lay out in
//! milliseconds.
//!
//! Scores, the threshold, hops and seeds are not inputs: [`structure_key`] hashes exactly
//! what the layout depends on, so a cache keyed by it never re-lays out on a restyle.
//! Coordinates here are abstract slots (layer, order); the TUI maps them to cells.

pub mod focus;
pub mod labels;
mod order;
pub mod pack;
mod rank;
pub mod route;
pub mod routing;
pub mod step;

use std::hash::{BuildHasher, Hash, Hasher};

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::{EdgeRef, IntoEdgeReferences, NodeIndexable};
use unicode_width::UnicodeWidthStr;

use crate::model::Toolkit;

/// Where a node sits: its layer (column) and its position within the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    pub layer: u32,
    pub order: u32,
}

/// The layered layout of a toolkit (or of a subset of its nodes).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// Nodes of each layer, in drawing order.
    pub layers: Vec<Vec<NodeIndex>>,
    /// Slot of each laid-out node, indexed by node index (`None`: not laid out).
    slots: Vec<Option<Slot>>,
    /// Widest name (in terminal cells) of each layer.
    pub label_width: Vec<u16>,
    /// One more than the largest order (rows may be left empty in a folded layout).
    rows: usize,
    /// The key of the structure this layout was computed from.
    pub key: u64,
}

impl Layout {
    /// Lays out every node of `tk`.
    pub fn compute(tk: &Toolkit) -> Layout {
        Layout::compute_subset(tk, None)
    }

    /// Lays out the nodes with `keep[ix] == true` (all nodes when `keep` is `None`), using
    /// only the edges between kept nodes.
    pub fn compute_subset(tk: &Toolkit, keep: Option<&[bool]>) -> Layout {
        let layers = layered(tk, keep);
        Layout::from_layers(tk, layers)
    }

    /// A layout from layers whose positions are the orders (no empty rows).
    fn from_layers(tk: &Toolkit, layers: Vec<Vec<NodeIndex>>) -> Layout {
        let bound = tk.graph.node_bound();
        let mut slots = vec![None; bound];
        let mut label_width = Vec::with_capacity(layers.len());
        for (l, layer) in layers.iter().enumerate() {
            let mut w = 0u16;
            for (o, &ix) in layer.iter().enumerate() {
                slots[ix.index()] = Some(Slot {
                    layer: l as u32,
                    order: o as u32,
                });
                let n = tk.name(ix).width().min(u16::MAX as usize) as u16;
                w = w.max(n);
            }
            label_width.push(w);
        }
        Layout {
            rows: layers.iter().map(Vec::len).max().unwrap_or(0),
            layers,
            slots,
            label_width,
            key: structure_key(tk),
        }
    }

    /// A layout from explicit slots; rows may stay empty and layers may be empty. Later
    /// duplicates of a node are ignored; two nodes on one slot are a caller's bug, kept
    /// (drawn over each other) rather than lost.
    pub fn from_slots(tk: &Toolkit, placed: &[(NodeIndex, Slot)]) -> Layout {
        Layout::from_slots_keyed(tk, placed, structure_key(tk))
    }

    /// [`Layout::from_slots`] for a caller that already has the structure's key (hashing
    /// every name again is most of a small layout's cost on a large graph).
    pub fn from_slots_keyed(tk: &Toolkit, placed: &[(NodeIndex, Slot)], key: u64) -> Layout {
        let bound = tk.graph.node_bound();
        let mut slots = vec![None; bound];
        let depth = placed
            .iter()
            .map(|p| p.1.layer as usize + 1)
            .max()
            .unwrap_or(0);
        let mut layers: Vec<Vec<NodeIndex>> = vec![Vec::new(); depth];
        let mut label_width = vec![0u16; depth];
        let mut rows = 0;
        for &(ix, s) in placed {
            let Some(cell) = slots.get_mut(ix.index()) else {
                continue;
            };
            if cell.is_some() {
                continue;
            }
            *cell = Some(s);
            layers[s.layer as usize].push(ix);
            let n = tk.name(ix).width().min(u16::MAX as usize) as u16;
            label_width[s.layer as usize] = label_width[s.layer as usize].max(n);
            rows = rows.max(s.order as usize + 1);
        }
        for layer in &mut layers {
            layer.sort_by_key(|ix| slots[ix.index()].map_or(0, |s: Slot| s.order));
        }
        Layout {
            layers,
            slots,
            label_width,
            rows,
            key,
        }
    }

    /// The nodes of layer `l` whose order lies in `lo..hi`, in order.
    pub fn rows_of(&self, l: usize, lo: usize, hi: usize) -> &[NodeIndex] {
        let Some(layer) = self.layers.get(l) else {
            return &[];
        };
        let order = |ix: &NodeIndex| self.slot(*ix).map_or(0, |s| s.order as usize);
        let a = layer.partition_point(|ix| order(ix) < lo);
        let b = layer.partition_point(|ix| order(ix) < hi);
        &layer[a..b.max(a)]
    }

    /// The node at a slot, if any.
    pub fn at(&self, l: usize, order: usize) -> Option<NodeIndex> {
        self.rows_of(l, order, order + 1).first().copied()
    }

    /// Every laid-out node with its slot.
    pub fn placed(&self) -> impl Iterator<Item = (NodeIndex, Slot)> + '_ {
        self.layers
            .iter()
            .flatten()
            .filter_map(|&ix| self.slot(ix).map(|s| (ix, s)))
    }

    /// The slot of a node, if it was laid out.
    pub fn slot(&self, ix: NodeIndex) -> Option<Slot> {
        self.slots.get(ix.index()).copied().flatten()
    }

    /// Number of rows of the tallest layer.
    pub fn max_rows(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }
}

/// Layers of the kept nodes, ordered by barycenter sweeps.
fn layered(tk: &Toolkit, keep: Option<&[bool]>) -> Vec<Vec<NodeIndex>> {
    let kept = |ix: NodeIndex| keep.is_none_or(|k| k.get(ix.index()).copied().unwrap_or(false));
    let ranks = rank::assign(tk, &kept);
    let mut layers = ranks.into_layers(tk);
    order::sweep(tk, &mut layers, &kept);
    layers
}

/// A hash of what the layout depends on: node kinds and names, and edge endpoints. Scores,
/// descriptions and operators are left out on purpose.
pub fn structure_key(tk: &Toolkit) -> u64 {
    // foldhash, seeded once per process (the key is compared only within one run): SipHash
    // over every name was a tenth of a 10k reload.
    static STATE: std::sync::OnceLock<foldhash::quality::RandomState> = std::sync::OnceLock::new();
    let mut h = STATE.get_or_init(Default::default).build_hasher();
    for ix in tk.graph.node_indices() {
        ix.index().hash(&mut h);
        tk.kind(ix).hash(&mut h);
        tk.name(ix).hash(&mut h);
    }
    for e in tk.graph.edge_references() {
        e.source().index().hash(&mut h);
        e.target().index().hash(&mut h);
    }
    h.finish()
}

/// A layout with the key it was computed for: recomputed only when the structure changes.
#[derive(Debug, Default)]
pub struct LayoutCache {
    layout: Option<Layout>,
}

impl LayoutCache {
    /// The layout of `tk`, recomputed only if its structure changed since the last call.
    pub fn get(&mut self, tk: &Toolkit) -> &Layout {
        let key = structure_key(tk);
        let stale = self.layout.as_ref().is_none_or(|l| l.key != key);
        if stale {
            self.layout = Some(Layout::compute(tk));
        }
        self.layout.get_or_insert_with(Layout::default)
    }

    /// The cached layout, if any.
    pub fn current(&self) -> Option<&Layout> {
        self.layout.as_ref()
    }
}
