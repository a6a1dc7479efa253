//! The inspector pane: the selected node's kind, description, tool details and edges.

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::model::{NodeKind, ToolMeta};
use crate::tui::app::{App, Focus};
use crate::tui::sanitize::{sanitize, sanitize_lines};
use crate::tui::theme::{Level, Theme};

use super::pane_block;

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let block = pane_block(app, " Inspector ", Focus::Inspector);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines = match app.selected {
        Some(ix) if app.tk.graph.contains_node(ix) => node_lines(app, ix),
        _ => vec![Line::styled("Nothing selected.", app.theme.muted())],
    };
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((app.inspector_scroll, 0));
    frame.render_widget(p, inner);
}

fn heading(app: &App, s: &str) -> Line<'static> {
    Line::styled(s.to_string(), app.theme.title())
}

/// All lines describing node `ix`.
pub fn node_lines(app: &App, ix: NodeIndex) -> Vec<Line<'static>> {
    let node = app.tk.node(ix);
    let seed = app.is_seed(ix);
    let rec = app.rec.contains(ix);
    let mut out = vec![Line::styled(
        format!("{} {}", Theme::marker(seed, rec), sanitize(&node.name)),
        Style::new().add_modifier(Modifier::BOLD),
    )];
    let state = match (seed, rec) {
        (true, _) => "seed",
        (false, true) => "recommended",
        (false, false) => "not recommended",
    };
    out.push(Line::from(format!("{} - {state}", node.kind.as_str())));
    if node.desc.is_empty() {
        out.push(Line::styled("(no description)", app.theme.muted()));
    } else {
        out.extend(sanitize_lines(&node.desc).into_iter().map(Line::from));
    }
    if let Some(meta) = &node.meta
        && node.kind != NodeKind::Action
    {
        tool_lines(app, meta, &mut out);
    }
    out.push(Line::default());
    out.push(heading(app, "Out"));
    let (to, from) = if app.theme.ascii {
        ("->", "<-")
    } else {
        ("→", "←")
    };
    edge_lines(app, app.tk.out_edges(ix).collect(), to, &mut out);
    out.push(heading(app, "In"));
    edge_lines(app, app.tk.in_edges(ix).collect(), from, &mut out);
    out
}

fn tool_lines(app: &App, meta: &ToolMeta, out: &mut Vec<Line<'static>>) {
    if !meta.ty.is_empty() {
        out.push(Line::from(format!("type: {}", sanitize(&meta.ty))));
    }
    let mut flags = Vec::new();
    if !meta.enabled {
        flags.push("disabled");
    }
    if meta.exclusive {
        flags.push("exclusive");
    }
    if meta.takes_control {
        flags.push("takes control");
    }
    if !flags.is_empty() {
        out.push(Line::from(format!("flags: {}", flags.join(", "))));
    }
    if !meta.when_to_use.is_empty() {
        out.push(Line::from(format!("when: {}", sanitize(&meta.when_to_use))));
    }
    if !meta.inputs.is_empty() {
        out.push(heading(app, "Inputs"));
        for p in &meta.inputs {
            let req = if p.required { "required" } else { "optional" };
            out.push(Line::from(format!(
                "- {} ({}, {req}): {}",
                sanitize(&p.name),
                sanitize(&p.ty),
                sanitize(&p.desc)
            )));
        }
    }
    if let Some(r) = &meta.returns {
        out.push(heading(app, "Returns"));
        out.push(Line::from(format!(
            "{}: {}",
            sanitize(&r.ty),
            sanitize(&r.desc)
        )));
    }
}

fn edge_lines(
    app: &App,
    mut edges: Vec<(EdgeIndex, NodeIndex)>,
    arrow: &str,
    out: &mut Vec<Line<'static>>,
) {
    if edges.is_empty() {
        out.push(Line::styled("  (none)", app.theme.muted()));
        return;
    }
    edges.sort_by(|a, b| app.tk.name(a.1).cmp(app.tk.name(b.1)));
    let t = app.params.threshold;
    for (e, other) in edges {
        let edge = &app.tk.graph[e];
        let (level, tag) = if app.rec.has_edge(&app.tk, e, t) {
            (Level::Recommended, '+')
        } else if edge.score < t {
            (Level::Dimmed, '-')
        } else {
            (Level::Normal, ' ')
        };
        out.push(Line::from(vec![
            Span::styled(
                format!("{tag}{arrow} {:.2} ", edge.score),
                app.theme.edge(level),
            ),
            Span::raw(format!(
                "{} ({})",
                sanitize(app.tk.name(other)),
                edge.kind.as_str()
            )),
        ]));
    }
}
