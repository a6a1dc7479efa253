//! Overlays: the help (generated from the keymap and the command table), the message log
//! and the one-line prompt.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::tui::app::{App, PromptKind};
use unicode_width::UnicodeWidthStr;

use crate::tui::app::Level;
use crate::tui::commands::COMMANDS;
use crate::tui::commands::keymap::{self, BINDINGS};
use toolscope_core::text::sanitize;

/// A row of the help before wrapping.
enum Row {
    Title(&'static str),
    /// Keys, what they do.
    Key(String, &'static str),
    /// A `:` command with its aliases and argument, what it does.
    Command(String, &'static str),
    Note(String),
}

/// The help rows: every binding by section, then every `:` command, then the marks.
fn help_rows(app: &App) -> Vec<Row> {
    let mut rows = Vec::new();
    for section in keymap::sections() {
        rows.push(Row::Title(section));
        for b in BINDINGS.iter().filter(|b| b.section == section) {
            rows.push(Row::Key(keymap::keys_label(b), b.help));
        }
    }
    rows.push(Row::Title("Commands"));
    for c in COMMANDS {
        let mut name = format!(":{}", c.name);
        for a in c.aliases {
            name.push_str(&format!(" :{a}"));
        }
        if !c.usage.is_empty() {
            name.push(' ');
            name.push_str(c.usage);
        }
        rows.push(Row::Command(name, c.help));
    }
    rows.push(Row::Note(
        "Marks: * seed  + recommended; heavy lines: recommended, dashed: below threshold".into(),
    ));
    let (up, down, shapes) = if app.theme.ascii {
        (">", "<", "+ action  ( tool  @ group")
    } else {
        ("▲", "▼", "┌ action  ╭ tool  ╒ group")
    };
    rows.push(Row::Note(format!(
        "Shapes: {shapes}; - left out (dashed, with the blocking score)"
    )));
    rows.push(Row::Note(format!(
        "{up} entered, {down} left since the baseline (b pins, B lists)"
    )));
    rows
}

/// Greedy word wrap to `width` columns (a word longer than a line gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for word in text.split_whitespace() {
        let Some(line) = out.last_mut() else { break };
        let need = line.width() + usize::from(!line.is_empty()) + word.width();
        if !line.is_empty() && need > width {
            out.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    out
}

/// The rows as screen lines for a column `width` wide: descriptions wrap under
/// themselves, after the key column.
fn help_lines(app: &App, rows: &[Row], width: usize) -> Vec<Line<'static>> {
    let keys_w = rows
        .iter()
        .filter_map(|r| match r {
            Row::Key(k, _) => Some(k.width()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .clamp(8, 12);
    let cmd_w = rows
        .iter()
        .filter_map(|r| match r {
            Row::Command(k, _) => Some(k.width()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .min(width / 2);
    let italic = Style::new().add_modifier(Modifier::ITALIC);
    let mut lines = Vec::new();
    for r in rows {
        match r {
            Row::Title(t) => lines.push(Line::styled(*t, app.theme.title())),
            Row::Note(n) => {
                for l in wrap(n, width.max(10)) {
                    lines.push(Line::styled(l, italic));
                }
            }
            Row::Key(k, help) | Row::Command(k, help) => {
                let kw = if matches!(r, Row::Command(..)) {
                    cmd_w
                } else {
                    keys_w
                };
                let room = width.saturating_sub(kw + 2).max(10);
                for (i, part) in wrap(help, room).into_iter().enumerate() {
                    let key = if i == 0 { k.as_str() } else { "" };
                    lines.push(Line::from(vec![
                        Span::styled(format!(" {key:<kw$} "), app.theme.key()),
                        Span::raw(part),
                    ]));
                }
            }
        }
    }
    lines
}

/// The help overlay: every binding by section and every command, wrapped to fit (in two
/// columns when it is long), scrolled with j/k.
pub fn help(frame: &mut Frame, app: &App, area: Rect) {
    let rows = help_rows(app);
    let w = area.width.saturating_sub(4).min(140);
    let h = area.height.saturating_sub(2);
    let two_cols = w >= 100 || rows.len() as u16 + 2 > h;
    let inner_w = usize::from(w.saturating_sub(2));
    let col_w = if two_cols { inner_w / 2 - 1 } else { inner_w };
    let lines = help_lines(app, &rows, col_w);
    let per_col = if two_cols {
        lines.len().div_ceil(2)
    } else {
        lines.len()
    };
    let h = h.min(per_col as u16 + 2);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    let block = crate::tui::view::chrome::bordered(app)
        .title(" Help (Esc closes) ")
        .border_style(app.theme.key());
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
    let block = crate::tui::view::chrome::bordered(app)
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
