//! The navigator's rows: operators, actions, tools and groups, each section sorted by name
//! and filtered by a case-insensitive substring. Rows are rebuilt only when the filter or
//! the toolkit changes, not on every frame.

pub(crate) mod commands;
pub(crate) mod draw;

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;

use toolscope_core::model::{NodeKind, Toolkit};

/// One row of the navigator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    Header(&'static str),
    Operator(usize),
    Node(NodeIndex),
}

impl Row {
    pub fn selectable(self) -> bool {
        !matches!(self, Row::Header(_))
    }
}

/// Compares names with runs of ASCII digits compared as numbers: `a9 < a10`. Allocates
/// nothing (it sorts every name of large toolkits).
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        if x[i].is_ascii_digit() && y[j].is_ascii_digit() {
            let (ni, nj) = (digit_end(x, i), digit_end(y, j));
            let (p, q) = (trim_zeros(&x[i..ni]), trim_zeros(&y[j..nj]));
            let by_value = p.len().cmp(&q.len()).then_with(|| p.cmp(q));
            if by_value != Ordering::Equal {
                return by_value;
            }
            (i, j) = (ni, nj);
        } else {
            if x[i] != y[j] {
                return x[i].cmp(&y[j]);
            }
            i += 1;
            j += 1;
        }
    }
    (x.len() - i).cmp(&(y.len() - j)).then_with(|| a.cmp(b))
}

fn digit_end(s: &[u8], from: usize) -> usize {
    s[from..]
        .iter()
        .position(|c| !c.is_ascii_digit())
        .map_or(s.len(), |p| from + p)
}

fn trim_zeros(s: &[u8]) -> &[u8] {
    let k = s.iter().position(|&c| c != b'0').unwrap_or(s.len());
    &s[k..]
}

/// Rows, filter and cursor.
#[derive(Debug, Clone, Default)]
pub struct Navigator {
    pub filter: String,
    pub rows: Vec<Row>,
    /// Index into `rows` of the highlighted row.
    pub cursor: usize,
    /// First row drawn.
    pub offset: usize,
    /// Group members, listed indented under their group (not in the Tools section).
    pub indented: HashSet<NodeIndex>,
    /// Collapsed groups and how many members they hide (the row shows `(+N)`).
    pub hidden: HashMap<NodeIndex, usize>,
    /// Groups of more than [`COLLAPSE_OVER`] members the user expanded, by name (so the
    /// choice survives a reload).
    pub expanded: BTreeSet<String>,
}

/// Groups with more members than this start collapsed.
pub const COLLAPSE_OVER: usize = 8;

/// The members of group `g` (its `Has` targets), sorted by name.
pub fn members(tk: &Toolkit, g: NodeIndex) -> Vec<NodeIndex> {
    let mut m: Vec<NodeIndex> = tk
        .out_edges(g)
        .filter(|(e, _)| tk.graph[*e].kind == toolscope_core::model::EdgeKind::Has)
        .map(|(_, t)| t)
        .collect();
    m.sort_by(|a, b| natural_cmp(tk.name(*a), tk.name(*b)));
    m.dedup();
    m
}

/// The operator the navigator lists first (operators sorted by name): the one the TUI
/// opens on, so the first screen's active operator is the first row of the list.
pub fn first_operator(tk: &Toolkit) -> Option<usize> {
    (0..tk.operators.len())
        .min_by(|a, b| natural_cmp(&tk.operators[*a].name, &tk.operators[*b].name).then(a.cmp(b)))
}

impl Navigator {
    /// Rebuilds the rows for the current filter, keeping the cursor on the same item.
    pub fn rebuild(&mut self, tk: &Toolkit) {
        let keep = self.rows.get(self.cursor).copied();
        let needle = self.filter.to_lowercase();
        let hit = |name: &str| needle.is_empty() || name.to_lowercase().contains(&needle);
        let mut rows = Vec::new();
        let mut ops: Vec<usize> = (0..tk.operators.len())
            .filter(|&i| hit(&tk.operators[i].label()))
            .collect();
        ops.sort_by(|a, b| natural_cmp(&tk.operators[*a].name, &tk.operators[*b].name));
        if !ops.is_empty() {
            rows.push(Row::Header("Operators"));
            rows.extend(ops.into_iter().map(Row::Operator));
        }
        let groups: Vec<(NodeIndex, Vec<NodeIndex>)> = tk
            .nodes_of(NodeKind::Group)
            .map(|g| (g, members(tk, g)))
            .collect();
        let in_group: HashSet<NodeIndex> =
            groups.iter().flat_map(|(_, m)| m.iter().copied()).collect();
        for (kind, title) in [(NodeKind::Action, "Actions"), (NodeKind::Tool, "Tools")] {
            let mut nodes: Vec<NodeIndex> = tk
                .nodes_of(kind)
                .filter(|&ix| hit(tk.name(ix)) && !in_group.contains(&ix))
                .collect();
            nodes.sort_by(|a, b| natural_cmp(tk.name(*a), tk.name(*b)));
            if !nodes.is_empty() {
                rows.push(Row::Header(title));
                rows.extend(nodes.into_iter().map(Row::Node));
            }
        }
        self.group_rows(tk, groups, &needle, &mut rows);
        self.rows = rows;
        self.cursor = keep
            .and_then(|r| self.rows.iter().position(|x| *x == r))
            .unwrap_or(0);
        self.snap_forward();
    }

