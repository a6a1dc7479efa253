use super::*;
use crate::layout::routing::budget::{EXPORT, FOCUS, WHOLE_STATES};

/// Every wire routed, sharing runs when stuck (the export's budget).
fn route_all(w: i32, h: i32, boxes: &[(u32, CellRect)], wires: &[Wire]) -> Vec<Option<Routed>> {
    route(w, h, boxes, wires, &EXPORT).0
}

/// Wires with no clean route left out, with no limit of states in all.
fn route_clean(w: i32, h: i32, boxes: &[(u32, CellRect)], wires: &[Wire]) -> Vec<Option<Routed>> {
    route_within(w, h, boxes, wires, u32::MAX, WHOLE_STATES)
}

/// As [`route_clean`] within `most_states` in all and `whole_states` per whole-grid search.
fn route_within(
    w: i32,
    h: i32,
    boxes: &[(u32, CellRect)],
    wires: &[Wire],
    most_states: u32,
    whole_states: u32,
) -> Vec<Option<Routed>> {
    let budget = RouteBudget {
        most_states,
        whole_states,
        ..FOCUS
    };
    route(w, h, boxes, wires, &budget).0
}

fn rect(x: i32, y: i32, w: i32, h: i32) -> CellRect {
    CellRect { x, y, w, h }
}

/// Routes are connected, leave their source's border, end beside their target pointing
/// at it, and avoid every box.
fn check_shape(boxes: &[(u32, CellRect)], wire: Wire, r: &Routed) {
    let find = |k: u32| boxes.iter().find(|b| b.0 == k).map(|b| b.1).expect("box");
    let (src, dst) = (find(wire.from), find(wire.to));
    for w in r.cells.windows(2) {
        let d = (w[0].0 - w[1].0).abs() + (w[0].1 - w[1].1).abs();
        assert_eq!(d, 1, "gap in {r:?}");
    }
    for (i, &(x, y)) in r.cells.iter().enumerate() {
        assert!(
            boxes.iter().all(|b| !b.1.contains(x, y)),
            "{x},{y} in a box"
        );
        if i > 0 {
            let (dx, dy) = r.dirs[i].step();
            assert_eq!((x - dx, y - dy), r.cells[i - 1], "direction of {i}");
        }
    }
    let (tx, ty) = r.tail();
    assert!(src.contains(tx, ty), "does not leave its source");
    let ((x, y), d) = r.head();
    let (dx, dy) = d.step();
    assert!(dst.contains(x + dx, y + dy), "does not point at its target");
}

/// No two routes of unrelated edges share the axis of a cell; returns how many were forced.
fn check_apart(wires: &[Wire], routes: &[Option<Routed>]) -> usize {
    let mut used: HashMap<((i32, i32), usize), Vec<usize>> = HashMap::new();
    let mut forced = 0;
    for (i, r) in routes.iter().enumerate() {
        let Some(r) = r else { continue };
        if r.forced {
            forced += 1;
            continue;
        }
        for (c, ax) in axes(r) {
            for (a, &on) in ax.iter().enumerate() {
                if on {
                    used.entry((c, a)).or_default().push(i);
                }
            }
        }
    }
    for ((c, a), ids) in used {
        for (k, &i) in ids.iter().enumerate() {
            for &j in &ids[k + 1..] {
                let (p, q) = (wires[i], wires[j]);
                assert!(
                    p.from == q.from || p.to == q.to,
                    "{p:?} and {q:?} share axis {a} of {c:?}"
                );
            }
        }
    }
    forced
}

#[test]
fn a_neighbour_on_the_same_row_is_reached_straight() {
    let boxes = [(0, rect(0, 0, 5, 1)), (1, rect(9, 0, 5, 1))];
    let wires = [Wire { from: 0, to: 1 }];
    let r = route_all(20, 3, &boxes, &wires);
    let r = r[0].as_ref().expect("routed");
    check_shape(&boxes, wires[0], r);
    assert_eq!(r.points(), vec![(5, 0), (8, 0)]);
    assert_eq!(r.head(), ((8, 0), Dir::Right));
}

