//! Drawing the replay: its panel (in the inspector's place), its line on the graph pane's
//! bottom border with the called tool's box marked hit or miss, and the list of loaded
//! runs to choose from. Nothing here changes state.

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use toolscope_core::evidence::steps::replay::ReplayStep;
use toolscope_core::recommend::explain::num;
use toolscope_core::recommend::{Params, explain};
use toolscope_core::text::sanitize;

use super::{After, Run};
use crate::tui::chrome::bordered;
use crate::tui::ctx::Ctx;
use crate::tui::graph_pane::draw::put_str;
use crate::tui::graph_pane::geometry::WRect;

/// What the replay draws from besides the context: its own state, the insight's kept
/// explanation (the panel's "why"), the loaded records (the runs list), and the graph
/// pane's view and whole layout (the called tool's box marked on the graph).
pub struct Sources<'a> {
    pub replay: &'a super::ReplayPane,
    pub insight: &'a crate::tui::insight::InsightState,
    pub evidence: &'a crate::tui::evidence_panel::EvidencePane,
    pub graph_pane: &'a crate::tui::graph_pane::GraphPane,
    pub whole: Option<&'a toolscope_core::layout::Layout>,
}

fn ok_glyph(ctx: &Ctx, hit: bool) -> &'static str {
    match (ctx.theme.ascii, hit) {
        (false, true) => "✓",
        (false, false) => "✗",
        (true, true) => "+",
        (true, false) => "x",
    }
}

fn name(ctx: &Ctx, ix: petgraph::stable_graph::NodeIndex) -> String {
    sanitize(ctx.tk.name(ix)).into_owned()
}

/// The replay's panel in the inspector's place.
pub fn panel(frame: &mut Frame, v: &Sources, ctx: &Ctx, area: Rect) {
    if area.width == 0 {
        return;
    }
    let (title, lines) = match (v.replay.run(), v.replay.after()) {
        (Some(run), _) => (
            " replay ",
            run_lines(v, ctx, run, area.width.saturating_sub(2)),
        ),
        (None, Some(a)) => (" step ", after_lines(ctx, a)),
        _ => (" replay ", Vec::new()),
    };
    let block = bordered(ctx.theme).title(title);
    let p = Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(block);
    frame.render_widget(p, area);
}

fn bold(s: String) -> Span<'static> {
    Span::styled(s, Style::new().add_modifier(Modifier::BOLD))
}

fn after_lines(ctx: &Ctx, a: &After) -> Vec<Line<'static>> {
    let mut out = vec![
        Line::from(vec![Span::raw("after "), bold(name(ctx, a.tool))]),
        Line::from(format!(
            "offers {} tool(s) from {} seed(s)",
            a.offer.offered.len(),
            a.offer.seeds.len()
        )),
    ];
    if a.opening {
        out.push(Line::from(""));
        out.push(Line::styled(
            "A kit init made: the step after the tool most runs call first, not the union of every first call.",
            ctx.theme.muted(),
        ));
    }
    out.push(Line::from(""));
    out.push(Line::styled(
        "Esc: the operator's seeds; R: replay a run",
        ctx.theme.muted(),
    ));
    out
}

/// `step 2 of 6` (steps count from 0: step 0 is the first call).
fn step_of(run: &Run) -> String {
    format!(
        "step {} of {}",
        run.step,
        run.played.len().saturating_sub(1)
    )
}

