//! The inspector pane: the selected node's kind, description, tool details and edges.

pub(crate) mod why;

pub mod state;

use petgraph::stable_graph::{EdgeIndex, NodeIndex};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::ctx::Ctx;
use crate::tui::evidence_panel::EvidencePane;
use crate::tui::insight::InsightState;
use crate::tui::navigator::Navigator;
use crate::tui::navigator::Row;
use crate::tui::panes::ActivePane;
use crate::tui::theme::{Level, Theme};
use toolscope_core::model::{NodeKind, Operator, ToolMeta};
use toolscope_core::text::{sanitize, sanitize_lines};

use crate::tui::chrome::pane_block;

/// What the inspector describes the selection with, besides the context: its own state,
/// the navigator's row (an operator under the cursor is described), the insight's
/// explanation, the traces' counts, and the selected node's edges (as the app lists them for the inspector).
pub struct Sources<'a> {
    pub pane: &'a state::InspectorPane,
    pub nav: &'a Navigator,
    pub insight: &'a InsightState,
    pub evidence: &'a EvidencePane,
    pub edges: &'a [(EdgeIndex, NodeIndex, bool)],
}

pub fn draw(frame: &mut Frame, v: &Sources, ctx: &Ctx, area: Rect) {
    let block = pane_block(ctx, " Inspector ", ActivePane::Inspector);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let operator = match v.nav.current() {
        Some(Row::Operator(i)) if ctx.active == ActivePane::Navigator => ctx.tk.operators.get(i),
        _ => None,
    };
    let (lines, cursor) = match (operator, ctx.selected) {
        (Some(op), _) => (operator_lines(ctx, op), None),
        (None, Some(ix)) if ctx.tk.graph.contains_node(ix) => node_lines(v, ctx, ix),
        _ => (
            vec![Line::styled("Nothing selected.", ctx.theme.muted())],
            None,
        ),
    };
    let scroll = scroll_for(&lines, cursor, v.pane.scroll(), inner.width, inner.height);
    let p = Paragraph::new(breakable(lines))
        .wrap(Wrap { trim: false })
        .scroll((scroll, 0));
    frame.render_widget(p, inner);
}

/// Zero-width space: ratatui's word wrap may break a line there, and it takes no cell.
const BREAK: char = '\u{200B}';

/// The lines with a break opportunity after each `_`, `-`, `/` and `.` inside a word, so
/// that a name too long for the pane wraps as `knowledge_base_` / `retrieving`, not
/// `knowledge_base_retrievin` / `g`. The text reads the same: the mark has no width.
fn breakable(lines: Vec<Line<'static>>) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|mut line| {
            for span in &mut line.spans {
                if span.content.contains(['_', '-', '/', '.']) {
                    span.content = with_breaks(&span.content).into();
                }
            }
            line
        })
        .collect()
}

/// Between two words only: a letter or digit before the joint and a letter after it, so
/// `0.80` and `-[0.9]->` never break.
fn with_breaks(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        let joint = matches!(c, '_' | '-' | '/' | '.');
        let after_word = prev.is_some_and(char::is_alphanumeric);
        if joint && after_word && chars.peek().is_some_and(|n| n.is_alphabetic()) {
            out.push(BREAK);
        }
        prev = Some(c);
    }
    out
}

fn heading(ctx: &Ctx, s: &str) -> Line<'static> {
    Line::styled(s.to_string(), ctx.theme.title())
}

