//! The prompt preview overlay: the offered tools in the markdown `toolscope describe`
//! writes, as the model would receive them; scrolled with j/k, PgUp/PgDn, g/G.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::tui::app::App;
use toolscope_core::text::sanitize;

pub fn draw(frame: &mut Frame, app: &App, area: Rect, scroll: u16) {
    let w = area.width.saturating_sub(4).min(100);
    let h = area.height.saturating_sub(2);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    let n = app.insight.shown_tools(&app.rec).len();
    let stage = if app.insight.filters_on {
        "after the filters"
    } else {
        "filters off"
    };
    let tokens = app.insight.preview_tokens;
    let title = format!(" Prompt preview: {n} tool(s), ~{tokens} tokens, {stage} (Esc closes) ");
    let total = app.insight.preview.len();
    let block = crate::tui::chrome::bordered(app)
        .title(title)
        .title_bottom(format!(
            " j/k PgUp/PgDn scroll  line {}/{total} ",
            (usize::from(scroll) + 1).min(total)
        ))
        .border_style(app.theme.key());
    let lines: Vec<Line> = app
        .insight
        .preview
        .iter()
        .map(|l| style_line(app, l))
        .collect();
    let p = Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0));
    frame.render_widget(p, rect);
}

/// Headings in the title style; everything sanitised (names and descriptions are YAML).
fn style_line(app: &App, l: &str) -> Line<'static> {
    let text = sanitize(l).into_owned();
    if l.starts_with('#') {
        Line::styled(text, app.theme.title())
    } else {
        Line::from(text)
    }
}