fn run_lines(v: &Sources, ctx: &Ctx, run: &Run, width: u16) -> Vec<Line<'static>> {
    let p = &run.played;
    let id = run
        .source
        .id
        .as_deref()
        // A recorder numbering its runs gives ids equal to the record number: said once.
        .filter(|i| *i != (run.record + 1).to_string())
        .map(|i| format!(" {}", sanitize(i)))
        .unwrap_or_default();
    let mut out = vec![
        Line::from(vec![bold(format!("run {}", run.record + 1)), Span::raw(id)]),
        Line::from(format!(
            "{} · t {} · hops {}",
            sanitize(&p.group),
            num(run.params.threshold),
            run.params.hops
        )),
    ];
    // Where the run stands among all (walked on a thread, `…` until it comes); the tune
    // list says the overall figure as its "before", so a short panel keeps the list.
    if run.tune.is_none() {
        let line = super::search_job::standing_line(&v.replay.search, usize::from(width));
        out.push(Line::from(line));
    }
    if let Some(what) = v.replay.search.searching() {
        out.push(Line::styled(
            format!("{what} … (Esc cancels)"),
            ctx.theme.muted(),
        ));
    }
    let play = if run.playing { " ▶" } else { "" };
    let follow = if run.follow { " (following)" } else { "" };
    out.push(Line::from(vec![
        bold(step_of(run)),
        Span::raw(format!("{play}{follow}")),
    ]));
    let Some(s) = run.current() else {
        out.push(Line::from("no calls yet"));
        return out;
    };
    if !s.after.is_empty() {
        let after: Vec<String> = s.after.iter().map(|a| sanitize(a).into_owned()).collect();
        out.push(Line::from(format!("after {}", after.join(", "))));
    } else {
        out.push(Line::from("first call (the operator's seeds)"));
    }
    let verdict = if s.hit { "hit" } else { "miss" };
    out.push(Line::from(vec![
        Span::raw("next "),
        bold(sanitize(&s.next).into_owned()),
        Span::raw(format!(" {} {verdict}", ok_glyph(ctx, s.hit))),
    ]));
    let cut = s.offer.recommended.len() - s.offer.offered.len();
    let cut = if cut > 0 {
        format!(" ({cut} the run lacked)")
    } else {
        String::new()
    };
    out.push(Line::from(format!(
        "offered {} tool(s){cut}",
        s.offer.offered.len()
    )));
    // The offer by rank, with the score that offers each (a step drawn as its reasons),
    // the called tool marked; a few lines, the rest counted.
    let ranked = v
        .graph_pane
        .focus_view
        .as_ref()
        .map_or(&[][..], |f| f.ranked.as_slice());
    if !ranked.is_empty() {
        const LISTED: usize = 5;
        for &(t, score) in ranked.iter().take(LISTED) {
            let mark = if Some(t) == s.target {
                format!(" {}", ok_glyph(ctx, true))
            } else {
                String::new()
            };
            out.push(Line::from(format!(
                "  {} {}{mark}",
                num(score),
                sanitize(ctx.tk.name(t))
            )));
        }
        if ranked.len() > LISTED {
            out.push(Line::styled(
                format!("  {} more by rank", ranked.len() - LISTED),
                ctx.theme.muted(),
            ));
        }
    }
    // The earlier steps' hits are walked on a thread for a long record (see `super`).
    out.push(Line::from(match p.hits_through(run.step) {
        Some((hits, steps)) => format!("recall so far {hits}/{steps}"),
        None => "recall so far …".to_string(),
    }));
    // What keeps a miss out comes first, or after the tune list when that is open, so the
    // list and its keys stay on a short panel (the list says the same in its changes).
    let why_lines = |out: &mut Vec<Line<'static>>| {
        if !s.hit {
            out.push(Line::from(""));
            for l in why(v, ctx, run, s) {
                out.push(Line::styled(l, ctx.theme.muted()));
            }
        }
    };
    if run.tune.is_none() {
        why_lines(&mut out);
    }
    match &run.tune {
        Some(t) => {
            out.push(Line::from(""));
            if let Some(n) = &t.note {
                out.push(Line::from(format!("tune: {n}")));
            }
            for (i, c) in t.list.iter().enumerate() {
                let mark = if i == t.cursor { "> " } else { "  " };
                let style = if i == t.cursor {
                    ctx.theme.selected()
                } else {
                    Style::new()
                };
                out.push(Line::styled(
                    format!("{mark}{}", sanitize(&c.describe(ctx.tk))),
                    style,
                ));
                // The ranked figure; the other under the chosen one (core steps::figures).
                let [ranked, tokens, other] = c.figure_lines();
                out.push(Line::from(format!("  {ranked}")));
                out.push(Line::from(format!("  {tokens}")));
                if i == t.cursor {
                    out.push(Line::from(format!("  {other}")));
                }
            }
            if !t.list.is_empty() {
                out.push(Line::styled(
                    "Enter applies (u undoes) · Esc closes",
                    ctx.theme.muted(),
                ));
            }
            why_lines(&mut out);
        }
        None => {
            out.push(Line::from(""));
            let keys = if s.hit {
                "←/→ steps · Space plays · Esc leaves"
            } else {
                "t tunes · ←/→ steps · Space plays · Esc leaves"
            };
            out.push(Line::styled(keys, ctx.theme.muted()));
        }
    }
    out
}

/// Where a missed call stands: not in the graph, not available to the run, or what keeps
/// it out (explain).
pub(crate) fn why(v: &Sources, ctx: &Ctx, run: &Run, s: &ReplayStep) -> Vec<String> {
    let next = sanitize(&s.next).into_owned();
    let Some(t) = s.target else {
        return vec![format!(
            "{next} is not in the graph at all: no tool or group has that name."
        )];
    };
    if !s.was_available(run.played.available.as_deref()) {
        return vec![format!(
            "{next} was not available to the run: no offer could hold it."
        )];
    }
    let params: Params = run.params;
    // The step selects its called tool, so the app's kept explanation is usually this one.
    let fresh;
    let e = match v.insight.explained(&s.offer.seeds, params, t) {
        Some(e) => e,
        None => match explain(ctx.tk, &s.offer.seeds, params, t) {
            Some(e) => {
                fresh = e;
                &fresh
            }
            None => return Vec::new(),
        },
    };
    e.lines(ctx.tk)
        .into_iter()
        .map(|l| sanitize(&l).into_owned())
        .collect()
}

