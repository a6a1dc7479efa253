//! Every tuning constant of the grid router, in one place: what a route costs
//! ([`crate::layout::route`]'s search), and how much each kind of drawing may spend on its
//! routes ([`RouteBudget`] and its presets [`EXPORT`], [`FOCUS`], [`WINDOW`]).
//!
//! Each preset has a golden picture (`tests/suite/route_presets.rs`): a small drawing
//! routed with it, which changes when the preset's values change what is drawn.

/// What a routing may spend, and what it does with a wire it finds no clean route for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RouteBudget {
    /// Search states all the wires of one request may take together; the wires left when
    /// they are spent are not routed. Bounds a routing on the key path whatever the
    /// picture, since a dense one can leave most wires with no clean route, each of which
    /// would otherwise search its whole grid.
    pub most_states: u32,
    /// Search states one wire's search of the whole grid may take, after none was found in
    /// the window of [`NEAR_ENDS`] cells around its ends.
    pub whole_states: u32,
    /// Wires routed at most, in rank order; the others are skipped (a caller counts them).
    pub most_wires: usize,
    /// The largest grid, in cells, this kind of drawing routes at all (a larger one is
    /// routed another way: the focus view by window).
    pub most_cells: i64,
    /// What a wire with no clean route gets.
    pub when_stuck: Stuck,
}

/// What the router does with a wire that has no clean route (one that shares no run with
/// an unrelated route).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stuck {
    /// Routes it anyway, sharing runs with unrelated routes at a high cost ([`CONFLICT`]):
    /// a picture that must show every edge (the SVG).
    Share,
    /// Leaves it unrouted, and an unrelated route never runs straight right beside another
    /// (`┃┃`, which the eye cannot keep apart over many rows): a view that counts what it
    /// does not draw (the TUI).
    LeaveOut,
}

/// The SVG picture (`export svg`, grid layout): no limit but the whole-grid search per
/// wire, since it is made once, off any key path, and must show every edge.
pub const EXPORT: RouteBudget = RouteBudget {
    most_states: u32::MAX,
    whole_states: WHOLE_STATES,
    most_wires: usize::MAX,
    most_cells: i64::MAX,
    when_stuck: Stuck::Share,
};

/// The TUI's focus view, routed once per layout (a threshold step routes again, on the
/// key path).
pub const FOCUS: RouteBudget = RouteBudget {
    // A view whose edges mostly find no clean route would otherwise search its whole grid
    // per edge; the edges left when these are spent are counted, not drawn.
    most_states: 30_000,
    whole_states: WHOLE_STATES,
    // A focus view of more edges, or on a larger grid, is far from fitting any screen:
    // it is routed by window ([`WINDOW`]), as the whole graph is. Known before ranking the
    // edges, so a large step's view costs nothing here on the key path.
    most_wires: 300,
    most_cells: 1 << 17,
    when_stuck: Stuck::LeaveOut,
};

/// The TUI's views routed by window (the whole graph, the neighbourhood view, a focus
/// view too large for [`FOCUS`]): the edges among the nodes in and around the visible
/// window, routed again when the window moves.
pub const WINDOW: RouteBudget = RouteBudget {
    // About 4 ms. A 10k-action replay step at 200x60 spends all of them; 30,000 drew 2%
    // more edges for half as much time again.
    most_states: 20_000,
    // In a dense window an edge with no route near its ends seldom has one far away, and
    // five of them spent a replay step's whole budget at 6,000. At 1,000 a 10k-action
    // replay step at 200x60 draws as many edges (194 on average, was 191) within two
    // thirds of the states; a neighbourhood view at 10k draws the same 28.
    whole_states: 1_000,
    // Routing more would cost more than a frame: the rest are counted (the shortest are
    // routed).
    most_wires: 400,
    // The grid is the window and its margin ([`WINDOW_MARGIN`]), a terminal's size.
    most_cells: i64::MAX,
    when_stuck: Stuck::LeaveOut,
};

/// States one wire's search of the whole grid may take (the export's and the focus
/// view's): a dense picture can leave a wire no clean route anywhere, and an exhaustive
/// search per such wire would then dominate the routing.
pub const WHOLE_STATES: u32 = 6_000;

/// Cells around the visible window whose nodes' edges are routed too ([`WINDOW`]): an
/// edge may leave the window and come back; one reaching farther is counted, not drawn.
/// (x, y): columns are wider than rows are high.
pub const WINDOW_MARGIN: (i32, i32) = (24, 8);

/// Windows whose routes the TUI keeps. A replay step and the step before it are two
/// layouts, so going back and forth between them (or panning back) needs two; a few more
/// cost little (each holds at most [`WINDOW`]`.most_wires` routes).
pub const WINDOWS_KEPT: usize = 4;

/// The largest SVG picture laid out and routed on the grid ([`EXPORT`]); a larger one is
/// drawn layered, as routing it would take too long.
pub const EXPORT_MOST_NODES: usize = 400;

// The search's costs, in quarter steps (so a shared run can cost half a step).

/// One step into a fresh cell.
pub const STEP: u32 = 4;
/// One step along a compatible route (a fork or a join): cheaper than a fresh cell, so
/// edges of one source or one target merge into a trunk.
pub const SHARED: u32 = 2;
/// A bend: two and a half steps, so a route takes up to two more cells to save one, and
/// routes stay plain.
pub const BEND: u32 = 10;
/// Crossing an unrelated route: three steps. A crossing is drawn as a crossing (`┼`) and
/// reads well, so it costs less than the two bends (20) of most detours around it.
pub const CROSS: u32 = 12;
/// A step beside a box the route does not belong to: allowed, but the line then looks
/// attached to that box, so a free row is preferred when there is one.
pub const NEAR_BOX: u32 = 3;
/// Sharing a run with an unrelated route ([`Stuck::Share`] only): fifteen steps, a last
/// resort that any clean detour of the picture's size beats.
pub const CONFLICT: u32 = 60;
/// Extra cells around a wire's ends searched first: enough for a detour around a box or
/// two, small enough that most searches stay in a few hundred cells.
pub const NEAR_ENDS: i32 = 8;

// Which side of a box a route leaves or enters by: leave to the right (down costs only a
// little more, so a box right below is reached by one arrow), arrive from the left or from
// above. Arriving on the right side, where edges leave, or from below reads badly and is a
// last resort.

/// Leaving a box downwards.
pub const LEAVE_DOWN: u32 = 6;
/// Leaving a box to the left or upwards (against the reading order).
pub const LEAVE_BACK: u32 = 30;
/// Arriving through a box's right side (where its own edges leave).
pub const ARRIVE_RIGHT: u32 = 30;
/// Arriving through a box's bottom (against the reading order, and under its label).
pub const ARRIVE_BELOW: u32 = 40;
