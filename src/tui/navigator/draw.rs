//! The navigator pane: operators, actions, tools and groups with seed / recommended marks.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::tui::ctx::Ctx;
use crate::tui::navigator::Navigator;
use crate::tui::navigator::Row;
use crate::tui::panes::ActivePane;
use crate::tui::theme::{Level, Theme};
use toolscope_core::model::NodeKind;
use toolscope_core::text::sanitize;

use crate::tui::chrome::pane_block;

/// What the navigator draws from besides the context: its own state, which tools no
/// loaded trace called (the evidence's), and the name index labels are cut against (the
/// graph pane's, so both cut names alike).
pub struct Sources<'a> {
    pub nav: &'a Navigator,
    pub never_called: &'a dyn Fn(petgraph::stable_graph::NodeIndex) -> bool,
    pub names: &'a toolscope_core::layout::labels::NameIndex,
}

pub fn draw(frame: &mut Frame, v: &Sources, ctx: &Ctx, area: Rect) {
    let title = if v.nav.filter.is_empty() {
        " Navigator ".to_string()
    } else {
        format!(" /{} ", sanitize(&v.nav.filter))
    };
    let block = pane_block(ctx, title, ActivePane::Navigator);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let h = inner.height as usize;
    let offset = v.nav.first_visible(h);
    let shown: Vec<(usize, Row)> = v
        .nav
        .rows
        .iter()
        .copied()
        .enumerate()
        .skip(offset)
        .take(h)
        .collect();
    let labels = labels(v, ctx, &shown, usize::from(inner.width));
    let lines: Vec<Line> = shown
        .iter()
        .zip(labels)
        .map(|(&(i, row), (label, never))| row_line(v, ctx, row, label, never, i == v.nav.cursor))
        .collect();
    let lines = if lines.is_empty() {
        vec![Line::styled("(no match)", ctx.theme.muted())]
    } else {
        lines
    };
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The text of each shown row, cut to `width`: an operator drops its anchor first, then
/// names are cut as little as needed and never to a label that reads as another name
/// (in the middle when the front is shared: `content_un…_2`). With each, the mark of a
/// tool no trace called ([`NEVER`], or [`NEVER_SHORT`] where the long one leaves the name
/// fewer than [`NAME_FLOOR`] cells), so the count is never cut off at the pane's edge.
fn labels(
    v: &Sources,
    ctx: &Ctx,
    rows: &[(usize, Row)],
    width: usize,
) -> Vec<(String, &'static str)> {
    let ell = ctx.theme.glyphs().ellipsis;
    let mut out = vec![(String::new(), ""); rows.len()];
    // Node names, cut together so two rows never read the same.
    // (row, name, the row's own room, whether a count follows the name)
    let mut cut: Vec<(usize, String, usize, bool)> = Vec::new();
    let op_names: Vec<String> = ctx
        .tk
        .operators
        .iter()
        .map(|o| sanitize(&o.name).into_owned())
        .collect();
    let op_index =
        toolscope_core::layout::labels::NameIndex::new(op_names.iter().map(String::as_str));
    for (k, &(_, row)) in rows.iter().enumerate() {
        match row {
            Row::Header(t) => out[k].0 = t.to_string(),
            Row::Operator(i) => {
                let Some(o) = ctx.tk.operators.get(i) else {
                    continue;
                };
                let room = width.saturating_sub(2);
                let full = sanitize(&o.label()).into_owned();
                out[k].0 = if full.width() <= room {
                    full
                } else {
                    let name = sanitize(&o.name).into_owned();
                    let refs = [name.as_str()];
                    toolscope_core::layout::labels::shorten_all(&refs, room, ell, Some(&op_index))
                        .remove(0)
                };
            }
            Row::Node(ix) => {
                let indent = if v.nav.indented.contains(&ix) { 2 } else { 0 };
                let never = ctx.tk.kind(ix) != NodeKind::Action && (v.never_called)(ix);
                let hidden = suffix(v, ix).width();
                let fixed = indent + 2 + hidden;
                let mark = match never {
                    false => "",
                    true if width.saturating_sub(fixed + NEVER.len()) >= NAME_FLOOR => NEVER,
                    true => NEVER_SHORT,
                };
                out[k].1 = mark;
                let room = width.saturating_sub(fixed + mark.len());
                let counted = never || hidden > 0;
                cut.push((k, sanitize(ctx.tk.name(ix)).into_owned(), room, counted));
            }
        }
    }
    // One width for all (the narrowest room), so labels are cut alike and stay apart.
    let room = cut.iter().map(|c| c.2).min().unwrap_or(width);
    let names: Vec<&str> = cut.iter().map(|c| c.1.as_str()).collect();
    let short = toolscope_core::layout::labels::shorten_all(&names, room, ell, Some(v.names));
    // A label still wider than its own row's room (a narrow pane, where the names' floor
    // would push a count off the edge) is cut in the middle when a count follows it, so the
    // counts always show; other rows keep labels that tell them apart, past the edge.
    for ((k, name, own, counted), label) in cut.iter().zip(short) {
        out[*k].0 = if *counted && label.width() > *own {
            toolscope_core::layout::labels::squeeze(name, *own, ell)
        } else {
            label
        };
    }
    out
}

/// The mark after a tool no loaded trace ever called.
const NEVER: &str = " (0 calls)";
/// The same mark in a pane too narrow for it and a readable name (`M…nt (0 calls)` would
/// leave the name two cells).
const NEVER_SHORT: &str = " (0)";
/// The fewest cells a name keeps before the mark is shortened.
const NAME_FLOOR: usize = 5;

/// What follows a node's name: the hidden members of a collapsed group.
fn suffix(v: &Sources, ix: petgraph::stable_graph::NodeIndex) -> String {
    v.nav
        .hidden
        .get(&ix)
        .map(|n| format!(" (+{n})"))
        .unwrap_or_default()
}

fn row_line(
    v: &Sources,
    ctx: &Ctx,
    row: Row,
    label: String,
    never: &'static str,
    at_cursor: bool,
) -> Line<'static> {
    let mut line = match row {
        Row::Header(t) => Line::from(Span::styled(t, ctx.theme.title())),
        Row::Operator(i) => {
            let active = ctx.operator == Some(i);
            let mark = if active { '>' } else { ' ' };
            let style = if active {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            Line::from(Span::styled(format!("{mark} {label}"), style))
        }
        Row::Node(ix) => {
            let seed = ctx.is_seed(ix);
            let rec = ctx.rec.contains(ix);
            let level = if rec {
                Level::Recommended
            } else {
                Level::Normal
            };
            let indent = if v.nav.indented.contains(&ix) {
                "  "
            } else {
                ""
            };
            let text = format!(
                "{indent}{} {label}{}",
                Theme::marker(seed, rec),
                suffix(v, ix)
            );
            let mut spans = vec![Span::styled(text, ctx.theme.node(level, seed))];
            // A tool no loaded trace ever called.
            if !never.is_empty() {
                spans.push(Span::styled(never, ctx.theme.muted()));
            }
            Line::from(spans)
        }
    };
    if at_cursor && row.selectable() {
        let sel = if ctx.active == ActivePane::Navigator {
            ctx.theme.selected()
        } else {
            Style::new().add_modifier(Modifier::UNDERLINED)
        };
        line = line.patch_style(sel);
    }
    line
}
