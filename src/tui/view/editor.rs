//! The editing session's dialogs: score editor, description editor (ratatui-textarea),
//! and the confirmations (quit, remove with its cascade, on-disk conflict).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::tui::app::App;
use crate::tui::dialog::{Dialog, legend};
use crate::tui::sanitize::sanitize;

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
        let block = super::bordered(app)
            .title(title)
            .border_style(app.theme.key());
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        // Safe to draw raw: the editor refuses to open on text with control characters.
        frame.render_widget(&**text, inner);
        return;
    }
    let (title, lines) = content(dialog);
    let h = (lines.len() as u16 + 2).min(area.height);
    let rect = centred(area, 72, h);
    frame.render_widget(Clear, rect);
    let block = super::bordered(app)
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
                Line::from(format!("> {}_", s(text))),
            ];
            lines.push(Line::from(match error {
                Some(e) => s(e),
                None => legend(dialog.legend()),
            }));
            (" Edit score ".into(), lines)
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
