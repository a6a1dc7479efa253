//! The golden pictures of the router's budgets (`layout::routing::budget`): one small,
//! dense drawing routed with each preset, rendered as text. The drawing is dense enough
//! that each preset's values decide what is drawn: the export shares runs rather than
//! leave an edge out, the focus view and the windows leave edges out, and each runs out
//! of search states at its own limit (the footer says how many were taken). A change to
//! a preset that changes what it draws changes its picture here.

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use toolscope_core::layout::route::{CellRect, Dir, Routed};
use toolscope_core::layout::routing::{
    EXPORT, FOCUS, Ranked, RouteBudget, RouteRequest, RoutedEdges, WINDOW,
};

const COLS: i32 = 6;
const ROWS: i32 = 5;
/// Grid cells per column and per row of boxes.
const COL_W: i32 = 10;
const ROW_H: i32 = 3;
const WIRES: usize = 50;

/// Boxes three cells wide in a grid, and wires between them picked by a fixed sequence
/// (so the picture never changes but by the router).
fn request(budget: RouteBudget) -> RouteRequest {
    let mut boxes = Vec::new();
    for c in 0..COLS {
        for r in 0..ROWS {
            let i = (c * ROWS + r) as usize;
            let rect = CellRect {
                x: 1 + c * COL_W,
                y: 1 + r * ROW_H,
                w: 3,
                h: 1,
            };
            boxes.push((NodeIndex::new(i), rect));
        }
    }
    let n = boxes.len() as u64;
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut edges = Vec::new();
    while edges.len() < WIRES {
        let (a, b, rank) = (next() % n, next() % n, (next() % 3) as u8);
        if a != b {
            edges.push(Ranked {
                edge: EdgeIndex::new(edges.len()),
                from: NodeIndex::new(a as usize),
                to: NodeIndex::new(b as usize),
                rank,
            });
        }
    }
    let area = CellRect {
        x: 0,
        y: 0,
        w: COLS * COL_W + 1,
        h: ROWS * ROW_H + 1,
    };
    RouteRequest::new(area, boxes, edges, budget)
}

/// The drawing as text: boxes as their letter, routes as `-` `|` `+` with their
/// arrowhead (`=` `:` for a route that had to share a run with an unrelated one, `#`
/// where it meets another); then the budget, what was not routed and the states taken.
fn picture(req: &RouteRequest, out: &RoutedEdges) -> String {
    let (w, h) = (req.area.w as usize, req.area.h as usize);
    let mut grid = vec![vec![' '; w]; h];
    let mut put = |x: i32, y: i32, c: char| {
        if let Some(cell) = grid
            .get_mut(y as usize)
            .and_then(|row| row.get_mut(x as usize))
        {
            *cell = match (*cell, c) {
                (' ', c) => c,
                (old, c) if old == c => c,
                ('>' | '<' | 'v' | '^', _) | (_, '>' | '<' | 'v' | '^') => c,
                ('=' | ':', _) | (_, '=' | ':') => '#',
                _ => '+',
            };
        }
    };
    for (_, r) in &out.routed {
        draw(r, &mut put);
    }
    for (ix, b) in &req.boxes {
        let letter = char::from(b'A' + (ix.index() % 26) as u8);
        let letter = if ix.index() >= 26 {
            letter.to_ascii_lowercase()
        } else {
            letter
        };
        for x in b.x..b.x + b.w {
            grid[b.y as usize][x as usize] = letter;
        }
    }
    let mut text: String = grid
        .iter()
        .map(|row| row.iter().collect::<String>().trim_end().to_string() + "\n")
        .collect();
    let b = req.budget;
    let most = |n: u64, max: u64| {
        if n == max {
            "no limit".to_string()
        } else {
            n.to_string()
        }
    };
    text += &format!(
        "budget: most_states {}, whole_states {}, most_wires {}, when_stuck {:?}\n",
        most(b.most_states.into(), u32::MAX.into()),
        b.whole_states,
        most(b.most_wires as u64, usize::MAX as u64),
        b.when_stuck
    );
    let forced = out.routed.iter().filter(|(_, r)| r.forced).count();
    text += &format!(
        "routed {} of {} ({forced} sharing a run), not routed {}, skipped {}, states {}\n",
        out.routed.len(),
        req.edges().len(),
        out.unrouted.len(),
        out.skipped.len(),
        out.states
    );
    let left: Vec<String> = out
        .unrouted
        .iter()
        .map(|e| format!("e{}", e.edge.index()))
        .collect();
    text += &format!("not routed: {}\n", left.join(" "));
    text
}

fn draw(r: &Routed, put: &mut impl FnMut(i32, i32, char)) {
    let n = r.cells.len();
    for (i, &(x, y)) in r.cells.iter().enumerate() {
        let c = if i + 1 == n {
            match r.arrow {
                Dir::Right => '>',
                Dir::Left => '<',
                Dir::Down => 'v',
                Dir::Up => '^',
            }
        } else if r.dirs[i] != r.dirs[i + 1] {
            '+'
        } else if r.dirs[i].axis() == 0 {
            if r.forced { '=' } else { '-' }
        } else if r.forced {
            ':'
        } else {
            '|'
        };
        put(x, y, c);
    }
}

fn golden(budget: RouteBudget) -> (String, RoutedEdges) {
    let req = request(budget);
    let out = req.route();
    (picture(&req, &out), out)
}

/// The export shares a run rather than leave an edge out, so every edge is drawn.
#[test]
fn export_preset_draws_every_edge() {
    let (text, out) = golden(EXPORT);
    assert!(out.unrouted.is_empty(), "{text}");
    assert!(out.routed.iter().any(|(_, r)| r.forced), "{text}");
    insta::assert_snapshot!("route_preset_export", text);
}

/// The focus view leaves out what it cannot route apart, within its states.
#[test]
fn focus_preset_leaves_out_what_it_cannot_route_apart() {
    let (text, out) = golden(FOCUS);
    assert!(!out.unrouted.is_empty(), "{text}");
    assert!(out.routed.iter().all(|(_, r)| !r.forced), "{text}");
    insta::assert_snapshot!("route_preset_focus", text);
}

/// A window spends fewer states per edge far from its ends, and fewer in all: here it
/// runs out of them, one edge before the focus view's budget would have.
#[test]
fn window_preset_spends_less_than_the_focus_view() {
    let (text, out) = golden(WINDOW);
    let (_, focus) = golden(FOCUS);
    assert!(out.states < focus.states, "{text}");
    assert_eq!(
        out.states, WINDOW.most_states,
        "the window's states run out: {text}"
    );
    insta::assert_snapshot!("route_preset_window", text);
}
