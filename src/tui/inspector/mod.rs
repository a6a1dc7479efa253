//! The inspector pane: the selected node's kind, description, tool details and edges.

pub(crate) mod why;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::app::{App, Focus};
use crate::tui::navigator::Row;
use crate::tui::theme::{Level, Theme};
use toolscope_core::model::{NodeKind, Operator, ToolMeta};
use toolscope_core::text::{sanitize, sanitize_lines};

use crate::tui::view::chrome::pane_block;

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let block = pane_block(app, " Inspector ", Focus::Inspector);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let operator = match app.nav.current() {
        Some(Row::Operator(i)) if app.focus == Focus::Navigator => app.tk.operators.get(i),
        _ => None,
    };
    let (lines, cursor) = match (operator, app.selected) {
        (Some(op), _) => (operator_lines(app, op), None),
        (None, Some(ix)) if app.tk.graph.contains_node(ix) => node_lines(app, ix),
        _ => (
            vec![Line::styled("Nothing selected.", app.theme.muted())],
            None,
        ),
    };
    let scroll = scroll_for(
        &lines,
        cursor,
        app.inspector_scroll,
        inner.width,
        inner.height,
    );
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0));
    frame.render_widget(p, inner);
}

fn heading(app: &App, s: &str) -> Line<'static> {
    Line::styled(s.to_string(), app.theme.title())
}

/// An operator: its seeds (marked when missing), threshold and hops.
fn operator_lines(app: &App, op: &Operator) -> Vec<Line<'static>> {
    let mut out = vec![
        Line::styled(
            sanitize(&op.label()).into_owned(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Line::from("operator - Enter makes it active"),
        Line::from(format!("threshold {:.2}  hops {}", op.threshold, op.hops)),
        heading(app, "Seeds"),
    ];
    for a in &op.actions {
        let known = app.tk.action(a).is_some();
        let note = if known { "" } else { "  (no such action)" };
        out.push(Line::from(format!("* {}{note}", sanitize(a))));
    }
    out
}

/// The scroll offset that keeps the cursor line (if any) in view, counting wrapped rows.
fn scroll_for(lines: &[Line], cursor: Option<usize>, scroll: u16, w: u16, h: u16) -> u16 {
    let Some(c) = cursor else { return scroll };
    let rows = |l: &Line| l.width().div_ceil(usize::from(w.max(1))).max(1);
    let top: usize = lines.iter().take(c).map(rows).sum();
    let bottom = top + lines.get(c).map_or(1, rows);
    let (s, h) = (usize::from(scroll), usize::from(h));
    let s = if top < s {
        top
    } else if bottom > s + h {
        bottom.saturating_sub(h)
    } else {
        s
    };
    u16::try_from(s).unwrap_or(u16::MAX)
}

/// All lines describing node `ix`, and the index of the line under the edge cursor.
pub fn node_lines(app: &App, ix: NodeIndex) -> (Vec<Line<'static>>, Option<usize>) {
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
    out.extend(crate::tui::inspector::why::lines(app));
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
    if node.kind != NodeKind::Action {
        out.extend(trace_lines(app, ix));
    }
    out.push(Line::default());
    let cursor = edge_section(app, &mut out);
    (out, cursor)
}

/// Times offered and called in the loaded traces (the active operator's records at the
/// current parameters, the others at their own).
fn trace_lines(app: &App, ix: NodeIndex) -> Vec<Line<'static>> {
    let ev = &app.evidence;
    if !ev.loaded() {
        return Vec::new();
    }
    let n = ev.records.len();
    let offered = ev.times_offered(ix);
    let called = ev.times_called(ix);
    let called = if called == 0 {
        Line::styled(
            format!("called: 0 of {n} records (never)"),
            app.theme.muted(),
        )
    } else {
        Line::from(format!("called: {called} of {n} records"))
    };
    vec![
        heading(app, "Traces"),
        Line::from(format!("offered: {offered} of {n} records")),
        called,
    ]
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

/// The Out and In lists; the row under the edge cursor is reversed while the inspector
/// has focus.
fn edge_section(app: &App, out: &mut Vec<Line<'static>>) -> Option<usize> {
    let mut cursor = None;
    let (to, from) = if app.theme.ascii {
        ("->", "<-")
    } else {
        ("→", "←")
    };
    let edges = app.node_edges();
    let split = edges.iter().position(|e| !e.2).unwrap_or(edges.len());
    for (title, range, arrow) in [("Out", 0..split, to), ("In", split..edges.len(), from)] {
        out.push(heading(app, title));
        if range.is_empty() {
            out.push(Line::styled("  (none)", app.theme.muted()));
        }
        for i in range {
            let (e, other, _) = edges[i];
            let mut line = edge_line(app, e, other, arrow);
            if i == app.edge_cursor && app.focus == Focus::Inspector {
                line = line.patch_style(app.theme.selected());
                cursor = Some(out.len());
            }
            out.push(line);
        }
    }
    cursor
}

fn edge_line(app: &App, e: EdgeIndex, other: NodeIndex, arrow: &str) -> Line<'static> {
    let t = app.session.params.threshold;
    let edge = &app.tk.graph[e];
    let (level, tag) = if app.rec.has_edge(&app.tk, e, t) {
        (Level::Recommended, '+')
    } else if edge.score < t {
        (Level::Dimmed, '-')
    } else {
        (Level::Normal, ' ')
    };
    Line::from(vec![
        Span::styled(
            format!("{tag}{arrow} {:.2} ", edge.score),
            app.theme.edge(level),
        ),
        Span::raw(format!(
            "{} ({})",
            sanitize(app.tk.name(other)),
            edge.kind.as_str()
        )),
    ])
}
