//! Orthogonal edge routes on a cell grid, for drawings in which every edge must be
//! followable alone (the TUI's focus view, the SVG picture).
//!
//! Routes are found one at a time by A* over (cell, direction) states. A route never
//! enters a box, never passes over another route's arrowhead, and never runs along a cell
//! another route already runs along, unless the two share their source or their target
//! (then they merge, which reads as a fork or a join). An unrelated route may only cross
//! straight through, where neither of the two turns, starts or ends, so every crossing is
//! drawn as a crossing (`┼`) and never as a junction. Bends and crossings cost extra, so
//! routes stay short and plain.
//!
//! Pure and bounded: the search of one route is limited to a window around its ends
//! (widened once to the whole grid if that fails), and the grid is only as large as the
//! drawing. What a search may spend, and every cost, is in [`super::routing::budget`];
//! drawings ask for routes through [`super::routing::RouteRequest`].

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::routing::budget::{
    ARRIVE_BELOW, ARRIVE_RIGHT, BEND, CONFLICT, CROSS, LEAVE_BACK, LEAVE_DOWN, NEAR_BOX, NEAR_ENDS,
    RouteBudget, SHARED, STEP, Stuck,
};

/// A box on the grid, in cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellRect {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
}

impl CellRect {
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x && x < self.x + self.w && y >= self.y && y < self.y + self.h
    }
}

/// A direction of travel on the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Up,
    Down,
    Left,
    Right,
}

impl Dir {
    const ALL: [Dir; 4] = [Dir::Up, Dir::Down, Dir::Left, Dir::Right];

    /// The step one cell this way: (dx, dy), y growing downwards.
    pub fn step(self) -> (i32, i32) {
        match self {
            Dir::Up => (0, -1),
            Dir::Down => (0, 1),
            Dir::Left => (-1, 0),
            Dir::Right => (1, 0),
        }
    }

    /// 0 for horizontal travel, 1 for vertical.
    pub fn axis(self) -> usize {
        match self {
            Dir::Left | Dir::Right => 0,
            Dir::Up | Dir::Down => 1,
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    fn turns(self) -> [Dir; 2] {
        match self {
            Dir::Up | Dir::Down => [Dir::Left, Dir::Right],
            Dir::Left | Dir::Right => [Dir::Up, Dir::Down],
        }
    }
}

/// An edge to route: its ends, as keys of boxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wire {
    pub from: u32,
    pub to: u32,
}

/// A routed edge: its cells from the one next to the source to the arrowhead's, with the
/// direction of travel into each (the first: away from the source).
#[derive(Debug, Clone, PartialEq)]
pub struct Routed {
    pub cells: Vec<(i32, i32)>,
    pub dirs: Vec<Dir>,
    /// The way the arrowhead points: into the target (the last step may run beside it).
    pub arrow: Dir,
    /// The route had to share a run with an unrelated one (no clean route existed).
    pub forced: bool,
    /// Horizontal runs of this route that no other route touches: where a label can go
    /// without hiding a line. `(x, y, len)`, the ones nearest the arrowhead first.
    pub spans: Vec<(i32, i32, i32)>,
}

impl Routed {
    /// The arrowhead's cell and the direction it points.
    pub fn head(&self) -> ((i32, i32), Dir) {
        (self.cells.last().copied().unwrap_or_default(), self.arrow)
    }

    /// The cell of the source's border the route leaves through (drawn over by the box;
    /// a line drawn from it connects to the box).
    pub fn tail(&self) -> (i32, i32) {
        let (x, y) = self.cells.first().copied().unwrap_or_default();
        let (dx, dy) = self.dirs.first().copied().unwrap_or(Dir::Right).step();
        (x - dx, y - dy)
    }

