//! The editing session's dialogs: score editor, description editor (ratatui-textarea),
//! and the confirmations (quit, remove with its cascade, on-disk conflict).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::tui::app::App;
use crate::tui::update::editing::dialog::{Dialog, legend};
use toolscope_core::text::sanitize;

/// Draws the open dialog, centred in `area`.
pub fn draw(frame: &mut Frame, app: &App, dialog: &Dialog, area: Rect) {
    if let Dialog::Desc {
        kind,
        name,
        area: text,
    } = dialog
    {
        let rect = centred(area, 72, 16);
        frame.render_widget(Clear, rect);
        let title = format!(
            " Description of {} {} ({}) ",
            kind.as_str(),
            sanitize(name),
            legend(dialog.legend())
        );
        let block = crate::tui::chrome::bordered(&app.theme)
            .title(title)
            .border_style(app.theme.key());
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        // Safe to draw raw: the editor refuses to open on text with control characters.
        frame.render_widget(&**text, inner);
        return;
    }
    let (title, lines) = content(dialog);
    const WIDTH: u16 = 72;
    // Rows as the lines wrap inside the borders, so the legend on the last one shows.
    let inner = usize::from(WIDTH.min(area.width).saturating_sub(2)).max(1);
    let rows: usize = lines.iter().map(|l| wrapped_rows(l, inner)).sum();
    let h = u16::try_from(rows + 2).unwrap_or(u16::MAX).min(area.height);
    let rect = centred(area, WIDTH, h);
    frame.render_widget(Clear, rect);
    let block = crate::tui::chrome::bordered(&app.theme)
        .title(title)
        .border_style(app.theme.key());
    let para = Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false });
    frame.render_widget(para, rect);
}

fn content(dialog: &Dialog) -> (String, Vec<Line<'static>>) {
    let s = |t: &str| sanitize(t).into_owned();
    match dialog {
        Dialog::Score {
            from,
            to,
            text,
            error,
            ..
        } => {
            let mut lines = vec![
                Line::from(format!("score of {} -> {}", s(from), s(to))),
                field_line(text),
            ];
            lines.push(Line::from(match error {
                Some(e) => s(e),
                None => legend(dialog.legend()),
            }));
            (" Edit score ".into(), lines)
        }
        Dialog::ModulePath {
            name, text, error, ..
        } => {
            let lines = vec![
                Line::from(format!(
                    "Chat2Graph imports the class {} from this module:",
                    s(name)
                )),
                field_line(text),
                Line::from(match error {
                    Some(e) => s(e),
                    None => legend(dialog.legend()),
                }),
            ];
            (format!(" Add tool {}: module path ", s(name)), lines)
        }
        Dialog::Quit => (
            " Unsaved edits ".into(),
            vec![
                Line::from("Quit and lose the unsaved edits?"),
                Line::from(legend(dialog.legend())),
            ],
        ),
        Dialog::Remove {
            kind,
            name,
            cascade,
            ..
        } => {
            let mut lines = vec![Line::from(format!(
                "Remove {} {}? This removes:",
                kind.as_str(),
                s(name)
            ))];
            lines.extend(
                cascade
                    .iter()
                    .take(12)
                    .map(|c| Line::from(format!("  {}", s(c)))),
            );
            if cascade.len() > 12 {
                lines.push(Line::from(format!("  ... and {} more", cascade.len() - 12)));
            }
            lines.push(Line::from(legend(dialog.legend())));
            (" Remove node ".into(), lines)
        }
        Dialog::Conflict { paths } => {
            let mut lines = vec![Line::from("Changed on disk while you have unsaved edits:")];
            lines.extend(
                paths
                    .iter()
                    .map(|p| Line::from(format!("  {}", s(&p.display().to_string())))),
            );
            lines.extend(
                dialog
                    .legend()
                    .iter()
                    .map(|(k, what)| Line::from(format!("{k} {what}"))),
            );
            (" Conflict ".into(), lines)
        }
        Dialog::Recover { edits } => {
            let mut lines = vec![Line::from(
                "A session on these files ended without saving (the terminal closed or the \
                 process was stopped). Its unsaved edits:",
            )];
            lines.extend(
                edits
                    .iter()
                    .take(12)
                    .map(|e| Line::from(format!("  {}", s(&e.describe())))),
            );
            if edits.len() > 12 {
                lines.push(Line::from(format!("  ... and {} more", edits.len() - 12)));
            }
            lines.push(Line::from(legend(dialog.legend())));
            (" Recovered edits ".into(), lines)
        }
        Dialog::Desc { .. } => (String::new(), Vec::new()),
    }
}

/// Rows a line takes word-wrapped to `width` columns (greedy, as the paragraph wraps;
/// a word longer than the width is broken).
fn wrapped_rows(line: &Line<'_>, width: usize) -> usize {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let (mut rows, mut used) = (1, 0);
    for word in text.split(' ') {
        let w = unicode_width::UnicodeWidthStr::width(word);
        if used == 0 {
            used = w;
        } else if used + 1 + w <= width {
            used += 1 + w;
        } else {
            rows += 1;
            used = w;
        }
        while used > width {
            rows += 1;
            used -= width;
        }
    }
    rows
}

fn centred(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// A one-line field after its `> ` lead, with its cursor or selection.
fn field_line(f: &crate::tui::field::Field) -> Line<'static> {
    let mut spans = vec![ratatui::text::Span::raw("> ")];
    spans.extend(f.spans());
    Line::from(spans)
}
