//! The evidence panel of one operator: its `eval` numbers, its step numbers (next-call
//! recall, when its records give the calls in order), the suggestion, and a chart over the
//! threshold axis with a legend, the current threshold marked.
//!
//! The figures are short items ("recall 1.00") packed into as many lines as the pane's
//! width needs, so a narrow pane stacks them and never cuts one; the chart takes what
//! height is left (none below five rows). It draws from reports computed with `sweep` on
//! and knows nothing of the app state (`tui::evidence_panel` computes them).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph};

use toolscope_core::evidence::criterion::{Criterion, TARGET_RECALL};
use toolscope_core::evidence::eval::{GroupReport, StepStats};
use toolscope_core::evidence::steps::figures::Figures;
use toolscope_core::evidence::steps::{StepGroup, SweepPoint};
use toolscope_core::recommend::explain::num;
use toolscope_core::text::sanitize;

/// Draws the panel for `group` (and its steps) in `area`, marking threshold `current`.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    group: &GroupReport,
    steps: Option<&StepGroup>,
    current: f64,
    ascii: bool,
) {
    let title = format!(" evidence: {} ", sanitize(&group.operator));
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let width = inner.width as usize;
    let mut lines = pack(&figures(group, steps), width);
    let curves = curves(group, steps, current);
    let legend = pack(&legend(&curves, ascii), width);
    let room = inner.height as usize;
    let chart_rows = room.saturating_sub(lines.len() + legend.len());
    let show_chart = chart_rows >= 5 && !curves.is_empty();
    if show_chart {
        lines.extend(legend);
    }
    let [text, chart] =
        Layout::vertical([Constraint::Length(lines.len() as u16), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(lines), text);
    if show_chart {
        draw_chart(frame, chart, &curves);
    }
    if ascii {
        asciify(frame.buffer_mut(), area);
    }
}

/// ASCII mode: ratatui's chart markers and borders are not ASCII, so the drawn cells are
/// mapped afterwards (lines to `|`, `-`, `+`; each curve's marker to its own letter, as
/// the legend says).
fn asciify(buf: &mut ratatui::buffer::Buffer, area: Rect) {
    let area = area.intersection(buf.area);
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &mut buf[(x, y)];
            if cell.symbol().is_ascii() {
                continue;
            }
            let plain = match cell.symbol() {
                "│" => "|",
                "─" => "-",
                "┌" | "┐" | "└" | "┘" | "├" | "┤" | "┬" | "┴" | "┼" => "+",
                s => ascii_marker(s),
            };
            cell.set_symbol(plain);
        }
    }
}

/// The ASCII stand-in of a chart cell: by the marker that drew it.
fn ascii_marker(symbol: &str) -> &'static str {
    match symbol {
        "•" => "o",
        "▄" => "#",
        "█" => "|",
        _ => "*",
    }
}

fn fmt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

/// What a suggestion optimises, in items of at most 20 columns (the inspector's column is
/// 22 wide): `fewest tokens`, `reaching step recall`, `0.90`.
fn criterion_items(c: &Criterion) -> Vec<Item> {
    let mut out: Vec<String> = Vec::new();
    for w in c.describe().split(' ') {
        match out.last_mut() {
            Some(last) if last.len() + 1 + w.len() <= 20 => {
                last.push(' ');
                last.push_str(w);
            }
            _ => out.push(w.to_string()),
        }
    }
    out.into_iter().map(item).collect()
}

/// One figure: spans that stay on one line.
type Item = Vec<Span<'static>>;

fn item(text: impl Into<String>) -> Item {
    vec![Span::raw(text.into())]
}

