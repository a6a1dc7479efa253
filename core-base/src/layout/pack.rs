//! The focus view's packing: the recommendation (and its frontier) read as one sequence,
//! each action followed by the tools it is the first to call, the actions in chain order;
//! the sequence is wrapped into columns of equal height, like a newspaper, so a chain of
//! any length fills the pane top to bottom, then left to right.
//!
//! Slots are (column, row); cells follow from a [`Look`]: boxes `box_h` high with one free
//! row under each, columns as wide as their widest name (at most `cap`) plus
//! [`BOX_EXTRA`], and a channel of `gap` cells after each column for the edges.
//!
//! [`keep_within`] follows a change of the set without moving what stays: staying nodes
//! keep their slots, entering nodes take the free slot nearest a placed neighbour.

use std::collections::{HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;
use unicode_width::UnicodeWidthStr;

use super::focus::{BOX_EXTRA, prepare};
use super::route::CellRect;
use super::{Layout, Slot};
use crate::model::{EdgeKind, NodeKind, Toolkit};

/// How slots become cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Look {
    /// Box height: 3 (name between two borders) or 1 (one-line boxes).
    pub box_h: i32,
    /// Longest name drawn whole, in cells.
    pub cap: usize,
    /// Cells between two columns, for the edges.
    pub gap: i32,
    /// Cells before the first column (room for edges on its left).
    pub margin: i32,
    /// Free rows under each box, for the edges (1 in the terminal).
    pub row_gap: i32,
}

impl Look {
    /// Rows from one box's top to the next one's.
    pub fn pitch(&self) -> i32 {
        self.box_h + self.row_gap.max(1)
    }

    /// Rows of boxes that fit `height` cells.
    pub fn rows_in(&self, height: i32) -> usize {
        ((height + self.row_gap.max(1)) / self.pitch()).max(1) as usize
    }

    /// Cells after the last column: room for edges leaving it.
    pub fn trail(&self) -> i32 {
        self.gap.min(3)
    }

    /// Width of a column whose widest name is `name` cells.
    pub fn column(&self, name: usize) -> i32 {
        name.min(self.cap) as i32 + BOX_EXTRA
    }

    /// The same look with more room for edges: a margin and wider channels.
    pub fn roomier(self) -> Look {
        Look {
            gap: self.gap + 2,
            margin: self.margin + 2,
            ..self
        }
    }
}

/// The reading order: the actions along their `Next` chains, depth first from `roots`
/// (the seeds, in the operator's order) and then from the remaining actions in layer
/// order, each action followed by the tools and groups it is the first to call (a group
/// with its members), then anything left. With `members_first`, the frontier follows the
/// whole recommendation instead of its callers.
pub fn sequence(
    tk: &Toolkit,
    keep: &[bool],
    is_member: &dyn Fn(NodeIndex) -> bool,
    roots: &[NodeIndex],
    members_first: bool,
) -> Vec<NodeIndex> {
    let kept = |ix: NodeIndex| keep.get(ix.index()).copied().unwrap_or(false);
    let layers = prepare(tk, keep, is_member);
    let position: HashMap<NodeIndex, usize> = layers
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, &ix)| (ix, i))
        .collect();
    let at = |ix: &NodeIndex| position.get(ix).copied().unwrap_or(usize::MAX);
    let mut out = Vec::new();
    let mut done: HashSet<NodeIndex> = HashSet::new();
    let starts = roots
        .iter()
        .copied()
        .filter(|&r| kept(r))
        .chain(layers.iter().flatten().copied());
    for root in starts {
        if tk.kind(root) != NodeKind::Action || done.contains(&root) {
            continue;
        }
        // Depth first along `Next`, members before the frontier, then layer order.
        let mut stack = vec![root];
        while let Some(a) = stack.pop() {
            if !done.insert(a) {
                continue;
            }
            out.push(a);
            emit_called(tk, a, &kept, &at, &mut out, &mut done);
            let mut next: Vec<NodeIndex> = tk
                .out_edges(a)
                .filter(|&(e, v)| tk.graph[e].kind == EdgeKind::Next && kept(v))
                .map(|(_, v)| v)
                .filter(|v| !done.contains(v))
                .collect();
            next.sort_by_key(|v| (!is_member(*v), at(v)));
            stack.extend(next.into_iter().rev());
        }
    }
    for &ix in layers.iter().flatten() {
        if done.insert(ix) {
            out.push(ix);
        }
    }
    if members_first {
        // Stable: the reading order holds within the members and within the frontier.
        out.sort_by_key(|&ix| !is_member(ix));
    }
    out
}