    /// The route as corner points (first cell, every bend, last cell).
    pub fn points(&self) -> Vec<(i32, i32)> {
        let mut out = Vec::new();
        for (i, &c) in self.cells.iter().enumerate() {
            let last = i + 1 == self.cells.len();
            if i == 0 || last || self.dirs[i] != self.dirs[i + 1] {
                out.push(c);
            }
        }
        out
    }
}

const NONE: u32 = u32::MAX;

/// Routes `wires` (in order: earlier ones get the plainest routes) between `boxes` on a
/// grid of `w` x `h` cells, within `budget` (its `most_states`, `whole_states` and
/// `when_stuck`; `most_wires` and `most_cells` are the caller's, see
/// [`super::routing::RouteRequest`]). `None` for a wire whose box is missing or enclosed,
/// that found no clean route when stuck wires are left out, or whose turn came after the
/// states were spent. Also returns the search states taken.
pub fn route(
    w: i32,
    h: i32,
    boxes: &[(u32, CellRect)],
    wires: &[Wire],
    budget: &RouteBudget,
) -> (Vec<Option<Routed>>, u32) {
    let forced = budget.when_stuck == Stuck::Share;
    let modes: &[Mode] = if forced {
        &[Mode::Window, Mode::Whole, Mode::ForcedNear, Mode::Forced]
    } else {
        &[Mode::Window, Mode::Whole]
    };
    let mut grid = Grid::new(w.max(1), h.max(1), boxes, wires);
    grid.apart = !forced;
    let rects: HashMap<u32, CellRect> = boxes.iter().copied().collect();
    let mut search = Search::new(grid.cells());
    search.left = budget.most_states;
    search.whole = budget.whole_states;
    let mut out: Vec<Option<Routed>> = Vec::with_capacity(wires.len());
    for (i, wire) in wires.iter().enumerate() {
        let ends = rects.get(&wire.from).zip(rects.get(&wire.to));
        let Some((&src, &dst)) = ends.filter(|_| wire.from != wire.to) else {
            out.push(None);
            continue;
        };
        let job = Job {
            wire: *wire,
            src,
            dst,
        };
        let found = modes.iter().find_map(|&mode| search.run(&grid, &job, mode));
        if let Some(r) = &found {
            grid.commit(i as u32, *wire, r);
        }
        out.push(found);
    }
    for r in out.iter_mut().flatten() {
        r.spans = grid.spans(r);
    }
    (out, search.spent)
}

/// The axes each cell of `r` runs along: straight cells one, ends and bends both (what
/// another route may not share unless it shares an end).
pub fn axes(r: &Routed) -> Vec<((i32, i32), [bool; 2])> {
    let n = r.cells.len();
    (0..n)
        .map(|i| {
            let straight = i > 0 && i + 1 < n && r.dirs[i] == r.dirs[i + 1];
            let a = r.dirs[i].axis();
            let used = if straight {
                [a == 0, a == 1]
            } else {
                [true, true]
            };
            (r.cells[i], used)
        })
        .collect()
}

/// What routes already hold, per cell.
struct Grid {
    w: i32,
    h: i32,
    /// Box key of each cell (NONE outside boxes).
    boxed: Vec<u32>,
    /// First route running along each cell, per axis (0 horizontal, 1 vertical).
    owner: [Vec<u32>; 2],
    /// Further routes of a cell and axis (rare: forks and joins).
    more: HashMap<(u32, usize), Vec<u32>>,
    /// Target of the arrowhead drawn in a cell (NONE: no arrowhead).
    head: Vec<u32>,
    /// The wire of each route, by id (its index in the wires routed).
    wires: Vec<Wire>,
    /// Per cell, the boxes beside it (up, down, left, right): two of them, and whether
    /// there are more. A search asks "is a box other than my ends beside this cell?" for
    /// every state it enters; looking at the four neighbours each time cost a tenth of a
    /// replay step.
    near: Vec<Near>,
    /// Unrelated routes never run straight side by side (see [`Stuck::LeaveOut`]).
    apart: bool,
}

impl Grid {
    fn new(w: i32, h: i32, boxes: &[(u32, CellRect)], wires: &[Wire]) -> Grid {
        let n = (w * h) as usize;
        let mut boxed = vec![NONE; n];
        for &(key, r) in boxes {
            for y in r.y.max(0)..(r.y + r.h).min(h) {
                for x in r.x.max(0)..(r.x + r.w).min(w) {
                    boxed[(y * w + x) as usize] = key;
                }
            }
        }
        let near = (0..n)
            .map(|c| {
                let (x, y) = ((c as i32) % w, (c as i32) / w);
                let mut near = Near::default();
                for d in Dir::ALL {
                    let (dx, dy) = d.step();
                    let (nx, ny) = (x + dx, y + dy);
                    if nx >= 0 && ny >= 0 && nx < w && ny < h {
                        near.add(boxed[(ny * w + nx) as usize]);
                    }
                }
                near
            })
            .collect();
        Grid {
            w,
            h,
            near,
            boxed,
            owner: [vec![NONE; n], vec![NONE; n]],
            more: HashMap::new(),
            head: vec![NONE; n],
            wires: wires.to_vec(),
            apart: false,
        }
    }

