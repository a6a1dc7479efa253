//! The diff panel (in the inspector's place while open): what entered and left the
//! recommendation since the baseline, and, for a baseline file, the structural changes.
//! Entered and left carry glyphs (`▲`/`▼`, ASCII `>`/`<`), not only colour.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::ctx::Ctx;
use crate::tui::insight::Change;
use crate::tui::insight::InsightState;
use crate::tui::panes::ActivePane;
use crate::tui::theme::{Level, Theme};
use toolscope_core::diff::{EdgeKey, NodeKey, RecDiff};
use toolscope_core::text::sanitize;

use crate::tui::chrome::pane_block;

/// The mark of an entered or left node or edge.
pub fn glyph(theme: &Theme, c: Change) -> &'static str {
    match (c, theme.ascii) {
        (Change::Entered, false) => "▲",
        (Change::Left, false) => "▼",
        (Change::Entered, true) => ">",
        (Change::Left, true) => "<",
    }
}

/// The panel, scrolled by the inspector's `scroll` (its keys move it).
pub fn draw(frame: &mut Frame, s: &InsightState, ctx: &Ctx, scroll: u16, area: Rect) {
    let block = pane_block(ctx, " Diff vs baseline (B closes) ", ActivePane::Inspector);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let p = Paragraph::new(lines(s, ctx))
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0));
    frame.render_widget(p, inner);
}

/// Every line of the panel.
pub fn lines(s: &InsightState, ctx: &Ctx) -> Vec<Line<'static>> {
    let (Some(pinned), Some(diff)) = (&s.pinned, &s.diff) else {
        return vec![Line::styled("No baseline: b pins one.", ctx.theme.muted())];
    };
    let mut out = Vec::new();
    if let Some(f) = &pinned.file {
        out.push(Line::from(format!(
            "baseline file {}",
            sanitize(&f.path.display().to_string())
        )));
    }
    out.extend(summary(diff));
    if diff.is_empty() {
        out.push(Line::styled(
            "no change in the recommendation",
            ctx.theme.muted(),
        ));
    }
    node_section(ctx, &mut out, "Entered", Change::Entered, &diff.entered);
    node_section(ctx, &mut out, "Left", Change::Left, &diff.left);
    edge_section(
        ctx,
        &mut out,
        "Edges entered",
        Change::Entered,
        &diff.edges_entered,
    );
    edge_section(ctx, &mut out, "Edges left", Change::Left, &diff.edges_left);
    if let Some(f) = &pinned.file {
        out.push(Line::styled(
            "Structure (baseline -> now)",
            ctx.theme.title(),
        ));
        let s = f.structural.lines();
        if s.is_empty() {
            out.push(Line::styled("  identical", ctx.theme.muted()));
        }
        out.extend(s.iter().map(|l| Line::from(sanitize(l).into_owned())));
    }
    out
}

fn summary(d: &RecDiff) -> Vec<Line<'static>> {
    let side = |(p, (a, t)): (toolscope_core::recommend::Params, (usize, usize))| {
        format!("{a}a {t}t at {:.2}/h{}", p.threshold, p.hops)
    };
    vec![
        Line::from(format!("was {}", side(d.before))),
        Line::from(format!("now {}", side(d.after))),
    ]
}

fn node_section(ctx: &Ctx, out: &mut Vec<Line<'static>>, title: &str, c: Change, keys: &[NodeKey]) {
    if keys.is_empty() {
        return;
    }
    out.push(Line::styled(
        format!("{title} ({})", keys.len()),
        ctx.theme.title(),
    ));
    let g = glyph(ctx.theme, c);
    let style = style_of(ctx, c);
    for k in keys {
        out.push(Line::styled(
            format!("{g} {} ({})", sanitize(&k.name), k.kind.as_str()),
            style,
        ));
    }
}

fn edge_section(ctx: &Ctx, out: &mut Vec<Line<'static>>, title: &str, c: Change, keys: &[EdgeKey]) {
    if keys.is_empty() {
        return;
    }
    out.push(Line::styled(
        format!("{title} ({})", keys.len()),
        ctx.theme.title(),
    ));
    let g = glyph(ctx.theme, c);
    let arrow = if ctx.theme.ascii { "->" } else { "→" };
    let style = style_of(ctx, c);
    for k in keys {
        out.push(Line::styled(
            format!(
                "{g} {} {arrow} {}",
                sanitize(&k.from.name),
                sanitize(&k.to.name)
            ),
            style,
        ));
    }
}

fn style_of(ctx: &Ctx, c: Change) -> ratatui::style::Style {
    match c {
        Change::Entered => ctx.theme.edge(Level::Recommended),
        Change::Left => ctx.theme.error(),
    }
}