/// The replay's line on the graph pane's bottom border (`area` includes the border), with
/// the focus view's "more" marks after it in short form (they share that line), and the
/// called tool's box marked hit or miss. False when there is no replay line to draw (the
/// marks are then the graph pane's own).
pub fn on_graph(v: &Sources, ctx: &Ctx, area: Rect, buf: &mut Buffer) -> bool {
    if area.width < 12 || area.height < 3 || !v.replay.shown(ctx.seeds) {
        return false;
    }
    // Each part's forms, longest first.
    let parts: Vec<Vec<String>> = match (v.replay.run(), v.replay.after()) {
        (Some(run), _) => match run.current() {
            Some(s) => {
                let recall = match run.played.hits_through(run.step) {
                    Some((hits, steps)) => format!("recall {hits}/{steps}"),
                    None => "recall …".to_string(),
                };
                let verdict = if s.hit { "hit" } else { "miss" };
                let (glyph, next) = (ok_glyph(ctx, s.hit), sanitize(&s.next));
                let last = run.played.len().saturating_sub(1);
                vec![
                    vec![
                        format!("run {} {}", run.record + 1, step_of(run)),
                        format!("run {} {}/{last}", run.record + 1, run.step),
                        format!("{}/{last}", run.step),
                    ],
                    vec![
                        format!("{glyph} {next} {verdict}"),
                        format!("{glyph} {next}"),
                    ],
                    vec![recall],
                ]
            }
            None => vec![vec![format!("run {}: no calls yet", run.record + 1)]],
        },
        (None, Some(a)) => vec![
            vec![format!("step after {}", name(ctx, a.tool))],
            vec![format!("{} tool(s)", a.offer.offered.len())],
        ],
        _ => return false,
    };
    let mut parts = parts;
    // A step too large for the pane draws its offered tools by rank and counts the rest.
    let untold = v.graph_pane.focus_view.as_ref().map_or(0, |f| f.untold);
    if untold > 0 && v.graph_pane.shows_focus() {
        parts.push(vec![
            format!("{untold} more offered"),
            format!("+{untold} offered"),
        ]);
    }
    let border = WRect {
        x: i32::from(area.x),
        y: i32::from(area.y),
        w: i32::from(area.width),
        h: i32::from(area.height),
    };
    let style = ctx.theme.title();
    let room = area.width as usize - 2;
    let bottom = border.y + border.h - 1;
    // The marks keep their place at the right; the caption is cut before them.
    let marks = crate::tui::graph_pane::more::compact(v.graph_pane, ctx)
        .filter(|m| m.chars().count() < room);
    let marks_w = marks.as_ref().map_or(0, |m| m.chars().count());
    // The overall step recall, so the run's place shows where the panel is hidden too:
    // only where every other part fits in its longest form beside it.
    if v.replay.run().is_some() {
        let longest: Vec<String> = parts.iter().filter_map(|f| f.first().cloned()).collect();
        let overall = super::search_job::overall_part(&v.replay.search);
        let fits = overall.into_iter().find(|o| {
            let mut all = longest.clone();
            all.push(o.clone());
            format!(" {} ", all.join(" · ")).chars().count() <= room - marks_w
        });
        parts.extend(fits.map(|o| vec![o]));
    }
    let text = caption(&parts, room - marks_w);
    put_str(buf, area, border, border.x + 1, bottom, &text, style);
    if let Some(m) = &marks {
        let x = border.x + border.w - 1 - marks_w as i32;
        put_str(buf, area, border, x, bottom, m, style);
    }
    if let Some(s) = v.replay.run().and_then(|r| r.current()) {
        mark_target(v, ctx, area, s, buf);
    }
    true
}

/// ` a · b · c ` in at most `room` cells. Every part is kept while some choice of forms
/// fits (the first part is shortened first, then the next); then parts are dropped from
/// the end, never cut in the middle (`recall 1/2` cut to `recall 1` reads as a different
/// figure). The first part's shortest form is cut with `…` when nothing else fits.
pub(crate) fn caption(parts: &[Vec<String>], room: usize) -> String {
    let line = |picked: &[&String]| {
        let words: Vec<&str> = picked.iter().map(|s| s.as_str()).collect();
        format!(" {} ", words.join(" · "))
    };
    let fits = |s: &String| s.chars().count() <= room;
    let mut choice = vec![0usize; parts.len()];
    loop {
        let picked: Vec<&String> = parts
            .iter()
            .zip(&choice)
            .filter_map(|(forms, &c)| forms.get(c))
            .collect();
        let s = line(&picked);
        if fits(&s) {
            return s;
        }
        let Some(i) = (0..parts.len()).find(|&i| choice[i] + 1 < parts[i].len()) else {
            break;
        };
        choice[i] += 1;
    }
    // Every part in its shortest form does not fit: as many as fit, from the first.
    let shortest: Vec<&String> = parts.iter().filter_map(|f| f.last()).collect();
    for keep in (1..shortest.len()).rev() {
        let s = line(&shortest[..keep]);
        if fits(&s) {
            return s;
        }
    }
    let first = shortest.first().map_or("", |s| s.as_str());
    let keep = room.saturating_sub(3);
    if keep == 0 {
        return String::new();
    }
    let cut: String = first.chars().take(keep).collect();
    format!(" {cut}…")
}

