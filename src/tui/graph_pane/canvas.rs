//! A line canvas over the visible window: each cell collects direction bits (up, down,
//! left, right) and the strongest level of the edges through it, so crossing and merging
//! routes turn into proper junction glyphs. Marks (arrowheads, labels) go on top.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::tui::graph_pane::geometry::WRect;
use crate::tui::theme::{Level, Theme};

use crate::tui::graph_pane::draw::put_str;
pub use toolscope_core::layout::route::Dir;

const UP: u8 = 1;
const DOWN: u8 = 2;
const LEFT: u8 = 4;
const RIGHT: u8 = 8;

/// Something drawn over the lines.
pub enum Mark {
    /// An arrowhead pointing the way the edge travels into its target.
    Arrow(Dir),
    Text(String),
}

pub struct Canvas {
    view: WRect,
    bits: Vec<u8>,
    /// 0 empty, else `Level as u8 + 1`.
    level: Vec<u8>,
    marks: Vec<((i32, i32), Mark, Level)>,
    /// When tracing (tests): which edge set which direction bits of which cell.
    trace: Option<Vec<Traced>>,
    /// The edge whose lines are being added, for the trace.
    current: u32,
}

/// One edge's direction bits in one cell (world coordinates), recorded when tracing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Traced {
    pub x: i32,
    pub y: i32,
    pub edge: u32,
    pub bits: u8,
}

fn level_code(l: Level) -> u8 {
    l as u8 + 1
}

impl Canvas {
    pub fn new(view: WRect) -> Canvas {
        let n = (view.w.max(0) * view.h.max(0)) as usize;
        Canvas {
            view,
            bits: vec![0; n],
            level: vec![0; n],
            marks: Vec::new(),
            trace: None,
            current: u32::MAX,
        }
    }

    /// Records, from now on, which edge draws which cells (see [`Canvas::traced`]).
    pub fn trace(&mut self) {
        self.trace = Some(Vec::new());
    }

    /// Names the edge whose lines come next.
    pub fn owner(&mut self, edge: u32) {
        self.current = edge;
    }

    /// What was recorded since [`Canvas::trace`].
    pub fn traced(&self) -> &[Traced] {
        self.trace.as_deref().unwrap_or_default()
    }

    /// Direction bits of a cell (world coordinates) after all lines: up 1, down 2, left 4,
    /// right 8.
    pub fn bits_at(&self, x: i32, y: i32) -> u8 {
        self.index(x, y).map_or(0, |i| self.bits[i])
    }

    /// The window this canvas covers, in layout cells.
    pub fn view(&self) -> WRect {
        self.view
    }

