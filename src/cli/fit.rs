//! `toolscope fit`: Call scores and, from records with their calls in order, `Next` scores
//! learned from traces, as the lossless diff `set --dry-run` prints, applied with `--write`
//! as one transaction (per file) through the normal write-back (verify, atomic save). The
//! evaluation before and after (per record and, with ordered records, per step) goes to
//! stderr (text) or into the JSON.

use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::{Value, json};

use super::common::{InputFormat, print_json};
use super::eval::TraceArgs;
use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::evidence::Record;
use toolscope_core::evidence::criterion::Criterion;
use toolscope_core::evidence::eval::{EvalOptions, Report, Resolved, evaluate, resolve};
use toolscope_core::evidence::fit::{Changes, Fitted, HOLDOUT_SEED, holdout_mask};
use toolscope_core::evidence::learn::{NextFit, Smoothing};
use toolscope_core::evidence::report;
use toolscope_core::evidence::steps::{StepCounter, StepOptions, StepReport};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::explain::num;
use toolscope_core::source::Format as SourceFormat;
use toolscope_core::source::save::SaveErrorKind;
use toolscope_core::text::for_terminal;
use toolscope_core::tokens::{Tokenizer, ToolTokens};
use toolscope_core::workspace::Workspace;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Toolkit files or directories (merged in order).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<std::path::PathBuf>,
    /// Force the input format instead of detecting it.
    #[arg(long, value_enum)]
    input_format: Option<InputFormat>,
    #[command(flatten)]
    traces: TraceArgs,
    /// Hold out this share of the records (a fixed split): fit on the rest and report the
    /// evaluation on both.
    #[arg(long, value_name = "SHARE", value_parser = super::common::parse_threshold)]
    holdout: Option<f64>,
    /// Write the fitted scores to the files (verified, atomic); without it, print the diff.
    #[arg(long)]
    write: bool,
    /// Native files: also add the Next edges the runs show and the graph lacks (each one
    /// listed). Chat2Graph files keep their edges (their chains fix them).
    #[arg(long)]
    add_edges: bool,
    /// Output format: text prints the diff on stdout and the evaluation on stderr.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn run(args: &Args) -> ExitCode {
    // A file changed on disk while fitting (a `set` in between): fit again on the new
    // text, as `set` redoes its edit, rather than refuse after the whole fit.
    const TRIES: u32 = 3;
    for attempt in 1..=TRIES {
        let message = match execute(args) {
            Ok(code) => return code,
            Err(Failed::Changed(path)) if attempt < TRIES => {
                super::common::note(&format!(
                    "{path} changed on disk while fit ran; fitting again on the new text"
                ));
                continue;
            }
            Err(Failed::Changed(path)) => format!(
                "{path} changed on disk each of {TRIES} times fit ran; nothing written (run fit again when the file is quiet)"
            ),
            Err(Failed::Message(message)) => message,
        };
        super::common::error(&message);
        return ExitCode::from(1);
    }
    ExitCode::from(1)
}

/// Why a fit ended without its output.
enum Failed {
    /// The file at this path changed on disk between the read and the write.
    Changed(String),
    Message(String),
}

impl From<String> for Failed {
    fn from(message: String) -> Failed {
        Failed::Message(message)
    }
}

