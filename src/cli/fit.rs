//! `toolscope fit`: Call scores suggested from traces, as the lossless diff `set
//! --dry-run` prints, applied with `--write` through the normal write-back (verify, atomic
//! save). The evaluation before and after goes to stderr (text) or into the JSON.

use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::{Value, json};

use super::common::{InputFormat, print_json};
use super::eval::TraceArgs;
use toolscope_core::edit::{Edit, Workspace};
use toolscope_core::evidence::eval::{EvalOptions, Report, Resolved, evaluate};
use toolscope_core::evidence::fit::{Fitted, HOLDOUT_SEED, apply, fit, holdout_mask};
use toolscope_core::evidence::report;
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::explain::num;
use toolscope_core::source::Format as SourceFormat;
use toolscope_core::text::for_terminal;
use toolscope_core::tokens::{Tokenizer, ToolTokens};

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
    /// Output format: text prints the diff on stdout and the evaluation on stderr.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

pub fn run(args: &Args) -> ExitCode {
    match execute(args) {
        Ok(code) => code,
        Err(message) => {
            super::common::error(&message);
            ExitCode::from(1)
        }
    }
}

fn execute(args: &Args) -> Result<ExitCode, String> {
    let forced = args.input_format.map(SourceFormat::from);
    let mut ws = Workspace::open(&args.paths, forced).map_err(|e| e.to_string())?;
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
    let resolved = match args.traces.resolve(&ws.toolkit, &records, &opts) {
        Ok(r) => r,
        Err(code) => return Ok(code),
    };
    let mask = holdout_mask(resolved.len(), args.holdout.unwrap_or(0.0), HOLDOUT_SEED);
    let pick = |held_out: bool| -> Vec<Resolved> {
        resolved
            .iter()
            .zip(&mask)
            .filter(|(_, h)| **h == held_out)
            .map(|(r, _)| r.clone())
            .collect()
    };
    let (used, held) = (pick(false), pick(true));
    let before_tk = ws.toolkit.clone();
    let fitted: Vec<Fitted> = fit(&before_tk, &used)
        .into_iter()
        .filter(|f| f.new != f.old)
        .collect();
    let mut after_tk = Toolkit::clone(&before_tk);
    apply(&mut after_tk, &fitted);
    let tokenizer = Tokenizer::new(args.traces.encoding.into());
    let cost = ToolTokens::new(&before_tk, &tokenizer);
    let evals = Evals {
        fitted: (
            evaluate(&before_tk, &used, &opts, &cost),
            evaluate(&after_tk, &used, &opts, &cost),
        ),
        held: args.holdout.map(|_| {
            (
                evaluate(&before_tk, &held, &opts, &cost),
                evaluate(&after_tk, &held, &opts, &cost),
            )
        }),
    };
    let diff = edit_workspace(&mut ws, &before_tk, &fitted)?;
    if args.write && !fitted.is_empty() {
        ws.save_all().map_err(|e| e.to_string())?;
    }
    match args.format {
        Format::Json => print_json(&json!({
            "edges": fitted.iter().map(|f| edge_json(&before_tk, f)).collect::<Vec<_>>(),
            "diff": diff,
            "written": args.write && !fitted.is_empty(),
            "fitted": pair_json(&evals.fitted),
            "holdout": evals.held.as_ref().map_or(Value::Null, pair_json),
        })),
        Format::Text => {
            // A real patch when piped (`fit ... > scores.patch`), escaped on a terminal.
            match std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                true => super::common::out(&for_terminal(&diff)),
                false => super::common::out(&diff),
            }
            for line in summary(&before_tk, &fitted, &evals, args).lines() {
                super::common::status(line);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

struct Evals {
    fitted: (Report, Report),
    held: Option<(Report, Report)>,
}

/// Applies the fitted scores as `set score` edits; the unified diff of every changed file.
fn edit_workspace(ws: &mut Workspace, tk: &Toolkit, fitted: &[Fitted]) -> Result<String, String> {
    let mut files = Vec::new();
    for f in fitted {
        let edit = Edit::SetScore {
            from: tk.name(f.from).to_string(),
            to: tk.name(f.to).to_string(),
            to_kind: tk.kind(f.to),
            score: f.new,
        };
        let applied = ws.apply(edit).map_err(|e| e.to_string())?;
        for note in &applied.notes {
            super::common::note(note);
        }
        if !files.contains(&applied.file) {
            files.push(applied.file);
        }
    }
    files.sort_unstable();
    Ok(files.iter().map(|&i| ws.diff(i)).collect())
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

fn summary(tk: &Toolkit, fitted: &[Fitted], evals: &Evals, args: &Args) -> String {
    let mut out = format!("{} Call scores fitted", fitted.len());
    out += if args.write && !fitted.is_empty() {
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
    out += &line("fitted", &evals.fitted);
    if let Some(h) = &evals.held {
        out += &line("held out", h);
    }
    out
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