    fn cells(&self) -> usize {
        (self.w * self.h) as usize
    }

    fn at(&self, x: i32, y: i32) -> Option<usize> {
        (x >= 0 && y >= 0 && x < self.w && y < self.h).then(|| (y * self.w + x) as usize)
    }

    /// Every route on `axis` of cell `c` shares an end with `wire`.
    fn fits(&self, c: usize, axis: usize, wire: Wire) -> bool {
        let first = self.owner[axis][c];
        if first == NONE {
            return true;
        }
        let ok = |id: &u32| {
            self.wires
                .get(*id as usize)
                .is_some_and(|o| o.from == wire.from || o.to == wire.to)
        };
        ok(&first)
            && self
                .more
                .get(&(c as u32, axis))
                .is_none_or(|v| v.iter().all(ok))
    }

    /// Whether `wire` may run straight along `axis` through cell `c`: with the `apart`
    /// rule, no unrelated route runs along that axis in a cell right beside it.
    fn apart_ok(&self, c: usize, axis: usize, wire: Wire) -> bool {
        if !self.apart {
            return true;
        }
        let (x, y) = ((c as i32) % self.w, (c as i32) / self.w);
        let sides = if axis == 0 {
            [(x, y - 1), (x, y + 1)]
        } else {
            [(x - 1, y), (x + 1, y)]
        };
        sides
            .iter()
            .all(|&(sx, sy)| self.at(sx, sy).is_none_or(|n| self.fits(n, axis, wire)))
    }

    fn taken(&self, c: usize, axis: usize) -> bool {
        self.owner[axis][c] != NONE
    }

    /// Records a route: straight cells hold their axis, ends and bends both axes, the last
    /// cell its arrowhead.
    fn commit(&mut self, id: u32, wire: Wire, r: &Routed) {
        for (cell, used) in axes(r) {
            let Some(c) = self.at(cell.0, cell.1) else {
                continue;
            };
            for (a, &on) in used.iter().enumerate() {
                if !on {
                    continue;
                }
                if self.owner[a][c] == NONE {
                    self.owner[a][c] = id;
                } else if self.owner[a][c] != id {
                    let list = self.more.entry((c as u32, a)).or_default();
                    if !list.contains(&id) {
                        list.push(id);
                    }
                }
            }
        }
        if let Some(&(x, y)) = r.cells.last()
            && let Some(c) = self.at(x, y)
        {
            self.head[c] = wire.to;
        }
    }