/// An operator: its seeds (marked when missing), threshold and hops.
fn operator_lines(ctx: &Ctx, op: &Operator) -> Vec<Line<'static>> {
    let mut out = vec![
        Line::styled(
            sanitize(&op.label()).into_owned(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Line::from("operator - Enter makes it active"),
        Line::from(format!("threshold {:.2}  hops {}", op.threshold, op.hops)),
        heading(ctx, "Seeds"),
    ];
    for a in &op.actions {
        let known = ctx.tk.action(a).is_some();
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
pub fn node_lines(v: &Sources, ctx: &Ctx, ix: NodeIndex) -> (Vec<Line<'static>>, Option<usize>) {
    let node = ctx.tk.node(ix);
    let seed = ctx.is_seed(ix);
    let rec = ctx.rec.contains(ix);
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
    out.extend(crate::tui::inspector::why::lines(v, ctx));
    // The edges first (what `e`, `d` and the edge cursor act on), then the long text
    // below them, folded until asked (a Chat2Graph action's prompt runs to 150 lines).
    let cursor = edge_section(v, ctx, &mut out);
    if node.kind != NodeKind::Action {
        out.extend(trace_lines(v, ctx, ix));
    }
    out.push(heading(ctx, "Description"));
    if node.desc.is_empty() {
        out.push(Line::styled("(no description)", ctx.theme.muted()));
    } else {
        desc_lines(v, ctx, &node.desc, &mut out);
    }
    if let Some(meta) = &node.meta
        && node.kind != NodeKind::Action
    {
        tool_lines(ctx, meta, &mut out);
    }
    (out, cursor)
}

/// Lines of a folded description, and characters: about three rows of a side pane.
const FOLD_LINES: usize = 3;
const FOLD_CHARS: usize = 180;

/// The description: whole when unfolded (`i`), else its first lines and how much more
/// there is.
fn desc_lines(v: &Sources, ctx: &Ctx, desc: &str, out: &mut Vec<Line<'static>>) {
    let lines = sanitize_lines(desc);
    if v.pane.unfolded() {
        out.extend(lines.into_iter().map(Line::from));
        return;
    }
    let mut budget = FOLD_CHARS;
    let mut shown = 0;
    for l in lines.iter().take(FOLD_LINES) {
        if budget == 0 {
            break;
        }
        let n = l.chars().count();
        if n <= budget {
            out.push(Line::from(l.clone()));
            budget -= n;
        } else {
            let cut: String = l.chars().take(budget).collect();
            out.push(Line::from(format!("{cut}{}", ctx.theme.glyphs().ellipsis)));
            budget = 0;
        }
        shown += 1;
    }
    let cut_short = budget == 0
        && lines
            .iter()
            .take(shown)
            .map(|l| l.chars().count())
            .sum::<usize>()
            > FOLD_CHARS;
    let more = lines.len() - shown;
    if more > 0 || cut_short {
        let key = crate::tui::update::commands::keymap::first_key("unfold").unwrap_or_default();
        out.push(Line::styled(
            format!("({more} more line(s): {key} shows all)"),
            ctx.theme.muted(),
        ));
    }
}

/// Times offered and called in the loaded traces (the active operator's records at the
/// current parameters, the others at their own).
fn trace_lines(v: &Sources, ctx: &Ctx, ix: NodeIndex) -> Vec<Line<'static>> {
    let ev = v.evidence;
    if !ev.loaded() {
        return Vec::new();
    }
    let n = ev.records().len();
    let offered = ev.times_offered(ix);
    let called = ev.times_called(ix);
    let called = if called == 0 {
        Line::styled(
            format!("called: 0 of {n} records (never)"),
            ctx.theme.muted(),
        )
    } else {
        Line::from(format!("called: {called} of {n} records"))
    };
    vec![
        heading(ctx, "Traces"),
        Line::from(format!("offered: {offered} of {n} records")),
        called,
    ]
}

fn tool_lines(ctx: &Ctx, meta: &ToolMeta, out: &mut Vec<Line<'static>>) {
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
        out.push(heading(ctx, "Inputs"));
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
        out.push(heading(ctx, "Returns"));
        out.push(Line::from(format!(
            "{}: {}",
            sanitize(&r.ty),
            sanitize(&r.desc)
        )));
    }
}

/// The Out and In lists; the row under the edge cursor is reversed while the inspector
/// has focus.
fn edge_section(v: &Sources, ctx: &Ctx, out: &mut Vec<Line<'static>>) -> Option<usize> {
    let mut cursor = None;
    let (to, from) = if ctx.theme.ascii {
        ("->", "<-")
    } else {
        ("→", "←")
    };
    let edges = v.edges.to_vec();
    let split = edges.iter().position(|e| !e.2).unwrap_or(edges.len());
    for (title, range, arrow) in [("Out", 0..split, to), ("In", split..edges.len(), from)] {
        out.push(heading(ctx, title));
        if range.is_empty() {
            out.push(Line::styled("  (none)", ctx.theme.muted()));
        }
        for i in range {
            let (e, other, _) = edges[i];
            let mut line = edge_line(ctx, e, other, arrow);
            if i == v.pane.edge_cursor() && ctx.active == ActivePane::Inspector {
                line = line.patch_style(ctx.theme.selected());
                cursor = Some(out.len());
            }
            out.push(line);
        }
    }
    cursor
}

fn edge_line(ctx: &Ctx, e: EdgeIndex, other: NodeIndex, arrow: &str) -> Line<'static> {
    let t = ctx.params.threshold;
    let edge = &ctx.tk.graph[e];
    let (level, tag) = if ctx.rec.has_edge(ctx.tk, e, t) {
        (Level::Recommended, '+')
    } else if edge.score < t {
        (Level::Dimmed, '-')
    } else {
        (Level::Normal, ' ')
    };
    Line::from(vec![
        Span::styled(
            format!("{tag}{arrow} {:.2} ", edge.score),
            ctx.theme.edge(level),
        ),
        Span::raw(format!(
            "{} ({})",
            sanitize(ctx.tk.name(other)),
            edge.kind.as_str()
        )),
    ])
}