    /// Whether a polyline's bounding box meets the view.
    pub fn touches(&self, pts: &[(i32, i32)]) -> bool {
        let (mut x0, mut y0, mut x1, mut y1) = (i32::MAX, i32::MAX, i32::MIN, i32::MIN);
        for &(x, y) in pts {
            x0 = x0.min(x);
            y0 = y0.min(y);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        let v = self.view;
        x1 >= v.x && x0 < v.x + v.w && y1 >= v.y && y0 < v.y + v.h
    }

    fn index(&self, x: i32, y: i32) -> Option<usize> {
        let v = self.view;
        (v.contains(x, y)).then(|| ((y - v.y) * v.w + (x - v.x)) as usize)
    }

    fn set(&mut self, x: i32, y: i32, b: u8, l: Level) {
        if let Some(i) = self.index(x, y) {
            self.bits[i] |= b;
            self.level[i] = self.level[i].max(level_code(l));
            if let Some(t) = self.trace.as_mut() {
                t.push(Traced {
                    x,
                    y,
                    edge: self.current,
                    bits: b,
                });
            }
        }
    }

    /// Adds axis-parallel segments joining consecutive points.
    pub fn polyline(&mut self, pts: &[(i32, i32)], l: Level) {
        for w in pts.windows(2) {
            let ((x0, y0), (x1, y1)) = (w[0], w[1]);
            if y0 == y1 {
                self.hline(y0, x0, x1, l);
            } else if x0 == x1 {
                self.vline(x0, y0, y1, l);
            }
        }
    }

    fn hline(&mut self, y: i32, a: i32, b: i32, l: Level) {
        if y < self.view.y || y >= self.view.y + self.view.h || a == b {
            return;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        for x in lo.max(self.view.x - 1)..=hi.min(self.view.x + self.view.w) {
            let mut bits = 0;
            if x > lo {
                bits |= LEFT;
            }
            if x < hi {
                bits |= RIGHT;
            }
            self.set(x, y, bits, l);
        }
    }

    fn vline(&mut self, x: i32, a: i32, b: i32, l: Level) {
        if x < self.view.x || x >= self.view.x + self.view.w || a == b {
            return;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        for y in lo.max(self.view.y - 1)..=hi.min(self.view.y + self.view.h) {
            let mut bits = 0;
            if y > lo {
                bits |= UP;
            }
            if y < hi {
                bits |= DOWN;
            }
            self.set(x, y, bits, l);
        }
    }

    pub fn mark(&mut self, at: (i32, i32), m: Mark, l: Level) {
        if self.touches(&[at, (at.0 + 5, at.1)]) {
            self.marks.push((at, m, l));
        }
    }

    /// Writes lines, then marks, into the buffer.
    pub fn draw(&self, buf: &mut Buffer, area: Rect, theme: &Theme) {
        let g = theme.glyphs();
        for (i, &b) in self.bits.iter().enumerate() {
            if b == 0 {
                continue;
            }
            let code = self.level[i];
            let level = match code {
                1 => Level::Dimmed,
                2 => Level::Normal,
                _ => Level::Recommended,
            };
            let sym = match (level, b) {
                (Level::Recommended, _) => g.heavy[b as usize],
                (Level::Dimmed, 4 | 8 | 12) => g.dashed[0],
                (Level::Dimmed, 1..=3) => g.dashed[1],
                _ => g.thin[b as usize],
            };
            let x = (i as i32 % self.view.w) as u16 + area.x;
            let y = (i as i32 / self.view.w) as u16 + area.y;
            if let Some(cell) = buf.cell_mut((x, y)) {
                cell.set_symbol(sym).set_style(theme.edge(level));
            }
        }
        for ((x, y), m, l) in &self.marks {
            // A text mark (a score label) is drawn whole or not at all: a fragment reads
            // as another value.
            if let Mark::Text(t) = m {
                let w = unicode_width::UnicodeWidthStr::width(t.as_str()) as i32;
                if *x < self.view.x || *x + w > self.view.x + self.view.w {
                    continue;
                }
            }
            let s = match m {
                Mark::Arrow(Dir::Right) => g.arrow_right,
                Mark::Arrow(Dir::Down) => g.arrow_down,
                Mark::Arrow(Dir::Left) => g.arrow_left,
                Mark::Arrow(Dir::Up) => g.arrow_up,
                Mark::Text(t) => t.as_str(),
            };
            put_str(buf, area, self.view, *x, *y, s, theme.edge(*l));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme::Theme;

    fn draw(c: &Canvas, w: u16, h: u16, theme: &Theme) -> Vec<String> {
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        c.draw(&mut buf, area, theme);
        (0..h)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect())
            .collect()
    }

    #[test]
    fn crossing_and_corners_become_junctions() {
        let mut c = Canvas::new(WRect {
            x: 0,
            y: 0,
            w: 5,
            h: 3,
        });
        c.polyline(&[(0, 1), (4, 1)], Level::Normal);
        c.polyline(&[(2, 0), (2, 2)], Level::Normal);
        assert_eq!(
            draw(&c, 5, 3, &Theme::default()),
            vec!["  │  ", "──┼──", "  │  "]
        );
        let mut c = Canvas::new(WRect {
            x: 0,
            y: 0,
            w: 3,
            h: 2,
        });
        c.polyline(&[(0, 0), (2, 0), (2, 1)], Level::Recommended);
        assert_eq!(draw(&c, 3, 2, &Theme::default()), vec!["━━┓", "  ┃"]);
    }

    #[test]
    fn dimmed_lines_are_dashed_and_ascii_has_its_own_set() {
        let mut c = Canvas::new(WRect {
            x: 0,
            y: 0,
            w: 3,
            h: 1,
        });
        c.polyline(&[(0, 0), (2, 0)], Level::Dimmed);
        c.mark((2, 0), Mark::Arrow(Dir::Right), Level::Dimmed);
        assert_eq!(draw(&c, 3, 1, &Theme::default()), vec!["╌╌▶"]);
        let ascii = Theme {
            color: false,
            ascii: true,
        };
        assert_eq!(draw(&c, 3, 1, &ascii), vec!["..>"]);
    }

    #[test]
    fn lines_outside_the_view_are_clipped() {
        let mut c = Canvas::new(WRect {
            x: 10,
            y: 10,
            w: 4,
            h: 2,
        });
        c.polyline(&[(0, 10), (100, 10)], Level::Normal);
        c.polyline(&[(0, 50), (100, 50)], Level::Normal);
        assert_eq!(draw(&c, 4, 2, &Theme::default()), vec!["────", "    "]);
    }
}