    /// Horizontal straight runs of `r` whose cells no other route touches, nearest the
    /// arrowhead first.
    fn spans(&self, r: &Routed) -> Vec<(i32, i32, i32)> {
        let mut out = Vec::new();
        let mut run: Option<(i32, i32, i32)> = None;
        for (i, (cell, used)) in axes(r).into_iter().enumerate() {
            let (x, y) = cell;
            let alone = self.at(x, y).is_some_and(|c| {
                self.owner[1][c] == NONE
                    && self.head[c] == NONE
                    && !self.more.contains_key(&(c as u32, 0))
            });
            if used == [true, false] && alone {
                let _ = i;
                run = match run {
                    Some((x0, y0, len)) if y0 == y && x == x0 + len => Some((x0, y0, len + 1)),
                    Some((x0, y0, len)) if y0 == y && x == x0 - 1 => Some((x, y0, len + 1)),
                    Some(done) => {
                        out.push(done);
                        Some((x, y, 1))
                    }
                    None => Some((x, y, 1)),
                };
            } else if let Some(done) = run.take() {
                out.push(done);
            }
        }
        out.extend(run);
        out.reverse();
        out
    }
}

/// The boxes beside a cell (see [`Grid::near`]).
#[derive(Clone, Copy)]
struct Near {
    keys: [u32; 2],
    more: bool,
}

impl Default for Near {
    fn default() -> Near {
        Near {
            keys: [NONE; 2],
            more: false,
        }
    }
}

impl Near {
    fn add(&mut self, key: u32) {
        if key == NONE || self.keys.contains(&key) {
            return;
        }
        match self.keys.iter_mut().find(|k| **k == NONE) {
            Some(k) => *k = key,
            None => self.more = true,
        }
    }

    /// A box other than `a` and `b` is beside the cell (three different boxes always
    /// hold one).
    fn other_than(&self, a: u32, b: u32) -> bool {
        self.more || self.keys.iter().any(|&k| k != NONE && k != a && k != b)
    }
}

/// One wire being routed.
struct Job {
    wire: Wire,
    src: CellRect,
    dst: CellRect,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Clean routes within a window around the ends.
    Window,
    /// Clean routes anywhere on the grid, within [`Search::whole`] states.
    Whole,
    /// Within the window, sharing runs with unrelated routes at a high cost.
    ForcedNear,
    /// Anywhere, the same.
    Forced,
}

/// The search's reusable arrays (one slot per cell and direction).
struct Search {
    g: Vec<u32>,
    parent: Vec<u32>,
    stamp: Vec<u32>,
    goal: Vec<u32>,
    /// The arrowhead's direction at each goal cell.
    arrow: Vec<Dir>,
    generation: u32,
    /// States left for all the searches still to come.
    left: u32,
    /// States one whole-grid search may take.
    whole: u32,
    /// States taken so far.
    spent: u32,
}

/// A state: cell index * 4 + direction of travel into the cell.
fn state(c: usize, d: Dir) -> usize {
    c * 4 + d.index()
}

impl Search {
    fn new(cells: usize) -> Search {
        Search {
            g: vec![0; cells * 4],
            parent: vec![NONE; cells * 4],
            stamp: vec![0; cells * 4],
            goal: vec![0; cells],
            arrow: vec![Dir::Right; cells],
            generation: 0,
            left: u32::MAX,
            whole: 0,
            spent: 0,
        }
    }

