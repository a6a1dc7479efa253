//! The inspector's "Why" section: explain() for the selected node, its critical value and
//! the fewest hops it needs, and its marks in the tool filters stage.

use ratatui::text::Line;

use crate::tui::app::App;
use toolscope_core::recommend::explain::num;
use toolscope_core::text::sanitize;

/// Lines of the section (empty when nothing is explained).
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let Some(ex) = app.insight.explanation.as_ref() else {
        return Vec::new();
    };
    if app.selected != Some(ex.node) || !app.tk.graph.contains_node(ex.node) {
        return Vec::new();
    }
    let mut out = vec![Line::styled("Why", app.theme.title())];
    out.extend(
        ex.lines(&app.tk)
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
    if let Some(marks) = filter_marks(app) {
        out.push(Line::from(marks));
    }
    let threshold = app.session.params.threshold;
    if let Some(note) =
        toolscope_core::recommend::copies_note(&app.tk, &app.rec, ex.node, threshold)
    {
        out.push(Line::from(sanitize(&note).into_owned()));
    }
    out.push(Line::default());
    out
}

/// `filters: disabled, exclusive, chosen -> offered` for a tool, when any mark applies or
/// the filters stage is on.
fn filter_marks(app: &App) -> Option<String> {
    let ix = app.selected?;
    if app.tk.kind(ix) == toolscope_core::model::NodeKind::Action {
        return None;
    }
    let node = app.tk.node(ix);
    let mut marks = Vec::new();
    if !node.enabled() {
        marks.push("disabled");
    }
    if node.exclusive() {
        marks.push("exclusive");
    }
    if app.insight.is_chosen(&node.name) {
        marks.push("chosen");
    }
    if marks.is_empty() && !app.insight.filters_on {
        return None;
    }
    let offered = if !app.rec.contains(ix) {
        "not recommended"
    } else if app.insight.offered.contains(&ix) {
        "offered"
    } else {
        "not offered"
    };
    let stage = if app.insight.filters_on { "on" } else { "off" };
    let marks = if marks.is_empty() {
        String::new()
    } else {
        format!("{}; ", marks.join(", "))
    };
    Some(format!("filters ({stage}): {marks}{offered}"))
}