/// The figures, each an item: records, then steps, the suggestion, the tools never called.
fn figures(g: &GroupReport, steps: Option<&StepGroup>) -> Vec<Item> {
    let s = &g.stats;
    let mut out = vec![
        item(format!("records {}", s.records)),
        item(format!("with calls {}", s.with_calls)),
        item(format!("recall {}", fmt(s.recall))),
        item(format!("complete {}", fmt(s.complete))),
        item(format!("precision {}", fmt(s.precision))),
        item(format!(
            "offered {}",
            s.offered_tools
                .map_or_else(|| "-".into(), |v| format!("{v:.1}"))
        )),
        item(format!(
            "~tokens {}",
            s.tokens.map_or_else(|| "-".into(), |v| format!("{v:.0}"))
        )),
        item(format!("unknown {}", s.unknown_calls)),
    ];
    if let Some(st) = steps {
        // The one set of figures (core steps::figures): the steps, then the first calls.
        let f = Figures::of(st);
        out.push(item(format!("| steps {}", f.steps.calls)));
        out.push(item(format!("step recall {}", fmt(f.steps.recall()))));
        out.push(item(format!("~tokens/step {:.0}", f.steps.tokens)));
        out.push(item(format!(
            "{} of available",
            st.stats
                .token_ratio
                .map_or_else(|| "-".into(), |r| format!("{:.0}%", r * 100.0))
        )));
        // Their tokens are the records' `~tokens` above (the operator's own offer).
        out.push(item(format!("first calls {}", fmt(f.first.recall()))));
    }
    // One criterion (core::evidence::criterion): step recall when the records give their
    // calls in order, as `eval --sweep` and `eval --steps --sweep` judge them.
    match steps {
        Some(st) => {
            let c = Criterion::StepRecall(TARGET_RECALL);
            out.push(item("| suggested:"));
            out.extend(criterion_items(&c));
            match &st.suggested {
                Some(p) => {
                    out.push(item(format!("threshold {}", num(p.threshold))));
                    out.push(item(format!("hops {}", p.hops)));
                    // Its step recall is at least the criterion's (the sweep's curve shows it).
                    out.push(item(format!("~{:.0} tokens/step", p.tokens)));
                    out.push(item(format!("first calls {}", fmt(p.first_recall))));
                }
                None => out.push(item("none reaches it")),
            }
        }
        None => {
            let c = g
                .suggested
                .as_ref()
                .map_or(Criterion::Complete(1.0), |x| x.criterion);
            out.push(item("| suggested:"));
            out.extend(criterion_items(&c));
            match &g.suggested {
                Some(x) => {
                    out.push(item(format!("threshold {}", num(x.threshold))));
                    out.push(item(format!("hops {}", x.hops)));
                    out.push(item(format!("complete {:.2}", x.complete)));
                    out.push(item(format!("~{:.0} tokens", x.tokens)));
                }
                None => out.push(item("none reaches it")),
            }
        }
    }
    if s.never_called.is_empty() {
        out.push(item("| never called: (none)"));
    }
    for (i, n) in s.never_called.iter().enumerate() {
        let comma = if i + 1 < s.never_called.len() {
            ","
        } else {
            ""
        };
        let head = if i == 0 { "| never called: " } else { "" };
        out.push(item(format!("{head}{}{comma}", sanitize(n))));
    }
    out
}

/// Items packed into lines of `width` cells, two spaces apart; an item starting with `| `
/// starts a new line (without the bar). An item wider than the line is cut into pieces.
fn pack(items: &[Item], width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut lines: Vec<Vec<Span<'static>>> = Vec::new();
    let mut used = 0;
    for it in items {
        let mut it = it.clone();
        let new_line = it.first().is_some_and(|s| s.content.starts_with("| "));
        if new_line && let Some(first) = it.first_mut() {
            first.content = first.content[2..].to_string().into();
        }
        let w: usize = it.iter().map(Span::width).sum();
        if lines.is_empty() || new_line || used + 2 + w > width {
            lines.push(Vec::new());
            used = 0;
        } else {
            lines
                .last_mut()
                .into_iter()
                .for_each(|l| l.push(Span::raw("  ")));
            used += 2;
        }
        for span in it {
            for piece in cut(span, width) {
                let pw = piece.width();
                if used + pw > width && used > 0 {
                    lines.push(Vec::new());
                    used = 0;
                }
                used += pw;
                lines
                    .last_mut()
                    .into_iter()
                    .for_each(|l| l.push(piece.clone()));
            }
        }
    }
    lines.into_iter().map(Line::from).collect()
}