    fn run(&mut self, grid: &Grid, job: &Job, mode: Mode) -> Option<Routed> {
        self.generation = self.generation.wrapping_add(1).max(1);
        let gen_ = self.generation;
        let win = window(grid, job, mode);
        let forced = matches!(mode, Mode::ForcedNear | Mode::Forced);
        let mut budget = if mode == Mode::Whole {
            self.whole
        } else {
            u32::MAX
        };
        // Arrival cells: beside the target, the arrowhead pointing into it.
        let mut any_goal = false;
        for (x, y, d) in ports(job.dst, true) {
            let Some(c) = grid.at(x, y).filter(|_| win.contains(x, y)) else {
                continue;
            };
            if grid.boxed[c] != NONE || !(forced || end_ok(grid, c, job)) {
                continue;
            }
            self.goal[c] = gen_;
            self.arrow[c] = d;
            any_goal = true;
        }
        if !any_goal {
            return None;
        }
        let mut heap: BinaryHeap<Reverse<(u32, u32)>> = BinaryHeap::new();
        for (x, y, d) in ports(job.src, false) {
            let Some(c) = grid.at(x, y).filter(|_| win.contains(x, y)) else {
                continue;
            };
            if grid.boxed[c] != NONE || !(forced || end_ok(grid, c, job)) {
                continue;
            }
            let s = state(c, d);
            let mut cost = port_cost(d, false) + enter_cost(grid, c, d, job, forced);
            if self.goal[c] == gen_ {
                cost += port_cost(self.arrow[c], true);
            }
            if self.stamp[s] != gen_ || cost < self.g[s] {
                self.stamp[s] = gen_;
                self.g[s] = cost;
                self.parent[s] = NONE;
                heap.push(Reverse((cost + heuristic(job.dst, x, y), s as u32)));
            }
        }
        while let Some(Reverse((f, s))) = heap.pop() {
            budget = budget.checked_sub(1)?;
            self.left = self.left.checked_sub(1)?;
            self.spent = self.spent.saturating_add(1);
            let s = s as usize;
            let (c, d) = (s / 4, Dir::ALL[s % 4]);
            let g = self.g[s];
            let (x, y) = ((c as i32) % grid.w, (c as i32) / grid.w);
            if f > g + heuristic(job.dst, x, y) {
                continue; // a stale entry
            }
            if self.goal[c] == gen_ {
                return Some(self.path(grid, s, forced, self.arrow[c]));
            }
            // Arrowheads are passed by no route.
            if grid.head[c] != NONE {
                continue;
            }
            for d2 in [d, d.turns()[0], d.turns()[1]] {
                let turning = d2 != d;
                let here_ok = if turning {
                    grid.fits(c, 0, job.wire) && grid.fits(c, 1, job.wire)
                } else {
                    grid.fits(c, d.axis(), job.wire)
                        && (forced || grid.apart_ok(c, d.axis(), job.wire))
                };
                let (dx, dy) = d2.step();
                let (nx, ny) = (x + dx, y + dy);
                if !win.contains(nx, ny) {
                    continue;
                }
                let Some(n) = grid.at(nx, ny) else { continue };
                if grid.boxed[n] != NONE {
                    continue;
                }
                if grid.head[n] != NONE && !(grid.head[n] == job.wire.to && self.goal[n] == gen_) {
                    continue;
                }
                let mut cost = g + enter_cost(grid, n, d2, job, forced);
                if turning {
                    cost += BEND;
                }
                if !here_ok {
                    if !forced {
                        continue;
                    }
                    cost += CONFLICT;
                }
                if self.goal[n] == gen_ {
                    cost += port_cost(self.arrow[n], true);
                }
                let ns = state(n, d2);
                if self.stamp[ns] != gen_ || cost < self.g[ns] {
                    self.stamp[ns] = gen_;
                    self.g[ns] = cost;
                    self.parent[ns] = s as u32;
                    heap.push(Reverse((cost + heuristic(job.dst, nx, ny), ns as u32)));
                }
            }
        }
        None
    }

