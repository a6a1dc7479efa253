//! Overlays: the message log and the one-line prompt (the help is in `help`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::tui::app::{App, PromptKind};

use crate::tui::app::Level;
use toolscope_core::text::sanitize;

/// The prompt replaces the hint line at the bottom.
pub fn prompt(
    frame: &mut Frame,
    app: &App,
    bar: Rect,
    kind: PromptKind,
    text: &crate::tui::field::Field,
) {
    let Some(y) = (bar.y + bar.height).checked_sub(1) else {
        return;
    };
    let rect = Rect::new(bar.x, y, bar.width, 1);
    let lead = match kind {
        PromptKind::Command => ":",
        PromptKind::Filter => "/",
    };
    let mut spans = vec![Span::styled(lead, app.theme.key())];
    spans.extend(text.spans());
    let line = Line::from(spans);
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(line), rect);
}

/// The message log: every message of the session in full, wrapped, newest at the bottom;
/// `scroll` messages back from the newest. The newest shown message is always whole: the
/// messages that fit above it are chosen by their wrapped height.
pub fn messages(frame: &mut Frame, app: &App, area: Rect, scroll: u16) {
    let w = area.width.saturating_sub(4).min(100);
    let h = area.height.saturating_sub(2);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    let block = crate::tui::chrome::bordered(&app.theme)
        .title(format!(" Messages: {} (Esc closes) ", app.log.len()))
        .title_bottom(" k back  j forward ")
        .border_style(app.theme.key());
    let inner = block.inner(rect);
    let all: Vec<_> = app.log.iter().collect();
    let end = all.len().saturating_sub(usize::from(scroll));
    // Wrapped height of a message, over-estimated by one line for word breaks.
    let height = |text: &str| {
        let width = 2 + unicode_width::UnicodeWidthStr::width(text);
        let cols = usize::from(inner.width.max(1));
        if width <= cols {
            1
        } else {
            width.div_ceil(cols) + 1
        }
    };
    let mut start = end;
    let mut used = 0;
    while start > 0 {
        let need = height(&sanitize(&all[start - 1].text));
        if used + need > usize::from(inner.height) && start < end {
            break;
        }
        used += need;
        start -= 1;
    }
    let lines: Vec<Line> = if all.is_empty() {
        vec![Line::from("no messages yet")]
    } else {
        all[start..end]
            .iter()
            .map(|m| {
                let (mark, style) = match m.level {
                    Level::Error => ("! ", app.theme.error()),
                    Level::Info => ("  ", Style::new()),
                };
                Line::from(vec![
                    Span::styled(mark, style),
                    Span::raw(sanitize(&m.text).into_owned()),
                ])
            })
            .collect()
    };
    let para = Paragraph::new(lines).wrap(Wrap { trim: false });
    frame.render_widget(para.block(block), rect);
}