/// Emits the tools and groups `a` calls that are not shown yet, a group with its members.
fn emit_called(
    tk: &Toolkit,
    a: NodeIndex,
    kept: &dyn Fn(NodeIndex) -> bool,
    at: &dyn Fn(&NodeIndex) -> usize,
    out: &mut Vec<NodeIndex>,
    done: &mut HashSet<NodeIndex>,
) {
    let mut called: Vec<NodeIndex> = tk
        .out_edges(a)
        .filter(|&(e, v)| tk.graph[e].kind != EdgeKind::Next && kept(v))
        .map(|(_, v)| v)
        .collect();
    called.sort_by_key(|v| at(v));
    for v in called {
        if done.contains(&v) {
            continue;
        }
        // A tool of a shown group comes with its group, members after it.
        let group = tk
            .in_edges(v)
            .find(|&(e, g)| tk.graph[e].kind == EdgeKind::Has && kept(g))
            .map(|(_, g)| g);
        let head = group.unwrap_or(v);
        if done.insert(head) {
            out.push(head);
        }
        if tk.kind(head) == NodeKind::Group {
            let mut members: Vec<NodeIndex> = tk
                .out_edges(head)
                .filter(|&(e, m)| tk.graph[e].kind == EdgeKind::Has && kept(m))
                .map(|(_, m)| m)
                .collect();
            members.sort_by_key(|m| at(m));
            for m in members {
                if done.insert(m) {
                    out.push(m);
                }
            }
        }
        if done.insert(v) {
            out.push(v);
        }
    }
}

/// Cells a tool is indented under the action above it that calls it, so the action's
/// edges to its tools hang down its left side like a tree: `┣▶(+ tool )`.
pub const INDENT: i32 = 3;

/// The indent of each node of a column (top to bottom, `None` for an empty row): a tool or
/// group right under an action that calls it, or under such a tool of the same action (a
/// group's members under their group), is indented.
pub fn indents(tk: &Toolkit, column: &[Option<NodeIndex>]) -> Vec<i32> {
    let mut out = vec![0; column.len()];
    // What the action heading the current block (and its indented tools) call: walked
    // from the callers' side, as a tool can have thousands of callers.
    let mut called: HashSet<NodeIndex> = HashSet::new();
    let calls = |u: NodeIndex, into: &mut HashSet<NodeIndex>| {
        into.extend(
            tk.out_edges(u)
                .filter(|&(e, _)| tk.graph[e].kind != EdgeKind::Next)
                .map(|(_, v)| v),
        );
    };
    for (i, cell) in column.iter().enumerate() {
        let Some(v) = *cell else {
            called.clear();
            continue;
        };
        if tk.kind(v) == NodeKind::Action {
            called.clear();
            calls(v, &mut called);
            continue;
        }
        if called.contains(&v) {
            out[i] = INDENT;
            calls(v, &mut called);
        } else {
            called.clear();
        }
    }
    out
}

/// The nodes of a sequence measured once, so the fit can try many looks and column heights
/// cheaply: each node's name width and indent (computed over the sequence as one column;
/// where a column break cuts a tool list the indent is over-counted, never under-counted).
pub struct Measured {
    boxes: Vec<(i32, usize)>,
}

/// Measures `seq` (see [`Measured`]).
pub fn measure(tk: &Toolkit, seq: &[NodeIndex]) -> Measured {
    let cells: Vec<Option<NodeIndex>> = seq.iter().copied().map(Some).collect();
    let boxes = indents(tk, &cells)
        .into_iter()
        .zip(seq)
        .map(|(i, &ix)| (i, tk.name(ix).width()))
        .collect();
    Measured { boxes }
}

