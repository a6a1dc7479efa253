//! The sweep chart of the parameter bar: recommended nodes (actions plus tools) over the
//! threshold axis from 0 to 1, one column per sample, bar heights in eighths of a cell.
//! The column of the current threshold is drawn reversed and bold, so it is marked
//! without colour; ASCII mode uses a ramp of ASCII characters.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::ctx::Ctx;
use crate::tui::insight::InsightState;
use toolscope_core::recommend::Sweep;

const BLOCKS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
const ASCII_RAMP: [char; 9] = [' ', '.', ':', '-', '=', '+', '*', '#', '@'];

/// Columns of the chart for a bar of `width` cells (0: no chart).
pub fn columns(width: u16) -> usize {
    match width {
        0..=79 => 0,
        80..=119 => 21,
        _ => 41,
    }
}

/// Cells the chart takes besides its columns: ` sweep `, `0`, `1 `.
const FRAME: usize = 10;

/// The most columns (at most [`columns`] of the bar) that fit in `room` cells; 0 when
/// even a short chart does not.
pub fn columns_within(width: u16, room: usize) -> usize {
    let most = columns(width);
    [most, 21, 11]
        .into_iter()
        .filter(|&c| c <= most && c + FRAME <= room)
        .max()
        .unwrap_or(0)
}

/// `sweep 0 ▇▇▆▅▃▂▁ 1`: the chart as a line with `cols` columns; empty when there is no
/// sweep or no room.
pub fn chart_line(s: &InsightState, ctx: &Ctx, cols: usize) -> Line<'static> {
    let Some(sweep) = s.sweep.as_ref().filter(|_| cols > 1) else {
        return Line::default();
    };
    let ramp = if ctx.theme.ascii {
        &ASCII_RAMP
    } else {
        &BLOCKS
    };
    let current = current_column(ctx.params.threshold, cols);
    let mut spans = vec![Span::styled(" sweep ", ctx.theme.muted()), Span::raw("0")];
    for (i, level) in levels(sweep, cols).into_iter().enumerate() {
        let c = ramp[level.min(8)].to_string();
        if i == current {
            let mark = Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD);
            spans.push(Span::styled(c, mark));
        } else {
            spans.push(Span::styled(
                c,
                ctx.theme.edge(crate::tui::theme::Level::Recommended),
            ));
        }
    }
    spans.push(Span::raw("1 "));
    Line::from(spans)
}

/// The column of threshold `t` on a 0..1 axis of `cols` samples.
pub fn current_column(t: f64, cols: usize) -> usize {
    let last = cols.saturating_sub(1);
    ((t.clamp(0.0, 1.0) * last as f64).round() as usize).min(last)
}

/// Bar heights in eighths (0..=8), scaled to the largest count; a non-empty column is at
/// least one eighth, so "some" never reads as "none".
pub fn levels(sweep: &Sweep, cols: usize) -> Vec<usize> {
    let max = sweep.max_total().max(1);
    sweep
        .samples(0.0, 1.0, cols)
        .into_iter()
        .map(|(_, a, t)| {
            let n = a + t;
            if n == 0 {
                0
            } else {
                (n * 8).div_ceil(max).clamp(1, 8)
            }
        })
        .collect()
}
