//! The inspector's "Why" section: explain() for the selected node, its critical value and
//! the fewest hops it needs, and its marks in the tool filters stage.

use ratatui::text::Line;

use crate::tui::ctx::Ctx;
use toolscope_core::recommend::explain::num;
use toolscope_core::text::sanitize;

/// Lines of the section (empty when nothing is explained).
pub fn lines(v: &super::Sources, ctx: &Ctx) -> Vec<Line<'static>> {
    let Some(ex) = v.insight.explanation.as_ref() else {
        return Vec::new();
    };
    if ctx.selected != Some(ex.node) || !ctx.tk.graph.contains_node(ex.node) {
        return Vec::new();
    }
    let mut out = vec![Line::styled("Why", ctx.theme.title())];
    out.extend(
        ex.lines(ctx.tk)
            .iter()
            .map(|l| Line::from(sanitize(l).into_owned())),
    );
    let critical = match ex.critical {
        Some(c) if c.is_infinite() => "always".to_string(),
        Some(c) => format!("up to {}", num(c)),
        None => "never".to_string(),
    };
    let hops = match ex.fewest_hops {
        Some(h) => h.to_string(),
        None => "none suffices".to_string(),
    };
    out.push(Line::from(format!(
        "critical threshold: {critical}; fewest hops: {hops}"
    )));
    if let Some(marks) = filter_marks(v, ctx) {
        out.push(Line::from(marks));
    }
    let threshold = ctx.params.threshold;
    if let Some(note) = toolscope_core::recommend::copies_note(ctx.tk, ctx.rec, ex.node, threshold)
    {
        out.push(Line::from(sanitize(&note).into_owned()));
    }
    out.push(Line::default());
    out
}

/// `filters: disabled, exclusive, chosen -> offered` for a tool, when any mark applies or
/// the filters stage is on.
fn filter_marks(v: &super::Sources, ctx: &Ctx) -> Option<String> {
    let ix = ctx.selected?;
    if ctx.tk.kind(ix) == toolscope_core::model::NodeKind::Action {
        return None;
    }
    let node = ctx.tk.node(ix);
    let mut marks = Vec::new();
    if !node.enabled() {
        marks.push("disabled");
    }
    if node.exclusive() {
        marks.push("exclusive");
    }
    if v.insight.is_chosen(&node.name) {
        marks.push("chosen");
    }
    if marks.is_empty() && !v.insight.filters_on {
        return None;
    }
    let offered = if !ctx.rec.contains(ix) {
        "not recommended"
    } else if v.insight.offered.contains(&ix) {
        "offered"
    } else {
        "not offered"
    };
    let stage = if v.insight.filters_on { "on" } else { "off" };
    let marks = if marks.is_empty() {
        String::new()
    } else {
        format!("{}; ", marks.join(", "))
    };
    Some(format!("filters ({stage}): {marks}{offered}"))
}
