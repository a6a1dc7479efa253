//! The evidence commands: `--traces` and `:traces` load trace files, `V` shows the evidence
//! panel, `:fit` applies the Call and Next scores fitted to the traces as one undoable step.
//!
//! Trace files are watched like toolkits: a change reads them again once per batch of
//! messages (a file that cannot be read keeps the last records and says why).

use std::path::PathBuf;
use std::sync::mpsc::Sender;

use toolscope_core::edit::Transaction;
use toolscope_core::evidence::fit::Changes;
use toolscope_core::recommend::explain::num;

use crate::tui::app::{App, Level, Status};
use crate::tui::commands::table::{Command, cmd};
use crate::tui::msg::Msg;

#[rustfmt::skip]
pub static COMMANDS: &[Command] = &[
    cmd!("evidence-panel", [], None, "", Evidence, "evidence panel: the traces scored at the current threshold (:traces FILE loads them)", |a, _| {
        toggle_panel(a);
        Ok(())
    }),
    cmd!("traces", [], File, "[FILE...]", Evidence, "load trace files for the evidence (no FILE: read the same files again)", traces_command),
    cmd!("fit", [], None, "[add-edges]", Evidence, "fit Call and Next scores to the loaded traces, as one undoable edit (the changes go to :messages); add-edges: also the Next edges the runs show", fit_command),
];

/// Connects the evidence to the loop's channel, so loaded trace files are watched.
pub fn connect(app: &mut App, tx: Sender<Msg>) {
    app.evidence.tx = Some(tx);
}

/// Reads the trace files again when the watcher saw a change since the last batch.
pub fn flush(app: &mut App) {
    if std::mem::take(&mut app.evidence.stale) && app.evidence.loaded() {
        let paths = app.evidence.paths.clone();
        load(app, paths);
    }
}

/// Loads trace files into the app and evaluates them; the result goes to the status line.
pub fn load(app: &mut App, paths: Vec<PathBuf>) {
    match app.evidence.load(paths) {
        Ok((records, bad)) => {
            app.recompute();
            let bad = if bad > 0 {
                format!(", {bad} bad line(s) left out (`toolscope eval` lists them)")
            } else {
                String::new()
            };
            let n = app.evidence.paths.len();
            let watch = match app.evidence.watch() {
                Ok(()) => String::new(),
                Err(e) => format!(" ({e})"),
            };
            app.set_status(
                Level::Info,
                format!(
                    "traces: {records} record(s) from {n} file(s){bad}; V shows the evidence{watch}"
                ),
            );
        }
        Err(e) => app.set_status(Level::Error, format!("traces: {e}")),
    }
}

/// `:traces FILE...` loads files (names separated by spaces); `:traces` reads the loaded
/// ones again.
pub fn traces_command(app: &mut App, arg: &str) -> Result<(), String> {
    let paths: Vec<PathBuf> = if arg.is_empty() {
        if !app.evidence.loaded() {
            return Err("no traces loaded: :traces FILE".into());
        }
        app.evidence.paths.clone()
    } else {
        arg.split_whitespace().map(PathBuf::from).collect()
    };
    load(app, paths);
    Ok(())
}

/// `V`: the evidence panel in the right-hand pane (instead of the inspector or the diff
/// panel). Opening it turns the token estimates on.
pub fn toggle_panel(app: &mut App) {
    app.evidence.panel = !app.evidence.panel;
    if app.evidence.panel {
        app.diff_panel = false;
        app.evidence.tokens_on();
        app.refresh_evidence();
    }
}

/// `:fit`: the Call scores and, from records with their calls in order, the Next scores
/// fitted to every loaded record (as `toolscope fit` does), applied as one transaction;
/// the changes are listed in the messages (`M`). `:fit add-edges` also adds the Next
/// edges the runs show and a native graph lacks (as `fit --add-edges`).
pub fn fit_command(app: &mut App, arg: &str) -> Result<(), String> {
    if !app.evidence.loaded() {
        return Err("no traces loaded: :traces FILE".into());
    }
    let add_edges = match arg.trim() {
        "" => false,
        "add-edges" => true,
        other => {
            return Err(format!(
                "`:fit {other}`: the argument is `add-edges` or none"
            ));
        }
    };
    let chat2graph = app
        .session
        .ws
        .as_ref()
        .is_some_and(|ws| ws.holds(toolscope_core::source::Format::Chat2Graph));
    let resolved = app.evidence.resolved(&app.tk);
    let changes = Changes::new(&app.tk, &resolved, add_edges && !chat2graph);
    if changes.is_empty() {
        app.set_status(
            Level::Info,
            format!(
                "fit: the scores already fit the {} record(s)",
                resolved.len()
            ),
        );
        return Ok(());
    }
    let mut lines = Vec::with_capacity(changes.calls.len() + changes.next.len());
    for f in &changes.calls {
        lines.push(format!(
            "fit: {} -> {}: {} -> {} (called in {}/{} records)",
            app.tk.name(f.from),
            app.tk.name(f.to),
            num(f.old),
            num(f.new),
            f.called,
            f.present
        ));
    }
    for f in &changes.next {
        let old = f.old.map_or_else(|| "(new)".to_string(), num);
        lines.push(format!(
            "fit: {} -> {}: {old} -> {} ({} of {} steps)",
            app.tk.name(f.from),
            app.tk.name(f.to),
            num(f.new),
            f.steps,
            f.row_steps
        ));
    }
    let edits = changes.edits(&app.tk);
    crate::tui::editing::apply_edit(app, Transaction::from(edits))?;
    for l in &lines {
        app.log.push(&Status::info(l.clone()));
    }
    let first = lines[0].trim_start_matches("fit: ");
    let more = if lines.len() > 1 {
        format!(" and {} more (M lists them)", lines.len() - 1)
    } else {
        String::new()
    };
    app.set_status(
        Level::Info,
        format!(
            "fit: {} Call and {} Next score(s) changed, one undo step: {first}{more}",
            changes.calls.len(),
            changes.next.len()
        ),
    );
    Ok(())
}
