//! `toolscope export`: the graph as dot, mermaid, json or svg, the recommendation highlighted
//! when seeds are given.

use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{Inputs, SeedArgs, error, out};
use toolscope_core::evidence::steps::replay::{caption, record_index, replay};
use toolscope_core::evidence::{load_traces, otlp};
use toolscope_core::export::{self, ExportFormat, Highlight};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::{Params, recommend};
use toolscope_core::source::save::write_output;

/// The core's export formats as `--to` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target(ExportFormat);

static TARGETS: std::sync::LazyLock<Vec<Target>> =
    std::sync::LazyLock::new(|| ExportFormat::ALL.into_iter().map(Target).collect());

impl ValueEnum for Target {
    fn value_variants<'a>() -> &'a [Self] {
        &TARGETS
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let v = clap::builder::PossibleValue::new(self.0.name());
        Some(match self.0 {
            ExportFormat::Svg => v.help("an SVG image drawn by toolscope (no Graphviz needed)"),
            _ => v,
        })
    }
}

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: Inputs,
    /// Output format.
    #[arg(long, value_enum)]
    to: Target,
    #[command(flatten)]
    seeds: SeedArgs,
    /// SVG with seeds: draw the whole graph with the recommendation highlighted instead of
    /// the focus view (the recommendation and the nodes one edge beyond it).
    #[arg(long)]
    whole: bool,
    /// Draw one step of a recorded run, as `:replay RECORD STEP` shows it: the offer after
    /// the run's previous call (cut to the tools the run had) with the tool it called next
    /// outlined as a hit or a miss. RECORD is a number (1 to n, in load order) or a
    /// record's `id`; steps count from 0 (`eval --steps --per-step` numbers both so).
    /// Needs --traces; --threshold and --hops override the record's.
    #[arg(long, num_args = 2, value_names = ["RECORD", "STEP"], requires = "traces")]
    replay: Option<Vec<String>>,
    /// Trace files for --replay (repeatable): JSONL records or OTLP JSON lines.
    #[arg(long, value_name = "FILE", requires = "replay")]
    traces: Vec<std::path::PathBuf>,
    /// Write to FILE instead of stdout (never over an opened toolkit file).
    #[arg(short = 'o', long, value_name = "FILE")]
    output: Option<std::path::PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long, requires = "output")]
    force: bool,
}

pub fn run(args: &Args) -> ExitCode {
    let loaded = match args.inputs.load() {
        Ok(l) => l,
        Err(code) => return code,
    };
    let tk = &loaded.toolkit;
    if let Some(words) = &args.replay {
        return match replayed(tk, args, words) {
            Ok(text) => {
                let opened = opened(&args.inputs.paths, &loaded.toolkit.files, &args.traces);
                write_out(args.output.as_deref(), &text, &opened, args.force)
            }
            Err(e) => {
                error(&e);
                ExitCode::from(1)
            }
        };
    }
    let query = if args.seeds.any() {
        match args.seeds.resolve(tk) {
            Ok(q) => Some(q),
            Err(code) => return code,
        }
    } else {
        None
    };
    let rec = query.as_ref().map(|q| recommend(tk, &q.seeds, q.params));
    let hl = match (&query, &rec) {
        (Some(q), Some(rec)) => Some(Highlight {
            rec,
            threshold: q.params.threshold,
            seeds: &q.seeds,
        }),
        _ => None,
    };
    let title = export::Title {
        file: file_title(args),
        operator: args
            .seeds
            .operator
            .as_deref()
            .and_then(|n| tk.operator(n))
            .map(|o| o.name.clone()),
        hops: query.as_ref().map(|q| q.params.hops),
        called: None,
    };
    let text = args.to.0.write(tk, hl.as_ref(), args.whole, &title);
    let opened = opened(&args.inputs.paths, &loaded.toolkit.files, &args.traces);
    write_out(args.output.as_deref(), &text, &opened, args.force)
}

/// The files drawn, for the title line.
fn file_title(args: &Args) -> String {
    args.inputs
        .paths
        .iter()
        .map(|p| toolscope_core::text::sanitize(&p.display().to_string()).into_owned())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `--replay RECORD STEP`: the step's picture, as the TUI's replay shows it.
fn replayed(tk: &Toolkit, args: &Args, words: &[String]) -> Result<String, String> {
    if args.to.0 != ExportFormat::Svg {
        return Err("--replay draws a picture: use it with --to svg".into());
    }
    if !args.seeds.seeds.is_empty() || !args.seeds.seed.is_empty() || args.seeds.operator.is_some()
    {
        return Err("--replay takes its seeds and operator from the run: drop --seeds, --seed and --operator".into());
    }
    let [record, step] = words else {
        return Err("--replay takes RECORD and STEP".into());
    };
    let (records, diags) = load_traces(&args.traces, None, &otlp::OperatorNaming::default())?;
    crate::cli::eval::print_diags(&diags);
    let index = record_index(&records, record)?;
    let step: usize = step
        .parse()
        .map_err(|_| format!("`{step}` is no step number (steps count from 0)"))?;
    let r = &records[index];
    let probe = replay(tk, r, None, 1)?;
    let params = Params {
        threshold: args.seeds.threshold.unwrap_or(probe.params.threshold),
        hops: args.seeds.hops.unwrap_or(probe.params.hops),
    };
    // Only the step drawn is walked (issue 46: every step's offer was built, 1.8 GB for a
    // 20,000-call record).
    let mut played = replay(tk, r, Some(params), 1)?;
    let n = played.len();
    let Some(s) = played.step(tk, step) else {
        return Err(match n {
            0 => format!(
                "record {} has no calls in order (`calls`): no step to draw",
                index + 1
            ),
            _ => format!("record {} has steps 0 to {}", index + 1, n - 1),
        });
    };
    let mut rec = recommend(tk, &s.offer.seeds, played.params);
    if let Some(set) = &played.available {
        rec.retain_tools(tk, |x| set.binary_search(&x).is_ok());
    }
    let hl = Highlight {
        rec: &rec,
        threshold: played.params.threshold,
        seeds: &s.offer.seeds,
    };
    let title = export::Title {
        file: file_title(args),
        operator: played.operator.clone(),
        hops: Some(played.params.hops),
        called: Some(export::Called {
            node: s.target,
            hit: s.hit,
            caption: caption(index, &played, &s),
        }),
    };
    Ok(args.to.0.write(tk, Some(&hl), args.whole, &title))
}

/// Every file the command read, which its output must not replace (SPEC 6): the paths
/// given and the toolkit files found in them, with their sidecars and recovery file, and
/// `others` (trace and definition files); see `session::inputs`.
pub fn opened(
    given: &[std::path::PathBuf],
    files: &[std::path::PathBuf],
    others: &[std::path::PathBuf],
) -> Vec<std::path::PathBuf> {
    let state = toolscope_core::session::recovery::state_dir();
    toolscope_core::session::inputs::protected(given, files, others, state.as_deref())
}

/// Writes to a file (see [`write_output`]), or to stdout when no file is given.
pub fn write_out(
    path: Option<&std::path::Path>,
    text: &str,
    opened: &[std::path::PathBuf],
    force: bool,
) -> ExitCode {
    match path {
        None => {
            out(text);
            ExitCode::SUCCESS
        }
        Some(p) => match write_output(p, text, opened, force) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                error(&format!("cannot write {}: {e}", p.display()));
                ExitCode::from(1)
            }
        },
    }
}
