//! `toolscope diff`: the structural diff of two toolkits and, with seeds, the
//! recommendation diff.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;

use super::common::{InputFormat, SeedArgs, error, out, print_json};
use toolscope_core::diff::{RecDiff, recommendation_diff, structural_diff};
use toolscope_core::model::Toolkit;
use toolscope_core::recommend::recommend;
use toolscope_core::source::Format;
use toolscope_core::text::sanitize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The old toolkit (a file or directory).
    #[arg(value_name = "OLD")]
    old: PathBuf,
    /// The new toolkit (a file or directory).
    #[arg(value_name = "NEW")]
    new: PathBuf,
    /// Force the input format of both sides instead of detecting it.
    #[arg(long, value_enum)]
    input_format: Option<InputFormat>,
    /// Seeds (or an operator, resolved on each side) for the recommendation diff.
    #[command(flatten)]
    seeds: SeedArgs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: OutFormat,
}

fn load(path: &PathBuf, format: Option<InputFormat>) -> Result<Toolkit, ExitCode> {
    toolscope_core::load::load_paths(std::slice::from_ref(path), format.map(Format::from))
        .map(|l| l.toolkit)
        .map_err(|e| {
            error(&e.to_string());
            ExitCode::from(1)
        })
}

/// The recommendation on each side, each resolved against its own toolkit (so an operator's
/// threshold and hops may differ between the sides).
fn rec_diff(args: &Args, old: &Toolkit, new: &Toolkit) -> Result<RecDiff, ExitCode> {
    let (qo, qn) = (args.seeds.resolve(old)?, args.seeds.resolve(new)?);
    let (ro, rn) = (
        recommend(old, &qo.seeds, qo.params),
        recommend(new, &qn.seeds, qn.params),
    );
    Ok(recommendation_diff(
        (old, &ro, qo.params),
        (new, &rn, qn.params),
    ))
}

fn seed_names(args: &Args) -> Vec<String> {
    match &args.seeds.operator {
        Some(op) => vec![format!("operator {op}")],
        None => args
            .seeds
            .seeds
            .iter()
            .chain(args.seeds.seed.iter())
            .cloned()
            .collect(),
    }
}

pub fn run(args: &Args) -> ExitCode {
    let (old, new) = match (
        load(&args.old, args.input_format),
        load(&args.new, args.input_format),
    ) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    let structural = structural_diff(&old, &new);
    let rec = if args.seeds.any() {
        match rec_diff(args, &old, &new) {
            Ok(d) => Some(d),
            Err(code) => return code,
        }
    } else {
        None
    };
    match args.format {
        OutFormat::Json => {
            let mut v = structural.to_json();
            if let (Some(d), serde_json::Value::Object(m)) = (&rec, &mut v) {
                let mut r = d.to_json();
                if let serde_json::Value::Object(rm) = &mut r {
                    rm.insert("seeds".into(), serde_json::json!(seed_names(args)));
                }
                m.insert("recommendation".into(), r);
            }
            print_json(&v);
        }
        OutFormat::Text => {
            // Each change is one line: names are escaped whole, line breaks included.
            let mut text = String::new();
            let lines = structural.lines();
            if lines.is_empty() {
                text.push_str("no structural changes\n");
            }
            let mut line = |l: &str| {
                text.push_str(&sanitize(l));
                text.push('\n');
            };
            for l in lines {
                line(&l);
            }
            if let Some(d) = rec {
                line(&format!("seeds: {}", seed_names(args).join(", ")));
                for l in d.lines() {
                    line(&l);
                }
            }
            out(&text);
        }
    }
    ExitCode::SUCCESS
}