    /// The Groups section: each group, then its members indented. A group of more than
    /// [`COLLAPSE_OVER`] members hides them unless expanded; a filter shows the members
    /// it matches (and their group) whatever the state.
    fn group_rows(
        &mut self,
        tk: &Toolkit,
        mut groups: Vec<(NodeIndex, Vec<NodeIndex>)>,
        needle: &str,
        rows: &mut Vec<Row>,
    ) {
        let hit = |name: &str| needle.is_empty() || name.to_lowercase().contains(needle);
        groups.sort_by(|a, b| natural_cmp(tk.name(a.0), tk.name(b.0)));
        self.indented.clear();
        self.hidden.clear();
        let mut out = Vec::new();
        for (g, m) in groups {
            let shown: Vec<NodeIndex> = if needle.is_empty() {
                let open = m.len() <= COLLAPSE_OVER || self.expanded.contains(tk.name(g));
                if open { m.clone() } else { Vec::new() }
            } else {
                m.iter().copied().filter(|&t| hit(tk.name(t))).collect()
            };
            if !hit(tk.name(g)) && shown.is_empty() {
                continue;
            }
            if shown.len() < m.len() {
                self.hidden.insert(g, m.len() - shown.len());
            }
            out.push(Row::Node(g));
            self.indented.extend(shown.iter().copied());
            out.extend(shown.into_iter().map(Row::Node));
        }
        if !out.is_empty() {
            rows.push(Row::Header("Groups"));
            rows.extend(out);
        }
    }

    /// Expands or collapses group `g` when it has more than [`COLLAPSE_OVER`] members;
    /// returns whether it did.
    pub fn toggle_group(&mut self, tk: &Toolkit, g: NodeIndex) -> bool {
        if tk
            .graph
            .node_weight(g)
            .is_none_or(|n| n.kind != NodeKind::Group)
            || members(tk, g).len() <= COLLAPSE_OVER
        {
            return false;
        }
        let name = tk.name(g).to_string();
        if !self.expanded.remove(&name) {
            self.expanded.insert(name);
        }
        self.rebuild(tk);
        true
    }

    /// Moves the cursor to the row of node `ix`, if it is listed.
    pub fn point_at(&mut self, ix: NodeIndex) {
        if let Some(i) = self.rows.iter().position(|r| *r == Row::Node(ix)) {
            self.cursor = i;
        }
    }

    /// Moves the cursor by `delta` selectable rows (clamped).
    pub fn step(&mut self, delta: isize) {
        let sel: Vec<usize> = (0..self.rows.len())
            .filter(|&i| self.rows[i].selectable())
            .collect();
        if sel.is_empty() {
            return;
        }
        let here = sel
            .iter()
            .position(|&i| i >= self.cursor)
            .unwrap_or(sel.len() - 1);
        let to = (here as isize + delta).clamp(0, sel.len() as isize - 1) as usize;
        self.cursor = sel[to];
    }

    /// The row under the cursor.
    pub fn current(&self) -> Option<Row> {
        self.rows
            .get(self.cursor)
            .copied()
            .filter(|r| r.selectable())
    }

    /// Keeps the drawn window (height `h`) around the cursor.
    pub fn scroll_to_cursor(&mut self, h: usize) {
        if h == 0 {
            return;
        }
        if self.cursor < self.offset {
            self.offset = self.cursor.saturating_sub(1);
        } else if self.cursor >= self.offset + h {
            self.offset = self.cursor + 1 - h;
        }
    }

    /// First row drawn in a window of height `h`, so that the cursor is visible.
    pub fn first_visible(&self, h: usize) -> usize {
        if h == 0 || self.cursor < self.offset {
            self.cursor.min(self.offset)
        } else if self.cursor >= self.offset + h {
            self.cursor + 1 - h
        } else {
            self.offset
        }
    }

    fn snap_forward(&mut self) {
        if self.rows.get(self.cursor).is_some_and(|r| !r.selectable()) {
            self.step(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;
    use std::cmp::Ordering;

    #[test]
    fn numbers_sort_by_value() {
        let mut v = vec!["a10", "a9", "a533", "a5329", "b", "a09x", "A"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, vec!["A", "a9", "a09x", "a10", "a533", "a5329", "b"]);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
    }
}