    fn path(&self, grid: &Grid, end: usize, forced: bool, arrow: Dir) -> Routed {
        let mut cells = Vec::new();
        let mut dirs = Vec::new();
        let mut s = end;
        loop {
            let c = s / 4;
            cells.push(((c as i32) % grid.w, (c as i32) / grid.w));
            dirs.push(Dir::ALL[s % 4]);
            let p = self.parent[s];
            if p == NONE {
                break;
            }
            s = p as usize;
        }
        cells.reverse();
        dirs.reverse();
        Routed {
            cells,
            dirs,
            arrow,
            forced,
            spans: Vec::new(),
        }
    }
}

/// A cell where a route starts or ends holds both axes, and no other target's arrowhead.
fn end_ok(grid: &Grid, c: usize, job: &Job) -> bool {
    grid.fits(c, 0, job.wire)
        && grid.fits(c, 1, job.wire)
        && (grid.head[c] == NONE || grid.head[c] == job.wire.to)
}

/// The cost of stepping into cell `c` travelling `d`.
fn enter_cost(grid: &Grid, c: usize, d: Dir, job: &Job, forced: bool) -> u32 {
    let axis = d.axis();
    let mut cost = if grid.taken(c, axis) && grid.fits(c, axis, job.wire) {
        SHARED
    } else {
        STEP
    };
    if grid.taken(c, 1 - axis) && !grid.fits(c, 1 - axis, job.wire) {
        cost += CROSS;
    }
    if forced && !grid.fits(c, axis, job.wire) {
        cost += CONFLICT;
    }
    if grid.near[c].other_than(job.wire.from, job.wire.to) {
        cost += NEAR_BOX;
    }
    cost
}

/// Preference among a box's sides (see [`super::routing::budget`]): `d` is the direction of
/// travel away from the box, or into it when `arriving`.
fn port_cost(d: Dir, arriving: bool) -> u32 {
    match (arriving, d) {
        (false, Dir::Right) => 0,
        (false, Dir::Down) => LEAVE_DOWN,
        (false, _) => LEAVE_BACK,
        (true, Dir::Right | Dir::Down) => 0,
        (true, Dir::Left) => ARRIVE_RIGHT,
        (true, Dir::Up) => ARRIVE_BELOW,
    }
}

/// The cells beside a box where a route starts (`arriving` false: with the direction
/// away from the box) or ends (with the direction into it): the middle row on the left and
/// right, any column but the corners above and below.
fn ports(r: CellRect, arriving: bool) -> Vec<(i32, i32, Dir)> {
    let mid = r.y + r.h / 2;
    let mut out = Vec::with_capacity(2 * r.w as usize + 2);
    let flip = |d: Dir| match (arriving, d) {
        (false, d) => d,
        (true, Dir::Up) => Dir::Down,
        (true, Dir::Down) => Dir::Up,
        (true, Dir::Left) => Dir::Right,
        (true, Dir::Right) => Dir::Left,
    };
    out.push((r.x + r.w, mid, flip(Dir::Right)));
    out.push((r.x - 1, mid, flip(Dir::Left)));
    // Routes leave through the bottom only at its first column, so a box's edges down
    // share one trunk (a tree, `┣▶` per target) instead of running side by side.
    let under = if arriving { r.x + r.w - 1 } else { r.x + 2 };
    for x in r.x + 1..under {
        out.push((x, r.y + r.h, flip(Dir::Down)));
    }
    for x in r.x + 1..r.x + r.w - 1 {
        out.push((x, r.y - 1, flip(Dir::Up)));
    }
    out
}

/// A lower bound of the cost from (x, y) to a cell beside `r`.
fn heuristic(r: CellRect, x: i32, y: i32) -> u32 {
    let dx = (r.x - 1 - x).max(x - (r.x + r.w)).max(0);
    let dy = (r.y - 1 - y).max(y - (r.y + r.h)).max(0);
    (dx + dy) as u32 * STEP
}

/// Where a search may go: around the ends first, then anywhere.
fn window(grid: &Grid, job: &Job, mode: Mode) -> CellRect {
    if !matches!(mode, Mode::Window | Mode::ForcedNear) {
        return CellRect {
            x: 0,
            y: 0,
            w: grid.w,
            h: grid.h,
        };
    }
    let (a, b) = (job.src, job.dst);
    let x0 = a.x.min(b.x) - NEAR_ENDS;
    let y0 = a.y.min(b.y) - NEAR_ENDS;
    let x1 = (a.x + a.w).max(b.x + b.w) + NEAR_ENDS;
    let y1 = (a.y + a.h).max(b.y + b.h) + NEAR_ENDS;
    CellRect {
        x: x0,
        y: y0,
        w: x1 - x0,
        h: y1 - y0,
    }
}

#[cfg(test)]
mod tests;