impl Measured {
    /// Width in cells of each column of the sequence wrapped into columns of `rows`: its
    /// widest box (name cut to the look's cap) with its indent (none at a column's top).
    pub fn column_widths(&self, rows: usize, look: Look) -> Vec<i32> {
        self.boxes
            .chunks(rows.max(1))
            .map(|col| {
                col.iter()
                    .enumerate()
                    .map(|(k, &(i, w))| if k == 0 { 0 } else { i } + look.column(w))
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.boxes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.boxes.is_empty()
    }
}

/// Width and height in cells of columns this wide, `rows` rows high.
pub fn extent(widths: &[i32], rows: usize, look: Look) -> (i32, i32) {
    let cols: i32 = widths.iter().sum();
    let gaps = (widths.len() as i32 - 1).max(0) * look.gap;
    let trail = if widths.is_empty() { 0 } else { look.trail() };
    let h = (rows as i32 * look.pitch() - look.row_gap.max(1)).max(0);
    (look.margin + cols + gaps + trail, h)
}

/// Where a packed layout's columns and boxes go, in cells.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    /// Left edge and width of each column.
    pub col_x: Vec<i32>,
    pub col_w: Vec<i32>,
    /// Nodes drawn right of their column's edge (see [`indents`]).
    pub indent: HashMap<NodeIndex, i32>,
}

/// The columns of `layout` (as [`pack`] or [`keep_within`] made it) in cells.
pub fn place(tk: &Toolkit, layout: &Layout, look: Look) -> Placement {
    let mut out = Placement::default();
    let mut x = look.margin;
    for layer in &layout.layers {
        // The column top to bottom, empty rows kept (they end a tool list).
        let rows = layer
            .last()
            .and_then(|&ix| layout.slot(ix))
            .map_or(0, |s| s.order as usize + 1);
        let mut cells = vec![None; rows];
        for &ix in layer {
            if let Some(s) = layout.slot(ix) {
                cells[s.order as usize] = Some(ix);
            }
        }
        let mut w = 0;
        for (cell, i) in cells.iter().zip(indents(tk, &cells)) {
            if let Some(ix) = *cell {
                w = w.max(i + look.column(tk.name(ix).width()));
                if i > 0 {
                    out.indent.insert(ix, i);
                }
            }
        }
        out.col_x.push(x);
        out.col_w.push(w);
        x += w + look.gap;
    }
    out
}

impl Placement {
    /// The box of a placed node: its column's left edge plus its indent, its row's top.
    pub fn rect(
        &self,
        tk: &Toolkit,
        layout: &Layout,
        look: Look,
        ix: NodeIndex,
    ) -> Option<CellRect> {
        let s = layout.slot(ix)?;
        Some(CellRect {
            x: self.col_x.get(s.layer as usize)? + self.indent.get(&ix).copied().unwrap_or(0),
            y: s.order as i32 * look.pitch(),
            w: look.column(tk.name(ix).width()).max(6),
            h: look.box_h,
        })
    }

