//! The parameter bar: threshold, hops, operator, counts; the file and status line; the
//! hint line generated from the command registry and the keymap.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{App, Level};
use crate::tui::update::commands::{self, keymap};
use toolscope_core::text::sanitize;
use unicode_width::UnicodeWidthStr;

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let status = status_line(app);
    let status = if status.width() > usize::from(area.width) {
        // A message longer than the line says where the rest is (the message log).
        cut_status(app, status, area.width)
    } else {
        status
    };
    let status_w = status.width() as u16;
    let lines = vec![
        param_line(app, area.width),
        status,
        hint_line(app, area.width),
    ];
    frame.render_widget(Paragraph::new(lines), area);
    // The sweep chart sits at the right end of the status line, narrower (or not at all)
    // when the status needs the room: an error must stay readable.
    let room = usize::from(area.width.saturating_sub(status_w + 1));
    let cols = crate::tui::insight::sweep_chart::columns_within(area.width, room);
    let chart = crate::tui::insight::sweep_chart::chart_line(&app.insight, &app.ctx(), cols);
    let w = chart.width() as u16;
    if w > 0 && area.height > 1 && status_w + w < area.width {
        let rect = Rect::new(area.x + area.width - w, area.y + 1, w, 1);
        frame.render_widget(ratatui::widgets::Clear, rect);
        frame.render_widget(Paragraph::new(chart), rect);
    }
}

/// `threshold 0.50  hops 1  operator qa  seeds 1  actions 2/16  tools 4/17`; on a narrow
/// terminal with short labels (`t 0.50  hops 1  op qa  ...`) so the counts stay on screen.
pub fn param_line(app: &App, width: u16) -> Line<'static> {
    let line = param_line_with(app, false);
    if line.width() <= usize::from(width) {
        return line;
    }
    param_line_with(app, true)
}

/// A threshold as the operator has it: two decimals when that is exact (`0.50`), else
/// every digit written (`0.1426`, which two decimals would show as `0.14`).
pub fn as_written(t: f64) -> String {
    let two = format!("{t:.2}");
    if two.parse::<f64>().is_ok_and(|x| x == t) {
        two
    } else {
        toolscope_core::recommend::explain::num(t)
    }
}

fn param_line_with(app: &App, short: bool) -> Line<'static> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let c = app.counts();
    let op = match app.operator.and_then(|i| app.tk.operators.get(i)) {
        // A step's seeds (a replay, or the step a learned kit opens on) are the step's,
        // which the graph's border names: no edit of the operator's seeds.
        Some(o) if app.seeds_edited && !app.replay.shown(&app.seeds) => {
            format!("{} (seeds edited)", sanitize(&o.name))
        }
        Some(o) => sanitize(&o.name).into_owned(),
        None => "none".into(),
    };
    let mut spans = Vec::new();
    let mut field = |k: &str, v: String| {
        let k = match (short, k) {
            (true, "threshold") => "t",
            (true, "operator") => "op",
            (true, "actions") => "act",
            (true, "vs baseline") => "vs",
            _ => k,
        };
        let gap = if short { "" } else { " " };
        spans.push(Span::raw(format!(" {k} ")));
        spans.push(Span::styled(v, bold));
        spans.push(Span::raw(gap));
    };
    field("threshold", as_written(app.session.params.threshold));
    field("hops", app.session.params.hops.to_string());
    field("operator", op);
    field("seeds", app.seeds.len().to_string());
    field("actions", format!("{}/{}", c.actions.0, c.actions.1));
    field("tools", format!("{}/{}", c.tools.0, c.tools.1));
    if let Some(n) = c.offered {
        field("offered", n.to_string());
    }
    if let Some(t) = app.evidence.offer_tokens() {
        field("tokens", format!("~{t}"));
    }
    if let Some(d) = &app.insight.diff {
        let g = |c| crate::tui::insight::diff_panel::glyph(&app.theme, c);
        use crate::tui::insight::Change;
        field(
            "vs baseline",
            format!(
                "{}{} {}{}",
                g(Change::Entered),
                d.entered.len(),
                g(Change::Left),
                d.left.len()
            ),
        );
    }
    if let Some(n) = app.layout_pending() {
        spans.push(Span::styled(
            format!(" {}", crate::tui::graph_pane::progress(app.theme.ascii, n)),
            app.theme.muted(),
        ));
    }
    Line::from(spans)
}

fn status_line(app: &App) -> Line<'static> {
    let modified = if app.is_modified() { " [+]" } else { "" };
    // Which pane has the keys, in words (the border's colour says it too).
    let keys_to = Span::styled(format!(" {}:", keys_to(app)), app.theme.key());
    let file = Span::styled(
        format!(" {}{modified} ", sanitize(&app.source)),
        app.theme.muted(),
    );
    match &app.status {
        Some(s) => {
            let style = match s.level {
                Level::Error => app.theme.error(),
                Level::Info => Style::new(),
            };
            Line::from(vec![
                keys_to,
                file,
                Span::styled(sanitize(&s.text).into_owned(), style),
            ])
        }
        None => Line::from(vec![keys_to, file]),
    }
}

/// The name of what takes the keys: the replay while one is shown, else the focused pane.
pub fn keys_to(app: &App) -> &'static str {
    use crate::tui::app::ActivePane;
    use crate::tui::update::commands::keymap::Context;
    match crate::tui::update::replay_keys::keys_context(app) {
        Some(Context::Tune) => "tune",
        Some(Context::Pick) => "runs",
        Some(_) => "replay",
        None => match app.active_pane {
            ActivePane::Graph => "graph",
            ActivePane::Navigator => "navigator",
            ActivePane::Inspector => "inspector",
        },
    }
}

/// The status line cut to `width`, ending in `… (M: more)`.
fn cut_status(app: &App, line: Line<'static>, width: u16) -> Line<'static> {
    let more = format!("{} (M: more)", app.theme.glyphs().ellipsis);
    let room = usize::from(width).saturating_sub(more.width());
    let mut used = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > room {
                break;
            }
            text.push(c);
            used += w;
        }
        let full = text.len() == span.content.len();
        spans.push(Span::styled(text, span.style));
        if !full {
            break;
        }
    }
    spans.push(Span::styled(more, app.theme.key()));
    Line::from(spans)
}

/// The hints that fit in `width`, whole.
fn hint_line(app: &App, width: u16) -> Line<'static> {
    let mut spans = vec![Span::raw(" ")];
    let mut used = 1;
    for (key, label) in hints() {
        let w = key.chars().count() + label.chars().count() + 3;
        if used + w > usize::from(width) {
            break;
        }
        used += w;
        spans.push(Span::styled(key, app.theme.key()));
        spans.push(Span::raw(format!(" {label}  ")));
    }
    Line::from(spans)
}

/// The hint line's entries: `(keys, label)` of the commands that carry a hint.
fn hints() -> impl Iterator<Item = (String, &'static str)> {
    commands::all().filter_map(|c| {
        let hint = c.hint?;
        let keys = match hint.keys {
            Some(k) => k.to_string(),
            None => keymap::first_key(c.name)?,
        };
        Some((keys, hint.label))
    })
}
