//! Orthogonal edge routes that never pass under a box. Rows of boxes are aligned across
//! columns, so the band between two rows is free everywhere, and the gaps between columns
//! hold no boxes: a route leaves its source to the right into a lane in the gap after the
//! source's column, travels along the free band above its target, and comes down a lane
//! in the gap before the target's column (or, for a target at or left of the source's
//! column, drops onto the target's top).

/// A box: x, y, width, height.
pub type Rect = (f64, f64, f64, f64);

/// Where an edge goes: its polyline and a spot for its score label.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub points: Vec<(f64, f64)>,
    pub label: (f64, f64),
}

/// Spacing of parallel lanes in a gap, and how many there are on each side.
const LANE: f64 = 7.0;
const LANES: u32 = 4;
/// First lane's distance from a column's edge.
const LANE0: f64 = 10.0;

/// Both ends of an edge: boxes, layers (columns) and orders (rows).
#[derive(Debug, Clone, Copy)]
pub struct Ends {
    pub ru: Rect,
    pub rv: Rect,
    pub lu: usize,
    pub lv: usize,
    pub ou: u32,
    pub ov: u32,
    /// Right edge of the source's column and left edge of the target's column.
    pub col_right_u: f64,
    pub col_left_v: f64,
    /// Height of the free band between rows.
    pub band: f64,
}

/// Routes one edge (see the module comment).
pub fn plan(e: &Ends) -> Path {
    let (ux, uy, uw, uh) = e.ru;
    let (vx, vy, vw, vh) = e.rv;
    let start = (ux + uw, uy + uh / 2.0);
    let out_x = e.col_right_u + LANE0 + f64::from(e.ou % LANES) * LANE;
    // The band above the target, shifted a little by column so routes to neighbouring
    // targets of one row do not run on one line.
    let band_y = vy - e.band / 2.0 + (e.lv % 3) as f64 * 4.0 - 4.0;
    if e.ru == e.rv {
        let top = (ux + uw / 2.0, uy);
        let points = vec![
            start,
            (out_x, start.1),
            (out_x, band_y),
            (top.0, band_y),
            top,
        ];
        return Path {
            label: (out_x, band_y),
            points,
        };
    }
    let end_y = vy + vh / 2.0;
    if e.lv == e.lu + 1 && (uy - vy).abs() < 0.5 {
        return Path {
            points: vec![start, (vx, end_y)],
            label: ((start.0 + vx) / 2.0, end_y - 4.0),
        };
    }
    if e.lv > e.lu {
        let in_x = e.col_left_v - LANE0 - f64::from(e.ov % LANES) * LANE;
        let points = vec![
            start,
            (out_x, start.1),
            (out_x, band_y),
            (in_x, band_y),
            (in_x, end_y),
            (vx, end_y),
        ];
        return Path {
            label: ((out_x + in_x) / 2.0, band_y - 2.0),
            points,
        };
    }
    // Back to this column or an earlier one: along the band, down onto the target's top.
    let drop_x = vx + vw / 2.0 + (f64::from(e.ou % LANES) - 1.5) * LANE;
    let points = vec![
        start,
        (out_x, start.1),
        (out_x, band_y),
        (drop_x, band_y),
        (drop_x, vy),
    ];
    Path {
        label: ((out_x + drop_x) / 2.0, band_y - 2.0),
        points,
    }
}

/// Whether the segment from `a` to `b` (axis-parallel) passes through the interior of `r`.
pub fn crosses(a: (f64, f64), b: (f64, f64), r: Rect) -> bool {
    let (x, y, w, h) = r;
    let eps = 0.01;
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    x1 > x + eps && x0 < x + w - eps && y1 > y + eps && y0 < y + h - eps
}