    /// Width and height of the drawing: after the last column its trail, under the last
    /// row no free rows.
    pub fn extent(&self, layout: &Layout, look: Look) -> (i32, i32) {
        let w = self
            .col_x
            .last()
            .zip(self.col_w.last())
            .map_or(0, |(x, w)| x + w + look.trail());
        let h = layout.max_rows() as i32 * look.pitch() - look.row_gap.max(1);
        (w, h.max(0))
    }
}

/// The fewest columns of balanced height that put the first `need` nodes of the measured
/// sequence inside `pane` (width, height), as the rows per column; `None` when they cannot
/// fit.
pub fn fit_rows(seq: &Measured, need: usize, pane: (i32, i32), look: Look) -> Option<usize> {
    let most = look.rows_in(pane.1);
    if need == 0 {
        return Some(most.min(seq.len().max(1)));
    }
    let cols = seq.len().div_ceil(most);
    // Balanced columns (as few rows as the same number of columns allows) read best; the
    // tallest columns are the narrowest drawing.
    let balanced = seq.len().div_ceil(cols.max(1)).min(most);
    [balanced, most].into_iter().find(|&rows| {
        let widths = seq.column_widths(rows, look);
        let used = need.div_ceil(rows).min(widths.len());
        let (w, h) = extent(&widths[..used], rows, look);
        w <= pane.0 && h <= pane.1
    })
}

/// How many nodes of the measured sequence, wrapped into columns of `rows`, lie wholly
/// inside `pane`: the whole columns that fit, at most the sequence.
pub fn fitting(seq: &Measured, rows: usize, pane: (i32, i32), look: Look) -> usize {
    let widths = seq.column_widths(rows, look);
    let cols = (0..=widths.len())
        .rev()
        .find(|&c| {
            let (w, h) = extent(&widths[..c], rows, look);
            w <= pane.0 && h <= pane.1
        })
        .unwrap_or(0);
    (cols * rows.max(1)).min(seq.len())
}

/// `seq` wrapped into columns of `rows` slots; `key` is the toolkit's
/// [`super::structure_key`].
pub fn pack(tk: &Toolkit, seq: &[NodeIndex], rows: usize, key: u64) -> Layout {
    let rows = rows.max(1);
    let placed: Vec<(NodeIndex, Slot)> = seq
        .iter()
        .enumerate()
        .map(|(i, &ix)| {
            let slot = Slot {
                layer: (i / rows) as u32,
                order: (i % rows) as u32,
            };
            (ix, slot)
        })
        .collect();
    Layout::from_slots_keyed(tk, &placed, key)
}

/// Follows a change of the kept set (`seq`, in reading order) without moving what stays:
/// nodes of `old` still in `seq` keep their slots; the others take, in order, the free slot
/// within `cols` x `rows` nearest a placed neighbour (a caller's or predecessor's slot
/// first); nodes that find no free slot go below everything.
pub fn keep_within(
    tk: &Toolkit,
    old: &Layout,
    seq: &[NodeIndex],
    cols: u32,
    rows: u32,
    key: u64,
) -> Layout {
    let wanted: HashSet<NodeIndex> = seq.iter().copied().collect();
    let mut placed: Vec<(NodeIndex, Slot)> =
        old.placed().filter(|(ix, _)| wanted.contains(ix)).collect();
    let mut taken: HashSet<(u32, u32)> = placed.iter().map(|p| (p.1.layer, p.1.order)).collect();
    let mut slot_of: HashMap<NodeIndex, Slot> = placed.iter().copied().collect();
    let mut spill = placed
        .iter()
        .map(|p| p.1.order + 1)
        .max()
        .unwrap_or(0)
        .max(rows);
    for &v in seq {
        if slot_of.contains_key(&v) {
            continue;
        }
        let near: Vec<Slot> = tk
            .in_edges(v)
            .chain(tk.out_edges(v))
            .filter_map(|(_, u)| slot_of.get(&u).copied())
            .collect();
        let slot = nearest_free(&taken, &near, cols.max(1), rows.max(1)).unwrap_or_else(|| {
            spill += 1;
            Slot {
                layer: 0,
                order: spill - 1,
            }
        });
        taken.insert((slot.layer, slot.order));
        slot_of.insert(v, slot);
        placed.push((v, slot));
    }
    Layout::from_slots_keyed(tk, &placed, key)
}

/// The free slot within `cols` x `rows` nearest one of `near` (a slot below it in its
/// column counts closest), or the first free one in reading order when `near` is empty.
fn nearest_free(taken: &HashSet<(u32, u32)>, near: &[Slot], cols: u32, rows: u32) -> Option<Slot> {
    let mut best: Option<(u32, Slot)> = None;
    for c in 0..cols {
        for r in 0..rows {
            if taken.contains(&(c, r)) {
                continue;
            }
            let d = near
                .iter()
                .map(|s| {
                    let dc = c.abs_diff(s.layer);
                    let dr = r.abs_diff(s.order);
                    // Below the neighbour in its column reads as following it.
                    let below = if c == s.layer && r > s.order { 0 } else { 1 };
                    dc * 6 + dr * 2 + below
                })
                .min()
                .unwrap_or(c * rows + r);
            if best.is_none_or(|b| d < b.0) {
                best = Some((d, Slot { layer: c, order: r }));
            }
        }
    }
    best.map(|b| b.1)
}