#[test]
fn a_box_right_below_is_reached_by_one_arrow() {
    let boxes = [(0, rect(0, 0, 8, 1)), (1, rect(0, 2, 8, 1))];
    let wires = [Wire { from: 0, to: 1 }];
    let r = route_all(12, 4, &boxes, &wires);
    let r = r[0].as_ref().expect("routed");
    assert_eq!(r.cells.len(), 1);
    assert_eq!(r.head().1, Dir::Down);
}

#[test]
fn unrelated_edges_cross_but_never_run_together() {
    // Two sources on the left, two targets on the right, wired across.
    let boxes = [
        (0, rect(0, 0, 4, 1)),
        (1, rect(0, 4, 4, 1)),
        (2, rect(12, 0, 4, 1)),
        (3, rect(12, 4, 4, 1)),
    ];
    let wires = [Wire { from: 0, to: 3 }, Wire { from: 1, to: 2 }];
    let routes = route_all(20, 6, &boxes, &wires);
    for (w, r) in wires.iter().zip(&routes) {
        let r = r.as_ref().expect("routed");
        assert!(!r.forced);
        check_shape(&boxes, *w, r);
    }
    assert_eq!(check_apart(&wires, &routes), 0);
}

/// Two unrelated wires whose only way is one corridor: `route_all` forces the second
/// along the first, `route_clean` leaves it unrouted.
#[test]
fn a_clean_routing_leaves_out_what_would_share_a_run() {
    let boxes = [
        (0, rect(0, 0, 1, 1)),
        (1, rect(6, 0, 1, 1)),
        (2, rect(0, 2, 1, 1)),
        (3, rect(6, 2, 1, 1)),
        // Walls above and below the corridor (row 1, columns 2 to 4).
        (8, rect(2, 0, 3, 1)),
        (9, rect(2, 2, 3, 1)),
    ];
    let wires = [Wire { from: 0, to: 1 }, Wire { from: 2, to: 3 }];
    let forced = route_all(7, 3, &boxes, &wires);
    assert!(forced[0].as_ref().is_some_and(|r| !r.forced));
    assert!(forced[1].as_ref().is_some_and(|r| r.forced));
    let clean = route_clean(7, 3, &boxes, &wires);
    let cells = |r: &Option<Routed>| r.as_ref().map(|r| r.cells.clone());
    assert_eq!(cells(&clean[0]), cells(&forced[0]));
    assert!(clean[1].is_none(), "{:?}", clean[1]);
}

/// Cells where two unrelated routes run straight along the same axis right beside each
/// other.
fn side_by_side(wires: &[Wire], routes: &[Option<Routed>]) -> usize {
    let mut straight: HashMap<((i32, i32), usize), Vec<usize>> = HashMap::new();
    for (i, r) in routes.iter().enumerate() {
        let Some(r) = r else { continue };
        for (c, ax) in axes(r) {
            if ax[0] != ax[1] {
                straight.entry((c, usize::from(ax[1]))).or_default().push(i);
            }
        }
    }
    let mut n = 0;
    for (&((x, y), a), ids) in &straight {
        let beside = if a == 0 { (x, y + 1) } else { (x + 1, y) };
        for j in straight.get(&(beside, a)).into_iter().flatten() {
            for &i in ids {
                let (p, q) = (wires[i], wires[*j]);
                n += usize::from(p.from != q.from && p.to != q.to);
            }
        }
    }
    n
}

/// Two sources in adjacent rows wired to two targets in adjacent rows: `route_all` runs
/// the two routes side by side, `route_clean` keeps a row between them.
#[test]
fn a_clean_routing_never_runs_unrelated_routes_side_by_side() {
    let boxes = [
        (0, rect(0, 1, 3, 1)),
        (1, rect(0, 2, 3, 1)),
        (2, rect(12, 1, 3, 1)),
        (3, rect(12, 2, 3, 1)),
    ];
    let wires = [Wire { from: 0, to: 2 }, Wire { from: 1, to: 3 }];
    let all = route_all(15, 6, &boxes, &wires);
    assert!(
        side_by_side(&wires, &all) > 0,
        "the check can fail: {all:?}"
    );
    let clean = route_clean(15, 6, &boxes, &wires);
    assert!(clean.iter().all(Option::is_some), "both routed: {clean:?}");
    assert_eq!(side_by_side(&wires, &clean), 0, "{clean:?}");
    assert_eq!(check_apart(&wires, &clean), 0);
}