fn execute(args: &Args) -> Result<ExitCode, Failed> {
    let forced = args.input_format.map(SourceFormat::from);
    let mut ws = Workspace::open(&super::common::distinct(&args.paths), forced)
        .map_err(|e| e.to_string())?;
    let records = match args.traces.records() {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    if args.traces.offered || !args.traces.choose.is_empty() {
        super::common::warning(
            "fit works on the recommendation; --offered and --choose are ignored",
        );
    }
    let opts = EvalOptions {
        filters: None,
        ..args.traces.options()
    };
    // Diagnostics (and an unknown --operator) once, over all records.
    if let Err(code) = args.traces.resolve(&ws.toolkit, &records, &opts) {
        return Ok(code);
    }
    let keep = |r: &Record| match &args.traces.operator {
        None => true,
        Some(name) => match (&r.target, ws.toolkit.operator(name)) {
            (toolscope_core::evidence::Target::Operator(n), Some(op)) => {
                ws.toolkit.operator(n).is_some_and(|o| o.name == op.name)
            }
            _ => false,
        },
    };
    let records: Vec<Record> = records.into_iter().filter(|r| keep(r)).collect();
    let mask = holdout_mask(records.len(), args.holdout.unwrap_or(0.0), HOLDOUT_SEED);
    let split = |held_out: bool| -> Vec<Record> {
        records
            .iter()
            .zip(&mask)
            .filter(|(_, h)| **h == held_out)
            .map(|(r, _)| r.clone())
            .collect()
    };
    let (used_recs, held_recs) = (split(false), split(true));
    let before_tk = ws.toolkit.clone();
    let used: Vec<Resolved> = resolve(&before_tk, &used_recs, &opts).0;
    let held: Vec<Resolved> = resolve(&before_tk, &held_recs, &opts).0;
    let chat2graph = ws.holds(SourceFormat::Chat2Graph);
    if args.add_edges && chat2graph {
        super::common::warning(
            "Chat2Graph files keep their edges (their chains fix them); --add-edges only scores existing ones",
        );
    }
    let changes = Changes::new(&before_tk, &used, args.add_edges && !chat2graph);
    let after_tk = changes.applied(&before_tk);
    let tokenizer = Tokenizer::new(args.traces.encoding.into());
    let cost = ToolTokens::new(&before_tk, &tokenizer);
    let pair = |rs: &[Resolved]| {
        (
            evaluate(&before_tk, rs, &opts, &cost),
            evaluate(&after_tk, rs, &opts, &cost),
        )
    };
    let step_pair = |rs: &[Record]| {
        let ordered = rs.iter().any(|r| r.calls.is_some());
        ordered.then(|| {
            (
                steps(&before_tk, rs, args, &cost, false),
                steps(&after_tk, rs, args, &cost, true),
            )
        })
    };
    // The setting to use after the fit, by the one criterion (core::evidence::criterion):
    // step recall on records with their calls in order (the after side of the fitted
    // steps, swept), completeness otherwise, as `eval --sweep` and the TUI suggest it.
    let steps_fitted = step_pair(&used_recs);
    let suggestions = match &steps_fitted {
        Some((_, a)) => Suggestions::Steps(Box::new(a.clone())),
        None => Suggestions::Records(Box::new(evaluate(
            &after_tk,
            &used,
            &EvalOptions {
                sweep: true,
                ..opts.clone()
            },
            &cost,
        ))),
    };
    let evals = Evals {
        suggestions,
        fitted: pair(&used),
        held: args.holdout.map(|_| pair(&held)),
        steps_fitted,
        steps_held: args.holdout.and_then(|_| step_pair(&held_recs)),
    };
    let changed = !changes.is_empty();
    let diff = edit_workspace(&mut ws, &before_tk, &changes)?;
    if args.write && changed {
        ws.save_all().map_err(|e| match e.kind {
            SaveErrorKind::Conflict => Failed::Changed(e.path.display().to_string()),
            _ => Failed::Message(e.to_string()),
        })?;
    }
    match args.format {
        Format::Json => print_json(&json!({
            "edges": changes.calls.iter().map(|f| edge_json(&before_tk, f)).collect::<Vec<_>>(),
            "next": changes.next.iter().map(|f| next_json(&before_tk, f)).collect::<Vec<_>>(),
            "diff": diff,
            "written": args.write && changed,
            "fitted": pair_json(&evals.fitted),
            "holdout": evals.held.as_ref().map_or(Value::Null, pair_json),
            "smoothing": smoothing_json(&before_tk, &changes.smoothing),
            "criterion": evals.suggestions.criterion().describe(),
            "suggested": evals.suggestions.to_json(),
            "steps": {
                "fitted": evals.steps_fitted.as_ref().map_or(Value::Null, step_pair_json),
                "holdout": evals.steps_held.as_ref().map_or(Value::Null, step_pair_json),
            },
        })),
        Format::Text => {
            // A real patch when piped (`fit ... > scores.patch`), escaped on a terminal.
            match std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                true => super::common::out(&for_terminal(&diff)),
                false => super::common::out(&diff),
            }
            for line in smoothing_text(&before_tk, &changes.smoothing).lines() {
                super::common::status(line);
            }
            for line in summary(&before_tk, &changes.calls, &changes.next, &evals, args).lines() {
                super::common::status(line);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The step evaluation of `records` on `tk` at their own parameters.
fn steps(
    tk: &Toolkit,
    records: &[Record],
    args: &Args,
    cost: &ToolTokens,
    sweep: bool,
) -> StepReport {
    let mut c = StepCounter::new(
        tk,
        StepOptions {
            threshold: args.traces.threshold,
            hops: args.traces.hops,
            sweep,
            ..StepOptions::default()
        },
    );
    for r in records {
        c.add(r);
    }
    c.finish(cost)
}

struct Evals {
    suggestions: Suggestions,
    fitted: (Report, Report),
    held: Option<(Report, Report)>,
    steps_fitted: Option<(StepReport, StepReport)>,
    steps_held: Option<(StepReport, StepReport)>,
}

/// The fitted scores as edits (`set score`, and `add edge` for the Next edges added),
/// applied as one transaction per file; the unified diff of every changed file.
fn edit_workspace(ws: &mut Workspace, tk: &Toolkit, changes: &Changes) -> Result<String, String> {
    let mut by_file: Vec<(usize, Vec<Edit>)> = Vec::new();
    for edit in changes.edits(tk) {
        let probe = Transaction::from(edit.clone());
        let file = ws.target_file(&probe).map_err(|e| e.to_string())?;
        match by_file.iter_mut().find(|(f, _)| *f == file) {
            Some((_, v)) => v.push(edit),
            None => by_file.push((file, vec![edit])),
        }
    }
    let mut files = Vec::new();
    for (_, edits) in by_file {
        let applied = ws
            .apply(Transaction::from(edits))
            .map_err(|e| e.to_string())?;
        for note in &applied.notes {
            super::common::note(note);
        }
        files.push(applied.file);
    }
    files.sort_unstable();
    files.dedup();
    Ok(files.iter().map(|&i| ws.diff(i)).collect())
}

fn next_json(tk: &Toolkit, f: &NextFit) -> Value {
    json!({
        "from": tk.name(f.from), "to": tk.name(f.to), "old": f.old, "new": f.new,
        "added": f.edge.is_none(), "steps": f.steps, "row_steps": f.row_steps, "floor": f.floor,
    })
}

/// What the cross-validation of the Next scores measures.
const CV_MEASURE: &str = "mean next-call recall over offers of 1 to 15 tools (each step's row ranking, cut to the tools the run had; a tool of score 0 never offered) on held-out runs";

fn smoothing_json(tk: &Toolkit, s: &Smoothing) -> Value {
    json!({
        "weight": s.weight, "runs": s.runs, "folds": s.folds, "steps": s.steps,
        "measure": CV_MEASURE,
        "scores": s.scores.iter().map(|(m, v)| json!({"weight": m, "score": v})).collect::<Vec<_>>(),
        "rows": s.rows,
        "plain_rows": s.plain_rows.iter().map(|&a| tk.name(a)).collect::<Vec<_>>(),
        "chosen_score": s.chosen_score,
    })
}

/// How far the Next scores trust the runs, and why, in a few lines.
fn smoothing_text(tk: &Toolkit, s: &Smoothing) -> String {
    if s.folds == 0 {
        return format!(
            "Next scores: prior weight {} (fixed: {} distinct run(s) with their calls in order, fewer than {} to cross-validate)\n",
            num(s.weight),
            s.runs,
            toolscope_core::evidence::learn::FOLDS
        );
    }
    let scores: Vec<String> = s
        .scores
        .iter()
        .map(|(m, v)| format!("{} {v:.4}", num(*m)))
        .collect();
    let mut out = format!(
        "Next scores: prior weight {} chosen by {}-fold cross-validation over {} distinct runs ({} held-out steps)\n  measure: {CV_MEASURE}\n  by prior weight (0 = the plain transition counts): {}\n",
        num(s.weight),
        s.folds,
        s.runs,
        s.steps,
        scores.join(", ")
    );
    let names: Vec<String> = s
        .plain_rows
        .iter()
        .map(|&a| for_terminal(tk.name(a)).into_owned())
        .collect();
    out += &format!(
        "  {} of {} rows keep the plain counts (they score higher on their held-out steps){}{}; with them {}\n",
        s.plain_rows.len(),
        s.rows,
        if names.is_empty() { "" } else { ": " },
        names.join(", "),
        s.chosen_score
            .map_or_else(|| "-".into(), |v| format!("{v:.4}"))
    );
    out
}

fn step_pair_json((before, after): &(StepReport, StepReport)) -> Value {
    use toolscope_core::evidence::steps::report::to_json;
    json!({"steps": before.overall.stats.steps, "before": to_json(before), "after": to_json(after)})
}

fn edge_json(tk: &Toolkit, f: &Fitted) -> Value {
    json!({
        "from": tk.name(f.from), "to": tk.name(f.to), "old": f.old, "new": f.new,
        "present": f.present, "called": f.called, "floor": f.floor,
    })
}

fn pair_json((before, after): &(Report, Report)) -> Value {
    json!({"records": before.overall.records, "before": report::to_json(before), "after": report::to_json(after)})
}

fn summary(
    tk: &Toolkit,
    fitted: &[Fitted],
    next: &[NextFit],
    evals: &Evals,
    args: &Args,
) -> String {
    let changed = !fitted.is_empty() || !next.is_empty();
    let added = next.iter().filter(|f| f.edge.is_none()).count();
    let mut out = format!(
        "{} Call score(s) and {} Next score(s) fitted ({added} Next edge(s) added)",
        fitted.len(),
        next.len() - added
    );
    out += if args.write && changed {
        " and written\n"
    } else {
        " (not written; --write applies them)\n"
    };
    for f in fitted {
        out += &format!(
            "  {} -> {}: {} -> {} (called in {}/{} records)\n",
            tk.name(f.from),
            tk.name(f.to),
            num(f.old),
            num(f.new),
            f.called,
            f.present
        );
    }
    // Next rows can be long (a prior row per action): the added edges are each listed,
    // the changed scores as a count per action.
    for f in next.iter().filter(|f| f.edge.is_none()) {
        out += &format!(
            "  added: {} -> {}: {} ({} of {} steps)\n",
            tk.name(f.from),
            tk.name(f.to),
            num(f.new),
            f.steps,
            f.row_steps
        );
    }
    out += &line("fitted", &evals.fitted);
    if let Some(h) = &evals.held {
        out += &line("held out", h);
    }
    if let Some(s) = &evals.steps_fitted {
        out += &step_line("fitted", s);
    }
    if let Some(s) = &evals.steps_held {
        out += &step_line("held out", s);
    }
    out += &evals.suggestions.text();
    out
}

/// The settings suggested for the fitted toolkit, per operator, by the one criterion.
enum Suggestions {
    /// Records with their calls in order: the step sweep after the fit.
    Steps(Box<StepReport>),
    /// Records without order: the record evaluation after the fit, swept.
    Records(Box<Report>),
}

impl Suggestions {
    fn criterion(&self) -> Criterion {
        match self {
            Suggestions::Steps(r) => toolscope_core::evidence::steps::report::criterion(r),
            Suggestions::Records(r) => r.criterion,
        }
    }

    fn to_json(&self) -> Value {
        let point = |operator: &str, t: f64, h: u32, measure: f64, tokens: f64| {
            json!({"operator": operator, "threshold": t, "hops": h,
                   self.criterion().key(): measure, "tokens": tokens})
        };
        match self {
            Suggestions::Steps(r) => r
                .operators
                .iter()
                .filter_map(|g| {
                    let p = g.suggested.as_ref()?;
                    Some(point(&g.operator, p.threshold, p.hops, p.recall, p.tokens))
                })
                .collect(),
            Suggestions::Records(r) => r
                .operators
                .iter()
                .filter_map(|g| {
                    let s = g.suggested.as_ref()?;
                    Some(point(
                        &g.operator,
                        s.threshold,
                        s.hops,
                        s.complete,
                        s.tokens,
                    ))
                })
                .collect(),
        }
    }

    /// `suggested after the fit (fewest tokens reaching step recall 0.90):` and a line per
    /// operator.
    fn text(&self) -> String {
        let mut out = format!(
            "suggested after the fit ({}), per operator:\n",
            self.criterion().describe()
        );
        let none = |op: &str| format!("  {}: none reaches it\n", for_terminal(op));
        match self {
            Suggestions::Steps(r) => {
                for g in &r.operators {
                    out += &match &g.suggested {
                        Some(p) => format!(
                            "  {}: threshold {}, hops {} (step recall {:.3}, ~{:.0} tokens per step)\n",
                            for_terminal(&g.operator),
                            num(p.threshold),
                            p.hops,
                            p.recall,
                            p.tokens
                        ),
                        None => none(&g.operator),
                    };
                }
            }
            Suggestions::Records(r) => {
                for g in &r.operators {
                    out += &match &g.suggested {
                        Some(s) => format!(
                            "  {}: threshold {}, hops {} (complete {:.3}, ~{:.0} tokens)\n",
                            for_terminal(&g.operator),
                            num(s.threshold),
                            s.hops,
                            s.complete,
                            s.tokens
                        ),
                        None => none(&g.operator),
                    };
                }
            }
        }
        out
    }
}

fn step_line(what: &str, (b, a): &(StepReport, StepReport)) -> String {
    let f = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.3}"));
    let t = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.0}"));
    let (b, a) = (&b.overall.stats, &a.overall.stats);
    format!(
        "{what} steps ({}): next-call recall {} -> {}, ~tokens per step {} -> {}\n",
        b.steps,
        f(b.recall),
        f(a.recall),
        t(b.tokens),
        t(a.tokens),
    )
}

fn line(what: &str, (b, a): &(Report, Report)) -> String {
    let f = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.3}"));
    let t = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.0}"));
    format!(
        "{what} ({} records): complete {} -> {}, recall {} -> {}, precision {} -> {}, ~tokens {} -> {}\n",
        b.overall.records,
        f(b.overall.complete),
        f(a.overall.complete),
        f(b.overall.recall),
        f(a.overall.recall),
        f(b.overall.precision),
        f(a.overall.precision),
        t(b.overall.tokens),
        t(a.overall.tokens),
    )
}
