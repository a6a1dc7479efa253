use petgraph::stable_graph::{EdgeIndex, NodeIndex};

use super::*;

fn rect(x: i32, y: i32, w: i32, h: i32) -> CellRect {
    CellRect { x, y, w, h }
}

fn edge(i: usize, from: usize, to: usize, rank: u8) -> Ranked {
    Ranked {
        edge: EdgeIndex::new(i),
        from: NodeIndex::new(from),
        to: NodeIndex::new(to),
        rank,
    }
}

/// Three boxes in a row with a fourth below: 0 and 1 close, 2 far right, 3 under 0.
fn boxes(dx: i32, dy: i32) -> Vec<(NodeIndex, CellRect)> {
    [
        rect(0, 0, 5, 1),
        rect(10, 0, 5, 1),
        rect(30, 0, 5, 1),
        rect(0, 4, 5, 1),
    ]
    .iter()
    .enumerate()
    .map(|(i, r)| (NodeIndex::new(i), rect(r.x + dx, r.y + dy, r.w, r.h)))
    .collect()
}

/// Edges are routed by rank, then the shorter first, then by edge; the order given does
/// not matter, so two requests of the same edges are equal.
#[test]
fn edges_are_ranked_then_shortest_first() {
    let area = rect(0, 0, 40, 8);
    let given = vec![
        edge(7, 0, 2, 0), // far, rank 0
        edge(3, 0, 1, 1), // near, rank 1
        edge(5, 0, 3, 0), // near, rank 0
        edge(4, 3, 1, 0), // middle, rank 0
    ];
    let req = RouteRequest::new(area, boxes(0, 0), given.clone(), FOCUS);
    let order: Vec<usize> = req.edges().iter().map(|e| e.edge.index()).collect();
    assert_eq!(order, [5, 4, 7, 3]);
    let mut reversed = given;
    reversed.reverse();
    assert_eq!(req, RouteRequest::new(area, boxes(0, 0), reversed, FOCUS));
    assert_ne!(req, RouteRequest::new(area, boxes(0, 0), Vec::new(), FOCUS));
}

/// Edges beyond the budget's `most_wires` are known before routing and not tried.
#[test]
fn edges_beyond_most_wires_are_skipped() {
    let budget = RouteBudget {
        most_wires: 2,
        ..FOCUS
    };
    let edges = vec![edge(0, 0, 1, 0), edge(1, 0, 3, 0), edge(2, 0, 2, 0)];
    let req = RouteRequest::new(rect(0, 0, 40, 8), boxes(0, 0), edges, budget);
    let skipped: Vec<usize> = req.skipped().iter().map(|e| e.edge.index()).collect();
    assert_eq!(skipped, [2], "the longest is skipped");
    let out = req.route();
    assert_eq!(out.skipped, req.skipped());
    let routed: Vec<usize> = out.routed.iter().map(|(e, _)| e.index()).collect();
    assert_eq!(routed, [1, 0], "the shorter first");
    assert!(out.states > 0);
}

/// A request on a grid anywhere routes as one at the origin, its routes moved with it.
#[test]
fn routes_come_back_in_the_callers_cells() {
    let edges = vec![edge(0, 0, 1, 0), edge(1, 0, 2, 0), edge(2, 3, 1, 0)];
    let here = RouteRequest::new(rect(0, 0, 40, 8), boxes(0, 0), edges.clone(), WINDOW).route();
    let (dx, dy) = (-17, 40);
    let there = RouteRequest::new(rect(dx, dy, 40, 8), boxes(dx, dy), edges, WINDOW).route();
    assert_eq!(here.routed.len(), 3, "{here:?}");
    assert_eq!(here.states, there.states);
    for ((e, a), (f, b)) in here.routed.iter().zip(&there.routed) {
        assert_eq!(e, f);
        let moved: Vec<(i32, i32)> = a.cells.iter().map(|c| (c.0 + dx, c.1 + dy)).collect();
        assert_eq!(moved, b.cells);
        let spans: Vec<_> = a.spans.iter().map(|s| (s.0 + dx, s.1 + dy, s.2)).collect();
        assert_eq!(spans, b.spans);
    }
}

/// Cells kept clear are passed by no route: a wall between two boxes sends the route
/// around it, or leaves it unrouted when the grid has no way around.
#[test]
fn cells_kept_clear_are_avoided() {
    let boxes = vec![
        (NodeIndex::new(0), rect(0, 2, 4, 1)),
        (NodeIndex::new(1), rect(12, 2, 4, 1)),
    ];
    let edges = vec![edge(0, 0, 1, 0)];
    let open = RouteRequest::new(rect(0, 0, 16, 5), boxes.clone(), edges.clone(), FOCUS);
    let straight = open.route();
    assert_eq!(straight.routed.len(), 1);
    let mut walled = open.clone();
    walled.keep_clear.push(rect(7, 0, 1, 4));
    assert_ne!(walled, open, "the cells kept clear are part of the request");
    let around = walled.route();
    let (_, r) = &around.routed[0];
    assert!(r.cells.iter().all(|&(x, y)| !(x == 7 && y < 4)), "{r:?}");
    assert!(
        r.cells.iter().any(|&(_, y)| y == 4),
        "below the wall: {r:?}"
    );
    let mut closed = walled;
    closed.keep_clear.push(rect(7, 4, 1, 1));
    let none = closed.route();
    assert!(none.routed.is_empty());
    assert_eq!(none.unrouted, closed.edges());
}
