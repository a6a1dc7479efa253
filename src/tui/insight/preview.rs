//! The prompt preview overlay: the offered tools in the markdown `toolscope describe`
//! writes, as the model would receive them; scrolled with j/k, PgUp/PgDn, g/G.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Wrap};

use crate::tui::ctx::Ctx;
use crate::tui::insight::InsightState;
use toolscope_core::text::sanitize;

pub fn draw(frame: &mut Frame, s: &InsightState, ctx: &Ctx, area: Rect, scroll: u16) {
    let w = area.width.saturating_sub(4).min(100);
    let h = area.height.saturating_sub(2);
    let rect = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    frame.render_widget(Clear, rect);
    let n = s.shown_tools(ctx.rec).len();
    let stage = if s.filters_on {
        "after the filters"
    } else {
        "filters off"
    };
    let tokens = s.preview_tokens;
    let title = format!(" Prompt preview: {n} tool(s), ~{tokens} tokens, {stage} (Esc closes) ");
    let total = s.preview.len();
    let block = crate::tui::chrome::bordered(ctx.theme)
        .title(title)
        .title_bottom(format!(
            " j/k PgUp/PgDn scroll  line {}/{total} ",
            (usize::from(scroll) + 1).min(total)
        ))
        .border_style(ctx.theme.key());
    let lines: Vec<Line> = s.preview.iter().map(|l| style_line(ctx, l)).collect();
    let p = Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0));
    frame.render_widget(p, rect);
}

/// Headings in the title style; everything sanitised (names and descriptions are YAML).
fn style_line(ctx: &Ctx, l: &str) -> Line<'static> {
    let text = sanitize(l).into_owned();
    if l.starts_with('#') {
        Line::styled(text, ctx.theme.title())
    } else {
        Line::from(text)
    }
}