/// A routing within a budget of search states routes what the budget allows, in order,
/// and leaves the rest: none with no states, all with plenty.
#[test]
fn a_routing_within_a_budget_stops_when_it_is_spent() {
    let boxes = [
        (0, rect(0, 0, 5, 1)),
        (1, rect(9, 0, 5, 1)),
        (2, rect(0, 4, 5, 1)),
    ];
    let wires = [Wire { from: 0, to: 1 }, Wire { from: 2, to: 1 }];
    let none = route_within(20, 6, &boxes, &wires, 0, WHOLE_STATES);
    assert!(none.iter().all(Option::is_none));
    let all = route_within(20, 6, &boxes, &wires, 1_000_000, WHOLE_STATES);
    assert_eq!(all, route_clean(20, 6, &boxes, &wires));
}

/// A wire whose only route goes far beyond its ends (around a wall) is found by the search
/// of the whole grid, within that search's own budget: none when it has no states.
#[test]
fn a_route_far_from_its_ends_takes_the_whole_grid_budget() {
    let boxes = [
        (0, rect(0, 0, 5, 1)),
        (1, rect(12, 0, 5, 1)),
        (2, rect(8, 0, 2, 20)),
    ];
    let wires = [Wire { from: 0, to: 1 }];
    let far = route_within(20, 24, &boxes, &wires, 1_000_000, WHOLE_STATES);
    let r = far[0].as_ref().expect("routed around the wall");
    assert!(r.cells.iter().any(|c| c.1 >= 20), "below the wall: {r:?}");
    let near_only = route_within(20, 24, &boxes, &wires, 1_000_000, 0);
    assert!(near_only[0].is_none(), "{near_only:?}");
}

proptest::proptest! {
    #[test]
    fn random_drawings_route_apart(
        cols in 1usize..4,
        rows in 1usize..6,
        picks in proptest::collection::vec((0usize..24, 0usize..24), 0..30),
    ) {
        // A grid of one-line boxes with channels, as the focus view packs them.
        let mut boxes = Vec::new();
        for c in 0..cols {
            for r in 0..rows {
                let key = (c * rows + r) as u32;
                let w = 4 + (key as i32 * 7) % 9;
                boxes.push((key, rect(c as i32 * 20, r as i32 * 2, w, 1)));
            }
        }
        let n = boxes.len();
        let wires: Vec<Wire> = picks
            .iter()
            .map(|&(a, b)| Wire { from: (a % n) as u32, to: (b % n) as u32 })
            .filter(|w| w.from != w.to)
            .collect();
        let routes = route_all(cols as i32 * 20, rows as i32 * 2, &boxes, &wires);
        for (w, r) in wires.iter().zip(&routes) {
            if let Some(r) = r {
                check_shape(&boxes, *w, r);
            }
        }
        check_apart(&wires, &routes);
    }
}

/// Whether a box other than `a` and `b` lies beside cell (x, y): the four neighbours
/// looked at one by one, as the search did before the grid kept them per cell.
fn scanned_near(grid: &Grid, x: i32, y: i32, a: u32, b: u32) -> bool {
    Dir::ALL.iter().any(|d| {
        let (dx, dy) = d.step();
        grid.at(x + dx, y + dy)
            .is_some_and(|n| grid.boxed[n] != NONE && grid.boxed[n] != a && grid.boxed[n] != b)
    })
}

proptest::proptest! {
    #[test]
    fn kept_neighbour_boxes_answer_as_a_scan(
        rects in proptest::collection::vec((0i32..12, 0i32..8, 1i32..4, 1i32..3), 0..12),
        ends in (0u32..14, 0u32..14),
    ) {
        // Boxes may touch and overlap (a later one wins its cells), so a cell can have
        // several different boxes beside it.
        let boxes: Vec<(u32, CellRect)> = rects
            .iter()
            .enumerate()
            .map(|(i, &(x, y, w, h))| (i as u32, rect(x, y, w, h)))
            .collect();
        let grid = Grid::new(14, 10, &boxes, &[]);
        for y in 0..10 {
            for x in 0..14 {
                let c = grid.at(x, y).expect("on the grid");
                proptest::prop_assert_eq!(
                    grid.near[c].other_than(ends.0, ends.1),
                    scanned_near(&grid, x, y, ends.0, ends.1),
                    "cell {},{}", x, y
                );
            }
        }
    }
}
