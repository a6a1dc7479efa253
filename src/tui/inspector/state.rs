//! The inspector's state, owned by this folder: how far it is scrolled and which of the
//! selected node's edges the cursor is on. Nothing here names the app.

/// The inspector pane's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InspectorPane {
    scroll: u16,
    /// Index into the selected node's edges as the inspector lists them.
    edge_cursor: usize,
    /// The description is shown whole (`i`), not folded to its first lines.
    unfolded: bool,
}

impl InspectorPane {
    /// The first line shown (the diff panel in the same place scrolls with it).
    pub fn scroll(&self) -> u16 {
        self.scroll
    }

    /// The edge under the cursor, as an index into the listed edges.
    pub fn edge_cursor(&self) -> usize {
        self.edge_cursor
    }

    pub fn unfolded(&self) -> bool {
        self.unfolded
    }

    /// Shows the whole description, or folds it again (back at the top).
    pub fn toggle_fold(&mut self) {
        self.unfolded = !self.unfolded;
        self.scroll = 0;
    }

    /// Another node is selected: its top, its first edge, its description folded.
    pub fn reset(&mut self) {
        *self = InspectorPane::default();
    }

    /// Moves the edge cursor by `delta`, kept on one of `edges` edges.
    pub fn step_edge(&mut self, delta: isize, edges: usize) {
        let c = self.edge_cursor as isize + delta;
        self.edge_cursor = c.clamp(0, edges.saturating_sub(1) as isize) as usize;
    }

    /// Puts the cursor on edge `i` (an editor or a test pointing at one edge).
    pub fn point_at_edge(&mut self, i: usize) {
        self.edge_cursor = i;
    }

    /// Scrolls by `delta` lines, never above the top.
    pub fn scroll_by(&mut self, delta: i64) {
        let s = i64::from(self.scroll) + delta.clamp(-1000, 1000);
        self.scroll = s.clamp(0, i64::from(u16::MAX)) as u16;
    }
}
