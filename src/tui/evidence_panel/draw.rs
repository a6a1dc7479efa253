//! The evidence panel of one operator: its `eval` numbers, the suggestion, and a chart of
//! completeness and tokens over the threshold axis with the current threshold marked.
//!
//! It draws from an [`GroupReport`] computed with `sweep` on, and knows nothing of the
//! app state, so it can be hooked into any pane; the TUI shows it in the right-hand pane
//! on `V` (`tui::evidence` computes the report).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Borders, Chart, Dataset, GraphType, Paragraph};

use toolscope_core::evidence::eval::{GroupReport, StepStats};
use toolscope_core::recommend::explain::num;
use toolscope_core::text::sanitize;

/// Draws the panel for `group` in `area`, marking threshold `current`.
pub fn draw(frame: &mut Frame, area: Rect, group: &GroupReport, current: f64, ascii: bool) {
    let title = format!(" evidence: {} ", sanitize(&group.operator));
    let block = Block::default().borders(Borders::ALL).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [text, chart] = Layout::vertical([Constraint::Length(4), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(summary(group)), text);
    if chart.height >= 5
        && let Some(steps) = group.steps.as_deref().filter(|s| !s.is_empty())
    {
        draw_chart(frame, chart, steps, current, ascii);
    }
    if ascii {
        asciify(frame.buffer_mut(), area);
    }
}

/// ASCII mode: ratatui's chart markers and borders are not ASCII, so the drawn cells are
/// mapped afterwards (lines to `|`, `-`, `+`, markers to `*`).
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
                _ => "*",
            };
            cell.set_symbol(plain);
        }
    }
}

fn fmt(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |v| format!("{v:.2}"))
}

fn summary(g: &GroupReport) -> Vec<Line<'static>> {
    let s = &g.stats;
    let suggested = match &g.suggested {
        Some(x) => format!(
            "suggested: threshold {} hops {} (complete {:.2}, ~{:.0} tokens)",
            num(x.threshold),
            x.hops,
            x.complete,
            x.tokens
        ),
        None => "suggested: none keeps completeness".into(),
    };
    let never = if s.never_called.is_empty() {
        "(none)".to_string()
    } else {
        s.never_called.join(", ")
    };
    vec![
        Line::from(format!(
            "records {} (calls {})  recall {}  complete {}  precision {}",
            s.records,
            s.with_calls,
            fmt(s.recall),
            fmt(s.complete),
            fmt(s.precision)
        )),
        Line::from(format!(
            "offered {}  ~tokens {} (estimate)  unknown {}",
            s.offered_tools
                .map_or_else(|| "-".into(), |v| format!("{v:.1}")),
            s.tokens.map_or_else(|| "-".into(), |v| format!("{v:.0}")),
            s.unknown_calls
        )),
        Line::from(suggested),
        Line::from(vec![
            Span::raw("never called: "),
            Span::raw(sanitize(&never).into_owned()),
        ]),
    ]
}

/// Step functions over the threshold, drawn from 1 down to 0: nothing is offered above
/// the first step, and each step's value holds down to the next step's threshold.
fn series(steps: &[StepStats], value: impl Fn(&StepStats) -> f64) -> Vec<(f64, f64)> {
    let mut out = Vec::with_capacity(steps.len() * 2 + 2);
    let mut prev = 0.0;
    out.push((1.0, prev));
    for s in steps {
        let t = s.threshold.clamp(0.0, 1.0);
        let v = value(s);
        out.push((t, prev));
        out.push((t, v));
        prev = v;
    }
    out.push((0.0, prev));
    out
}

fn draw_chart(frame: &mut Frame, area: Rect, steps: &[StepStats], current: f64, ascii: bool) {
    let max_tokens = steps.iter().map(|s| s.tokens).fold(0.0, f64::max).max(1.0);
    let complete = series(steps, |s| s.complete.unwrap_or(0.0));
    let tokens = series(steps, |s| s.tokens / max_tokens);
    let mark = [
        (current.clamp(0.0, 1.0), 0.0),
        (current.clamp(0.0, 1.0), 1.0),
    ];
    let marker = if ascii {
        symbols::Marker::Dot
    } else {
        symbols::Marker::Braille
    };
    let tokens_name = format!("~tokens (max {max_tokens:.0})");
    let datasets = vec![
        Dataset::default()
            .name("complete")
            .marker(marker)
            .graph_type(GraphType::Line)
            .style(Style::new().fg(Color::Green))
            .data(&complete),
        Dataset::default()
            .name(tokens_name)
            .marker(marker)
            .graph_type(GraphType::Line)
            .style(Style::new().fg(Color::Yellow))
            .data(&tokens),
        Dataset::default()
            .name("threshold")
            .marker(marker)
            .graph_type(GraphType::Line)
            .style(Style::new().fg(Color::Cyan))
            .data(&mark),
    ];
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .title("threshold")
                .bounds([0.0, 1.0])
                .labels(["0", "0.5", "1"]),
        )
        .y_axis(Axis::default().bounds([0.0, 1.0]).labels(["0", "1"]))
        .hidden_legend_constraints((Constraint::Ratio(1, 2), Constraint::Ratio(1, 2)));
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
        toolscope_core::source::load_text(
            std::path::Path::new("kit.yaml"),
            kit.into(),
            None,
            &limits,
        )
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

    fn screen(w: u16, h: u16, ascii: bool) -> String {
        let g = report();
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("backend");
        t.draw(|f| draw(f, f.area(), &g, 0.5, ascii)).expect("draw");
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

    #[test]
    fn panel_snapshots() {
        insta::assert_snapshot!("evidence_panel_80x24", screen(80, 24, false));
        insta::assert_snapshot!("evidence_panel_60x16_ascii", screen(60, 16, true));
    }

    #[test]
    fn ascii_mode_draws_only_ascii() {
        let s = screen(60, 16, true);
        assert!(s.is_ascii(), "{s}");
        assert!(s.contains('*') && s.contains("+-"), "{s}");
    }

    #[test]
    fn panel_shows_the_numbers_and_suggestion() {
        let s = screen(80, 24, false);
        assert!(s.contains("evidence: op"), "{s}");
        assert!(s.contains("records 3 (calls 3)"), "{s}");
        assert!(s.contains("suggested: threshold 0.4 hops 2"), "{s}");
        assert!(s.contains("threshold"), "{s}");
        // Too small for a chart: the numbers still show.
        let small = screen(60, 8, true);
        assert!(small.contains("records 3"), "{small}");
    }

    #[test]
    fn series_are_step_functions() {
        let g = report();
        let steps = g.steps.as_deref().unwrap_or(&[]);
        let s = series(steps, |x| x.offered_tools);
        assert_eq!(s.first(), Some(&(1.0, 0.0)));
        assert_eq!(s.last().map(|p| p.0), Some(0.0));
        assert!(s.windows(2).all(|w| w[0].0 >= w[1].0), "{s:?}");
    }
}
