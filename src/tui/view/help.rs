//! The help overlay: one document generated from the command registry and the keymap (the
//! legend of marks and shapes first, then every command by section with its keys and its
//! `:` form), scrolled as one with j/k, PgUp/PgDn, g/Home and G/End.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::tui::app::{App, Overlay};
use crate::tui::update::commands::{self, keymap};
use crate::tui::update::row::Section;

/// The widest the help gets.
const MAX_W: u16 = 120;

/// A row of the help before wrapping.
enum Row {
    Title(&'static str),
    Note(String),
    /// Keys (may be empty), the `:` form, what it does.
    Command(String, String, &'static str),
}

/// The legend of the drawing's marks and shapes, then every command by section.
fn rows(app: &App) -> Vec<Row> {
    let (up, down, shapes) = if app.theme.ascii {
        (">", "<", "+ action  ( tool  @ group")
    } else {
        ("▲", "▼", "┌ action  ╭ tool  ╒ group")
    };
    let mut rows = vec![
        Row::Title("Marks and shapes"),
        Row::Note(
            "* seed  + recommended; heavy lines: recommended, dashed: below the threshold".into(),
        ),
        Row::Note(format!(
            "{shapes}; - left out (dashed, with the blocking score)"
        )),
        Row::Note(format!(
            "{up} entered, {down} left since the baseline (b pins, B lists)"
        )),
    ];
    for section in sections(app) {
        rows.push(Row::Title(section.title()));
        for c in commands::all().filter(|c| c.section == section) {
            let mut name = format!(":{}", c.name);
            for a in c.aliases {
                name.push_str(&format!(" :{a}"));
            }
            if !c.usage.is_empty() {
                name.push(' ');
                name.push_str(c.usage);
            }
            rows.push(Row::Command(keymap::keys_of(c.name), name, c.doc));
        }
    }
    rows
}

/// The sections in the help's order: the front pane's first (the replay's while one is
/// shown, else the focused pane's), then the rest in the table's order.
fn sections(app: &App) -> Vec<Section> {
    let front = match (
        crate::tui::update::replay_keys::keys_context(app),
        app.active_pane,
    ) {
        (Some(_), _) => Section::Replay,
        (None, crate::tui::app::ActivePane::Graph) => Section::Graph,
        (None, _) => Section::Lists,
    };
    std::iter::once(front)
        .chain(Section::ALL.into_iter().filter(|s| *s != front))
        .collect()
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

/// The rows as screen lines `width` wide: keys, the `:` form, then the doc wrapped under
/// itself (below the two columns when they leave no room).
fn lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let rows = rows(app);
    let widest = |f: fn(&Row) -> Option<usize>| rows.iter().filter_map(f).max().unwrap_or(0);
    let keys_w = widest(|r| match r {
        Row::Command(k, _, _) => Some(k.width()),
        _ => None,
    })
    .min(12);
    let name_w = widest(|r| match r {
        Row::Command(_, n, _) => Some(n.width()),
        _ => None,
    })
    .min(width / 3)
    .min(30);
    let italic = Style::new().add_modifier(Modifier::ITALIC);
    let mut out = Vec::new();
    for r in &rows {
        match r {
            Row::Title(t) => out.push(Line::styled(*t, app.theme.title())),
            Row::Note(n) => out.extend(
                wrap(n, width.saturating_sub(1).max(10))
                    .into_iter()
                    .map(|l| Line::styled(format!(" {l}"), italic)),
            ),
            Row::Command(keys, name, doc) => {
                let lead = keys_w + name_w + 4;
                let room = width.saturating_sub(lead).max(16);
                let row = |k: &str, n: &str, part: String| {
                    Line::from(vec![
                        Span::styled(format!(" {k:<keys_w$} "), app.theme.key()),
                        Span::raw(format!("{n:<name_w$}  ")),
                        Span::raw(part),
                    ])
                };
                let mut docs = wrap(doc, room).into_iter();
                if keys.width() <= keys_w && name.width() <= name_w {
                    let first = docs.next().unwrap_or_default();
                    out.push(row(keys, name, first));
                } else {
                    // Wider than its column (`:link FROM TO [SCORE]` at 80 columns): the
                    // keys and the `:` form get lines of their own, wrapped at spaces,
                    // and the doc starts below them in its column.
                    let head = if keys.is_empty() {
                        name.clone()
                    } else {
                        format!("{keys} {name}")
                    };
                    let head_room = width.saturating_sub(2).max(10);
                    for part in wrap(&head, head_room) {
                        out.push(Line::from(vec![
                            Span::raw(" "),
                            Span::styled(part, app.theme.key()),
                        ]));
                    }
                }
                out.extend(docs.map(|part| row("", "", part)));
            }
        }
    }
    out
}

/// The help's rectangle in `area` and its inner width and height.
fn frame_rect(area: Rect) -> (Rect, usize, usize) {
    let w = area.width.saturating_sub(4).min(MAX_W);
    let h = area.height.saturating_sub(2);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    (
        rect,
        usize::from(w.saturating_sub(2)),
        usize::from(h.saturating_sub(2)),
    )
}

/// How far the help can scroll at the app's size: lines beyond one screen.
fn max_scroll(app: &App) -> u16 {
    let area = Rect::new(0, 0, app.size.0, app.size.1);
    let (_, w, h) = frame_rect(area);
    let n = lines(app, w).len();
    u16::try_from(n.saturating_sub(h)).unwrap_or(u16::MAX)
}

/// Keys while the help is open: scroll, or close.
pub fn key(app: &mut App, k: KeyEvent) {
    let page = app.size.1.saturating_sub(4).max(1);
    let at = app.help_scroll;
    let to = match k.code {
        KeyCode::Esc | KeyCode::Char('?' | 'q') | KeyCode::Enter => {
            app.help_scroll = 0;
            return;
        }
        KeyCode::Char('j') | KeyCode::Down => at.saturating_add(1),
        KeyCode::Char('k') | KeyCode::Up => at.saturating_sub(1),
        KeyCode::PageDown | KeyCode::Char(' ') => at.saturating_add(page),
        KeyCode::PageUp => at.saturating_sub(page),
        KeyCode::Char('g') | KeyCode::Home => 0,
        KeyCode::Char('G') | KeyCode::End => u16::MAX,
        _ => at,
    };
    app.help_scroll = to.min(max_scroll(app));
    app.overlay = Some(Overlay::Help);
}

/// Draws the help over `area`.
pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let (rect, w, h) = frame_rect(area);
    let lines = lines(app, w);
    let skip = usize::from(app.help_scroll).min(lines.len().saturating_sub(h));
    frame.render_widget(Clear, rect);
    let mut block = crate::tui::chrome::bordered(&app.theme)
        .title(" Help (Esc closes) ")
        .border_style(app.theme.key());
    if lines.len() > h {
        block = block.title_bottom(format!(
            " j/k PgUp/PgDn g/G {}/{} ",
            (skip + h).min(lines.len()),
            lines.len()
        ));
    }
    let shown: Vec<Line> = lines.into_iter().skip(skip).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &Line) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    /// Issue 33: no help row is cut at the border. Every line fits the help's inner width
    /// at 80, 100 and 160 columns, and every command's `:` form and doc are there whole
    /// (read back with the wrapping undone).
    #[test]
    fn help_rows_wrap_instead_of_being_cut() {
        for cols in [80u16, 100, 160] {
            let a = crate::tui::tests::app(cols, 30);
            let (_, w, _) = frame_rect(Rect::new(0, 0, cols, 30));
            let lines = lines(&a, w);
            for l in &lines {
                assert!(
                    l.width() <= w,
                    "{cols} columns: {:?} is wider than {w}",
                    text(l)
                );
            }
            let all = lines.iter().map(text).collect::<Vec<_>>().join(" ");
            let all = all.split_whitespace().collect::<Vec<_>>().join(" ");
            for r in rows(&a) {
                if let Row::Command(_, name, doc) = r {
                    for part in [name.as_str(), doc] {
                        let part = part.split_whitespace().collect::<Vec<_>>().join(" ");
                        assert!(all.contains(&part), "{cols} columns: {part:?} is not whole");
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    fn all_text(app: &App) -> String {
        let (_, w, _) = frame_rect(Rect::new(0, 0, app.size.0, app.size.1));
        lines(app, w)
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Issue 45: every key of the keymap is in the help (the replay's, the tune list's and
    /// the runs list's among them), each with its command.
    #[test]
    fn help_lists_every_bound_key_with_its_command() {
        let app = crate::tui::tests::app(160, 48);
        let text = all_text(&app);
        for b in keymap::KEYMAP {
            let keys = keymap::keys_of(b.command);
            let row = text
                .lines()
                .find(|l| {
                    l.contains(&format!(":{} ", b.command))
                        || l.ends_with(&format!(":{}", b.command))
                        || l.contains(&format!(":{}  ", b.command))
                })
                .unwrap_or_else(|| panic!("no help row for {}", b.command));
            assert!(row.contains(&keys), "{}: {row:?} lacks {keys}", b.command);
        }
        for k in [
            "Right/l", "Left/h", "Space", "PgDn", "PgUp", "g/Home", "G/End",
        ] {
            assert!(text.contains(k), "{k}");
        }
    }

    /// The focused pane's section comes first (after the legend).
    #[test]
    fn the_front_panes_section_comes_first() {
        let mut app = crate::tui::tests::app(160, 48);
        app.active_pane = crate::tui::app::ActivePane::Navigator;
        let first = |app: &App| sections(app)[0];
        assert_eq!(first(&app), Section::Lists);
        app.active_pane = crate::tui::app::ActivePane::Graph;
        assert_eq!(first(&app), Section::Graph);
    }
}