#[cfg(test)]
mod tests {
    use ratatui::buffer::Buffer;
    use ratatui::widgets::Widget;

    use super::*;

    /// The rows a line of the inspector takes in a pane `w` columns wide.
    fn rows(text: &str, w: u16) -> Vec<String> {
        let area = Rect::new(0, 0, w, 4);
        let mut buf = Buffer::empty(area);
        Paragraph::new(breakable(vec![Line::from(text.to_string())]))
            .wrap(Wrap { trim: false })
            .render(area, &mut buf);
        (0..area.height)
            .map(|y| {
                let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
                row.trim_end().to_string()
            })
            .filter(|r| !r.is_empty())
            .collect()
    }

    /// Issue 33: a name wraps after a `_` (or `-`, `/`, `.`), never inside a word, and
    /// the break leaves nothing on the screen.
    #[test]
    fn names_wrap_at_underscores_not_mid_word() {
        assert_eq!(
            rows("-> knowledge_base_retrieving 0.80", 24),
            ["-> knowledge_base_", "retrieving 0.80"]
        );
        // Without the breaks the same pane cuts the word (what the issue saw).
        let area = Rect::new(0, 0, 24, 4);
        let mut buf = Buffer::empty(area);
        Paragraph::new("-> knowledge_base_retrieving 0.80")
            .wrap(Wrap { trim: false })
            .render(area, &mut buf);
        let plain: Vec<String> = (0..4)
            .map(|y| (0..24).map(|x| buf[(x, y)].symbol().to_string()).collect())
            .collect();
        assert!(
            plain.iter().any(|r| r.trim_end().ends_with("retrievin")),
            "{plain:?}"
        );
        assert_eq!(
            rows("mcp/browser-use.v2", 9),
            ["mcp/", "browser-", "use.v2"]
        );
        assert_eq!(
            with_breaks("a_ b_"),
            "a_ b_",
            "no break before a space or the end"
        );
        assert_eq!(
            with_breaks("-[0.9]-> 0.80"),
            "-[0.9]-> 0.80",
            "numbers never break"
        );
        assert!(rows("x_y", 10).concat().chars().all(|c| c != BREAK));
    }
}