/// A span cut into pieces of at most `width` cells.
fn cut(span: Span<'static>, width: usize) -> Vec<Span<'static>> {
    if span.width() <= width {
        return vec![span];
    }
    let mut out = Vec::new();
    let mut piece = String::new();
    let mut w = 0;
    for c in span.content.chars() {
        let cw = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if w + cw > width && !piece.is_empty() {
            out.push(Span::styled(std::mem::take(&mut piece), span.style));
            w = 0;
        }
        piece.push(c);
        w += cw;
    }
    if !piece.is_empty() {
        out.push(Span::styled(piece, span.style));
    }
    out
}

/// One curve of the chart: its legend name, colour, marker and points in [0, 1]².
struct Curve {
    name: String,
    color: Color,
    marker: Marker,
    /// The legend's sample of the marker (ASCII mode maps it as the chart cells).
    sample: &'static str,
    points: Vec<(f64, f64)>,
}

/// The curves: completeness of the records, next-call recall of the steps, tokens (per
/// step when there are steps, else per record, scaled to their maximum), the threshold.
fn curves(g: &GroupReport, steps: Option<&StepGroup>, current: f64) -> Vec<Curve> {
    let mut out = Vec::new();
    let record_steps = g.steps.as_deref().filter(|s| !s.is_empty());
    if let Some(rs) = record_steps {
        out.push(Curve {
            name: "complete".into(),
            color: Color::Green,
            marker: Marker::Braille,
            sample: "⠶",
            points: series(rs.iter().map(|s| (s.threshold, s.complete.unwrap_or(0.0)))),
        });
    }
    let sweep: Option<&[SweepPoint]> = steps
        .and_then(|s| s.sweep.as_deref())
        .filter(|p| !p.is_empty());
    if let Some(points) = sweep {
        out.push(Curve {
            name: "step recall".into(),
            color: Color::Magenta,
            marker: Marker::Dot,
            sample: "•",
            points: series(points.iter().map(|p| (p.threshold, p.recall))),
        });
    }
    // Tokens per step when there are steps, else per record.
    let tokens: Option<Vec<(f64, f64)>> = match (sweep, record_steps) {
        (Some(p), _) => Some(p.iter().map(|p| (p.threshold, p.tokens)).collect()),
        (None, Some(rs)) => Some(
            rs.iter()
                .map(|s: &StepStats| (s.threshold, s.tokens))
                .collect(),
        ),
        (None, None) => None,
    };
    if let Some(t) = tokens {
        let max = t.iter().map(|p| p.1).fold(0.0, f64::max).max(1.0);
        out.push(Curve {
            name: format!("~tokens (max {max:.0})"),
            color: Color::Yellow,
            marker: Marker::Bar,
            sample: "▄",
            points: series(t.into_iter().map(|(th, v)| (th, v / max))),
        });
    }
    if !out.is_empty() {
        let x = current.clamp(0.0, 1.0);
        out.push(Curve {
            name: format!("threshold {}", num(current)),
            color: Color::Cyan,
            marker: Marker::Block,
            sample: "█",
            points: vec![(x, 0.0), (x, 1.0)],
        });
    }
    out
}

/// The legend: each curve's marker sample in its colour, then its name.
fn legend(curves: &[Curve], ascii: bool) -> Vec<Item> {
    curves
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let sample = if ascii {
                ascii_marker(c.sample)
            } else {
                c.sample
            };
            let head = if i == 0 { "| " } else { "" };
            vec![
                Span::styled(format!("{head}{sample}"), Style::new().fg(c.color)),
                Span::raw(format!(" {}", c.name)),
            ]
        })
        .collect()
}

/// A step function over the threshold from `(threshold, value)` steps, thresholds
/// descending, drawn from 1 down to 0: nothing is offered above the first step, and each
/// step's value holds down to the next step's threshold.
fn series(steps: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut out = vec![(1.0, 0.0)];
    let mut prev = 0.0;
    for (t, v) in steps {
        let t = t.clamp(0.0, 1.0);
        out.push((t, prev));
        out.push((t, v));
        prev = v;
    }
    out.push((0.0, prev));
    out
}

