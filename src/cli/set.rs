//! `toolscope set PATH score|threshold|hops|desc ...`: one lossless edit from a script.
//!
//! The edit is verified (the new text must load back into the expected graph) and written
//! atomically; `--dry-run` prints the unified diff instead. A description is read from
//! stdin: a single line loses its final line break, multi-line text is kept as given.

use crate::text::for_terminal;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Subcommand;

use super::common::Kind;
use crate::edit::{Edit, Workspace};
use crate::model::{NodeKind, Toolkit};
use crate::source::Format;

use super::common::{InputFormat, parse_threshold};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The toolkit file to edit.
    #[arg(value_name = "PATH")]
    path: PathBuf,
    #[command(subcommand)]
    what: What,
    /// Print the unified diff of the edit instead of writing the file.
    #[arg(long, global = true)]
    dry_run: bool,
    /// Force the input format instead of detecting it.
    #[arg(long, value_enum, global = true)]
    input_format: Option<InputFormat>,
    /// Print `load_ms`, `edit_ms` and `verify_save_ms` to stderr.
    #[arg(long, global = true)]
    timings: bool,
}

#[derive(Debug, Subcommand)]
enum What {
    /// Set the score of the edge FROM -> TO (a number in [0, 1]).
    Score {
        /// The action the edge leaves.
        from: String,
        /// The action, tool or group it reaches.
        to: String,
        /// The new score.
        #[arg(value_parser = parse_threshold)]
        value: f64,
    },
    /// Set an operator's threshold (a number in [0, 1]).
    Threshold {
        /// Operator name (Chat2Graph: `<expert>/<n>`, `leader`, or the anchor name).
        operator: String,
        /// The new threshold.
        #[arg(value_parser = parse_threshold)]
        value: f64,
    },
    /// Set an operator's hop count.
    Hops {
        /// Operator name (Chat2Graph: `<expert>/<n>`, `leader`, or the anchor name).
        operator: String,
        /// The new hop count, 0 to 1000.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=1000))]
        value: u32,
    },
    /// Replace a node's description with the text read from stdin.
    Desc {
        /// The action, tool or group.
        node: String,
        /// The node's kind, when the name is used by more than one kind.
        #[arg(long, value_enum)]
        kind: Option<Kind>,
    },
}

pub fn run(args: &Args) -> ExitCode {
    match execute(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            super::common::error(&message);
            ExitCode::from(1)
        }
    }
}

fn execute(args: &Args) -> Result<(), String> {
    if args.path.is_dir() {
        return Err(format!(
            "{} is a directory; `set` edits one file",
            args.path.display()
        ));
    }
    let forced = args.input_format.map(Format::from);
    let clock = Instant::now();
    let mut ws =
        Workspace::open(std::slice::from_ref(&args.path), forced).map_err(|e| e.to_string())?;
    let load = clock.elapsed();
    let edit = build_edit(&args.what, &ws.toolkit)?;
    let clock = Instant::now();
    let applied = ws.apply(edit).map_err(|e| e.to_string())?;
    let edit_time = clock.elapsed();
    for note in &applied.notes {
        super::common::note(note);
    }
    if !applied.text_changed {
        eprintln!("no change: the file already says so");
        return Ok(());
    }
    if args.dry_run {
        print!("{}", for_terminal(&ws.diff(applied.file)));
        return Ok(());
    }
    let clock = Instant::now();
    ws.save_all().map_err(|e| e.to_string())?;
    if args.timings {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        eprintln!("load_ms: {:.1}", ms(load));
        eprintln!("edit_ms: {:.1}", ms(edit_time));
        eprintln!("verify_save_ms: {:.1}", ms(clock.elapsed()));
    }
    Ok(())
}

fn build_edit(what: &What, tk: &Toolkit) -> Result<Edit, String> {
    Ok(match what {
        What::Score { from, to, value } => {
            let a = tk
                .action(from)
                .ok_or_else(|| format!("no action `{from}`"))?;
            let to_kind = tk
                .named(to)
                .find(|b| tk.edge(a, *b).is_some())
                .map(|b| tk.kind(b))
                .ok_or_else(|| format!("no edge {from} -> {to}"))?;
            Edit::SetScore {
                from: from.clone(),
                to: to.clone(),
                to_kind,
                score: *value,
            }
        }
        What::Threshold { operator, value } => Edit::SetThreshold {
            operator: operator.clone(),
            value: *value,
        },
        What::Hops { operator, value } => Edit::SetHops {
            operator: operator.clone(),
            value: *value,
        },
        What::Desc { node, kind } => {
            let kind = node_kind(tk, node, kind.map(NodeKind::from))?;
            Edit::SetDesc {
                kind,
                name: node.clone(),
                text: read_stdin()?,
            }
        }
    })
}

fn node_kind(tk: &Toolkit, name: &str, given: Option<NodeKind>) -> Result<NodeKind, String> {
    let kinds: Vec<NodeKind> = tk.named(name).map(|ix| tk.kind(ix)).collect();
    match (given, kinds.as_slice()) {
        (Some(k), _) if kinds.contains(&k) => Ok(k),
        (Some(k), _) => Err(format!("no {} `{name}`", k.as_str())),
        (None, [k]) => Ok(*k),
        (None, []) => Err(format!("no node `{name}`")),
        (None, _) => Err(format!(
            "`{name}` names more than one kind of node; pass --kind"
        )),
    }
}

fn read_stdin() -> Result<String, String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("reading the description from stdin: {e}"))?;
    let text = text.replace("\r\n", "\n");
    let single = text.trim_end_matches('\n').lines().count() <= 1;
    Ok(if single {
        text.trim_end_matches('\n').to_string()
    } else {
        text
    })
}
