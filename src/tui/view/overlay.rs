//! Overlays: the help (generated from the keymap) and the one-line prompt.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::tui::app::{App, PromptKind};
use crate::tui::keymap::{self, BINDINGS};
use crate::tui::sanitize::sanitize;

/// The help overlay: every binding, by section.
pub fn help(frame: &mut Frame, app: &App, area: Rect) {
    let mut lines = Vec::new();
    for section in keymap::sections() {
        lines.push(Line::styled(section, app.theme.title()));
        for b in BINDINGS.iter().filter(|b| b.section == section) {
            lines.push(Line::from(vec![
                Span::styled(format!(" {:<8}", keymap::keys_label(b)), app.theme.key()),
                Span::raw(b.help),
            ]));
        }
    }
    lines.push(Line::styled(
        "Marks: * seed  + recommended; heavy lines: recommended, dashed: below threshold",
        Style::new().add_modifier(Modifier::ITALIC),
    ));
    let (up, down, shapes) = if app.theme.ascii {
        (">", "<", "+ action  ( tool  @ group")
    } else {
        ("▲", "▼", "┌ action  ╭ tool  ╒ group")
    };
    lines.push(Line::styled(
        format!("Shapes: {shapes}; - left out (dashed, with the blocking score)"),
        Style::new().add_modifier(Modifier::ITALIC),
    ));
    lines.push(Line::styled(
        format!("       {up} entered, {down} left since the baseline (b pins, D lists)"),
        Style::new().add_modifier(Modifier::ITALIC),
    ));
    let w = area.width.saturating_sub(4).min(86);
    let h = area.height.saturating_sub(2).min(lines.len() as u16 + 2);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    let block = super::bordered(app)
        .title(" Help (Esc closes) ")
        .border_style(app.theme.key());
    let two_cols = lines.len() as u16 + 2 > h;
    let fits = usize::from(h.saturating_sub(2)) * if two_cols { 2 } else { 1 };
    let skip = usize::from(app.help_scroll).min(lines.len().saturating_sub(fits));
    let block = if skip > 0 || lines.len() > fits + skip {
        block.title_bottom(format!(
            " j/k scroll {}/{} ",
            skip + fits.min(lines.len()),
            lines.len()
        ))
    } else {
        block
    };
    let lines = lines[skip..].to_vec();
    if two_cols {
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        let half = inner.height as usize;
        let (a, b) = lines.split_at(half.min(lines.len()));
        let cw = inner.width / 2;
        frame.render_widget(
            Paragraph::new(a.to_vec()),
            Rect::new(inner.x, inner.y, cw, inner.height),
        );
        frame.render_widget(
            Paragraph::new(b.to_vec()),
            Rect::new(inner.x + cw, inner.y, inner.width - cw, inner.height),
        );
    } else {
        frame.render_widget(Paragraph::new(lines).block(block), rect);
    }
}

/// The prompt replaces the hint line at the bottom.
pub fn prompt(frame: &mut Frame, app: &App, bar: Rect, kind: PromptKind, text: &str) {
    let Some(y) = (bar.y + bar.height).checked_sub(1) else {
        return;
    };
    let rect = Rect::new(bar.x, y, bar.width, 1);
    let lead = match kind {
        PromptKind::Command => ":",
        PromptKind::Filter => "/",
    };
    let line = Line::from(vec![
        Span::styled(lead, app.theme.key()),
        Span::raw(sanitize(text).into_owned()),
        Span::styled(" ", Style::new().add_modifier(Modifier::REVERSED)),
    ]);
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(line), rect);
}