/// The called tool's box gets ✓ (hit) or ✗ (miss) in its last cell, when it is drawn.
fn mark_target(v: &Sources, ctx: &Ctx, area: Rect, s: &ReplayStep, buf: &mut Buffer) {
    let Some(t) = s.target else { return };
    if !v.graph_pane.shows_focus() {
        return;
    }
    let geo = v.graph_pane.geometry(v.whole);
    let Some(r) = geo.node_rect(v.graph_pane.layout(v.whole), ctx.tk, t) else {
        return;
    };
    let inner = crate::tui::panes::inner(area);
    let view = WRect {
        x: v.graph_pane.viewport.x,
        y: v.graph_pane.viewport.y,
        w: i32::from(inner.width),
        h: i32::from(inner.height),
    };
    let y = if geo.box_h == 1 { r.y } else { r.y + 1 };
    let style = ctx.theme.selected();
    put_str(
        buf,
        inner,
        view,
        r.x + r.w - 2,
        y,
        ok_glyph(ctx, s.hit),
        style,
    );
}

/// The list of loaded runs, over the graph, while one is being chosen: in the order and
/// with the filter `o` and `f` choose (the title says which).
pub fn picker(frame: &mut Frame, v: &Sources, ctx: &Ctx, area: Rect) {
    let Some(cursor) = v.replay.picking() else {
        return;
    };
    let records = v.evidence.records();
    let list = &v.replay.list;
    let rows = list.rows(&v.replay.summaries, records.len());
    let w = area.width.saturating_sub(8).min(70);
    let h = area
        .height
        .saturating_sub(6)
        .min(rows.len() as u16 + 2)
        .max(3);
    let r = Rect::new(area.x + (area.width - w) / 2, area.y + 2, w, h);
    let shown = usize::from(h.saturating_sub(2)).max(1);
    let at = rows.iter().position(|&i| i == cursor).unwrap_or(0);
    let first = at.saturating_sub(shown - 1);
    let mut lines: Vec<Line> = rows
        .iter()
        .skip(first)
        .take(shown)
        .filter_map(|&i| Some((i, records.get(i)?)))
        .map(|(i, rec)| {
            let who = match &rec.target {
                toolscope_core::evidence::Target::Operator(o) => sanitize(o).into_owned(),
                toolscope_core::evidence::Target::Seeds(s) => format!("seeds {}", s.join(",")),
            };
            let calls = rec
                .calls
                .as_ref()
                .map_or("no order".to_string(), |c| format!("{} calls", c.len()));
            let id = rec.id.as_deref().map(sanitize).unwrap_or_default();
            // How the run went, at its own parameters (as `eval --steps` walks it).
            // First, so a narrow list keeps it.
            let went = match v.replay.summaries.get(i).copied().flatten() {
                Some((h, n)) if h == n => format!("{h}/{n} all hit · "),
                Some((h, n)) => format!("{} miss {h}/{n} · ", n - h),
                None if v.replay.summarising() => "… · ".to_string(),
                None => String::new(),
            };
            let text = format!("{:>4} {went}{id} {who} · {calls}", i + 1);
            if i == cursor {
                Line::styled(text, ctx.theme.selected())
            } else {
                Line::from(text)
            }
        })
        .collect();
    if lines.is_empty() {
        let why = if v.replay.summarising() {
            "… counting how each run went"
        } else {
            "no run has a miss (f: every run)"
        };
        lines.push(Line::styled(why, ctx.theme.muted()));
    }
    let walked = v.replay.summaries_walked;
    let budget = if !v.replay.summarising() && walked < records.len() {
        format!(" · counted {walked} (walk budget)")
    } else {
        String::new()
    };
    let keys = crate::tui::update::replay_keys::key_of;
    let title = format!(" runs · {}{budget} ", list.label());
    let hint = format!(
        " {} order · {} misses · Enter · Esc ",
        keys("runs-order"),
        keys("runs-misses"),
    );
    let block = bordered(ctx.theme).title(title).title_bottom(hint);
    frame.render_widget(Clear, r);
    frame.render_widget(Paragraph::new(lines).block(block), r);
}
