//! The navigator pane: operators, actions, tools and groups with seed / recommended marks.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, Focus};
use crate::tui::navigator::Row;
use crate::tui::theme::{Level, Theme};
use toolscope_core::model::NodeKind;
use toolscope_core::text::sanitize;

use crate::tui::view::chrome::pane_block;

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let title = if app.nav.filter.is_empty() {
        " Navigator ".to_string()
    } else {
        format!(" /{} ", sanitize(&app.nav.filter))
    };
    let block = pane_block(app, title, Focus::Navigator);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let h = inner.height as usize;
    let offset = app.nav.first_visible(h);
    let lines: Vec<Line> = app
        .nav
        .rows
        .iter()
        .enumerate()
        .skip(offset)
        .take(h)
        .map(|(i, row)| row_line(app, *row, i == app.nav.cursor))
        .collect();
    let lines = if lines.is_empty() {
        vec![Line::styled("(no match)", app.theme.muted())]
    } else {
        lines
    };
    frame.render_widget(Paragraph::new(lines), inner);
}

fn row_line(app: &App, row: Row, at_cursor: bool) -> Line<'static> {
    let mut line = match row {
        Row::Header(t) => Line::from(Span::styled(t, app.theme.title())),
        Row::Operator(i) => {
            let active = app.operator == Some(i);
            let mark = if active { '>' } else { ' ' };
            let label = app
                .tk
                .operators
                .get(i)
                .map(|o| o.label())
                .unwrap_or_default();
            let style = if active {
                Style::new().add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            Line::from(Span::styled(format!("{mark} {}", sanitize(&label)), style))
        }
        Row::Node(ix) => {
            let seed = app.is_seed(ix);
            let rec = app.rec.contains(ix);
            let level = if rec {
                Level::Recommended
            } else {
                Level::Normal
            };
            let indent = if app.nav.indented.contains(&ix) {
                "  "
            } else {
                ""
            };
            let mut text = format!(
                "{indent}{} {}",
                Theme::marker(seed, rec),
                sanitize(app.tk.name(ix))
            );
            if let Some(n) = app.nav.hidden.get(&ix) {
                text.push_str(&format!(" (+{n})"));
            }
            let mut spans = vec![Span::styled(text, app.theme.node(level, seed))];
            // A tool no loaded trace ever called.
            if app.tk.kind(ix) != NodeKind::Action && app.evidence.never_called(ix) {
                spans.push(Span::styled(" (0 calls)", app.theme.muted()));
            }
            Line::from(spans)
        }
    };
    if at_cursor && row.selectable() {
        let sel = if app.focus == Focus::Navigator {
            app.theme.selected()
        } else {
            Style::new().add_modifier(Modifier::UNDERLINED)
        };
        line = line.patch_style(sel);
    }
    line
}