fn draw_chart(frame: &mut Frame, area: Rect, curves: &[Curve]) {
    let datasets = curves
        .iter()
        .map(|c| {
            Dataset::default()
                .marker(c.marker)
                .graph_type(GraphType::Line)
                .style(Style::new().fg(c.color))
                .data(&c.points)
        })
        .collect::<Vec<_>>();
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .title("threshold")
                .bounds([0.0, 1.0])
                .labels(["0", "0.5", "1"]),
        )
        .y_axis(Axis::default().bounds([0.0, 1.0]).labels(["0", "1"]));
    frame.render_widget(chart, area);
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use toolscope_core::evidence::eval::{EvalOptions, evaluate, resolve};
    use toolscope_core::evidence::{CostFn, Record};

    /// a -next 0.8-> b -next 0.4-> c; a calls X 0.9 and W 0.3, b calls Y 0.6, c calls Z
    /// 0.7. Operator `op`: seeds [a], threshold 0.5, hops 1.
    fn toolkit() -> toolscope_core::model::Toolkit {
        let kit = "\
actions:
  - {name: a, next: [{name: b, score: 0.8}], tools: [{name: X, score: 0.9}, {name: W, score: 0.3}]}
  - {name: b, next: [{name: c, score: 0.4}], tools: [{name: Y, score: 0.6}]}
  - {name: c, tools: [{name: Z, score: 0.7}]}
tools: [{name: X}, {name: W}, {name: Y}, {name: Z}]
operators:
  - {name: op, actions: [a], threshold: 0.5, hops: 1}
";
        let limits = toolscope_core::source::Limits::default();
        toolscope_core::load::load_text(std::path::Path::new("kit.yaml"), kit.into(), None, &limits)
            .expect("the fixture loads")
            .toolkit
    }

    fn report() -> GroupReport {
        let tk = toolkit();
        let records = vec![
            Record::operator("op", &["X"]),
            Record::operator("op", &["X", "Z"]),
            Record::operator("op", &["Y"]),
        ];
        let opts = EvalOptions {
            sweep: true,
            ..EvalOptions::default()
        };
        let (resolved, _) = resolve(&tk, &records, &opts);
        let cost = CostFn(|_| 10);
        evaluate(&tk, &resolved, &opts, &cost).operators.remove(0)
    }

    /// Steps X->Y, Y->Z, X->Z swept at hops 1.
    fn steps() -> StepGroup {
        use toolscope_core::evidence::steps::{StepCounter, StepOptions};
        let tk = toolkit();
        let mut c = StepCounter::new(
            &tk,
            StepOptions {
                threshold: Some(0.5),
                hops: Some(1),
                sweep: true,
                ..StepOptions::default()
            },
        );
        c.add(&Record::ordered("op", &["X", "Y", "Z"]));
        c.add(&Record::ordered("op", &["X", "Z"]));
        let mut g = c.finish(&CostFn(|_| 10)).overall;
        if let Some(p) = &mut g.sweep {
            p.retain(|p| p.hops == 1);
        }
        g
    }

    fn screen_with(w: u16, h: u16, ascii: bool, with_steps: bool) -> String {
        let g = report();
        let st = steps();
        let st = with_steps.then_some(&st);
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("backend");
        t.draw(|f| draw(f, f.area(), &g, st, 0.5, ascii))
            .expect("draw");
        let buf = t.backend().buffer();
        let mut s = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    }

    fn screen(w: u16, h: u16, ascii: bool) -> String {
        screen_with(w, h, ascii, false)
    }

    #[test]
    fn panel_snapshots() {
        insta::assert_snapshot!("evidence_panel_80x24", screen(80, 24, false));
        insta::assert_snapshot!("evidence_panel_60x16_ascii", screen(60, 16, true));
        insta::assert_snapshot!(
            "evidence_panel_steps_40x24",
            screen_with(40, 24, false, true)
        );
        insta::assert_snapshot!(
            "evidence_panel_steps_30x30_ascii",
            screen_with(30, 30, true, true)
        );
    }

    #[test]
    fn ascii_mode_draws_only_ascii() {
        let s = screen_with(60, 30, true, true);
        assert!(s.is_ascii(), "{s}");
        // Each curve keeps its own letter, as the legend says.
        assert!(
            s.contains("* complete") && s.contains("o step recall"),
            "{s}"
        );
        assert!(
            s.contains("# ~tokens (max") && s.contains("| threshold 0.5"),
            "{s}"
        );
        assert!(s.contains('#') && s.contains("+-"), "{s}");
    }

    /// Every figure and legend entry is on one line, whole, at every width a pane has
    /// (the inspector's column at 80 columns is about 30 wide).
    #[test]
    fn figures_are_never_cut() {
        let g = report();
        let st = steps();
        let mut texts: Vec<String> = figures(&g, Some(&st))
            .iter()
            .map(|i| {
                i.iter()
                    .map(|s| s.content.trim_start_matches("| ").to_string())
                    .collect()
            })
            .collect();
        texts.extend(curves(&g, Some(&st), 0.5).iter().map(|c| c.name.clone()));
        assert!(
            texts.iter().any(|t| t.starts_with("step recall 0.")),
            "{texts:?}"
        );
        // 22: the inspector's column at 80x24.
        for w in [22u16, 26, 30, 40, 60, 80] {
            let s = screen_with(w, 40, false, true);
            for t in &texts {
                assert!(
                    s.lines().any(|l| l.contains(t.as_str())),
                    "{t:?} cut at width {w}:\n{s}"
                );
            }
        }
    }

    #[test]
    fn panel_shows_the_numbers_and_suggestion() {
        let s = screen(80, 24, false);
        assert!(s.contains("evidence: op"), "{s}");
        assert!(s.contains("records 3") && s.contains("with calls 3"), "{s}");
        // The suggestion names its criterion (completeness: these records have no order).
        assert!(s.contains("suggested:  fewest tokens"), "{s}");
        assert!(s.contains("keeping complete  1.00  threshold 0.4"), "{s}");
        assert!(s.contains("threshold"), "{s}");
        // Too small for a chart: the numbers still show.
        let small = screen(60, 8, true);
        assert!(small.contains("records 3"), "{small}");
    }

    #[test]
    fn series_are_step_functions() {
        let g = report();
        let steps = g.steps.as_deref().unwrap_or(&[]);
        let s = series(steps.iter().map(|x| (x.threshold, x.offered_tools)));
        assert_eq!(s.first(), Some(&(1.0, 0.0)));
        assert_eq!(s.last().map(|p| p.0), Some(0.0));
        assert!(s.windows(2).all(|w| w[0].0 >= w[1].0), "{s:?}");
    }
}
