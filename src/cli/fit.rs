//! `toolscope fit`: Call scores and, from records with their calls in order, `Next` scores
//! learned from traces (and, with `--set-params`, each operator's threshold and hops set to
//! the suggestion), as the lossless diff `set --dry-run` prints, applied with `--write`
//! as one transaction (per file) through the normal write-back (verify, atomic save). The
//! evaluation before and after (per record and, with ordered records, per step) goes to
//! stderr (text) or into the JSON.

use std::process::ExitCode;

use clap::ValueEnum;
use serde_json::{Value, json};

use super::common::{InputFormat, print_json};
use super::eval::TraceArgs;
use toolscope_core::evidence::eval::EvalOptions;
use toolscope_core::evidence::fit::Fitted;
use toolscope_core::evidence::learn::NextFit;
use toolscope_core::fit::report::{
    edge_json, line, next_json, pair_json, param_json, param_line, score_lines, smoothing_json,
    smoothing_text, step_line, step_pair_json,
};
use toolscope_core::fit::{
    Evals, Evaluate, FitOptions, ParamChange, apply_by_file, fit, param_changes,
};
use toolscope_core::model::Toolkit;
use toolscope_core::source::Format as SourceFormat;
use toolscope_core::source::save::SaveErrorKind;
use toolscope_core::text::for_terminal;
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
    /// Write the fitted scores (and, with --set-params, the suggested threshold and hops)
    /// to the files (verified, atomic); without it, print the diff.
    #[arg(long)]
    write: bool,
    /// Also set each operator's threshold and hops to the setting suggested after the fit
    /// (the one criterion: fewest tokens reaching step recall 0.90 on runs with their calls
    /// in order, else every record complete), in the same diff; written with --write.
    /// Off by default: the fit changes scores only.
    #[arg(long)]
    set_params: bool,
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
    let chat2graph = ws.holds(SourceFormat::Chat2Graph);
    if args.add_edges && chat2graph {
        super::common::warning(
            "Chat2Graph files keep their edges (their chains fix them); --add-edges only scores existing ones",
        );
    }
    let how = FitOptions {
        eval: opts,
        operator: args.traces.operator.clone(),
        holdout: args.holdout,
        add_edges: args.add_edges && !chat2graph,
        evaluate: Some(Evaluate {
            encoding: args.traces.encoding.into(),
            threshold: args.traces.threshold,
            hops: args.traces.hops,
        }),
    };
    let before_tk = ws.toolkit.clone();
    let done =
        fit(&before_tk, &records, &how, &|| false).ok_or_else(|| "fit stopped".to_string())?;
    let (changes, Some(evals)) = (done.changes, done.evals) else {
        return Err("fit gave no evaluation".to_string().into());
    };
    let (params, kept) = match args.set_params {
        true => param_changes(&before_tk, &evals.suggestions),
        false => (Vec::new(), Vec::new()),
    };
    for n in &kept {
        super::common::note(n);
    }
    let changed = !changes.is_empty() || !params.is_empty();
    let param_edits = params.iter().flat_map(ParamChange::edits).collect();
    let diff = apply_by_file(&mut ws, &before_tk, &changes, param_edits, &mut |n| {
        super::common::note(n)
    })?;
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
            "params": params.iter().map(param_json).collect::<Vec<_>>(),
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
            let fitted = (&changes.calls[..], &changes.next[..], &params[..]);
            for line in summary(&before_tk, fitted, &evals, args).lines() {
                super::common::status(line);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn summary(
    tk: &Toolkit,
    (fitted, next, params): (&[Fitted], &[NextFit], &[ParamChange]),
    evals: &Evals,
    args: &Args,
) -> String {
    let changed = !fitted.is_empty() || !next.is_empty() || !params.is_empty();
    let added = next.iter().filter(|f| f.edge.is_none()).count();
    let mut out = format!(
        "{} Call score(s) and {} Next score(s) fitted ({added} Next edge(s) added)",
        fitted.len(),
        next.len() - added
    );
    if args.set_params {
        out += &format!(", {} operator setting(s) set", params.len());
    }
    out += if args.write && changed {
        " and written\n"
    } else {
        " (not written; --write applies them)\n"
    };
    for p in params {
        out += &param_line(p);
    }
    out += &score_lines(tk, fitted, next);
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
