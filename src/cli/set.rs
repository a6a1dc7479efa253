//! `toolscope set PATH WHAT ...`: one lossless edit from a script: scores, threshold, hops,
//! descriptions, and every structural edit the TUI offers (link, unlink, remove, add-action,
//! add-tool, enabled).
//!
//! The edit is made under the file's write lock: the file is read, the edit applied to what
//! is there now, verified (the new text must load back into the expected graph) and written
//! atomically, its content checked once more right before the rename. When another program
//! (one that does not take the lock) changed the file in between, the edit is made again on
//! the new content; it is refused only when it no longer applies. `--dry-run` prints the
//! unified diff instead (a real patch; escaped only when stdout is a terminal).

mod what;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use toolscope_core::edit::{Edit, Transaction};
use toolscope_core::source::Format;
use toolscope_core::source::save::lock_all;
use toolscope_core::text::for_terminal;
use toolscope_core::workspace::{SaveErrorKind, Workspace};

use super::common::InputFormat;
pub use what::summary;
use what::{What, build_edit};

/// How often a save that lost a race with a program not taking the lock is redone.
const ATTEMPTS: usize = 5;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The toolkit file to edit, or a folder of toolkit files (the edit goes to the file
    /// that declares what it names).
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
    /// Print nothing on success (by default one line on stdout says what changed where).
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
}

pub fn run(args: &Args) -> ExitCode {
    match execute(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Attempt::Usage(message)) => {
            super::common::error(&message);
            ExitCode::from(2)
        }
        Err(Attempt::Raced(message) | Attempt::Failed(message)) => {
            super::common::error(&message);
            ExitCode::from(1)
        }
    }
}

fn execute(args: &Args) -> Result<(), Attempt> {
    // Held from the read to the rename, so that toolscope writers never interleave: the
    // file's lock, or every file's of a folder (in the order `lock_all` gives every writer,
    // so that two cannot wait on each other). Not for a path that does not exist: no lock
    // file is left beside a typo.
    let mut _locks = Vec::new();
    if !args.dry_run && args.path.exists() {
        let files = toolscope_core::source::expand_paths(std::slice::from_ref(&args.path))
            .map_err(|e| Attempt::Failed(e.to_string()))?;
        _locks = lock_all(&files).map_err(|e| Attempt::Failed(e.to_string()))?;
    }
    for attempt in 1..=ATTEMPTS {
        match attempt_once(args) {
            Err(Attempt::Raced(_)) if attempt < ATTEMPTS => continue,
            other => return other,
        }
    }
    Ok(())
}

enum Attempt {
    /// The file changed under us (a writer not taking the lock): read it again.
    Raced(String),
    Failed(String),
    /// The command names something ambiguously (exit status 2, as a usage error).
    Usage(String),
}

fn attempt_once(args: &Args) -> Result<(), Attempt> {
    let fail = |m: String| Attempt::Failed(m);
    let forced = args.input_format.map(Format::from);
    let clock = Instant::now();
    let mut ws = Workspace::open(std::slice::from_ref(&args.path), forced)
        .map_err(|e| fail(e.to_string()))?;
    let load = clock.elapsed();
    let txn = build_edit(&args.what, &ws.toolkit).map_err(|e| match e.usage {
        true => Attempt::Usage(e.message),
        false => Attempt::Failed(e.message),
    })?;
    let cascade = cascade(&txn, &ws);
    let tuning = txn.edits.iter().any(Edit::is_tuning);
    let what = txn.describe();
    let clock = Instant::now();
    let applied = ws.apply(txn).map_err(|e| fail(e.to_string()))?;
    let edit_time = clock.elapsed();
    if !applied.text_changed {
        super::common::status("no change: the file already says so");
        return Ok(());
    }
    if args.dry_run {
        print_notes(&applied.notes, &cascade, true);
        let diff = ws.diff(applied.file);
        match std::io::stdout().is_terminal() {
            true => super::common::out(&for_terminal(&diff)),
            false => super::common::out(&diff),
        }
        return Ok(());
    }
    let clock = Instant::now();
    match ws.save_all() {
        Ok(_) => {}
        Err(e) if e.kind == SaveErrorKind::Conflict => return Err(Attempt::Raced(e.to_string())),
        Err(e) => return Err(fail(e.to_string())),
    }
    if !args.quiet {
        // One line on stdout: what changed, in which file (the notes go to stderr).
        let line = format!("set {what} in {}", applied.path.display());
        super::common::out(&format!("{}\n", toolscope_core::text::sanitize(&line)));
    }
    print_notes(&applied.notes, &cascade, false);
    if ws.files()[applied.file].source.format == Format::Chat2Graph && tuning {
        super::common::note(toolscope_core::source::CHAT2GRAPH_TUNING_NOTE);
    }
    if args.timings {
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        eprintln!("load_ms: {:.1}", ms(load));
        eprintln!("edit_ms: {:.1}", ms(edit_time));
        eprintln!("verify_save_ms: {:.1}", ms(clock.elapsed()));
    }
    Ok(())
}

/// What a removal takes with it, as `kind name` and `seed ACTION of operator OP` (the
/// lines the TUI's removal dialog lists).
fn cascade(txn: &Transaction, ws: &Workspace) -> Vec<String> {
    let Some((kind, name)) = txn.edits.iter().find_map(|e| match e {
        Edit::RemoveNode { kind, name } => Some((kind, name)),
        _ => None,
    }) else {
        return Vec::new();
    };
    let mut out: Vec<String> = toolscope_core::edit::removal(&ws.toolkit, *kind, name)
        .map(|r| {
            r.nodes
                .iter()
                .map(|n| format!("{} {}", n.kind.as_str(), n.name))
                .collect()
        })
        .unwrap_or_default();
    out.extend(txn.edits.iter().filter_map(|e| match e {
        Edit::RemoveSeed { operator, action } => {
            Some(format!("seed {action} of operator {operator}"))
        }
        _ => None,
    }));
    out
}

fn print_notes(notes: &[String], cascade: &[String], dry_run: bool) {
    for node in cascade {
        let verb = if dry_run { "would remove" } else { "removed" };
        super::common::status(&format!("{verb}: {node}"));
    }
    for note in notes {
        super::common::note(note);
    }
}
